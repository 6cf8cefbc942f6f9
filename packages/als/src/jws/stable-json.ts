/**
 * JSON with object keys in sorted order, as safe-stable-stringify writes it: the form the original's JWS
 * signer signs and its validator re-creates from a parsed body (@mojaloop/sdk-standard-components
 * src/lib/jws/jwsSigner.js and jwsValidator.js), so a signature does not depend on key order.
 */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : stableStringify(v))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const v = record[key];
    if (v === undefined || typeof v === 'function') continue;
    parts.push(`${JSON.stringify(key)}:${stableStringify(v)}`);
  }
  return `{${parts.join(',')}}`;
}
