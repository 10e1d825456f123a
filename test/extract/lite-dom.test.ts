import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../src/pipeline/extract/dom.ts';
import { parseWithDom, parserOf } from '../../bench/lib/reference-doms.ts';
import { extractHtml } from '../../src/pipeline/extract/html.ts';
import { isProbablyVisible } from '../../src/pipeline/extract/readability.ts';
import {
  isJoinedTokenList,
  joinedClassTokens,
  LiteDocument,
  parseLiteDocument,
} from '../../src/pipeline/extract/lite-dom.ts';

const PAGE_URL = 'https://example.test/page';

/** A node and its subtree written out with every detail extraction can see: kinds, names, attributes in order, texts. */
function shape(node: Node): string {
  switch (node.nodeType) {
    case 1: {
      const element = node as Element;
      const attributes = Array.from(
        element.attributes,
        (attr) => `${attr.name}=${JSON.stringify(attr.value)}`,
      );
      const children = Array.from(element.childNodes, shape).join('');
      return `<${element.tagName}|${element.localName} ${attributes.join(' ')}>${children}</>`;
    }
    case 3:
      return `T${JSON.stringify((node as Text).data)}`;
    case 4:
      return `D${JSON.stringify((node as CDATASection).data)}`;
    case 8:
      return `C${JSON.stringify((node as Comment).data)}`;
    default:
      return Array.from(node.childNodes, shape).join('');
  }
}

async function bothDoms(html: string): Promise<{ lite: Document; linkedom: Document }> {
  return {
    lite: parseDocument(html).document,
    linkedom: (await parseWithDom(html, PAGE_URL, 'linkedom')).document,
  };
}

/** Pages whose trees are easy to get wrong: implied ends, stray nodes, fragments, entities, odd attributes. */
const TRICKY_PAGES: Record<string, string> = {
  'implied end tags':
    '<html><body><p>One<p>Two<ul><li>a<li>b</ul><dl><dt>t<dd>d</dl><table><tr><td>1<td>2</table></body></html>',
  'nodes between head and body':
    '<html><head><title>T</title></head><script>x()</script><div>stray</div><body><p>Body</p></body></html>',
  'a second body': '<html><head></head><body><p>first</p></body><body class="b"><p>second</p></body></html>',
  'a fragment': '<p>Just a <b>fragment</b></p>',
  'entities and split texts':
    '<html><body><p>Fish &amp; chips &lt;3 &nbsp;&copy; caf&eacute; &#x1F600;</p></body></html>',
  'class attributes':
    '<html><body><div class="  b  a b\tc ">x</div><div class="one two">y</div><div class>z</div></body></html>',
  'duplicated and upper-case attributes':
    '<html><body><a HREF="/x" href="/y" Title="t" title="u">l</a></body></html>',
  'templates, noscript and voids':
    '<html><body><template><p>in template</p></template><noscript><img src="a.png"></noscript><br><img src=b.png alt=""><input disabled></body></html>',
  'comments and markup CDATA': '<html><body><!-- c --><p>a<![CDATA[ b ]]>c</p></body></html>',
};

describe('lite DOM: the tree linkedom builds', () => {
  for (const [name, html] of Object.entries(TRICKY_PAGES)) {
    it(`builds the same tree for ${name}`, async () => {
      const { lite, linkedom } = await bothDoms(html);
      expect(shape(lite)).toBe(shape(linkedom));
      expect(lite.title).toBe(linkedom.title);
      expect(lite.body.textContent).toBe(linkedom.body.textContent);
    });
  }

  it('answers the same selector queries', async () => {
    const html =
      '<html><body><main id="m"><article class="post x"><h2>A</h2><p data-k="1">p1</p><p>p2</p>' +
      '<a href="/a" rel="author">me</a></article><template><p>t</p></template>' +
      '<div role="tabpanel" hidden><p>p3</p></div></main></body></html>';
    const { lite, linkedom } = await bothDoms(html);
    for (const selector of [
      'p',
      'main p',
      'article > p',
      '[data-k]',
      'a[href][rel="author"]',
      '.post.x h2, div p',
      '[role="tabpanel"]',
      'p:not([data-k])',
      'h2 + p',
      '*',
    ]) {
      const ours = Array.from(lite.querySelectorAll(selector), (element) => element.textContent);
      const theirs = Array.from(linkedom.querySelectorAll(selector), (element) => element.textContent);
      expect(ours, selector).toEqual(theirs);
    }
    const paragraph = lite.querySelector('[data-k]')!;
    expect(paragraph.closest('article')?.className).toBe('post x');
    expect(paragraph.matches('article p')).toBe(true);
  });
});

