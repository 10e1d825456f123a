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

/**
 * Modules that get their settings complete from `resolveEngineOptions` (the engine's modules but options.ts
 * itself, the pipeline's run, the research loop and its planners, the jobs module): a default read again
 * there is a second resolution.
 */
const RESOLVED_ABOVE = [
  /^src\/engine\/(?!options\.ts$)/,
  /^src\/pipeline\/run\.ts$/,
  /^src\/pipeline\/research\/(loop|[a-z]+-planner)\.ts$/,
  /^src\/jobs\//,
];

function resolvedAbove(file: string): boolean {
  return RESOLVED_ABOVE.some((pattern) => pattern.test(file));
}

/** `ENGINE_DEFAULTS.timeoutMs` (a read of a `*_DEFAULTS` table) or `DEFAULT_MAX_LATENCY_MS` (a constant). */
function readsDefault(node: ts.Expression): boolean {
  let current: ts.Expression = node;
  while (ts.isPropertyAccessExpression(current) || ts.isElementAccessExpression(current)) {
    current = current.expression;
  }
  if (!ts.isIdentifier(current)) return false;
  return (current !== node && /_DEFAULTS$/.test(current.text)) || /^DEFAULT_[A-Z0-9_]+$/.test(current.text);
}

/** `options.limit === undefined`: an option's absence (not a local's). */
function isUndefinedCheck(node: ts.Expression): boolean {
  return (
    ts.isBinaryExpression(node) &&
    node.operatorToken.kind === ts.SyntaxKind.EqualsEqualsEqualsToken &&
    ts.isPropertyAccessExpression(node.left) &&
    node.right.getText() === 'undefined'
  );
}

/**
 * Second resolutions still to remove: none since the research loop and its planners read the settings
 * `resolveResearchSettings` resolved (issue 47). This list only shrinks: a new one fails.
 */
const PENDING: readonly string[] = [];

/** `file:line  code` → `file  code` (lines move). */
const withoutLine = (hit: string) => hit.replace(/:\d+ {2}/, '  ');

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
    } else if (
      resolvedAbove(file) &&
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken &&
      readsDefault(node.right)
    ) {
      hit = true;
    } else if (
      ts.isConditionalExpression(node) &&
      isUndefinedCheck(node.condition) &&
      isNumber(node.whenTrue) &&
      !isSmall(node.whenTrue)
    ) {
      hit = true;
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
    const found = files.flatMap((file) => inlineDefaults(file));
    expect(found.filter((hit) => !PENDING.includes(withoutLine(hit)))).toEqual([]);
    // A pending one removed is taken off the list.
    expect(PENDING.filter((pending) => !found.some((hit) => withoutLine(hit) === pending))).toEqual([]);
  });

  it('finds the inline defaults it is meant to find', () => {
    const sample = [
      'const timeoutMs = options.timeoutMs ?? 30_000;',
      'const pages = options.pages ?? 1;',
      "const maxBatch = positiveInteger('maxBatch', options.maxBatch, 500);",
      'function search(query: string, limit = 10, depth = 0) {}',
      'const count = counts.get(key) ?? 0;',
      'const fromTable = options.maxPages ?? DEFAULTS.maxPages;',
      'const again = options.maxHops ?? RESEARCH_DEFAULTS.maxHops;',
      'const grace = settings.graceMs ?? DEFAULT_GRACE_MS;',
      'const hops = options.maxHops === undefined ? 3 : options.maxHops;',
    ].join('\n');
    expect(inlineDefaults('src/jobs/sample.ts', sample).map((hit) => hit.split('  ')[1])).toEqual([
      'options.timeoutMs ?? 30_000',
      'options.pages ?? 1',
      "positiveInteger('maxBatch', options.maxBatch, 500)",
      'limit = 10',
      'options.maxHops ?? RESEARCH_DEFAULTS.maxHops',
      'settings.graceMs ?? DEFAULT_GRACE_MS',
      'options.maxHops === undefined ? 3 : options.maxHops',
    ]);
  });
});
