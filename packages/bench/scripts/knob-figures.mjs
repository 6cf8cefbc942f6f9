#!/usr/bin/env node
// Writes the measured effect of the handler's tuning knobs into a README, between
// `<!-- knob-figures:start -->` and `<!-- knob-figures:end -->`, from bench:position result files of `--knob`
// runs (their `variants` and `command`; for a result file written before the JSON carried its command, the
// command line in a sibling `<name>.cmd`), so the figures there are the program's, never typed.
//
//   node packages/bench/scripts/knob-figures.mjs packages/position-handler/README.md results/*.json
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const [readme, ...files] = process.argv.slice(2);
if (!readme || files.length === 0) {
  process.stderr.write('usage: knob-figures.mjs README.md result.json...\n');
  process.exit(2);
}

/** The client, when every row ran on the same one (a --knob run); a client comparison names it per row. */
const v0Client = (variants) =>
  variants.every((v) => v.knob && v.kafka_client === variants[0].kafka_client) ? `, ${variants[0].kafka_client}` : '';
const cell = (phase, pick) => (phase ? String(pick(phase)) : '-');
const blocks = files.map((file) => {
  const result = JSON.parse(readFileSync(file, 'utf8'));
  const variants = result.variants ?? [];
  const name = variants[0]?.knob?.name ?? 'KAFKA_CLIENT';
  const cmdFile = file.replace(/\.json$/, '.cmd');
  const command = result.command ?? (existsSync(cmdFile) ? readFileSync(cmdFile, 'utf8').trim() : '?');
  const withFloor = variants.some((v) => v.floor);
  const ratio = (v, action) =>
    v[action] && v.floor?.[action] ? (v[action].msgs_per_s / v.floor[action].msgs_per_s).toFixed(2) : '-';
  const floorCells = (v) =>
    withFloor
      ? [
          cell(v.floor?.prepare, (p) => Math.round(p.msgs_per_s)),
          ratio(v, 'prepare'),
          cell(v.floor?.commit, (p) => Math.round(p.msgs_per_s)),
          ratio(v, 'commit'),
        ]
      : [];
  const rows = variants.map((v) =>
    [
      `\`${v.knob?.value ?? v.kafka_client}\``,
      cell(v.prepare, (p) => Math.round(p.msgs_per_s)),
      cell(v.prepare, (p) => p.latency_ms.p99),
      cell(v.prepare, (p) => p.cpu_us_per_msg.handler),
      cell(v.commit, (p) => Math.round(p.msgs_per_s)),
      cell(v.commit, (p) => p.latency_ms.p99),
      cell(v.commit, (p) => p.cpu_us_per_msg.handler),
      ...floorCells(v),
    ].join(' | '),
  );
  return [
    `**\`${name}\`** (\`${command}\`, ${result.rate ? `${result.rate}/s offered` : 'burst'}, ${result.transfers} transfers${v0Client(variants)}):`,
    '',
    `| value | prepare msgs/s | prepare p99 ms | prepare handler µs/msg | commit msgs/s | commit p99 ms | commit handler µs/msg |${withFloor ? ' prepare floor msgs/s | prepare handler/floor | commit floor msgs/s | commit handler/floor |' : ''}`,
    `|---|---|---|---|---|---|---|${withFloor ? '---|---|---|---|' : ''}`,
    ...rows.map((r) => `| ${r} |`),
  ].join('\n');
});

const text = readFileSync(readme, 'utf8');
const start = '<!-- knob-figures:start -->';
const end = '<!-- knob-figures:end -->';
const from = text.indexOf(start);
const to = text.indexOf(end);
if (from < 0 || to < from) {
  process.stderr.write(`${readme} has no ${start} ... ${end} section\n`);
  process.exit(1);
}
writeFileSync(readme, `${text.slice(0, from + start.length)}\n${blocks.join('\n\n')}\n${text.slice(to)}`);
