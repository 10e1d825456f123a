/**
 * Every Markdown link of README.md and docs/ stays inside the repository: relative, to a file that exists,
 * and (when it has one) to a heading anchor that exists in that file.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownFiles, REPO_ROOT as ROOT } from '../support/manual.ts';

/** The text outside fenced code blocks and inline code spans, where Markdown links live. */
export function proseOf(markdown: string): string {
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  return withoutFences.replace(/(`+)[\s\S]*?\1/g, '');
}

/** Link targets: inline links and images `[text](target)`, autolinks `<scheme:…>`, HTML `href`/`src`. */
export function linkTargets(markdown: string): string[] {
  const prose = proseOf(markdown);
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const autolinks = [...prose.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]*)>/gi)].map((m) => m[1]!);
  const html = [...prose.matchAll(/\b(?:href|src)\s*=\s*["']([^"']*)["']/gi)].map((m) => m[1]!);
  const references = [...prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]!);
  return [...inline, ...autolinks, ...html, ...references];
}

/**
 * Relative targets of links written inside inline code spans (`` `![Done!](done.png)` ``). Renderers and
 * link checkers differ on code spans (one spread over two lines, a checker that reads the raw text), so a
 * reader may well be sent there: such a target must resolve too. Addresses (`https:`…) stay examples.
 */
export function codeSpanTargets(markdown: string): string[] {
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  return [...withoutFences.matchAll(/(`+)([\s\S]*?)\1/g)]
    .flatMap((span) => [...span[2]!.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!))
    .filter(
      (target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('//') && !/^[.…]*$/.test(target),
    );
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of withoutFences.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = heading!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Why `target`, linked from `file`, does not resolve inside the repository; `undefined` when it does. */
function problemOf(file: string, target: string): string | undefined {
  if (target === '') return 'empty link';
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return 'points outside the repository';
  if (target.startsWith('/')) return 'absolute path (use a relative link)';
  const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
  const path = rawPath === '' ? file : resolve(dirname(file), decodeURIComponent(rawPath));
  if (path !== ROOT.replace(/[\\/]$/, '') && !path.startsWith(ROOT)) return 'leaves the repository';
  if (!existsSync(path)) return 'no such file';
  if (anchor !== undefined && statSync(path).isFile() && path.endsWith('.md')) {
    if (!headingAnchors(readFileSync(path, 'utf8')).has(anchor)) return `no heading #${anchor}`;
  }
  return undefined;
}

const FILES = [join(ROOT, 'README.md'), ...markdownFiles('docs').map((file) => join(ROOT, file))];

describe('links of README.md and docs/', () => {
  it.each(FILES.map((file) => [relative(ROOT, file).split(sep).join('/'), file]))(
    '%s: every link is relative and resolves in the repository',
    (_name, file) => {
      const markdown = readFileSync(file, 'utf8');
      const broken = [...linkTargets(markdown), ...codeSpanTargets(markdown)]
        .map((target) => ({ target, problem: problemOf(file, target) }))
        .filter((link) => link.problem !== undefined);
      expect(broken).toEqual([]);
    },
  );
});

describe('the link checker itself', () => {
  it('finds inline links, images, autolinks, HTML and reference links, but not code', () => {
    const markdown = [
      'See [a](a.md#x), ![img](i.png "title"), <https://example.com>, <a href="h.md">h</a>.',
      '[ref]: https://example.org/ref',
      '`[code](not-a-link.md)`',
      '```',
      '[fenced](not-a-link-either.md)',
      '```',
    ].join('\n');
    expect(linkTargets(markdown).sort()).toEqual(
      ['a.md#x', 'i.png', 'https://example.com', 'h.md', 'https://example.org/ref'].sort(),
    );
  });

  it('also checks relative links shown inside inline code, but not addresses or placeholders', () => {
    const markdown = [
      'An image (`` `x` ``,',
      '`![Done!](done.png)`), `[the survey](https://source)`, `![…](…)`, `[a](#)`.',
      '```',
      '![fenced](fenced.png)',
      '```',
    ].join('\n');
    expect(linkTargets(markdown)).toEqual([]);
    expect(codeSpanTargets(markdown)).toEqual(['done.png', '#']);
    expect(problemOf(join(ROOT, 'docs', 'guides', 'ranking-and-answers.md'), 'done.png')).toMatch(
      /no such file/,
    );
  });

  it('reports links outside the repository and missing files or anchors', () => {
    const readme = join(ROOT, 'README.md');
    expect(problemOf(readme, 'https://example.com/')).toMatch(/outside/);
    expect(problemOf(readme, 'mailto:someone@example.com')).toMatch(/outside/);
    expect(problemOf(readme, '/docs/README.md')).toMatch(/absolute/);
    expect(problemOf(readme, '../outside.md')).toMatch(/leaves the repository/);
    expect(problemOf(readme, 'docs/no-such-page.md')).toMatch(/no such file/);
    expect(problemOf(readme, 'docs/README.md#no-such-heading')).toMatch(/no heading/);
    expect(problemOf(readme, 'docs/README.md')).toBeUndefined();
  });

  it('derives anchors as GitHub does', () => {
    const anchors = headingAnchors(
      '# HTTP API\n## `POST /v1/search`\n### `GET /docs/<path>` — corpus documents\n## Limits\n## Limits\n',
    );
    expect([...anchors]).toEqual([
      'http-api',
      'post-v1search',
      'get-docspath--corpus-documents',
      'limits',
      'limits-1',
    ]);
  });
});
