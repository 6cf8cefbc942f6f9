import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AssertionFailure, RunReport } from './report.js';

/**
 * An assertion of our collections that account-lookup-service v17.16.1 passes and ours does not yet, with
 * the reason. The list is the Testing Toolkit's view of what remains to be done: a failure not listed is a
 * regression, a listed one that passes is stale and must be removed.
 */
export interface KnownDifference {
  readonly collection: string;
  readonly request: string;
  readonly assertion: string;
  readonly reason: string;
}

export const knownDifferencesFile = fileURLToPath(new URL('../known-differences.json', import.meta.url));

export function readKnownDifferences(file = knownDifferencesFile): KnownDifference[] {
  return JSON.parse(readFileSync(file, 'utf8')) as KnownDifference[];
}

const key = (collection: string, f: Pick<AssertionFailure, 'request' | 'assertion'>) =>
  `${collection} › ${f.request} › ${f.assertion}`;

/** The failures the list does not name, and the listed differences of this collection that did not occur. */
export function judgeReport(
  report: RunReport,
  known: readonly KnownDifference[],
): { unexpected: AssertionFailure[]; stale: KnownDifference[] } {
  const listed = new Set(known.filter((k) => k.collection === report.file).map((k) => key(k.collection, k)));
  const failed = new Set(report.failures.map((f) => key(report.file, f)));
  return {
    unexpected: report.failures.filter((f) => !listed.has(key(report.file, f))),
    stale: known.filter((k) => k.collection === report.file && !failed.has(key(k.collection, k))),
  };
}
