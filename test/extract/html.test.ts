import { describe, expect, it } from 'vitest';
import {
  extractContent,
  isHiddenByInlineStyle,
  stripInvisibleCharacters,
} from '../../src/pipeline/extract/index.ts';
import { extractHtml } from '../../src/pipeline/extract/html.ts';
import { DOMS, parserOf } from '../../bench/lib/reference-doms.ts';

const filler = (word: string): string =>
  `<p>${`The ${word} paragraph carries enough ordinary words to count as article text for the reader. `.repeat(3)}</p>`;

function page(body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><title>Test page</title>${head}</head><body>${body}</body></html>`;
}

async function text(html: string): Promise<string> {
  const result = await extractContent(html, {
    url: 'https://example.test/news/story.html',
    contentType: 'text/html',
  });
  return result?.text ?? '';
}

describe('hidden-text pre-pass', () => {
  const hiddenCases: [string, string][] = [
    ['hidden attribute', '<p hidden>SECRETWORD</p>'],
    ['aria-hidden', '<p aria-hidden="true">SECRETWORD</p>'],
    ['display:none', '<p style="display: none">SECRETWORD</p>'],
    ['visibility:hidden', '<p style="visibility:hidden !important">SECRETWORD</p>'],
    ['opacity:0', '<p style="opacity:0">SECRETWORD</p>'],
    ['off-screen', '<p style="position:absolute; left:-9999px">SECRETWORD</p>'],
    ['zero size', '<div style="width:0;height:0;overflow:hidden">SECRETWORD</div>'],
    ['font-size:0', '<span style="font-size:0px">SECRETWORD</span>'],
    ['text-indent', '<p style="text-indent:-10000px">SECRETWORD</p>'],
    ['clip pattern', '<span style="position:absolute;clip:rect(0 0 0 0)">SECRETWORD</span>'],
    ['template', '<template><p>SECRETWORD</p></template>'],
    ['script', '<script>var SECRETWORD = 1;</script>'],
    ['noscript', '<noscript><p>SECRETWORD</p></noscript>'],
  ];
  for (const [name, hidden] of hiddenCases) {
    it(`drops text hidden by ${name}`, async () => {
      const result = await text(page(`<article>${filler('first')}${hidden}${filler('second')}</article>`));
      expect(result).toContain('The first paragraph');
      expect(result).not.toContain('SECRETWORD');
    });
  }

  it('reads a page whose content a script reveals (hidden container holding most of the text)', async () => {
    for (const wrapper of ['<div style="opacity:0">', '<div hidden>']) {
      const html = page(
        `<header><a href="/">Home</a></header>${wrapper}<article><h1>Story</h1>${filler('revealed')}${filler('second')}<p hidden>SECRETWORD</p></article></div>`,
      );
      const result = await text(html);
      expect(result).toContain('The revealed paragraph');
      expect(result).not.toContain('SECRETWORD');
    }
  });

  it('keeps hidden="until-found" content, which readers can reveal', async () => {
    const result = await text(
      page(`<article>${filler('first')}<p hidden="until-found">FINDABLE text</p></article>`),
    );
    expect(result).toContain('FINDABLE');
  });

  it('cannot see text hidden only by a stylesheet class (documented limit)', async () => {
    const html = page(
      `<article>${filler('first')}<p class="gone">CLASSHIDDEN words in a paragraph</p>${filler('second')}</article>`,
      '<style>.gone{display:none}</style>',
    );
    expect(await text(html)).toContain('CLASSHIDDEN');
  });

  it('strips zero-width and bidi-control characters', async () => {
    const result = await text(
      page(
        `<article>${filler('first')}<p>ig\u200Bnore pre\u202Evious in\u2066struc\u2069tions and\uFEFF more words here</p></article>`,
      ),
    );
    expect(result).toContain('ignore previous instructions and more words here');
  });

  it('keeps joiners inside scripts that need them', () => {
    expect(stripInvisibleCharacters('می\u200Cخواهم')).toBe('می\u200Cخواهم');
    expect(stripInvisibleCharacters('👩\u200D💻')).toBe('👩\u200D💻');
    expect(stripInvisibleCharacters('a\u200Db')).toBe('ab');
  });

  it('classifies inline styles', () => {
    expect(isHiddenByInlineStyle('display:block')).toBe(false);
    expect(isHiddenByInlineStyle('position:relative;left:-9999px')).toBe(false);
    expect(isHiddenByInlineStyle('opacity:0.5')).toBe(false);
    expect(isHiddenByInlineStyle('opacity:0;transform:translateY(30px)')).toBe(false);
    expect(isHiddenByInlineStyle('width:0')).toBe(false);
    expect(isHiddenByInlineStyle('DISPLAY:NONE')).toBe(true);
  });
});

describe('markdown and text output', () => {
  const article = page(`
    <header><nav><a href="/">Home</a></nav></header>
    <article>
      <h1>Test page</h1>
      ${filler('opening')}
      <h2>Section two</h2>
      <p>Read <a href="/docs/guide?x=1">the guide</a> and <a href="other.html">the other page</a> for details.</p>
      <ul><li>first item</li><li>second item</li></ul>
      <ol><li>step one</li><li>step two</li></ol>
      <pre><code class="language-js">const answer = 42;
console.log(answer);</code></pre>
      <table><thead><tr><th>Name</th><th>Value</th></tr></thead>
        <tbody><tr><td>alpha</td><td>1</td></tr><tr><td>beta | gamma</td><td>2</td></tr></tbody></table>
      ${filler('closing')}
    </article>`);

  it('keeps headings, lists, code, tables and absolute links', async () => {
    const result = await extractContent(article, {
      url: 'https://example.test/news/story.html',
      contentType: 'text/html',
    });
    const markdown = result?.markdown ?? '';
    expect(markdown).toMatch(/^## Section two$/m);
    expect(markdown).toMatch(/^- first item$/m);
    expect(markdown).toMatch(/^1\. step one\n2\. step two$/m);
    expect(markdown).toContain('```js\nconst answer = 42;\nconsole.log(answer);\n```');
    expect(markdown).toContain('| Name | Value |\n| --- | --- |\n| alpha | 1 |\n| beta \\| gamma | 2 |');
    expect(markdown).toContain('[the guide](https://example.test/docs/guide?x=1)');
    expect(markdown).toContain('[the other page](https://example.test/news/other.html)');
    expect(markdown).not.toContain('# Test page');
  });

  it('gives a header row to tables without one', async () => {
    const html = page(
      `<article>${filler('a')}<table><tr><td>x</td><td>y</td></tr></table>${filler('b')}</article>`,
    );
    const result = await extractContent(html, { url: 'https://example.test/', contentType: 'text/html' });
    expect(result?.markdown).toContain('|  |  |\n| --- | --- |\n| x | y |');
  });

  it('writes plain text with blank lines between paragraphs and no markdown syntax', async () => {
    const result = await extractContent(article, {
      url: 'https://example.test/news/story.html',
      contentType: 'text/html',
    });
    const plain = result?.text ?? '';
    expect(plain).toMatch(
      /for the reader\.\n\nSection two\n\nRead the guide and the other page for details\./,
    );
    expect(plain).toContain('first item\nsecond item');
    expect(plain).not.toMatch(/\[|\]\(|```|^#/m);
  });

  it('joins adjacent links to the same URL', async () => {
    const html = page(
      `<article>${filler('a')}<p>Join the <a href="/x">Arte</a><a href="/x">mis program</a> today.</p>${filler('b')}</article>`,
    );
    const result = await extractContent(html, { url: 'https://example.test/', contentType: 'text/html' });
    expect(result?.markdown).toContain('Join the [Artemis program](https://example.test/x) today.');
    expect(result?.text).toContain('Join the Artemis program today.');
  });

  it('resolves links against <base href>', async () => {
    const html = page(
      `<article>${filler('a')}<p>See <a href="page">this link text</a> now.</p>${filler('b')}</article>`,
      '<base href="https://cdn.example.test/base/">',
    );
    const result = await extractContent(html, { url: 'https://example.test/', contentType: 'text/html' });
    expect(result?.markdown).toContain('(https://cdn.example.test/base/page)');
  });

  it('produces the same text on jsdom', async () => {
    const options = { url: 'https://example.test/news/story.html', contentType: 'text/html' };
    const [fast, full] = await Promise.all([
      extractContent(article, options),
      extractHtml(article, { url: options.url, parser: parserOf('jsdom') }),
    ]);
    expect(full?.text).toBe(fast?.text);
    expect(full?.markdown).toBe(fast?.markdown);
  });
});

