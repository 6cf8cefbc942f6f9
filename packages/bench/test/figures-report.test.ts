import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { figurePages, repoRoot, stalePages } from '../src/commands/report.js';
import { MEASUREMENT_KINDS, regionsOf, renderRegions } from '../src/report/figures.js';

// The figure tables are the report's output from result files kept in the repository: a page whose marked region
// differs from what the report renders (a figure typed or edited by hand, a result file changed without
// re-rendering) fails here, so it fails CI. Measurements live only under measured/; READMEs link to them.
describe('rendered pages', () => {
  it('every marked region of every page is what `pnpm bench:report` renders from its result files', () => {
    const pages = figurePages(repoRoot);
    expect(pages).toContain('packages/bench/measured/README.md');
    expect(pages).toContain('packages/als/docs/differences.md');
    expect(stalePages(repoRoot)).toEqual([]);
  });

  it('renders measurements only into pages under measured/, and the differences lists into docs/', async () => {
    const placed: Record<string, string[]> = {};
    for (const file of figurePages(repoRoot)) {
      const text = await readFile(join(repoRoot, file), 'utf8');
      for (const region of regionsOf(text, repoRoot)) placed[region.kind] = [...(placed[region.kind] ?? []), file];
    }
    for (const [kind, files] of Object.entries(placed)) {
      for (const file of files) {
        if (MEASUREMENT_KINDS.has(kind)) expect(file, kind).toMatch(/(^|\/)measured\//);
        else expect(file, kind).toMatch(/(^|\/)docs\//);
      }
    }
    expect(placed['als-differences']).toEqual(['packages/als/docs/differences.md']);
    expect(placed['position-variants']).toContain('packages/position-handler/measured/README.md');
  });
});

describe('bench:report rendering', () => {
  let root: string;
  const run = {
    commit: '0123456789abcdef0123456789abcdef01234567',
    dirty: false,
    date: '2026-11-23T13:00:00.000Z',
    load_avg_start: [1.5, 1, 1],
    load_avg_end: [2.25, 1, 1],
    cores: 2,
    command: 'node packages/bench/dist/cli.js position --transfers 10',
  };
  const phase = (msgsPerSecond: number) => ({
    messages: 10,
    msgs_per_s: msgsPerSecond,
    latency_ms: { p50: 1, p99: 2.04 },
    cpu_us_per_msg: { handler: 40, kafka: 5, bench: 12 },
    lost: 0,
    duplicated: 0,
  });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'bench-report-'));
    await mkdir(join(root, 'measured'));
    await writeFile(
      join(root, 'measured', 'a.json'),
      JSON.stringify({
        run,
        rate: 0,
        transfers: 10,
        kafka_client: 'platformatic',
        bench_producer: 'raw',
        bench_reader: 'platformatic',
        commit: phase(1234.4),
        mixed: null,
      }),
    );
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('renders a position row with its phases, the commit, date, load and command beside it', () => {
    const text = 'intro\n<!-- figures:position measured -->\nold\n<!-- /figures -->\nend\n';
    const rendered = renderRegions(text, root);
    expect(rendered.startsWith('intro\n<!-- figures:position measured -->\n| result file |')).toBe(true);
    expect(rendered.endsWith('<!-- /figures -->\nend\n')).toBe(true);
    // Only the phase the run had (commit), no prepare or mixed columns.
    expect(rendered).toContain(
      '| `a.json` | burst, 10 transfers | platformatic | raw / platformatic | 1234 | 2 | 40 | 12 | 0 / 0 | 0123456 | 2026-11-23 13:00 UTC | 1.50 → 2.25 (2 cores) | `node packages/bench/dist/cli.js position --transfers 10` |',
    );
    expect(rendered).not.toContain('prepare msgs/s');
    // Rendering again changes nothing.
    expect(renderRegions(rendered, root)).toBe(rendered);
  });

  it('finds a hand edit (bad input: a figure typed into a rendered region)', () => {
    const rendered = renderRegions('<!-- figures:position measured/a.json -->\n<!-- /figures -->\n', root);
    const edited = rendered.replace('| 1234 |', '| 9999 |');
    const [region] = regionsOf(edited, root);
    expect(region?.current).not.toBe(region?.rendered);
    expect(renderRegions(edited, root)).toBe(rendered);
  });

  it('refuses an unknown kind and a region that names no result file (bad input: a typo in the marker)', () => {
    expect(() => regionsOf('<!-- figures:positon measured -->\n<!-- /figures -->', root)).toThrow(
      'figures:positon is no kind of figures',
    );
    expect(() => regionsOf('<!-- figures:position -->\n<!-- /figures -->', root)).toThrow('names no result file');
  });
});
