import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildLayer,
  layerRecipe,
  measureLayer,
  ownFiles,
  ownPackageDirs,
  readPackage,
  type ServiceSpec,
  services,
  servicesRoot,
} from '../src/index.js';

// Builds each image's application layer as its Dockerfile does (the build stage's `pnpm ... deploy`, read from
// the file, into a temporary directory; dist/ is already built by the global setup) and checks what an
// image would carry. `pnpm deploy --legacy` resolves the production dependencies again, so this needs the
// registry (or pnpm's metadata cache), as `pnpm install` does.

const repoRoot = resolve(fileURLToPath(new URL('../../../', import.meta.url)));
const root = servicesRoot(repoRoot);
const work = mkdtempSync(join(tmpdir(), 'image-layer-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The budget of the two services' application layer (docs/decisions/0008-deployment.md); the simulators are far below it. */
const budgetMegabytes = 60;

/**
 * An original's entry point in the layer (infra/containers/entry/): a JavaScript file whose only statement
 * imports the service's built entry under dist/, which exists.
 */
function isEntryPoint(dir: string, file: string): boolean {
  const code = readFileSync(join(dir, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('//'));
  const target = code.length === 1 ? /^import '(\.\.\/)+(dist\/[a-z-]+\.js)';$/.exec(code[0] ?? '')?.[2] : undefined;
  return target !== undefined && existsSync(join(dir, target));
}

/** Each service's layer directory, built once (asynchronously: a deploy can take a minute on a loaded machine). */
const layers = new Map<string, Promise<string>>();
function layerOf(spec: ServiceSpec): Promise<string> {
  let layer = layers.get(spec.id);
  if (layer === undefined) {
    const dir = join(work, spec.id);
    const recipe = layerRecipe(readFileSync(join(repoRoot, spec.dockerfile), 'utf8'));
    layer = buildLayer(root, recipe, dir, { build: false }).then(() => dir);
    layers.set(spec.id, layer);
  }
  return layer;
}

describe.each(services)('$id application layer', (spec: ServiceSpec) => {
  const built = () => layerOf(spec);

  it('holds built JavaScript and data files only: no src/, test/, TypeScript sources or source maps', async () => {
    const layer = await built();
    const dirs = ownPackageDirs(layer);
    expect(dirs.length).toBeGreaterThanOrEqual(1);
    for (const dir of dirs) {
      const files = ownFiles(dir);
      expect(files).toContain('package.json');
      expect(files.some((f) => f.startsWith('dist/') && f.endsWith('.js'))).toBe(true);
      expect(
        files.filter(
          (f) =>
            (/^(src|test)\//.test(f) && !(dir === layer && isEntryPoint(dir, f))) ||
            /\.(ts|map)$/.test(f) ||
            f.endsWith('.tsbuildinfo'),
        ),
      ).toEqual([]);
    }
  }, 120_000);

  if (spec.id !== 'sim') {
    it("answers to the original's entry points as Mojaloop's charts run them: src/ files that only import dist/", async () => {
      const dir = await built();
      const entries = ownFiles(dir).filter((f) => f.startsWith('src/'));
      expect(entries.sort()).toEqual(
        spec.id === 'als' ? ['src/handlers/index.js', 'src/index.js'] : ['src/handlers/index.js'],
      );
      for (const entry of entries) expect(isEntryPoint(dir, entry), entry).toBe(true);
    }, 120_000);
  }

  it('installs no devDependency (only what package.json lists under dependencies)', async () => {
    const dir = await built();
    const pkg = readPackage(join(root, spec.packageDir));
    const installed = readdirSync(join(dir, 'node_modules')).flatMap((entry) =>
      entry.startsWith('@') ? readdirSync(join(dir, 'node_modules', entry)).map((n) => `${entry}/${n}`) : [entry],
    );
    expect(installed.filter((name) => !name.startsWith('.')).sort()).toEqual(
      Object.keys(pkg.dependencies ?? {}).sort(),
    );
    // The build-time tools never come in through a dependency either.
    const store = readdirSync(join(dir, 'node_modules/.pnpm'));
    expect(store.filter((entry) => /^(typescript|@mojaloop\+api-snippets|vitest|@biomejs\+)/.test(entry))).toEqual([]);
  }, 120_000);

  it('loads its modules from the layer alone (every import resolves without src/ or a devDependency)', async () => {
    const dir = await built();
    const result = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', "await import('./dist/index.js'); console.log('loaded');"],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('loaded');
  }, 120_000);

  if (spec.id !== 'sim') {
    it(`is at most ${budgetMegabytes} MB beside the Node base image`, async () => {
      expect(measureLayer(await built()).megabytes).toBeLessThanOrEqual(budgetMegabytes);
    }, 120_000);
  }
});

describe('ALS application layer', () => {
  it('compiles the FSPIOP schemas it ships and refuses a body with them (no @mojaloop/api-snippets installed)', async () => {
    const dir = await layerOf(services.find((s) => s.id === 'als') as ServiceSpec);
    expect(existsSync(join(dir, 'dist/fspiop/fspiop-schemas.generated.json'))).toBe(true);
    const script = [
      "const { loadFspiopSchemas } = await import('./dist/fspiop/schemas.js');",
      'const schemas = loadFspiopSchemas();',
      "try { schemas.validate('1.1', 'ParticipantsPostRequest', {}); } catch (e) { console.log(e.message); }",
    ].join('\n');
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe(
      "3102 Missing mandatory element - /requestBody must have required property 'partyList'",
    );
  }, 120_000);
});
