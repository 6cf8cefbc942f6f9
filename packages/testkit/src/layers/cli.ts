/**
 * `pnpm layers`: writes biome.layers.jsonc and the layer sections of the services' docs from layers.ts, then
 * lets Biome format the JSON. Run from the repository's root.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderedFiles, sourceEntries } from './files.js';
import { SERVICES } from './layers.js';
import { unplaced } from './render.js';

const root = process.cwd();
const missing = SERVICES.flatMap((service) => {
  const { folders, files } = sourceEntries(root, service);
  return unplaced(service, folders, files);
});
if (missing.length > 0) {
  console.error(`layers: place these in packages/testkit/src/layers/layers.ts first: ${missing.join(', ')}`);
  process.exit(1);
}
for (const file of renderedFiles(root, SERVICES)) writeFileSync(join(root, file.path), file.text);
execFileSync('pnpm', ['-s', 'biome', 'format', '--write', 'biome.layers.jsonc'], { cwd: root, stdio: 'inherit' });
console.log('layers: biome.layers.jsonc and the services’ layer sections written');
