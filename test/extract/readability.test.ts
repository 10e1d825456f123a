import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Readability } from '@mozilla/readability';
import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../src/pipeline/extract/dom.ts';
import { extractHtml } from '../../src/pipeline/extract/html.ts';
import { DOMS, parserOf, parseWithDom, type DomName } from '../../bench/lib/reference-doms.ts';
import {
  elementsWithTag,
  InnerTextMemo,
  isElementWithoutContent,
  memoizeInnerText,
  isProbablyVisible,
  isValidByline,
  inlineStyleValue,
  linkDensity,
  measureDensities,
  READABILITY_VERSION,
  readabilityFor,
  restorePagesFromSnapshots,
  skipArticleDebugSerialization,
  textDensity,
} from '../../src/pipeline/extract/readability.ts';
import { collapsedTextLength } from '../../src/pipeline/extract/text-index.ts';

/** Readability's own byline test and pattern, visibility test and tag query: what `runReadability` replaces. */
interface Internals {
  _isValidByline: (node: Element, matchString: string) => boolean;
  _isProbablyVisible: (node: Element) => boolean;
  _getAllNodesWithTag: (node: Element | Document, tagNames: readonly string[]) => ArrayLike<Element>;
  _isElementWithoutContent: (node: Node) => boolean;
  _getInnerText: (node: Element, normalizeSpaces?: boolean) => string;
  _removeNodes: (nodes: ArrayLike<Element>, filter?: (node: Element) => boolean) => void;
  _getLinkDensity: (element: Element) => number;
  _getTextDensity: (element: Element, tags: readonly string[]) => number;
  _grabArticle: (page?: Element) => Element | null;
  _postProcessContent: (article: Element) => void;
  parse: () => { content: string } | null;
  REGEXPS: { byline: RegExp; hashUrl: RegExp };
}

/**
 * Readability's own instance on a freshly parsed page, to compare its private tests with ours: on linkedom
 * (the reference DOM, whose style objects Readability's own visibility test reads), or on our small DOM.
 */
async function readerOn(
  html: string,
  dom: DomName = 'linkedom',
): Promise<{
  document: Document;
  reader: Internals;
  snapshot: (() => () => void) | undefined;
  dispose: () => void;
}> {
  const parsed = await parseWithDom(html, 'https://example.test/', dom);
  const reader = new Readability(parsed.document) as unknown as Internals;
  return { document: parsed.document, reader, snapshot: parsed.snapshot, dispose: () => parsed.dispose() };
}

describe('the Readability whose private methods runReadability replaces or wraps', () => {
  it('is the version installed, pinned exactly in package.json (an upgrade fails here until checked again)', () => {
    const installed = createRequire(import.meta.url)('@mozilla/readability/package.json') as {
      version: string;
    };
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(installed.version).toBe(READABILITY_VERSION);
    expect(manifest.dependencies['@mozilla/readability']).toBe(READABILITY_VERSION);
  });
});

// Candidates of every kind: each naming (rel, itemprop, class, id) with empty, short, padded and long text,
// and nodes that name nothing.
const LONG = 'word '.repeat(30);
const PAGE = `<!doctype html><html><body>
<a rel="author" href="/jane">Jane Doe</a><a rel="author" href="/x"></a><a rel="author">${LONG}</a>
<span itemprop="author">Ann</span><span itemprop="author name">   </span><span itemprop="">Bob</span>
<div class="byline">By Sam Lee</div><div id="writtenby">  Kim  </div><div class="p-author">${LONG}</div>
<p class="dateline">Paris, May 2</p><div class="author-box"><img src="a.png"></div>
<div class="content"><p>Plain text of the article, which names nobody.</p><p>Short.</p></div>
</body></html>`;

