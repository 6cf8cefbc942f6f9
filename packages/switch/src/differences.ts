import { readFileSync } from 'node:fs';
import type { Observation } from './scenarios.js';

/**
 * Where the scenarios' outcome with our position handler differs from the outcome with central-ledger's own,
 * on the same switch in the same run: a machine-readable list (differences.json beside this package), each
 * entry with the lines that differ on each side and the reason. The suite fails on a difference the list does
 * not have and on an entry that no longer happens; a `pending` entry (a fix on its way) is accepted whatever
 * the difference and reported. The position handler's docs/differences.md renders the list (`renderTable`).
 */
export interface Difference {
  readonly scenario: string;
  /** Our lines that central-ledger's run does not have (`notification …`, `position payer USD = …`, `state T1 = …`). */
  readonly ours: readonly string[];
  readonly original: readonly string[];
  readonly reason: string;
  /** A fix of ours is under way: any difference is accepted and reported, none too. */
  readonly pending?: string;
}

export const DIFFERENCES_FILE = new URL('../differences.json', import.meta.url);

export function loadDifferences(file: URL = DIFFERENCES_FILE): Difference[] {
  return JSON.parse(readFileSync(file, 'utf8')) as Difference[];
}

/** An observation as comparable lines, sorted (notifications of different transfers may be read in any order). */
export function lines(o: Observation): string[] {
  return [
    ...o.notifications.map((n) => `notification ${n}`),
    ...Object.entries(o.positions).map(([k, v]) => `position ${k} = ${v}`),
    ...Object.entries(o.states).map(([k, v]) => `state ${k} = ${v}`),
  ].sort();
}

function minus(a: readonly string[], b: readonly string[]): string[] {
  const rest = [...b];
  const out: string[] = [];
  for (const line of a) {
    const i = rest.indexOf(line);
    if (i >= 0) rest.splice(i, 1);
    else out.push(line);
  }
  return out;
}

export interface ScenarioDiff {
  readonly scenario: string;
  readonly ours: string[];
  readonly original: string[];
}

export function diff(ours: Observation, original: Observation): ScenarioDiff {
  const a = lines(ours);
  const b = lines(original);
  return { scenario: ours.scenario, ours: minus(a, b), original: minus(b, a) };
}

const same = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);

export interface Verdict {
  /** Differences the list does not have (or has with other lines). */
  readonly unexpected: ScenarioDiff[];
  /** Listed differences (not pending) that did not happen. */
  readonly stale: Difference[];
  /** What the pending entries' scenarios did, to report. */
  readonly pending: { entry: Difference; diff: ScenarioDiff }[];
}

export function judge(
  ours: readonly Observation[],
  original: readonly Observation[],
  list: readonly Difference[],
): Verdict {
  const unexpected: ScenarioDiff[] = [];
  const stale: Difference[] = [];
  const pending: Verdict['pending'] = [];
  for (const o of ours) {
    const c = original.find((x) => x.scenario === o.scenario);
    if (!c) throw new Error(`scenario ${o.scenario} has no run with central-ledger's position handler`);
    const d = diff(o, c);
    const entry = list.find((e) => e.scenario === o.scenario);
    const differs = d.ours.length > 0 || d.original.length > 0;
    if (entry?.pending) pending.push({ entry, diff: d });
    else if (entry && !differs) stale.push(entry);
    else if (differs && !(entry && same(entry.ours, d.ours) && same(entry.original, d.original))) unexpected.push(d);
  }
  return { unexpected, stale, pending };
}

const cell = (xs: readonly string[]) => (xs.length === 0 ? '(nothing)' : xs.map((x) => `\`${x}\``).join('<br>'));

/** The differences table: one row per listed difference. */
export function renderTable(list: readonly Difference[]): string {
  const rows = list.map(
    (d) =>
      `| ${d.scenario}${d.pending ? ' (pending)' : ''} | ${cell(d.ours)} | ${cell(d.original)} | ${d.reason}${d.pending ? ` Pending: ${d.pending}` : ''} |`,
  );
  return ['| scenario | ours | central-ledger 19.14.0 | why |', '|---|---|---|---|', ...rows].join('\n');
}

export const TABLE_START = '<!-- switch-differences packages/switch/differences.json -->';
export const TABLE_END = '<!-- /switch-differences -->';

/** The page with the region between the markers replaced by the rendered table. */
export function renderInto(page: string, list: readonly Difference[]): string {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`the page has no ${TABLE_START} … ${TABLE_END} region`);
  return `${page.slice(0, start + TABLE_START.length)}\n${renderTable(list)}\n${page.slice(end)}`;
}

function outcome(o: Observation): string {
  const states = Object.entries(o.states)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const moved = Object.entries(o.positions)
    .filter(([, v]) => v !== '0')
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return `${states}; ${o.notifications.length} callbacks${moved ? `; ${moved}` : ''}`;
}

