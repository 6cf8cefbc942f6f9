import type { CaseRecord, UpstreamRequest } from './normalise.js';

/**
 * One difference between the recorded original and the ALS under test, in one case. `field` names where,
 * without list indices (`answer.status`, `answer.body.errorInformation.errorDescription`,
 * `fsp.headers.fspiop-http-method`, `oracle.url`, `fsp` for a different set of requests, ...), so an
 * exception names a field once for every request of a kind.
 */
export interface Difference {
  readonly caseId: string;
  readonly field: string;
  /** Where exactly, with indices, e.g. `fsp[0].headers.fspiop-http-method`. */
  readonly at: string;
  readonly original: unknown;
  readonly ours: unknown;
}

function walk(a: unknown, b: unknown, field: string, at: string, out: Omit<Difference, 'caseId'>[]): void {
  if (a === b) return;
  const bothObjects = a !== null && b !== null && typeof a === 'object' && typeof b === 'object';
  if (bothObjects && Array.isArray(a) === Array.isArray(b)) {
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) {
        out.push({ field, at, original: a, ours: b });
        return;
      }
      for (const [i, item] of a.entries()) walk(item, b[i], field, `${at}[${i}]`, out);
      return;
    }
    const ao = a as Record<string, unknown>;
    const bo = b as Record<string, unknown>;
    for (const key of [...new Set([...Object.keys(ao), ...Object.keys(bo)])].sort()) {
      walk(ao[key], bo[key], `${field}.${key}`, `${at}.${key}`, out);
    }
    return;
  }
  out.push({ field, at, original: a, ours: b });
}

const requestKey = (r: UpstreamRequest) => `${r.fsp ?? ''} ${r.method} ${r.url}`;

/** Requests of one upstream: the same requests (fsp, method, url) compared field by field, else the set differs. */
function compareRequests(
  name: 'oracle' | 'fsp',
  a: readonly UpstreamRequest[],
  b: readonly UpstreamRequest[],
  out: Omit<Difference, 'caseId'>[],
): void {
  const ka = a.map(requestKey);
  const kb = b.map(requestKey);
  if (ka.join('\n') !== kb.join('\n')) {
    out.push({ field: name, at: name, original: ka, ours: kb });
    return;
  }
  a.forEach((r, i) => {
    const s = b[i] as UpstreamRequest;
    walk(r.headers, s.headers, `${name}.headers`, `${name}[${i}].headers`, out);
    walk(r.body, s.body, `${name}.body`, `${name}[${i}].body`, out);
  });
}

/** Every difference of one case. */
export function compareCase(original: CaseRecord, ours: CaseRecord): Difference[] {
  const out: Omit<Difference, 'caseId'>[] = [];
  walk(original.answer.status, ours.answer.status, 'answer.status', 'answer.status', out);
  walk(original.answer.contentType, ours.answer.contentType, 'answer.contentType', 'answer.contentType', out);
  walk(original.answer.body, ours.answer.body, 'answer.body', 'answer.body', out);
  compareRequests('oracle', original.oracle, ours.oracle, out);
  compareRequests('fsp', original.fsp, ours.fsp, out);
  walk(original.ledger, ours.ledger, 'ledger', 'ledger', out);
  return out.map((d) => ({ caseId: original.id, ...d }));
}

/** Every difference of a run against the recorded cases; a case missing on either side is one difference. */
export function compareRuns(original: readonly CaseRecord[], ours: readonly CaseRecord[]): Difference[] {
  const mine = new Map(ours.map((r) => [r.id, r]));
  const out: Difference[] = [];
  for (const r of original) {
    const s = mine.get(r.id);
    if (!s) out.push({ caseId: r.id, field: 'case', at: 'case', original: 'recorded', ours: 'not run' });
    else out.push(...compareCase(r, s));
  }
  const recorded = new Set(original.map((r) => r.id));
  for (const s of ours) {
    if (!recorded.has(s.id))
      out.push({ caseId: s.id, field: 'case', at: 'case', original: 'not recorded', ours: 'run' });
  }
  return out;
}

const show = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text === undefined ? '(absent)' : text.length > 300 ? `${text.slice(0, 297)}...` : text;
};

/** One line per difference: `case  at: original → ours`. */
export function formatDifferences(diffs: readonly Difference[]): string {
  return diffs.map((d) => `${d.caseId}  ${d.at}: ${show(d.original)} → ${show(d.ours)}`).join('\n');
}