describe('Readability internals runReadability replaces or wraps', () => {
  it('are all still there (an upgrade of @mozilla/readability that moves one fails here)', async () => {
    const { reader, dispose } = await readerOn(PAGE);
    const internals = reader as Partial<Internals>;
    for (const name of [
      '_isValidByline',
      '_isProbablyVisible',
      '_getAllNodesWithTag',
      '_isElementWithoutContent',
      '_getInnerText',
      '_removeNodes',
      '_getLinkDensity',
      '_getTextDensity',
      '_grabArticle',
      '_postProcessContent',
    ] as const) {
      expect([name, typeof internals[name]]).toEqual([name, 'function']);
    }
    expect(internals.REGEXPS?.byline).toBeInstanceOf(RegExp);
    expect(internals.REGEXPS?.hashUrl).toBeInstanceOf(RegExp);
    dispose();
  });
});

describe('Readability byline test', () => {
  it('answers as Readability’s own test on every node, for the class/id string Readability passes', async () => {
    const { document, reader, dispose } = await readerOn(PAGE);
    const elements = Array.from(document.querySelectorAll('*'));
    let valid = 0;
    for (const element of elements) {
      const matchString = `${element.className} ${element.id}`;
      const expected = reader._isValidByline(element, matchString);
      expect(isValidByline(element, matchString, reader.REGEXPS.byline), element.outerHTML).toBe(expected);
      if (expected) valid++;
    }
    expect(valid).toBe(5); // rel Jane, itemprop Ann, byline, writtenby, dateline; not empty, blank or long
    dispose();
  });

  it('still finds the byline of an article', async () => {
    const paragraphs = Array.from(
      { length: 6 },
      (_, i) => `<p>Paragraph ${i} of a long article about lighthouses, their keepers and the rocks they
      stand on, with enough words that Readability takes it for the article body of the page.</p>`,
    ).join('');
    const html = `<!doctype html><html><head><title>Lighthouses</title></head><body><article>
      <h1>Lighthouses</h1><div class="byline">By Sam Lee</div>${paragraphs}</article></body></html>`;
    const content = await extractHtml(html, { url: 'https://example.test/lighthouses' });
    expect(content?.byline).toBe('Sam Lee'); // Readability's byline, its label taken off (byline.ts)
    expect(content?.text).not.toContain('By Sam Lee');
  });
});

// Nodes of every visibility: inline styles (with spaces, !important, other properties), hidden and aria-hidden
// in their forms, Wikimedia's fallback images, SVG and MathML.
const VISIBILITY_PAGE = `<!doctype html><html><body>
<div style="display:none">a</div><div style="display: none !important">b</div><div style="DISPLAY:NONE">c</div>
<div style="visibility:hidden">d</div><div style="visibility: visible; color: red">e</div><div style="">f</div>
<div hidden>g</div><div hidden="until-found">h</div><div aria-hidden="true">i</div><div aria-hidden="false">j</div>
<img aria-hidden="true" class="mwe-math-fallback-image-inline" src="m.png"><span aria-hidden="TRUE">k</span>
<svg aria-hidden="true" class="icon"><path d="M0 0"></path></svg><svg style="display:none"></svg>
<math><mi>x</mi></math><p>Plain <b>text</b> and <a href="/">a link</a>.</p><h2>Heading</h2><h3>Sub</h3>
<table><tr><td><p>Cell</p></td></tr></table><pre>code</pre><section><h2>Nested</h2><p>More.</p></section>
</body></html>`;

describe('Readability visibility test and tag query', () => {
  it('answer as Readability’s own on every node', async () => {
    const { document, reader, dispose } = await readerOn(VISIBILITY_PAGE);
    const elements = Array.from(document.querySelectorAll('*'));
    let hidden = 0;
    for (const element of elements) {
      const expected = Boolean(reader._isProbablyVisible(element));
      expect(isProbablyVisible(element), element.outerHTML).toBe(expected);
      if (!expected) hidden++;
    }
    expect(hidden).toBeGreaterThanOrEqual(5);
    for (const root of [document, document.body, document.querySelector('table')!]) {
      for (const tags of [['p'], ['h1', 'h2', 'h3'], ['P', 'PRE'], ['td', 'p', 'section'], ['svg', 'math']]) {
        const expected = Array.from(reader._getAllNodesWithTag(root, tags));
        expect(elementsWithTag(root, tags)).toEqual(expected);
      }
    }
    dispose();
  });
});

