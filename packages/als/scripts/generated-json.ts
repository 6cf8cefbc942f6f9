// What the schema scripts share: the references in a schema, records sorted by name, and the generated JSON
// file written as Biome formats it or checked against what would be written. Node runs this file as it is
// (type stripping), as it runs the scripts that import it.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

/** Every `$ref` string under a value. */
export function refsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, out);
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') out.push(child);
      else refsIn(child, out);
    }
  }
  return out;
}

/** The record with its keys in code-point order, so a file does not change with the order of a walk. */
export const sortedByName = <T>(record: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * With `--check` among the arguments: exit 1 when `file` holds other content than `content`, naming `rewrite`
 * (the command that rewrites it). Else `file` is rewritten, as Biome formats it so that the lint accepts it.
 */
export function writeOrCheck(file: string, content: unknown, rewrite: string, from: string): void {
  if (process.argv.includes('--check')) {
    if (!isDeepStrictEqual(JSON.parse(readFileSync(file, 'utf8')), content)) {
      process.stderr.write(`${file} is stale; run: ${rewrite}\n`);
      process.exit(1);
    }
    return;
  }
  const biome = fileURLToPath(new URL('../../../node_modules/.bin/biome', import.meta.url));
  const result = spawnSync(biome, ['format', `--stdin-file-path=${file}`], {
    input: `${JSON.stringify(content, null, 2)}\n`,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`biome format failed: ${result.stderr}`);
  writeFileSync(file, result.stdout);
  process.stdout.write(`wrote ${file} from ${from}\n`);
}
