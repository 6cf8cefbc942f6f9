import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { regionsOf, renderRegions } from '../report/figures.js';

export const reportUsage = `mojafast-bench report [--check]
  Renders every <!-- figures:KIND result.json... --> region of the repository's READMEs (README.md,
  infra/README.md, packages/*/README.md) from the result files it names (kinds: als, position,
  position-variants, position-original, position-switch), each row with the commit, date, machine load and command of its run.
  --check              change nothing; exit 1 naming each README whose regions differ from what is rendered`;

/** The repository root, from this module's place in packages/bench/{src,dist}/commands/. */
export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** The READMEs that may hold figures, from the repository root. */
export function readmes(root: string): string[] {
  const packages = readdirSync(join(root, 'packages'))
    .sort()
    .map((name) => join('packages', name, 'README.md'));
  return ['README.md', join('infra', 'README.md'), ...packages].filter((file) => existsSync(join(root, file)));
}

/** READMEs (from `root`) whose figure regions differ from what the report renders. */
export function staleReadmes(root: string): string[] {
  return readmes(root).filter((file) =>
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
    const stale = staleReadmes(repoRoot);
    for (const file of stale) process.stderr.write(`${file}: figures differ from their result files\n`);
    if (stale.length > 0) {
      process.stderr.write('run `pnpm bench:report` to render them (figures are never edited by hand)\n');
      process.exitCode = 1;
    }
    return;
  }
  for (const file of readmes(repoRoot)) {
    const text = readFileSync(join(repoRoot, file), 'utf8');
    const rendered = renderRegions(text, repoRoot);
    if (rendered !== text) {
      writeFileSync(join(repoRoot, file), rendered);
      process.stdout.write(`${file}: figures rendered\n`);
    }
  }
}