// Inline styles as pages write them: spacing, case, !important, repeats (the last wins), empty values and
// names, colons inside values, and declarations with no colon.
const STYLES = [
  'display:none',
  ' display : none ; ',
  'DISPLAY:NONE',
  'display: none !important',
  'display:none;display:block',
  'display:block;display:none',
  'display:none;display:',
  'display:;visibility:hidden',
  ':none;display',
  'background:url(a:b);display : none',
  'font: 12px/1.5 a:b; visibility:hidden;',
  'visibility:visible;visibility:hidden',
  'display',
  '',
];

describe('Inline style read from the attribute', () => {
  it('answers as linkedom’s style object for every declaration', async () => {
    const html = STYLES.map((style) => `<div style="${style}">x</div>`).join('');
    const parsed = await parseWithDom(`<html><body>${html}</body></html>`, 'https://e.test/', 'linkedom');
    const { document } = parsed;
    const elements = Array.from(document.querySelectorAll('div'));
    expect(elements).toHaveLength(STYLES.length);
    for (const element of elements) {
      const inline = element.getAttribute('style') ?? '';
      for (const property of ['display', 'visibility'] as const) {
        expect(inlineStyleValue(inline, property), `${property} of "${inline}"`).toBe(
          element.style[property],
        );
      }
    }
    parsed.dispose();
  });
});

// Empty and nearly empty containers: whitespace of several kinds (a no-break space and a line separator trim
// away too), comments, line breaks and rules, nested empties, and text at the end of a deep subtree.
const DEEP = '<div>'.repeat(3000) + 'x' + '</div>'.repeat(3000);
const EMPTY_PAGE = `<!doctype html><html><body>
<div id="a"></div><div> \n\t </div><div>&nbsp;\u2028</div><div><!-- only a comment --></div>
<section><br><hr><br></section><header><br><p></p></header><h2> <span> </span> </h2>
<div><div><div></div><span>  </span></div><b>bold</b></div><div><div></div><div><i></i></div></div>
<div><img src="a.png"></div><h3>Title</h3><div>${DEEP}</div><div><p> </p><p> </p><p>last</p></div>
</body></html>`;

describe('Readability empty-container test', () => {
  it('answers as Readability’s own on every node, down to text at the end of a deep subtree', async () => {
    const { document, reader, dispose } = await readerOn(EMPTY_PAGE);
    const nodes = [...Array.from(document.querySelectorAll('*')), ...Array.from(document.body.childNodes)];
    let empty = 0;
    for (const node of nodes) {
      const expected = reader._isElementWithoutContent(node);
      expect(isElementWithoutContent(node), (node as Element).outerHTML?.slice(0, 80)).toBe(expected);
      if (expected) empty++;
    }
    expect(empty).toBeGreaterThanOrEqual(12);
    dispose();
  });
});

// Links to other pages and to fragments of this one (counted 0.3), nested links, links without text or
// href, whitespace of several kinds, headings and list items for the text density.
const DENSITY_PAGE = `<!doctype html><html><body><div id="a">  Intro <a href="/x">one link</a>,
<a href="#note-1">[1]</a> and <a href="#">#</a><a>no href</a> <a href="/y"> outer <a href="#in">inner</a></a>
<ul><li><a href="/1">Item&#160;one</a></li><li>  Item two,   in prose  </li><li></li></ul>
<section><h2> Heading </h2><p>Text&#8195;with <span>a span</span> and <td>a cell</td>.</p><div><div></div></div></section>
<p></p><table><tr><td><a href="#t">cell link</a></td></tr></table></div><div id="empty"> \n </div></body></html>`;

