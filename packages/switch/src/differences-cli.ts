#!/usr/bin/env node
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadDifferences, renderInto } from './differences.js';

// Renders packages/switch/differences.json into the position handler's docs/differences.md ("Inside
// central-ledger"): `--write` rewrites the region, `--check` (the default) exits 1 when it differs.
const page = fileURLToPath(new URL('../../position-handler/docs/differences.md', import.meta.url));
const text = readFileSync(page, 'utf8');
const rendered = renderInto(text, loadDifferences());
if (process.argv.includes('--write')) {
  writeFileSync(page, rendered);
} else if (rendered !== text) {
  console.error(
    `${page}: the differences table is not what packages/switch/differences.json renders; run with --write`,
  );
  process.exitCode = 1;
}
