/**
 * A default number is written once, in its layer's `*_DEFAULTS` table (or the CLI's settings table), and
 * read from there: never inline where an option is resolved. This reads every module of src/ and adapters/
 * with the TypeScript parser and fails on each number given as a fallback:
 *
 * - `options.timeoutMs ?? 30_000`: a number after `??` (0 and ±1 are allowed after a value that is not an
 *   option, e.g. `counts.get(key) ?? 0`: an absent count, not a setting);
 * - `positiveInteger('maxBatch', options.maxBatch, 500)`: a number as the fallback of an option check
 *   (src/options.ts);
 * - `function search(query, limit = 10)`: a number as a parameter's (or a destructured field's) default,
 *   0 allowed (a recursion's starting depth).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The option checks of src/options.ts: (name, value, fallback, …). */
const OPTION_CHECKS = new Set([
  'integerOption',
  'positiveInteger',
  'nonNegativeInteger',
  'positiveNumber',
  'nonNegativeNumber',
  'fraction',
]);

/** A number written in place: `5`, `-1`, `10 * 1024`, `(2 ** 20)`. */
function isNumber(node: ts.Node): boolean {
  if (ts.isNumericLiteral(node)) return true;
  if (ts.isParenthesizedExpression(node)) return isNumber(node.expression);
  if (ts.isPrefixUnaryExpression(node)) return isNumber(node.operand);
  return ts.isBinaryExpression(node) && isNumber(node.left) && isNumber(node.right);
}

/** Whether an expression reads an option: its leftmost name ends in `options`, `settings` or `config`. */
function readsOption(node: ts.Expression): boolean {
  let current: ts.Expression = node;
  while (
    ts.isPropertyAccessExpression(current) ||
    ts.isElementAccessExpression(current) ||
    ts.isNonNullExpression(current) ||
    ts.isParenthesizedExpression(current)
  ) {
    current = current.expression;
  }
  return ts.isIdentifier(current) && /(?:options|settings|config)$/i.test(current.text);
}

function isSmall(node: ts.Expression): boolean {
  return ['0', '1', '-1'].includes(node.getText().replace(/\s/g, ''));
}

/** Every inline numeric default of a module, as `file:line  code`. */
function inlineDefaults(file: string, text = readFileSync(join(ROOT, file), 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    let hit = false;
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken &&
      isNumber(node.right)
    ) {
      hit = readsOption(node.left) || !isSmall(node.right);
    } else if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      OPTION_CHECKS.has(node.expression.text)
    ) {
      const fallback = node.arguments[2];
      hit = fallback !== undefined && isNumber(fallback);
    } else if ((ts.isParameter(node) || ts.isBindingElement(node)) && node.initializer) {
      hit = isNumber(node.initializer) && node.initializer.getText() !== '0';
    }
    if (hit) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push(`${file}:${line}  ${node.getText(source).replace(/\s+/g, ' ').slice(0, 100)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function modules(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

describe('defaults', () => {
  it('are read from *_DEFAULTS tables, never written inline in src/ or adapters/', () => {
    const files = [...modules('src'), ...modules('adapters')];
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => inlineDefaults(file))).toEqual([]);
  });

  it('finds the inline defaults it is meant to find', () => {
    const sample = [
      'const timeoutMs = options.timeoutMs ?? 30_000;',
      'const pages = options.pages ?? 1;',
      "const maxBatch = positiveInteger('maxBatch', options.maxBatch, 500);",
      'function search(query: string, limit = 10, depth = 0) {}',
      'const count = counts.get(key) ?? 0;',
      'const fromTable = options.maxPages ?? DEFAULTS.maxPages;',
    ].join('\n');
    expect(inlineDefaults('sample.ts', sample).map((hit) => hit.split('  ')[1])).toEqual([
      'options.timeoutMs ?? 30_000',
      'options.pages ?? 1',
      "positiveInteger('maxBatch', options.maxBatch, 500)",
      'limit = 10',
    ]);
  });
});