describe('Readability link and text densities', () => {
  it('answer as Readability’s own on every node, to the last bit', async () => {
    const { document, reader, dispose } = await readerOn(DENSITY_PAGE);
    const textLength = (node: Element): number => collapsedTextLength(node);
    let linked = 0;
    for (const element of [document.body, ...Array.from(document.body.querySelectorAll('*'))]) {
      const expected = reader._getLinkDensity(element);
      expect([
        element.outerHTML.slice(0, 50),
        linkDensity(element, textLength, reader.REGEXPS.hashUrl),
      ]).toEqual([element.outerHTML.slice(0, 50), expected]);
      if (expected > 0 && expected < 1) linked++;
      for (const tags of [
        ['h1', 'h2', 'h3'],
        ['SPAN', 'LI', 'TD', 'P', 'DIV'],
      ]) {
        expect(textDensity(element, tags, textLength)).toBe(reader._getTextDensity(element, tags));
      }
    }
    expect(linked).toBeGreaterThanOrEqual(4);
    dispose();
  });
});

const NESTED_PAGE = `<!doctype html><html><body><div id="outer">
<div id="middle"><p class="ad">Buy   now <a href="/buy">here</a></p><div id="inner"><p>First,   second <a href="#n">[n]</a></p><span class="ad">Sale</span></div></div>
<p>Kept    text</p><div class="ad">More <a href="/ads">ads</a></div></div></body></html>`;

describe('Readability text remembered while filtering nodes', () => {
  /** Each filter call's view of the texts, and the page after the removals, with or without the memo. */
  async function filterRun(memoized: boolean): Promise<unknown[]> {
    const { document, reader, dispose } = await readerOn(NESTED_PAGE);
    if (memoized) {
      const memo = new InnerTextMemo();
      memoizeInnerText(reader as unknown as Parameters<typeof memoizeInnerText>[0], memo);
      measureDensities(reader as unknown as Parameters<typeof measureDensities>[0], memo);
    }
    const seen: unknown[] = [];
    const ids = ['outer', 'middle', 'inner'];
    reader._removeNodes(Array.from(document.querySelectorAll('div, p, span')), (node) => {
      // Densities first: read before the texts, they are measured; after, taken from the remembered texts.
      seen.push(ids.map((id) => reader._getLinkDensity(document.getElementById(id)!)));
      seen.push(ids.map((id) => reader._getInnerText(document.getElementById(id)!)));
      seen.push(ids.map((id) => reader._getInnerText(document.getElementById(id)!, false)));
      seen.push(ids.map((id) => reader._getTextDensity(document.getElementById(id)!, ['p', 'span'])));
      return node.className === 'ad';
    });
    // Outside a filter nothing is remembered: a change made between two reads shows.
    const before = reader._getInnerText(document.getElementById('outer')!);
    document.getElementById('inner')!.remove();
    seen.push(before, reader._getInnerText(document.getElementById('outer')!), document.body.innerHTML);
    dispose();
    return seen;
  }

  it('answers every read as Readability’s own does, after each removal of the filtered list', async () => {
    const expected = await filterRun(false);
    // Three removals: each later read must show them (the memo forgets the removed node's ancestors).
    expect(new Set(expected.slice(0, -3).map((texts) => JSON.stringify(texts))).size).toBeGreaterThan(4);
    expect(await filterRun(true)).toEqual(expected);
  });

  it('remembers lengths as texts, and answers a length from a remembered text', () => {
    const memo = new InnerTextMemo();
    const node = { parentNode: null } as unknown as Node;
    const child = { parentNode: node } as unknown as Node;
    let measured = 0;
    const measure = (): number => 10 + ++measured;
    expect(memo.length(node, measure)).toBe(11);
    memo.start();
    expect(memo.length(node, measure)).toBe(12);
    expect(memo.length(node, measure)).toBe(12);
    memo.text(child, true, () => 'seven c');
    expect(memo.length(child, measure)).toBe(7);
    memo.forgetAncestorsOf(child);
    expect(memo.length(node, measure)).toBe(13);
    memo.stop();
  });

  it('remembers only while started, and forgets when the outermost start is stopped', () => {
    const memo = new InnerTextMemo();
    const node = {} as Node;
    let computed = 0;
    const compute = () => `text ${++computed}`;
    expect(memo.text(node, true, compute)).toBe('text 1');
    memo.start();
    memo.start();
    expect(memo.text(node, true, compute)).toBe('text 2');
    expect(memo.text(node, true, compute)).toBe('text 2');
    expect(memo.text(node, false, compute)).toBe('text 3');
    memo.stop();
    expect(memo.text(node, true, compute)).toBe('text 2');
    memo.stop();
    memo.start();
    expect(memo.text(node, true, compute)).toBe('text 4');
    memo.stop();
  });
});

