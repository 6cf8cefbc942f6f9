import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { regionsOf, renderRegions } from '../report/figures.js';

export const reportUsage = `mojafast-bench report [--check]
  Renders every <!-- figures:KIND result.json... --> region of the repository's pages (READMEs, docs/ and
  measured/ pages: see figurePages) from the result files it names (kinds: als, position, position-variants,
  position-original, position-switch, switch, images, als-differences), each row with the commit, date, machine load and
  command of its run.
  --check              change nothing; exit 1 naming each page whose regions differ from what is rendered`;

/** The repository root, from this module's place in packages/bench/{src,dist}/commands/. */
export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** The markdown files under `dir` (from `root`), recursively, in name order; none when it does not exist. */
function markdownUnder(root: string, dir: string): string[] {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir), { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return markdownUnder(root, path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
}

/**
 * The pages that may hold rendered regions, from the repository root: the READMEs (root, infra/, each package),
 * the reference pages (docs/ of the repository and of each package) and the measurement pages (each package's
 * measured/).
 */
export function figurePages(root: string): string[] {
  const packages = readdirSync(join(root, 'packages')).sort();
  return [
    ...['README.md', join('infra', 'README.md')].filter((file) => existsSync(join(root, file))),
    ...markdownUnder(root, 'docs'),
    ...packages.flatMap((name) => [
      ...[join('packages', name, 'README.md')].filter((file) => existsSync(join(root, file))),
      ...markdownUnder(root, join('packages', name, 'docs')),
      ...markdownUnder(root, join('packages', name, 'measured')),
    ]),
  ];
}

/** Pages (from `root`) whose regions differ from what the report renders. */
export function stalePages(root: string): string[] {
  return figurePages(root).filter((file) =>
    regionsOf(readFileSync(join(root, file), 'utf8'), root).some((r) => r.current !== r.rendered),
  );
}

export async function reportCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { check: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
  });
  if (values.help) {
    process.stdout.write(`${reportUsage}\n`);
    return;
  }
  if (values.check) {
    const stale = stalePages(repoRoot);
    for (const file of stale) process.stderr.write(`${file}: figures differ from their result files\n`);
    if (stale.length > 0) {
      process.stderr.write('run `pnpm bench:report` to render them (figures are never edited by hand)\n');
      process.exitCode = 1;
    }
    return;
  }
  for (const file of figurePages(repoRoot)) {
    const text = readFileSync(join(repoRoot, file), 'utf8');
    const rendered = renderRegions(text, repoRoot);
    if (rendered !== text) {
      writeFileSync(join(repoRoot, file), rendered);
      process.stdout.write(`${file}: figures rendered\n`);
    }
  }
}
