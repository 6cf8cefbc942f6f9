import type { Difference } from './compare.js';
import type { Exception, ExceptionList } from './exceptions.js';
import type { CaseRecord } from './normalise.js';

/**
 * Which row of the differences table a difference belongs to, for differences not yet closed: the
 * cross-cutting header rows first, then the case's own subject, then texts, extensions and central-ledger
 * look-ups. Used to (re)write the pending exceptions from a run (`compare --update-pending`); a kept
 * (deliberate) exception is written by hand.
 */
const headerRows: [RegExp, string][] = [
  [
    /^(fsp|oracle)\.headers\.(fspiop-http-method|fspiop-uri|fspiop-destination|fspiop-source)$/,
    'outbound-fspiop-headers',
  ],
  [/^(fsp|oracle)\.headers\.(traceparent|tracestate)$/, 'traceparent'],
];

const caseRows: [RegExp, string][] = [
  [/oracle-(no-list|not-json|reset)$/, 'oracle-answers'],
  [/^batch\./, 'batch'],
  [/inactive/, 'inactive-participants'],
  [/^parties\.get\.(subid|error-path)|^participants\.get\.subid$/, 'subid-oracle-query'],
  [/^participants\.(post|put|delete)\.subid$/, 'subid-at-oracle-write'],
  [/\.id-brace$|\.id-space$/, 'path-validation'],
  [/plus-|\.(found-)?email$/, 'id-encoding'],
  [/oracle-duplicate-fsp$/, 'duplicate-fsp'],
  [/\.405$|get-type\.404$|^api\.endpointcache\.get$|^admin\.oracles\.(patch|get-id)$/, 'methods-405'],
  [/numeric-code$/, 'numeric-errorcode'],
  [/^participants\.put-id\./, 'participants-put-id'],
  [/^api\.endpointcache\.|^admin\.endpointcache\./, 'endpointcache-routes'],
  [/^admin\.oracles\.put-no-currency-oracle$/, 'oracle-update-no-currency'],
  [/^admin\.oracles\.post-duplicate$/, 'admin-duplicate-active'],
  [/^admin\.oracles\.put-same$/, 'admin-put-own-type-currency'],
  [/^admin\.oracles\.(put|delete)-1abc$/, 'admin-id-trailing-letters'],
  [/^admin\.oracles\.post-bad-url$/, 'admin-endpoint-url'],
  [/^admin\.|^setup\./, 'admin-oracles'],
  [/^(parties|participants)\.get\.currency/, 'currency-query'],
  [/unknown-query$/, 'query-validation'],
  [/^(parties|participants)\.get\.oracle-(404|400)$/, 'oracle-4xx-codes'],
  [/^participants\.put\.updated$/, 'participants-put-empty-body'],
  [/^participants\.(post|put)\.fsp-(unknown|other)$/, 'fspid-not-participant'],
  [/^participants\.get\.bad-id$/, 'participants-malformed-id'],
  [/^participants\.put\.no-body$|^parties\.put\.body-not-json$/, 'body-validation'],
];

export function rowOf(d: Difference, original: CaseRecord | undefined): string {
  for (const [pattern, row] of headerRows) if (pattern.test(d.field)) return row;
  const version = /^(fsp|oracle)\.headers\.(content-type|accept)$/.exec(d.field);
  if (version) {
    const upstream = version[1] as 'fsp' | 'oracle';
    const index = Number(new RegExp(`^${upstream}\\[(\\d+)\\]`).exec(d.at)?.[1] ?? -1);
    const url = original?.[upstream][index]?.url ?? '';
    return url.endsWith('/error') ? 'error-callback-version' : 'hub-callback-version';
  }
  if (d.field.includes('extensionList')) return 'error-extension-list';
  if (/^iso\.participants\.put\.(updated|subid|oracle-500|oracle-404|fsp-unknown)$/.test(d.caseId))
    return 'participants-put-v2-body';
  // An ISO 20022 case derived from an FSPIOP one (`iso.` + its id) falls under the same row.
  const subject = d.caseId.replace(/^iso\./, '');
  for (const [pattern, row] of caseRows) if (pattern.test(subject)) return row;
  if (d.field.endsWith('.errorDescription')) return 'texts';
  if (d.field === 'ledger') return 'ledger-lookups';
  return 'other';
}

/**
 * The exception list with its pending exceptions replaced by those `diffs` need beyond the kept ones:
 * one exception per (row, field), naming every case that differs there.
 */
export function withPending(
  list: ExceptionList,
  diffs: readonly Difference[],
  originals: ReadonlyMap<string, CaseRecord>,
  options: { adoptKept?: boolean } = {},
): ExceptionList {
  const pendingRows = new Set(list.rows.filter((r) => r.pending).map((r) => r.id));
  // Pending exceptions of cases this run did not compare (the other API type's corpus) stay as they are.
  const elsewhere = list.exceptions
    .filter((e) => pendingRows.has(e.row))
    .map((e) => ({ ...e, cases: e.cases.filter((id) => !originals.has(id)) }))
    .filter((e) => e.cases.length > 0);
  const kept = [...list.exceptions.filter((e) => !pendingRows.has(e.row)), ...elsewhere];
  const covered = (d: Difference) =>
    kept.some((e) => e.cases.includes(d.caseId) && (d.field === e.field || d.field.startsWith(`${e.field}.`)));
  const groups = new Map<string, { row: string; field: string; cases: Set<string> }>();
  for (const d of diffs) {
    if (covered(d)) continue;
    const row = rowOf(d, originals.get(d.caseId));
    const key = `${row}\u0000${d.field}`;
    const group = groups.get(key) ?? { row, field: d.field, cases: new Set<string>() };
    group.cases.add(d.caseId);
    groups.set(key, group);
  }
  const pending: Exception[] = [...groups.values()]
    .sort((a, b) => (a.row === b.row ? (a.field < b.field ? -1 : 1) : a.row < b.row ? -1 : 1))
    .map((g) => ({ cases: [...g.cases].sort(), field: g.field, row: g.row }));
  const rows = new Set(list.rows.map((r) => r.id));
  for (const e of pending) {
    if (!rows.has(e.row)) throw new Error(`exceptions.json has no row "${e.row}" (needed by ${e.cases.join(', ')})`);
    if (!pendingRows.has(e.row) && !options.adoptKept) {
      throw new Error(
        `row "${e.row}" is kept (not pending), but ${e.cases.join(', ')} differ in ${e.field} beyond its exceptions: list them by hand or fix the ALS`,
      );
    }
  }
  // Kept rows' new exceptions (only with adoptKept: a reviewed first listing) go before the pending ones.
  const adopted = pending.filter((e) => !pendingRows.has(e.row));
  const stillPending = pending.filter((e) => pendingRows.has(e.row));
  return { rows: list.rows, exceptions: [...kept, ...adopted, ...stillPending] };
}