describe('Readability’s debug serialization of the article', () => {
  const ARTICLE = `<!doctype html><html><head><title>Story</title></head><body><nav><a href="/">Home</a></nav>
<article><h1>Story</h1>${'<p>A paragraph of the story, with commas, clauses, and enough words to be scored well.</p>'.repeat(8)}</article>
<footer>Footer</footer></body></html>`;

  /** Readability's article, and how many times the grabbed article was serialized, with or without the skip. */
  async function parseCountingSerializations(skip: boolean): Promise<{ content: string; reads: number }> {
    const { reader, dispose } = await readerOn(ARTICLE, 'lite');
    if (skip)
      skipArticleDebugSerialization(reader as unknown as Parameters<typeof skipArticleDebugSerialization>[0]);
    let reads = 0;
    const grab = reader._grabArticle;
    reader._grabArticle = function (this: unknown, page) {
      const article = grab.call(this, page);
      if (!article) return article;
      // Counts whether the article's first HTML read after grabbing it (the debug message's) serialized it.
      const proto = Object.getPrototypeOf(article) as object;
      const own = Object.getOwnPropertyDescriptor(article, 'innerHTML');
      let holder: object | null = proto;
      while (holder && !Object.getOwnPropertyDescriptor(holder, 'innerHTML'))
        holder = Object.getPrototypeOf(holder) as object | null;
      const inherited = Object.getOwnPropertyDescriptor(holder!, 'innerHTML')!;
      Object.defineProperty(article, 'innerHTML', {
        configurable: true,
        get() {
          Reflect.deleteProperty(article, 'innerHTML');
          const value = ((own?.get ?? inherited.get)!.call(article) as string) ?? '';
          if (value !== '') reads++;
          return value;
        },
      });
      return article;
    };
    const result = reader.parse();
    dispose();
    return { content: result?.content ?? '', reads };
  }

  it('is skipped, with the same article', async () => {
    const plain = await parseCountingSerializations(false);
    const skipped = await parseCountingSerializations(true);
    expect(plain.reads).toBe(1);
    expect(skipped.reads).toBe(0);
    expect(skipped.content).toBe(plain.content);
    expect(skipped.content).toContain('A paragraph of the story');
  });
});

