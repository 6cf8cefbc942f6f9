import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderedFiles, sourceEntries } from '../src/layers/files.js';
import { SERVICES, type ServiceLayers } from '../src/layers/layers.js';
import { parseJsonc, renderBiomeLayers, unplaced } from '../src/layers/render.js';

const root = join(import.meta.dirname, '../../..');

describe('the layers, declared once (packages/testkit/src/layers/layers.ts)', () => {
  it('every folder and file under each service’s src/ is placed: a new folder has no rule until it is', () => {
    for (const service of SERVICES) {
      const { folders, files } = sourceEntries(root, service);
      expect(unplaced(service, folders, files), `${service.pkg}: add to layers.ts, then pnpm layers`).toEqual([]);
    }
  });

  it('a folder it does not know is named', () => {
    const [als] = SERVICES as [ServiceLayers];
    expect(unplaced(als, ['discovery', 'app'], ['main.ts', 'extra.ts'])).toEqual([
      'packages/als/src/app/',
      'packages/als/src/extra.ts',
    ]);
  });

  it('biome.layers.jsonc, the design tables and the README lines are what `pnpm layers` writes', () => {
    for (const file of renderedFiles(root, SERVICES)) {
      const committed = readFileSync(join(root, file.path), 'utf8');
      if (file.path.endsWith('.jsonc')) {
        // Biome formats the JSON as it likes: the comments and the rules are compared, not the spacing.
        const comments = (text: string) => text.split('\n').filter((line) => line.startsWith('//'));
        expect(comments(committed), 'run pnpm layers').toEqual(comments(file.text));
        expect(parseJsonc(committed), 'run pnpm layers').toEqual(parseJsonc(file.text));
      } else {
        expect(committed, `${file.path}: run pnpm layers`).toBe(file.text);
      }
    }
  });

  it('each layer may import only what lies below it, and a pure layer no I/O module', () => {
    const text = renderBiomeLayers(SERVICES);
    const overrides = (parseJsonc(text) as { overrides: { includes: string[]; linter: unknown }[] }).overrides;
    const rule = (path: string) => {
      const found = overrides.find((o) => o.includes[0] === path) as
        | { linter: { rules: { style: { noRestrictedImports: { options: { patterns: { group: string[] }[] } } } } } }
        | undefined;
      return found?.linter.rules.style.noRestrictedImports.options.patterns.map((p) => p.group);
    };
    expect(rule('packages/als/src/discovery/**')?.[1]).toEqual(['../*/**', '!../fspiop/**']);
    expect(rule('packages/als/src/discovery/**')?.[2]).toContain('fastify');
    expect(rule('packages/position-handler/src/ledger/actions/**')?.[0]).toEqual(['../../**']);
    expect(rule('packages/position-handler/src/store/**')?.[1]).toContain('!../runner/**');
    // Ranks hold: no layer may import one of a rank at or above its own (siblings neither way).
    for (const service of SERVICES) {
      const rankOf = new Map(service.ranks.flatMap((rank, i) => rank.map((f) => [f, i] as const)));
      for (const layer of service.layers) {
        const mine = rankOf.get(layer.folder);
        for (const other of layer.mayImport) {
          if (service.leaves.includes(other)) continue;
          expect(mine === undefined ? -1 : mine, `${service.pkg}: ${layer.folder} imports ${other}`).toBeGreaterThan(
            rankOf.get(other) ?? Number.POSITIVE_INFINITY,
          );
        }
      }
    }
  });
});
