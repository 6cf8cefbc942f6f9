import type { Difference } from './compare.js';
import type { ExceptionList, Judgement } from './exceptions.js';

/** Who is likely to close a difference: the admin API's owner or the discovery API's. */
export function ownerOf(caseId: string): 'admin' | 'api' {
  return caseId.startsWith('admin.') || caseId.startsWith('setup.') || caseId.startsWith('api.endpointcache')
    ? 'admin'
    : 'api';
}

const show = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text === undefined ? '(absent)' : text.length > 400 ? `${text.slice(0, 397)}...` : text;
};

/**
 * A Markdown list of every case that differs from the recorded original, grouped by owner, then by case:
 * each difference as `field: original → ours`.
 */
export function differencesReport(
  diffs: readonly Difference[],
  verdict: Judgement,
  totals: { cases: number; when: string; commit: string },
  list: ExceptionList,
): string {
  const rowOf = (d: Difference) =>
    list.exceptions.find(
      (e) => e.cases.includes(d.caseId) && (d.field === e.field || d.field.startsWith(`${e.field}.`)),
    )?.row ?? 'NOT LISTED';
  const pending = new Set(list.rows.filter((r) => r.pending).map((r) => r.id));
  const byCase = new Map<string, Difference[]>();
  for (const d of diffs) byCase.set(d.caseId, [...(byCase.get(d.caseId) ?? []), d]);
  const lines = [
    '# Where our ALS differs from account-lookup-service v17.16.1 (parity corpus)',
    '',
    `Generated ${totals.when} from ${totals.commit} by \`node packages/als-parity/dist/cli.js compare --ours --report <file>\`.`,
    `${totals.cases} cases: ${totals.cases - byCase.size} identical, ${byCase.size} differ ` +
      `(${verdict.unexpected.length} differences not in exceptions.json, ${verdict.unused.length} listed but not seen).`,
    'Each line: `where: original → ours`. Placeholders: {payer}/{payee}/{ghost} FSP names, {id} party ID, {date} the',
    "request's Date, {trace}/{span} the request's trace ids, <span> a new span id, <oracle>/<fsp> simulator URLs.",
    'The cases are in packages/als-parity/src/corpus.ts; `--filter <case id regex>` re-runs some.',
    'Each difference is tagged with its row of packages/als-parity/exceptions.json: (pending) = to be closed,',
    '(kept) = a deliberate difference already in the table of packages/als/docs/differences.md.',
    '',
    'When you close a pending difference, the parity test (once merged) fails with "listedButGone" for it: run',
    '`node packages/als-parity/dist/cli.js compare --ours --update-pending` in your branch after `pnpm build`: it',
    'rewrites the pending exceptions to exactly what still differs (kept ones are never touched by it).',
    '',
  ];
  const groups: [string, 'admin' | 'api'][] = [
    ['admin-ttk (admin port: /oracles, /endpointcache)', 'admin'],
    ['alsflow (API port: discovery routes, callbacks, headers, texts)', 'api'],
  ];
  for (const [title, owner] of groups) {
    const ids = [...byCase.keys()].filter((id) => ownerOf(id) === owner);
    lines.push(`## ${title}: ${ids.length} cases`, '');
    for (const id of ids) {
      lines.push(`### ${id}`);
      for (const d of byCase.get(id) ?? []) {
        const row = rowOf(d);
        const kind = row === 'NOT LISTED' ? '' : pending.has(row) ? ' (pending)' : ' (kept)';
        lines.push(`- [${row}${kind}] \`${d.at}\`: ${show(d.original)} → ${show(d.ours)}`);
      }
      lines.push('');
    }
  }
  return `${lines.join('\n')}\n`;
}
