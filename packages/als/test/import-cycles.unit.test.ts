import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// No import circle in the ALS sources, type-only imports included: the layer rules (biome.layers.jsonc)
// order the folders, this orders the files inside them (a circle between forward.ts, parties.ts and
// inter-scheme.ts once made each flow depend on all the others).

const src = fileURLToPath(new URL('../src/', import.meta.url));
const importPattern = /^\s*(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'/gm;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** file → the files of src/ it imports (relative specifiers, `.js` written for the `.ts` source). */
export function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(root)) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(importPattern)) {
      const target = resolve(dirname(file), (match[1] as string).replace(/\.js$/, '.ts'));
      if (target.startsWith(root)) targets.push(relative(root, target));
    }
    graph.set(relative(root, file), targets);
  }
  return graph;
}

/** Every circle, each as the files along it (depth-first search, one report per back edge). */
export function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      const seen = state.get(next);
      if (seen === 'open') found.push([...path.slice(path.indexOf(next)), next]);
      else if (seen === undefined) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

describe('ALS import graph', () => {
  it('finds a circle when there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });

  it('reads the imports of the flows', () => {
    const graph = importGraph(src);
    expect(graph.get('discovery/parties.ts')).toContain('discovery/forward.ts');
    expect(graph.get('discovery/inter-scheme.ts')).toContain('discovery/forward.ts');
  });

  it('has no circle, type-only imports included', () => {
    expect(cycles(importGraph(src))).toEqual([]);
  });

  it('keeps the inter-scheme strategy out of the one flow: parties.ts does not import it', () => {
    expect(importGraph(src).get('discovery/parties.ts')).not.toContain('discovery/inter-scheme.ts');
  });
});