describe('Readability’s page between attempts', () => {
  const STORY = '<p>A paragraph of the story, with commas, clauses, and enough words to be scored well.</p>';
  // The first attempts strip the "sidebar" wrapper as an unlikely candidate or weigh it down, and keep under
  // 500 characters; a later one, without those rules, finds the story.
  const RETRIED = `<!doctype html><html><head><title>Story</title></head><body><nav><a href="/">Home</a></nav>
<div class="sidebar"><h1>Story</h1>${STORY.repeat(8)}<ul><li>Tag one</li><li>Tag two</li></ul></div>
<p>Short note.</p><footer>Footer</footer></body></html>`;
  // Every attempt keeps under 500 characters: Readability answers the longest attempt's article.
  const SHORT = `<!doctype html><html><head><title>Note</title></head><body><div class="comment-sidebar">
${STORY.repeat(2)}</div><p>A short page with <a href="/more">a link</a>.</p></body></html>`;

  /** Readability's article and attempts, and how often the page was serialized or parsed in between. */
  async function parseCountingPageRebuilds(
    html: string,
    hooked: boolean,
  ): Promise<{ content: string; attempts: number; rebuilds: number; pagesAfterAttempts: string[] }> {
    const { document, reader, snapshot, dispose } = await readerOn(html, 'lite');
    // The page as the first attempt starts from, and as each later one does.
    let firstPage = '';
    const pagesAfterAttempts: string[] = [];
    const grab = reader._grabArticle;
    reader._grabArticle = function (this: unknown, page) {
      firstPage = document.body.outerHTML;
      return grab.call(this, page);
    };
    const page = document.body;
    let holder: object | null = page;
    while (holder && !Object.getOwnPropertyDescriptor(holder, 'innerHTML'))
      holder = Object.getPrototypeOf(holder) as object | null;
    const original = Object.getOwnPropertyDescriptor(holder!, 'innerHTML')!;
    let rebuilds = 0;
    Object.defineProperty(holder!, 'innerHTML', {
      ...original,
      get(this: Element) {
        if (this === page) rebuilds++;
        return original.get!.call(this) as string;
      },
      set(this: Element, value: string) {
        if (this === page) rebuilds++;
        original.set!.call(this, value);
      },
    });
    try {
      const internals = reader as unknown as Parameters<typeof restorePagesFromSnapshots>[0];
      const remove = hooked ? restorePagesFromSnapshots(internals, document, snapshot) : () => undefined;
      const attempts = internals._attempts!;
      const push = attempts.push;
      Object.defineProperty(attempts, 'push', {
        configurable: true,
        value(...recorded: typeof attempts) {
          const length = push.apply(attempts, recorded);
          pagesAfterAttempts.push(document.body.outerHTML);
          return length;
        },
      });
      const result = reader.parse();
      remove();
      return {
        content: result?.content ?? '',
        attempts: attempts.length,
        rebuilds,
        pagesAfterAttempts: pagesAfterAttempts.map((page) => (page === firstPage ? 'as first' : page)),
      };
    } finally {
      Object.defineProperty(holder!, 'innerHTML', original);
      dispose();
    }
  }

  it('is put back from a snapshot, with the same article, after a failed attempt', async () => {
    const plain = await parseCountingPageRebuilds(RETRIED, false);
    const restored = await parseCountingPageRebuilds(RETRIED, true);
    expect(plain.attempts).toBeGreaterThan(0);
    expect(plain.rebuilds).toBe(1 + plain.attempts);
    expect(restored.attempts).toBe(plain.attempts);
    expect(restored.rebuilds).toBe(0);
    expect(restored.pagesAfterAttempts).toEqual(Array(restored.attempts).fill('as first'));
    expect(restored.content).toBe(plain.content);
    expect(restored.content).toContain('A paragraph of the story');
  });

  it('is put back after every attempt, and the longest failed attempt is answered intact', async () => {
    const plain = await parseCountingPageRebuilds(SHORT, false);
    const restored = await parseCountingPageRebuilds(SHORT, true);
    expect(plain.attempts).toBe(4);
    expect(restored.attempts).toBe(4);
    expect(restored.rebuilds).toBe(0);
    expect(restored.pagesAfterAttempts).toEqual(Array(4).fill('as first'));
    expect(restored.content).toBe(plain.content);
    expect(restored.content).toContain('A paragraph of the story');
  });

  it('is serialized and parsed as Readability does where the DOM takes no snapshot', async () => {
    const { document, reader, dispose } = await readerOn(RETRIED, 'jsdom');
    const internals = reader as unknown as Parameters<typeof restorePagesFromSnapshots>[0];
    restorePagesFromSnapshots(internals, document, undefined);
    expect(Object.getOwnPropertyDescriptor(document.body, 'innerHTML')).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(internals._attempts, 'push')).toBeUndefined();
    dispose();
  });

  it('lets extraction find the story that a later attempt picks, on every DOM (on jsdom parsed again)', async () => {
    for (const dom of DOMS) {
      const result = await extractHtml(RETRIED, { url: 'https://example.test/story', parser: parserOf(dom) });
      expect([dom, result?.text]).toEqual([dom, expect.stringContaining('A paragraph of the story')]);
      expect(result?.text).not.toContain('Footer');
    }
  });
});