/** A small seeded generator (mulberry32): the same soup on every run. */
function randomSource(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

/** Tag soup: unclosed and stray tags, tables, lists, entities, attributes of every quoting, comments. */
function tagSoup(random: (below: number) => number): string {
  const tags = [
    'div',
    'p',
    'span',
    'a',
    'li',
    'ul',
    'table',
    'tr',
    'td',
    'b',
    'h2',
    'br',
    'img',
    'section',
    'option',
    'select',
    'dd',
    'dt',
    'template',
    'noscript',
    'Custom-El',
  ];
  const attributes = [
    ' class="a  b a"',
    " id='x'",
    ' hidden',
    ' data-v=1',
    ' href="/p?a=1&amp;b=2"',
    ' CLASS="Up"',
    ' style="display: none"',
    ' src="i.png" srcset="i2.png 2x"',
  ];
  const texts = [
    'text',
    ' ',
    '\n  ',
    'a &amp; b',
    '&lt;tag&gt;',
    'caf&eacute;',
    '&nbsp;',
    '&#x26;&#38;',
    'x < y',
    'quote "q"',
  ];
  let html = '';
  for (let i = 0, n = 5 + random(40); i < n; i++) {
    const tag = tags[random(tags.length)]!;
    switch (random(6)) {
      case 0:
      case 1:
        html += `<${tag}${random(2) ? attributes[random(attributes.length)]! : ''}>`;
        break;
      case 2:
        html += `</${tag}>`;
        break;
      case 3:
        html += `<!-- ${texts[random(texts.length)]!} -->`;
        break;
      default:
        html += texts[random(texts.length)]!;
    }
  }
  return html;
}

describe('lite DOM: random tag soup', () => {
  it('builds the tree linkedom builds, and stays equal to it through the same changes', async () => {
    const random = randomSource(15);
    for (let page = 0; page < 300; page++) {
      const soup = tagSoup(random);
      const html =
        random(4) === 0
          ? soup
          : `<!doctype html><html><head><title>T ${page}</title></head><body>${soup}</body></html>`;
      const { lite, linkedom } = await bothDoms(html);
      expect(shape(lite), html).toBe(shape(linkedom));
      // The same changes on both: remove every third element, move the last one first, set and drop attributes.
      const change = (document: Document): void => {
        const elements = Array.from(document.body.querySelectorAll('*'));
        elements.forEach((element, index) => {
          if (index % 3 === 1) element.remove();
          else if (index % 3 === 2) element.setAttribute('data-seen', String(index));
          else element.removeAttribute('class');
        });
        const last = document.body.lastElementChild;
        if (last) document.body.prepend(last);
        document.body.normalize();
      };
      change(lite);
      change(linkedom);
      expect(shape(lite), html).toBe(shape(linkedom));
      expect(lite.body.textContent, html).toBe(linkedom.body.textContent);
    }
  });
});

describe('lite DOM: linkedom departures the results depend on', () => {
  it('keeps created names as written, puts new attributes first, joins class tokens', () => {
    const document = parseLiteDocument('<html><body><p id="a" title="t">x</p></body></html>');
    const created = document.createElement('P');
    expect([created.localName, created.tagName]).toEqual(['P', 'P']);
    const paragraph = document.body.firstElementChild!;
    paragraph.setAttribute('class', ' b a  b ');
    expect(paragraph.getAttributeNames()).toEqual(['class', 'id', 'title']);
    expect(paragraph.className).toBe('b a');
    expect(joinedClassTokens('\ta\n b a ')).toBe('a b');
  });

  it('finds nothing for getElementsByTagName("*") and creates a missing body', () => {
    const document = parseLiteDocument('<html><head></head></html>');
    expect(document.getElementsByTagName('*')).toEqual([]);
    expect(document.body.tagName).toBe('BODY');
    expect(document.documentElement!.children.map((element) => element.tagName)).toEqual(['HEAD', 'BODY']);
  });

  it("reads inline styles for Readability's visibility test as linkedom's style objects do", async () => {
    const styles = [
      'display:none',
      'display: none !important',
      'visibility:hidden',
      'display:block;display:none',
      'color:red',
      '',
    ];
    const html = `<html><body>${styles.map((style) => `<div style="${style}">x</div>`).join('')}<p hidden>h</p><p aria-hidden="true" class="fallback-image">m</p></body></html>`;
    const { lite, linkedom } = await bothDoms(html);
    const answers = (document: Document) =>
      Array.from(document.body.children, (element) => isProbablyVisible(element));
    expect(answers(lite)).toEqual(answers(linkedom));
    expect(answers(lite)).toEqual([false, true, false, false, true, true, false, true]);
  });

  it('has src and srcset only on the elements that have the properties', () => {
    const document = parseLiteDocument(
      '<html><body><img src="a.png" srcset="a2.png 2x"><picture src="p.png"></picture></body></html>',
    );
    const [image, picture] = document.body.children;
    expect([image!.src, image!.srcset]).toEqual(['a.png', 'a2.png 2x']);
    expect([picture!.src, picture!.srcset]).toEqual([undefined, undefined]);
  });
});

describe('lite DOM: tree operations', () => {
  it('moves, replaces and removes nodes keeping every link consistent', () => {
    const document = parseLiteDocument(
      '<html><body><ul><li>1</li><li>2</li><li>3</li></ul><p>x</p></body></html>',
    );
    const list = document.body.firstElementChild!;
    const [one, two, three] = list.children;
    list.insertBefore(three!, one!);
    expect(list.textContent).toBe('312');
    list.replaceChild(document.createTextNode('new'), two!);
    expect(list.textContent).toBe('31new');
    expect(two!.parentNode).toBeNull();
    one!.after('a', document.createElement('hr'));
    expect(list.childNodes.map((node) => node.nodeName)).toEqual(['LI', 'LI', '#text', 'HR', '#text']);
    expect(list.lastChild!.previousSibling!.nodeName).toBe('HR');
    list.normalize();
    expect(list.childNodes.length).toBe(5);
    document.body.lastElementChild!.replaceWith(list);
    expect(document.body.children.map((element) => element.tagName)).toEqual(['UL']);
    expect(list.compareDocumentPosition(document.body) & 8).toBe(8);
  });

  it('writes and reads HTML', () => {
    const document = parseLiteDocument('<html><body><div></div></body></html>');
    const div = document.body.firstElementChild!;
    div.innerHTML = '<p class="a" id="">One &amp; <b>two</b><br></p><script>if (a < b) x()</script>';
    expect(div.innerHTML).toBe('<p class="a">One &amp; <b>two</b><br></p><script>if (a < b) x()</script>');
    expect(div.firstElementChild!.outerHTML).toBe('<p class="a">One &amp; <b>two</b><br></p>');
    expect(div.cloneNode(true).textContent).toBe('One & twoif (a < b) x()');
  });

  it('snapshots put back removed, moved and changed nodes and drop new ones', async () => {
    const { document, snapshot } = parseDocument(
      '<html><body><header><a href="/">Home</a></header><main><h1 data-x="1">T</h1><p class="lead">One <b>b</b></p>' +
        '<ul><li>1</li><li>2</li></ul></main></body></html>',
    );
    expect(document).toBeInstanceOf(LiteDocument);
    const before = shape(document);
    const restore = snapshot!();
    document.querySelector('header')!.remove();
    document.body.appendChild(document.querySelector('ul')!);
    const lead = document.querySelector('p')!;
    lead.setAttribute('id', 'lead');
    lead.removeAttribute('class');
    (lead.firstChild as Text).data = 'Changed ';
    document.querySelector('main')!.prepend(document.createElement('div'));
    expect(shape(document)).not.toBe(before);
    restore();
    expect(shape(document)).toBe(before);
    restore();
    expect(shape(document)).toBe(before);
  });
});

describe('lite DOM: extraction', () => {
  it('extracts a page exactly as on linkedom', async () => {
    const html =
      '<!doctype html><html lang="en"><head><title>Fixing a drawer – Shop Notes</title>' +
      '<meta name="author" content="Jane Doe"></head><body><nav><a href="/">Home</a></nav><main><article>' +
      '<h1>Fixing a drawer</h1><p class="byline">By Jane Doe</p>' +
      '<p>An old drawer sticks because its runners are worn. Rub them with candle wax, and the drawer slides ' +
      'again; if the wood is split, glue it first and clamp it overnight before the wax.</p>' +
      '<figure><img data-src="/runner.jpg" src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><figcaption>The runner</figcaption></figure>' +
      '<p>Measure the gap with a card: a drawer that shuts on the card but not on two is right. Plane the ' +
      'sides when it shuts on neither, a little at a time, and try it again after each pass.</p>' +
      '<ul><li>Wax</li><li>Glue</li><li>A plane</li></ul></article><aside>Related: chairs</aside></main>' +
      '<footer>© Shop Notes</footer></body></html>';
    const lite = await extractHtml(html, { url: PAGE_URL });
    const linkedom = await extractHtml(html, { url: PAGE_URL, parser: parserOf('linkedom') });
    expect(lite).toEqual(linkedom);
    expect(lite).toMatchObject({ title: 'Fixing a drawer', byline: 'Jane Doe', pageType: 'article' });
    expect(lite?.markdown).toContain('- A plane');
    expect(lite?.text).not.toMatch(/Home|Related|©/);
  });
});

describe('lite DOM: memory', () => {
  it('keeps nothing of a page in the process-wide tables of tag names', async () => {
    // 120 pages of 2 MB in a 64 MB heap: a table keeping a name cut from each page would keep its HTML too.
    const worker = new Worker(new URL('./fixtures/retained-pages.ts', import.meta.url), {
      workerData: { pages: 120, padding: 1_000_000 },
      resourceLimits: { maxOldGenerationSizeMb: 64 },
    });
    const outcome = await Promise.race([
      once(worker, 'message').then(([message]) => message as unknown),
      once(worker, 'error').then(([error]) => (error as Error).message),
    ]);
    await worker.terminate();
    expect(outcome).toEqual({ done: 120 });
  }, 60_000);
});

describe('class attributes already in joined form', () => {
  // The definition: tokens without whitespace (JavaScript's \s), joined by single spaces, each once.
  const joined = (text: string) =>
    /^(?:\S+(?: \S+)*)?$/.test(text) && new Set(text.split(' ')).size === text.split(' ').length;
  const CLASSES = [
    '',
    'a',
    'card',
    'card wide',
    'card card',
    'a b a',
    'a b c d',
    'a b c a',
    ' a',
    'a ',
    'a  b',
    ' ',
    '  ',
    'a\tb',
    'a\nb',
    'a\u00a0b',
    'a\u2028b',
    'a\u3000b',
    'a\ufeffb',
    'a\u200bb',
    'é ü',
    'x-1 x_2 x:3',
  ];

  it('are told apart as the definition does, for every kind of whitespace, repeat and edge', () => {
    for (const text of CLASSES) expect(isJoinedTokenList(text), JSON.stringify(text)).toBe(joined(text));
    expect(CLASSES.filter(isJoinedTokenList)).toHaveLength(8);
  });
});
