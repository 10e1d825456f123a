import { describe, expect, it, vi } from 'vitest';
import { parseDocument } from '../../src/pipeline/extract/dom.ts';
import { elementToMarkdown } from '../../src/pipeline/extract/markdown.ts';

const PAGE = `<!doctype html><html><body><div id="content">
  <h2>Keepers</h2>
  <p>The   lamp was   kept by <a href="https://example.test/keeper">a keeper</a>, <em>day</em> and night.</p>
  <ul><li>Oil</li><li>Wicks</li></ul>
  <pre><code>light  --on</code></pre>
</div></body></html>`;

/** The prototype that defines `cloneNode` for this element. */
function cloneNodeOwner(element: Element): object {
  let owner: object | null = element;
  while (owner !== null && !Object.hasOwn(owner, 'cloneNode')) owner = Object.getPrototypeOf(owner) as object;
  if (owner === null) throw new Error('no cloneNode');
  return owner;
}

describe('elementToMarkdown', () => {
  it('converts the element itself: no copy of the content is built', async () => {
    const parsed = parseDocument(PAGE);
    const root = parsed.document.querySelector('#content')!;
    const cloneNode = vi.spyOn(cloneNodeOwner(root) as Element, 'cloneNode');
    const markdown = elementToMarkdown(root);
    expect(cloneNode).not.toHaveBeenCalled();
    cloneNode.mockRestore();
    expect(markdown).toBe(
      [
        '## Keepers',
        'The lamp was kept by [a keeper](https://example.test/keeper), _day_ and night.',
        '- Oil\n- Wicks',
        '```\nlight  --on\n```',
      ].join('\n\n'),
    );
    // Nor is the element's own cloneNode patched.
    expect(Object.hasOwn(root, 'cloneNode')).toBe(false);
    parsed.dispose();
  });
});

/** The Markdown of `html` inside a `<div>`, and whether rendering left that element's HTML unchanged. */
async function markdownOf(html: string): Promise<{ markdown: string; unchanged: boolean }> {
  const parsed = parseDocument(`<!doctype html><html><body><div id="root">${html}</div></body></html>`);
  const root = parsed.document.querySelector('#root')!;
  const before = root.outerHTML;
  const markdown = elementToMarkdown(root);
  const unchanged = root.outerHTML === before;
  parsed.dispose();
  return { markdown, unchanged };
}

async function markdown(html: string): Promise<string> {
  return (await markdownOf(html)).markdown;
}

