import { parseArgs } from 'node:util';
import { bodyCase } from '../micro/cases/body.js';
import { cacheCase } from '../micro/cases/cache.js';
import { decodeCase } from '../micro/cases/decode.js';
import { histogramCase } from '../micro/cases/histogram.js';
import { retryCase } from '../micro/cases/retry.js';
import { type CaseResult, type MicroCase, runCase } from '../micro/harness.js';
import { writeJson } from '../report/json.js';
import { positiveInteger } from './http.js';
import { progress } from './outcome.js';

const cases: readonly MicroCase[] = [retryCase, histogramCase, cacheCase, bodyCase, decodeCase];

export const microUsage = `mojafast-bench micro [options]
  Each hand-written hot-path piece beside the library it stands in for (and a floor where one exists), all
  sides of a case in the same invocation, rounds alternating; the median cost per operation of each side.
  --case NAME          only this case, repeatable (${cases.map((c) => c.name).join(', ')})
  --samples N          measured rounds per case after one warm-up round (default 7)
  --scale X            operations per sample times X (default 1)
  --seed N             seed of the generated inputs (default 1)
  --out FILE           write the JSON results (kept under packages/bench/measured/)`;

export async function microCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      case: { type: 'string', multiple: true, default: [] },
      samples: { type: 'string', default: '7' },
      scale: { type: 'string', default: '1' },
      seed: { type: 'string', default: '1' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${microUsage}\n`);
    return;
  }
  const unknown = values.case.filter((name) => !cases.some((c) => c.name === name));
  if (unknown.length > 0) throw new Error(`--case ${unknown.join(', ')}: no such case`);
  const chosen = values.case.length === 0 ? cases : cases.filter((c) => values.case.includes(c.name));
  const scale = Number(values.scale);
  if (!(scale > 0)) throw new Error(`--scale must be above 0, got "${values.scale}"`);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got "${values.seed}"`);
  const samples = positiveInteger('--samples', values.samples);
  progress(`micro: seed ${seed}, ${samples} samples per side`);
  const results: CaseResult[] = [];
  for (const micro of chosen) {
    const result = await runCase(micro, { seed, samples, scale, log: progress });
    results.push(result);
    process.stdout.write(`${formatCase(result)}\n\n`);
  }
  if (values.out) await writeJson(values.out, { mode: 'micro', seed, samples, scale, cases: results });
}

function formatCase(result: CaseResult): string {
  const lines = [`${result.name} (${result.unit}, median of samples; ${result.operation})`];
  for (const side of result.sides) {
    lines.push(
      `  ${side.label.padEnd(80)} ${String(side.median).padStart(9)}  [${side.min} … ${side.max}]  ×${side.vs_ours}`,
    );
  }
  return lines.join('\n');
}
