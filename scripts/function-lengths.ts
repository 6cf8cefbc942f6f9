// The longest functions under the given folders, in lines from their first line to their last, longest first:
// how the size of the largest functions is told before and after splitting one.
//   node scripts/function-lengths.ts [--top N] DIR...
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt === -1 ? 10 : Number(args[topAt + 1]);
const dirs = topAt === -1 ? args : args.filter((_, i) => i !== topAt && i !== topAt + 1);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

interface Found {
  readonly where: string;
  readonly name: string;
  readonly lines: number;
}

function nameOf(node: ts.Node): string | undefined {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) return node.name.getText();
  if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && ts.isVariableDeclaration(node.parent))
    return node.parent.name.getText();
  return undefined;
}

const found: Found[] = [];
for (const file of dirs.flatMap(sources)) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node) => {
    const name = nameOf(node);
    if (name !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ where: `${relative(process.cwd(), file)}:${first + 1}`, name, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
for (const f of found.sort((a, b) => b.lines - a.lines).slice(0, top)) {
  process.stdout.write(`${String(f.lines).padStart(5)}  ${f.name}  ${f.where}\n`);
}
