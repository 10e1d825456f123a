/**
 * Lists the functions of `src/` and `adapters/` longer than a number of lines, longest first: the rooms a
 * newcomer cannot walk into. A function counts its own lines, nested functions included (a closure that
 * holds a whole module is what this is meant to find).
 *
 *   node scripts/largest-functions.ts [--min 150] [dir...]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const { values, positionals } = parseArgs({
  options: { min: { type: 'string', default: '150' } },
  allowPositionals: true,
});
const min = Number(values.min);
const roots = positionals.length > 0 ? positionals : ['src', 'adapters'];

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (path.endsWith('.ts') && !path.endsWith('.d.ts')) yield path;
  }
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name !== undefined) {
    return node.name.getText(source);
  }
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return parent.name.getText(source);
  }
  return '(anonymous)';
}

const rows: { lines: number; where: string; name: string }[] = [];
for (const root of roots) {
  for (const path of files(root)) {
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = end - start + 1;
        if (lines > min) {
          rows.push({ lines, where: `${relative('.', path)}:${start + 1}`, name: nameOf(node, source) });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
}
rows.sort((a, b) => b.lines - a.lines);
for (const row of rows) console.log(`${String(row.lines).padStart(5)}  ${row.name}  ${row.where}`);
console.log(`${rows.length} functions over ${min} lines`);
