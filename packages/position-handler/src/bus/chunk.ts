/**
 * A produce request carries one record batch per partition, and the broker refuses a batch larger than
 * message.max.bytes (1 MiB by default), so sends are cut at this many bytes of values (KAFKA_PRODUCE_BATCH_BYTES).
 */
export const PRODUCE_CHUNK_BYTES = 800_000;

/** Splits messages into sends under `limit` bytes each (a single larger message goes alone). */
export function chunkBySize<T extends { readonly value: string | Buffer }>(
  messages: readonly T[],
  limit = PRODUCE_CHUNK_BYTES,
): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const message of messages) {
    const length = (typeof message.value === 'string' ? Buffer.byteLength(message.value) : message.value.length) + 64;
    if (current.length > 0 && size + length > limit) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(message);
    size += length;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
