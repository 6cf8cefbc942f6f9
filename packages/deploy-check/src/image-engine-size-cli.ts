#!/usr/bin/env node
/**
 * The built images' sizes as the container engine reports them (`infra/images sizes`): per image its total,
 * its application layer (the final stage's `COPY --from=build /out`, the deploy output) and what it adds to
 * its base; the base's own size; the build times `infra/images build` logged. Written as JSON (--out FILE, else
 * stdout) and rendered into packages/deploy-check/measured/README.md by `pnpm bench:report` (figures kind `images`).
 *
 *   MOJAFAST_CONTAINER_ENGINE=podman node packages/deploy-check/dist/image-engine-size-cli.js --base <image>
 *     [--timings <file.jsonl>] [--out <file.json>]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { imageOf } from './containers.js';
import { engineName, execOk } from './engine.js';
import { services } from './services.js';

const { values } = parseArgs({
  options: { base: { type: 'string' }, timings: { type: 'string' }, out: { type: 'string' } },
});
if (!values.base) {
  process.stderr.write('image sizes: --base <image> is required (infra/images sizes passes it)\n');
  process.exit(2);
}
const engine = engineName();
const MB = (bytes: number) => Math.round(bytes / 1e5) / 10;

async function imageSize(image: string): Promise<number> {
  const { stdout } = await execOk(engine, ['image', 'inspect', '--format', '{{.Size}}', image]);
  return Number(stdout.trim());
}

/** The image's layers, newest first: size in bytes and the instruction that made it. */
async function layers(image: string): Promise<{ bytes: number; createdBy: string }[]> {
  if (engine === 'podman') {
    // podman 4.3 prints sizes for humans in a --format template even with --human=false; its JSON has bytes.
    const { stdout } = await execOk(engine, ['history', '--format', 'json', image]);
    return (JSON.parse(stdout) as { size: number; CreatedBy: string }[]).map((l) => ({
      bytes: l.size,
      createdBy: l.CreatedBy,
    }));
  }
  const { stdout } = await execOk(engine, [
    'history',
    '--human=false',
    '--no-trunc',
    '--format',
    '{{.Size}}\t{{.CreatedBy}}',
    image,
  ]);
  return stdout
    .trim()
    .split('\n')
    .map((line) => {
      const [size = '0', ...rest] = line.split('\t');
      return { bytes: Number(size), createdBy: rest.join('\t') };
    });
}

/**
 * One line per build of `infra/images build`: {"service","seconds","cache",...}; cache is cold (no image
 * before), warm (layers cached, sources changed) or unchanged (everything from the cache).
 */
interface Timing {
  readonly service: string;
  readonly seconds: number;
  readonly cache: string;
  readonly at: string;
}
const timings: Timing[] =
  values.timings && existsSync(values.timings)
    ? readFileSync(values.timings, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Timing)
    : [];
/** The last build of each service of each kind. */
const lastBuild = (service: string, cache: string) =>
  timings.filter((t) => t.service === service && t.cache === cache).at(-1)?.seconds ?? null;

const loadAtStart = loadavg();
const baseBytes = await imageSize(values.base);
const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' });
const report = {
  run: {
    command: 'infra/images sizes',
    commit: git.status === 0 ? git.stdout.trim() : null,
    dirty: status.status === 0 ? status.stdout.trim() !== '' : null,
    date: new Date().toISOString(),
    cores: cpus().length,
    load_avg_start: loadAtStart,
    load_avg_end: loadavg(),
  },
  engine,
  base: { image: values.base, bytes: baseBytes, megabytes: MB(baseBytes) },
  images: await Promise.all(
    services.map(async (spec) => {
      const image = imageOf(spec.id);
      const bytes = await imageSize(image);
      // The final stage's only COPY is the deploy output (test/wiring.test.ts holds the Dockerfiles to that),
      // the newest COPY of the history (the official base has COPYs of its own below it); podman records it as
      // "COPY dir:<digest> in ./", docker as "COPY /out ./".
      const copy = (await layers(image)).find((l) => /\bCOPY\b/.test(l.createdBy));
      if (!copy) throw new Error(`${image}: no COPY layer in its history`);
      return {
        id: spec.id,
        image,
        bytes,
        megabytes: MB(bytes),
        app_layer_megabytes: MB(copy.bytes),
        over_base_megabytes: MB(bytes - baseBytes),
        build_seconds: {
          cold: lastBuild(spec.id, 'cold'),
          warm: lastBuild(spec.id, 'warm'),
          unchanged: lastBuild(spec.id, 'unchanged'),
        },
      };
    }),
  ),
};
// Arrays of numbers on one line, as the repository's formatter (Biome) keeps JSON files.
const json = `${JSON.stringify(report, null, 2).replace(/\[\s+([-\d.,\s]+?)\s+\]/g, (_, inner: string) => `[${inner.split(/,\s*/).join(', ')}]`)}\n`;
if (values.out) writeFileSync(values.out, json);
else process.stdout.write(json);
for (const image of report.images)
  process.stderr.write(
    `${image.image}: ${image.megabytes} MB, application layer ${image.app_layer_megabytes} MB, base + ${image.over_base_megabytes} MB\n`,
  );