// V8's minor collections keep alive what an accessor or a constructor's context holds after the page is
// done (the hidden class made for the accessor, the context, outlive the page): with it, the page's whole DOM.
describe('Readability’s hooks and constructor hold no page after it is done', () => {
  const STORY = '<p>A paragraph of the story, with commas, clauses, and enough words to be scored well.</p>';
  const PAGE = `<!doctype html><html><head><title>Story</title></head><body><article><h1>Story</h1>${STORY.repeat(8)}</article></body></html>`;
  const ownSymbols = (target: object): string[] =>
    Object.getOwnPropertySymbols(target).map((key) => key.description ?? '');

  it('put back the page with the same functions on every page, and take their state off when removed', async () => {
    const hooks: (PropertyDescriptor | undefined)[][] = [];
    for (let i = 0; i < 2; i++) {
      const { document, reader, snapshot, dispose } = await readerOn(PAGE, 'lite');
      const internals = reader as unknown as Parameters<typeof restorePagesFromSnapshots>[0];
      const before = { page: ownSymbols(document.body), attempts: ownSymbols(internals._attempts!) };
      const remove = restorePagesFromSnapshots(internals, document, snapshot);
      hooks.push([
        Object.getOwnPropertyDescriptor(document.body, 'innerHTML'),
        Object.getOwnPropertyDescriptor(internals._attempts, 'push'),
      ]);
      remove();
      expect(ownSymbols(document.body)).toEqual(before.page);
      expect(ownSymbols(internals._attempts!)).toEqual(before.attempts);
      dispose();
    }
    // The hooks' functions, compared, never called.
    // eslint-disable-next-line @typescript-eslint/unbound-method -- compared, not called
    const functions = hooks.map(([page, attempts]) => [page?.get, page?.set, attempts?.value] as unknown[]);
    expect(typeof functions[0]?.[0]).toBe('function');
    expect(functions[1]).toEqual(functions[0]);
  });

  it('skip the debug serialization with the same function on every page', async () => {
    const getters: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      const { reader, dispose } = await readerOn(PAGE, 'lite');
      skipArticleDebugSerialization(reader as unknown as Parameters<typeof skipArticleDebugSerialization>[0]);
      const grab = reader._grabArticle;
      reader._grabArticle = function (this: unknown, page) {
        const article = grab.call(this, page);
        const hook = Object.getOwnPropertyDescriptor(article, 'innerHTML') ?? {};
        // eslint-disable-next-line @typescript-eslint/unbound-method -- compared, not called
        if (article) getters.push('get' in hook ? hook.get : undefined);
        return article;
      };
      expect(reader.parse()?.content).toContain('A paragraph of the story');
      dispose();
    }
    expect(getters).toHaveLength(2);
    expect(typeof getters[0]).toBe('function');
    expect(getters[1]).toBe(getters[0]);
  });

  it('build Readability on a stand-in document, then give it the page: the same article', async () => {
    const built = parseDocument(PAGE);
    const plain = parseDocument(PAGE);
    const reader = readabilityFor(built.document);
    expect((reader as unknown as { _doc: Document })._doc).toBe(built.document);
    const expected = new Readability<Element>(plain.document, {
      serializer: (node) => node as Element,
      keepClasses: true,
    }).parse();
    const article = reader.parse();
    expect(article?.content?.outerHTML).toBe(expected?.content?.outerHTML);
    expect(article?.content?.outerHTML).toContain('A paragraph of the story');
    expect(article?.title).toBe('Story');
  });
});
