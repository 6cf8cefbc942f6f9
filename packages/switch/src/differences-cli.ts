#!/usr/bin/env node
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadDifferences, renderInto } from './differences.js';

// Renders packages/switch/differences.json into the position handler README's "Inside central-ledger" table:
// `--write` rewrites the region, `--check` (the default) exits 1 when it differs.
const readme = fileURLToPath(new URL('../../position-handler/README.md', import.meta.url));
const text = readFileSync(readme, 'utf8');
const rendered = renderInto(text, loadDifferences());
if (process.argv.includes('--write')) {
  writeFileSync(readme, rendered);
} else if (rendered !== text) {
  console.error(
    `${readme}: the differences table is not what packages/switch/differences.json renders; run with --write`,
  );
  process.exitCode = 1;
}
