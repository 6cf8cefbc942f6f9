import { appendFileSync, readFileSync } from 'node:fs';

/**
 * A journal of the databases and topics the tests of one run create and drop, so that the run's end can name
 * any that a test file left behind: each belongs to one file, and one left over is state the next run (or a
 * file that guesses its name) could inherit. The vitest global set-up names the journal file in this variable;
 * the test workers and the processes they start inherit it. Outside a test run nothing is written.
 */
export const RESOURCE_JOURNAL_ENV = 'MOJAFAST_TEST_RESOURCE_JOURNAL';

export type ResourceKind = 'database' | 'topic';

export interface Leftover {
  readonly kind: ResourceKind;
  readonly name: string;
  /** Where it lives: host:port of the MariaDB server, or the broker list. */
  readonly server: string;
  /** The test file that created it, when the call came from one. */
  readonly file?: string;
}

export function recordResource(kind: ResourceKind, name: string, server: string, event: 'created' | 'dropped'): void {
  const journal = process.env[RESOURCE_JOURNAL_ENV];
  if (!journal) return;
  const file = event === 'created' ? testFileOf(new Error().stack) : undefined;
  // One short line per call with O_APPEND: lines from concurrent workers never interleave.
  appendFileSync(journal, `${JSON.stringify({ kind, name, server, event, file })}\n`);
}

/** The first test file (…/test/….test.ts) on a call stack. */
export function testFileOf(stack: string | undefined): string | undefined {
  return stack?.match(/(packages\/[^/\s]+\/test\/[^:\s)]+\.test\.ts)/)?.[1];
}

/** The resources the journal shows created and never dropped, in the order they were created. */
export function undropped(journalText: string): Leftover[] {
  const open = new Map<string, Leftover>();
  for (const line of journalText.split('\n')) {
    if (line === '') continue;
    const { event, ...resource } = JSON.parse(line) as Leftover & { event: 'created' | 'dropped' };
    const key = `${resource.kind}\t${resource.server}\t${resource.name}`;
    if (event === 'created') open.set(key, resource);
    else open.delete(key);
  }
  return [...open.values()];
}

export function readJournal(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}
