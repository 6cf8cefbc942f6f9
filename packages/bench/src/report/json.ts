import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { provenance } from './provenance.js';

/** Writes a result file; an object gets `run` (commit, date, machine load, command) first. */
export async function writeJson(file: string, value: unknown): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const withRun =
    value !== null && typeof value === 'object' && !Array.isArray(value) ? { run: provenance(), ...value } : value;
  await writeFile(file, `${JSON.stringify(withRun, null, 2)}\n`);
}