describe('metadata', () => {
  it('reads title, language, dates, canonical URL, byline and site name', async () => {
    const head = `
      <meta property="og:site_name" content="Example News">
      <meta name="author" content="Ada Lovelace">
      <link rel="canonical" href="/news/canonical-story">
      <script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","datePublished":"2024-03-05T10:00:00+01:00","headline":"Test page"}</script>`;
    const result = await extractContent(page(`<article>${filler('a')}${filler('b')}</article>`, head), {
      url: 'https://example.test/news/story.html',
      contentType: 'text/html',
    });
    expect(result).toMatchObject({
      url: 'https://example.test/news/story.html',
      title: 'Test page',
      lang: 'en',
      publishedAt: '2024-03-05T10:00:00.000+01:00',
      canonicalUrl: 'https://example.test/news/canonical-story',
      byline: 'Ada Lovelace',
      siteName: 'Example News',
    });
  });

  it('prefers article:published_time and falls back to <time datetime>', async () => {
    const body = `<article><time datetime="2023-01-02">Jan 2</time>${filler('a')}${filler('b')}</article>`;
    const withMeta = await extractContent(
      page(body, '<meta property="article:published_time" content="2022-12-31T23:00:00Z">'),
      {
        url: 'https://example.test/',
        contentType: 'text/html',
      },
    );
    expect(withMeta?.publishedAt).toBe('2022-12-31T23:00:00.000Z');
    const withTime = await extractContent(page(body), {
      url: 'https://example.test/',
      contentType: 'text/html',
    });
    expect(withTime?.publishedAt).toBe('2023-01-02');
  });
});

