import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** One Kafka message as kcat prints it with `-K <delimiter>`: the key, the delimiter, the value, a newline. */
export interface DumpedMessage {
  readonly key: string | null;
  readonly value: string;
}

/**
 * kcat's key/value format (`kcat -C -t topic-transfer-position -K '|' -e > dump.txt`, replayed with
 * `kcat -P -K '|'`): the key ends at the first delimiter, since keys are account ids and values are JSON
 * that may contain the delimiter. kcat prints an empty key for a null key.
 */
export function parseDumpLine(line: string, delimiter: string): DumpedMessage {
  const at = line.indexOf(delimiter);
  if (at < 0) throw new Error(`dump line has no key delimiter "${delimiter}": ${line.slice(0, 80)}`);
  const key = line.slice(0, at);
  return { key: key === '' ? null : key, value: line.slice(at + delimiter.length) };
}

export function formatDumpLine(message: DumpedMessage, delimiter: string): string {
  if (message.value.includes('\n')) throw new Error('a kcat dump holds one message per line; the value has a newline');
  return `${message.key ?? ''}${delimiter}${message.value}\n`;
}

export async function* readDump(file: string, delimiter: string): AsyncGenerator<DumpedMessage> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    yield parseDumpLine(line, delimiter);
  }
}

export async function writeDump(file: string, messages: Iterable<DumpedMessage>, delimiter: string): Promise<number> {
  const out = createWriteStream(file);
  let count = 0;
  for (const message of messages) {
    if (!out.write(formatDumpLine(message, delimiter))) await once(out, 'drain');
    count++;
  }
  out.end();
  await once(out, 'finish');
  return count;
}