describe('elementToMarkdown constructs', () => {
  it('leaves the element unchanged', async () => {
    const result = await markdownOf(
      '<p>  spaced   <b> bold </b> <!-- note --> text  </p><ul> <li> item </li> </ul>',
    );
    expect(result.markdown).toBe('spaced **bold** text\n\n- item');
    expect(result.unchanged).toBe(true);
  });

  it('writes headings, paragraphs, line breaks, rules and block quotes', async () => {
    expect(
      await markdown(
        '<h1>Title</h1><h3>Sub  title</h3><p>line one<br>line two</p><hr><blockquote><p>Quoted</p><p>Again</p></blockquote>',
      ),
    ).toBe('# Title\n\n### Sub title\n\nline one  \nline two\n\n---\n\n> Quoted\n>\n> Again');
  });

  it('writes compact lists, nested lists indented by the marker width, ordered lists from `start`', async () => {
    expect(
      await markdown('<ul><li>One<ul><li>Inner <b>bold</b></li><li>Second</li></ul></li><li>Two</li></ul>'),
    ).toBe('- One\n  - Inner **bold**\n  - Second\n- Two');
    expect(
      await markdown(
        '<ol start="9"><li>Nine</li><li>Ten<ol><li>Sub</li></ol></li><li><p>Para</p><p>Next</p></li></ol>',
      ),
    ).toBe('9. Nine\n10. Ten\n    1. Sub\n11. Para\n    \n    Next');
  });

  it('fences code blocks longer than any fence inside, with the language, and keeps their text', async () => {
    expect(
      await markdown(
        '<pre><code class="language-js">const fence = "```";\n```\nlet  x = 1; // *not* escaped\n</code></pre>',
      ),
    ).toBe('````js\nconst fence = "```";\n```\nlet  x = 1; // *not* escaped\n````');
  });

  it('fences a <pre> without a leading <code> too, its lines broken at <br> and blocks', async () => {
    expect(await markdown('<pre>\nls  -l *.md\n</pre>')).toBe('```\nls  -l *.md\n```');
    expect(await markdown('<pre><span></span><code class="language-sh">a_b\nc</code></pre>')).toBe(
      '```sh\na_b\nc\n```',
    );
    expect(await markdown('<pre>one<br>two<p>three</p>four</pre>')).toBe('```\none\ntwo\nthree\nfour\n```');
  });

  it('writes inline code with a fence no backtick run inside has', async () => {
    expect(await markdown('<p>Use <code>a`b</code>, <code>`tick`</code> and <code>x_y</code>.</p>')).toBe(
      'Use ``a`b``, `` `tick` `` and `x_y`.',
    );
  });

  it('escapes Markdown syntax in text as turndown does', async () => {
    expect(await markdown('<p>*stars* _under_ [brackets] back\\slash `tick`</p>')).toBe(
      '\\*stars\\* \\_under\\_ \\[brackets\\] back\\\\slash \\`tick\\`',
    );
    expect(
      await markdown(
        '<p>- dash</p><p>+ plus</p><p># hash</p><p>1. one</p><p>&gt; quote</p><p>2020 was a year</p>',
      ),
    ).toBe('\\- dash\n\n\\+ plus\n\n\\# hash\n\n1\\. one\n\n\\> quote\n\n2020 was a year');
  });

  it('writes GFM tables: a header row, or an empty one; spans and pipes in cells', async () => {
    expect(
      await markdown(
        '<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a|b</td><td>1</td></tr><tr><td colspan="2">wide</td></tr></tbody></table>',
      ),
    ).toBe('| Name | Value |\n| --- | --- |\n| a\\|b | 1 |\n| wide | |');
    expect(await markdown('<table><tr><td>x</td><td>y</td></tr><tr><td>z</td><td>w</td></tr></table>')).toBe(
      '|  |  |\n| --- | --- |\n| x | y |\n| z | w |',
    );
  });

  it('keeps http(s) and mailto links and images, and drops the others (keeping link text)', async () => {
    expect(
      await markdown(
        '<p><a href="https://example.test/a">Link</a> <a href="/relative">relative</a> <a href="javascript:void(0)">js</a> <a href="https://example.test/"> </a><a href="mailto:x@example.test">mail</a></p>',
      ),
    ).toBe('[Link](https://example.test/a) relative js [mail](mailto:x@example.test)');
    expect(
      await markdown(
        '<p><img src="https://example.test/i.png" alt="An [alt]"> <img src="data:image/png;base64,AAAA" alt="inline"></p>',
      ),
    ).toBe('![An  alt](https://example.test/i.png)');
  });

  it('percent-encodes parentheses in link and image URLs, which would otherwise end the destination', async () => {
    expect(
      await markdown(
        '<p><a href="https://example.test/wiki/Lamp_(light)">lamp</a> <a href="https://example.test/a)b">odd</a> <img src="https://example.test/i(1).png" alt="i"></p>',
      ),
    ).toBe(
      '[lamp](https://example.test/wiki/Lamp_%28light%29) [odd](https://example.test/a%29b) ![i](https://example.test/i%281%29.png)',
    );
  });

  it('moves whitespace inside emphasis outside its markers, and drops empty emphasis', async () => {
    expect(await markdown('<p>a<strong> bold </strong>b <em> em</em> c<b></b>d <i>  </i>e</p>')).toBe(
      'a **bold** b _em_ cd e',
    );
    expect(await markdown('<p>one <span> two </span> three</p><p>x<span> </span>y</p>')).toBe(
      'one two three\n\nx y',
    );
  });

  it('leaves out scripts, styles, buttons, forms and other unrendered elements', async () => {
    expect(
      await markdown(
        '<div>keep<script>var x = 1;</script><style>.a{}</style><button>Click</button><form><input></form><noscript>ns</noscript><iframe src="x"></iframe>text</div>',
      ),
    ).toBe('keeptext');
  });

  it('turns NBSPs into spaces and strips invisible characters', async () => {
    expect(await markdown('<p>non&nbsp;breaking and zero\u200bwidth</p>')).toBe('non breaking and zerowidth');
  });
});