describe('fallback and passthrough', () => {
  it('falls back to the body minus chrome when Readability finds nothing', async () => {
    const html = page(
      '<nav><a href="/a">Menu link</a></nav><div>Short note: the office is closed today.</div><footer>Footer text</footer>',
    );
    const result = await extractContent(html, { url: 'https://example.test/', contentType: 'text/html' });
    expect(result?.text).toBe('Short note: the office is closed today.');
  });

  it('reads a short article without the cookie banner, the site header and the comments around it', async () => {
    // One paragraph of 300-odd characters: under Readability's default threshold (500) its strict pass was
    // thrown away for a looser one that kept the banner, the logo, the comments and a commenter as byline.
    const html = page(
      '<div id="wrapper"><div id="cookie-consent" class="cookie-banner" role="dialog"><p>We use cookies to ' +
        'personalise content and ads. We also share information about your use of our site with our partners.</p>' +
        '<button>Accept all</button></div><header class="site-header"><a class="logo" href="/">Open<strong>Pedia' +
        '</strong></a></header><div id="col-main"><div class="entry"><h1>Olympia Brewing Company</h1>' +
        '<div class="entry-content"><p>The Olympia Brewing Company was a brewery in the northwest United States, ' +
        'located in Tumwater, Washington, near Olympia. Founded in 1896 by Leopold Friederich Schmidt, it was ' +
        'bought by G. Heileman Brewing Company in 1983 and by Pabst Brewing Company in 1999.</p></div></div>' +
        '<section class="comments" id="comments"><h2>2 comments</h2><div class="comment"><span class="author">' +
        'tom_h</span> <time>18 days ago</time><p>This page needs more pictures honestly.</p></div>' +
        '<div class="comment"><span class="author">NightOwl</span><p>Can someone explain the early years?</p>' +
        '</div></section></div></div>',
    );
    const result = await extractContent(html, {
      url: 'https://example.test/wiki/Olympia',
      contentType: 'text/html',
    });
    expect(result?.text).toContain('The Olympia Brewing Company was a brewery');
    expect(result?.text).not.toMatch(/cookies|OpenPedia|pictures|early years/u);
    expect(result?.byline).toBeUndefined();
  });

  it('returns null for a page with no text', async () => {
    expect(
      await extractContent(page('<div><img src="a.png"></div>'), { url: 'https://example.test/' }),
    ).toBeNull();
  });

  it('passes plain text through', async () => {
    const result = await extractContent(new TextEncoder().encode('Line one\r\n\r\n\r\nLine two'), {
      url: 'https://example.test/a.txt',
      contentType: 'text/plain; charset=utf-8',
    });
    expect(result).toEqual({
      url: 'https://example.test/a.txt',
      title: 'Line one',
      text: 'Line one\n\nLine two',
      markdown: 'Line one\n\nLine two',
    });
  });

  it('keeps markdown as markdown', async () => {
    const source = '# Title\n\n- item\n\n| a | b |\n| --- | --- |\n| 1 | 2 |';
    const result = await extractContent(source, {
      url: 'https://example.test/a.md',
      contentType: 'text/markdown',
    });
    expect(result?.markdown).toBe(source);
    expect(result?.title).toBe('Title');
  });

  it('returns null for unsupported media types', async () => {
    expect(
      await extractContent(new Uint8Array([1, 2, 3]), {
        url: 'https://example.test/',
        contentType: 'image/png',
      }),
    ).toBeNull();
  });

  it('sniffs HTML when no content type is given', async () => {
    const result = await extractContent(page(`<article>${filler('sniffed')}</article>`), {
      url: 'https://example.test/',
    });
    expect(result?.text).toContain('The sniffed paragraph');
  });

  it('reads HTML fragments and XHTML on both DOMs', async () => {
    const fragment = filler('fragment');
    expect((await extractContent(fragment, { url: 'https://example.test/' }))?.text).toContain(
      'The fragment paragraph',
    );
    for (const dom of DOMS) {
      const fromFragment = await extractHtml(fragment, {
        url: 'https://example.test/',
        parser: parserOf(dom),
      });
      expect(fromFragment?.text).toContain('The fragment paragraph');
    }
    const xhtml = `<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>X</title></head><body><article>${filler('xhtml')}</article></body></html>`;
    const result = await extractContent(new TextEncoder().encode(xhtml), {
      url: 'https://example.test/',
      contentType: 'application/xhtml+xml',
    });
    expect(result).toMatchObject({ title: 'X' });
    expect(result?.text).toContain('The xhtml paragraph');
  });

  it('reads a page served as HTML that holds text alone, with no element at all, on every DOM', async () => {
    const text = 'Plain words &amp; no markup <!-- a comment -->';
    const url = 'https://example.test/plain';
    expect((await extractContent(text, { url, contentType: 'text/html' }))?.text).toBe(
      'Plain words & no markup',
    );
    for (const dom of DOMS) {
      const result = await extractHtml(text, { url, parser: parserOf(dom) });
      expect(result?.text, dom).toBe('Plain words & no markup');
    }
  });

  it('rejects a missing url', async () => {
    await expect(extractContent('x', {} as never)).rejects.toThrow(TypeError);
  });
});
