#!/usr/bin/env node
/**
 * The application layer of each service image, built and measured without a Docker engine:
 * runs the build and `pnpm ... deploy` commands its Dockerfile's build stage runs (read from the file) in a
 * checkout, into a temporary directory instead of /out, and measures what the final stage copies from it.
 * The Node base image is not part of the figure.
 *
 *   node packages/deploy-check/dist/image-size-cli.js [--root <checkout>] [--source <text>] [--out <file.json>]
 *     [--service <id>]... [--no-build]
 *
 * --root: a checkout with its dependencies installed (default: this repository), e.g. an older commit
 * extracted elsewhere to measure "before". --no-build: dist/ is already built.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildLayer, layerRecipe, measureLayer } from './image-layer.js';
import { services } from './services.js';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: fileURLToPath(new URL('../../..', import.meta.url)) },
    out: { type: 'string' },
    service: { type: 'string', multiple: true },
    'no-build': { type: 'boolean', default: false },
    source: { type: 'string' },
  },
});
const root = resolve(values.root);
const selected = services.filter((s) => !values.service || values.service.includes(s.id));
if (selected.length === 0) {
  process.stderr.write(`no service among ${services.map((s) => s.id).join(', ')}\n`);
  process.exit(2);
}

const git = spawnSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' });
const report = {
  command: `node packages/deploy-check/dist/image-size-cli.js ${process.argv.slice(2).join(' ')}`.trim(),
  root,
  commit: git.status === 0 ? git.stdout.trim() : undefined,
  // What the checkout is when it is no git work tree (e.g. "main f2aec62, git archive").
  source: values.source,
  measuredAt: new Date().toISOString(),
  services: [] as unknown[],
};
for (const spec of selected) {
  const recipe = layerRecipe(readFileSync(join(root, spec.dockerfile), 'utf8'));
  const work = mkdtempSync(join(tmpdir(), `image-layer-${spec.id}-`));
  const target = join(work, 'out');
  try {
    const { commands } = await buildLayer(root, recipe, target, { build: !values['no-build'] });
    const size = measureLayer(target);
    process.stderr.write(`${spec.id}: ${size.megabytes} MB (${size.bytes} bytes, ${size.files} files)\n`);
    report.services.push({ id: spec.id, package: spec.packageName, dockerfile: spec.dockerfile, commands, ...size });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
const json = `${JSON.stringify(report, null, 2)}\n`;
if (values.out) writeFileSync(values.out, json);
else process.stdout.write(json);
