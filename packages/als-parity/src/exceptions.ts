import { readFileSync } from 'node:fs';
import type { Difference } from './compare.js';

/**
 * A row of the ALS's "Differences from the original" (packages/als/docs/differences.md): what the original does, what ours does and why.
 * `pending`: a difference not yet closed (it is to be closed, not kept).
 */
export interface DifferenceRow {
  readonly id: string;
  readonly case: string;
  readonly original: string;
  readonly ours: string;
  readonly why: string;
  readonly pending?: boolean;
}

/** Differences the parity test accepts: these cases differ in this field (or below it) for this row's reason. */
export interface Exception {
  readonly cases: readonly string[];
  /** A field of compare.ts's Difference (`answer.body`, `fsp.headers.fspiop-http-method`, ...): it and any field below it. */
  readonly field: string;
  readonly row: string;
}

export interface ExceptionList {
  readonly rows: readonly DifferenceRow[];
  readonly exceptions: readonly Exception[];
}

export const exceptionsFile = new URL('../exceptions.json', import.meta.url);

export function loadExceptions(file: URL | string = exceptionsFile): ExceptionList {
  const list = JSON.parse(readFileSync(file, 'utf8')) as ExceptionList;
  const rows = new Set(list.rows.map((r) => r.id));
  for (const e of list.exceptions) {
    if (!rows.has(e.row))
      throw new Error(`exceptions.json: exception for ${e.cases.join(', ')} names no row "${e.row}"`);
  }
  return list;
}

const covers = (e: Exception, d: Difference) =>
  e.cases.includes(d.caseId) && (d.field === e.field || d.field.startsWith(`${e.field}.`));

export interface Judgement {
  /** Differences no exception lists. */
  readonly unexpected: readonly Difference[];
  /** Listed (case, field) pairs that no longer differ: the list must be made exact. */
  readonly unused: readonly { readonly caseId: string; readonly field: string; readonly row: string }[];
  readonly accepted: readonly Difference[];
}

/** Splits a run's differences by the exception list, and names each listed exception that did not occur. */
export function judge(diffs: readonly Difference[], list: ExceptionList, ranCases: ReadonlySet<string>): Judgement {
  const unexpected: Difference[] = [];
  const accepted: Difference[] = [];
  for (const d of diffs) (list.exceptions.some((e) => covers(e, d)) ? accepted : unexpected).push(d);
  const unused: { caseId: string; field: string; row: string }[] = [];
  for (const e of list.exceptions) {
    for (const caseId of e.cases) {
      if (!ranCases.has(caseId)) continue;
      if (!diffs.some((d) => covers({ ...e, cases: [caseId] }, d))) unused.push({ caseId, field: e.field, row: e.row });
    }
  }
  return { unexpected, unused, accepted };
}