/** One line per scenario: each run's outcome in short and whether they are equal, a listed or a pending difference. */
export function scenarioTable(
  ours: readonly Observation[],
  original: readonly Observation[],
  list: readonly Difference[],
): string {
  const rows = ours.map((o) => {
    const c = original.find((x) => x.scenario === o.scenario);
    const d = c ? diff(o, c) : undefined;
    const entry = list.find((e) => e.scenario === o.scenario);
    const verdict =
      d && d.ours.length === 0 && d.original.length === 0
        ? 'equal'
        : entry?.pending
          ? 'differs (pending)'
          : 'differs (listed)';
    return `| ${o.scenario} | ${outcome(o)} | ${c ? outcome(c) : '-'} | ${verdict} |`;
  });
  return ['| scenario | ours | central-ledger 19.14.0 | verdict |', '|---|---|---|---|', ...rows].join('\n');
}

/** ml-api-adapter's API_TYPE: the FSPs' side of the switch. */
export type ApiMode = 'fspiop' | 'iso20022';

/**
 * Where the callbacks the FSPs received through ml-api-adapter differ with the same notifications, positions
 * and states (front-differences.json beside this package): each line as the FSP received it
 * (`ScenarioContext.describeCallback`), exactly, so any other difference fails.
 */
export interface CallbackDifference {
  readonly mode: ApiMode;
  readonly scenario: string;
  readonly ours: readonly string[];
  readonly original: readonly string[];
  readonly reason: string;
}

export const CALLBACK_DIFFERENCES_FILE = new URL('../front-differences.json', import.meta.url);

export function loadCallbackDifferences(file: URL = CALLBACK_DIFFERENCES_FILE): CallbackDifference[] {
  return JSON.parse(readFileSync(file, 'utf8')) as CallbackDifference[];
}

/** The callback lines each run has that the other does not (a callback can come twice: each line counts once). */
export function callbackDiff(ours: Observation, original: Observation): { ours: string[]; original: string[] } {
  return { ours: minus(ours.callbacks, original.callbacks), original: minus(original.callbacks, ours.callbacks) };
}

const MODE_TITLE: Record<ApiMode, string> = { fspiop: 'FSPIOP', iso20022: 'ISO 20022' };

/**
 * docs/scenarios-<mode>.md: per scenario each run's outcome, the callbacks the FSPs received and the verdict,
 * then every listed difference of the mode with its reason; rendered from a run's observations and the two
 * exception lists, never written by hand.
 */
export function renderFrontPage(
  mode: ApiMode,
  ours: readonly Observation[],
  original: readonly Observation[],
  list: readonly Difference[],
  callbackList: readonly CallbackDifference[],
): string {
  const rows = ours.map((o) => {
    const c = original.find((x) => x.scenario === o.scenario);
    if (!c) throw new Error(`scenario ${o.scenario} has no run with central-ledger's position handler`);
    const d = diff(o, c);
    const cb = callbackDiff(o, c);
    const verdict =
      d.ours.length > 0 || d.original.length > 0
        ? list.find((e) => e.scenario === o.scenario)?.pending
          ? 'differs (pending)'
          : 'differs (listed)'
        : cb.ours.length > 0 || cb.original.length > 0
          ? 'callbacks differ (listed)'
          : 'equal';
    return `| ${o.scenario} | ${outcome(o)} | ${outcome(c)} | ${o.callbacks.length} / ${c.callbacks.length} | ${verdict} |`;
  });
  const scenarioNames = new Set(ours.map((o) => o.scenario));
  const listed = [
    ...list
      .filter((d) => scenarioNames.has(d.scenario))
      .map((d) => `- **${d.scenario}** (notifications, positions, states): ${d.reason}`),
    ...callbackList
      .filter((d) => d.mode === mode)
      .map(
        (d) =>
          `- **${d.scenario}** (callbacks): ${d.reason}\n  - ours: ${d.ours.map((l) => `\`${l}\``).join(', ')}\n  - 19.14.0: ${d.original.map((l) => `\`${l}\``).join(', ')}`,
      ),
  ];
  return [
    `# The whole switch in ${MODE_TITLE[mode]} mode: ours against central-ledger 19.14.0's position handler`,
    '',
    `<!-- Rendered by packages/switch/test/front-suite.ts from its run and the exception lists (differences.json, front-differences.json); \`vitest -u\` rewrites it. -->`,
    '',
    `FSPs over HTTP through ml-api-adapter 16.10.1 (API_TYPE=${mode}) and central-ledger 19.14.0, every scenario first with our position handler, then with central-ledger's own. Outcome: each transfer's state by a GET, how many callbacks the notifications called for, and the positions that moved. Received: the HTTP callbacks the FSPs' servers recorded, the GET's answers included (ours / 19.14.0's).`,
    '',
    '| scenario | ours | central-ledger 19.14.0 | received | verdict |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    '## Listed differences',
    '',
    ...(listed.length > 0 ? listed : ['None.']),
    '',
  ].join('\n');
}
