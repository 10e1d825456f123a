import { describe, expect, it } from 'vitest';
import { parseDocument, type ParsedDocument } from '../../src/pipeline/extract/dom.ts';
import { parseWithDom, snapshotThroughDom } from '../../bench/lib/reference-doms.ts';

const PAGE = `<!doctype html><html lang="en"><head><title>Snapshot</title></head><body>
<header class="top bar"><a href="/">Home</a></header>
<main id="main"><h1 data-x="1">Title</h1><p class="lead" style="color: red">First <b>bold</b> text.</p>
<ul><li>One</li><li>Two</li></ul><!-- a comment --></main>
<footer>Footer</footer></body></html>`;

/**
 * Changes of every kind Readability and the clean-ups make: removals, moves, new nodes, attributes, texts,
 * and the root element taken out of the document (Readability moves it when its pick sits beside <body>).
 */
function mutate(document: Document): void {
  const body = document.body;
  document.querySelector('header')!.remove();
  const list = document.querySelector('ul')!;
  body.appendChild(list);
  const wrapper = document.createElement('div');
  wrapper.append(document.querySelector('h1')!, document.createTextNode('new text'));
  document.querySelector('main')!.prepend(wrapper);
  const lead = document.querySelector('p')!;
  lead.setAttribute('class', 'lead added');
  lead.setAttribute('id', 'lead');
  lead.removeAttribute('style');
  (lead.firstChild as Text).data = 'Changed ';
  document.querySelector('li')!.replaceWith(document.createElement('span'));
  document.querySelector('footer')!.textContent = '';
  const root = document.documentElement;
  document.createElement('div').append(root);
}

/** The snapshots Readability's attempts start again from: our small DOM's, and the reference DOMs' (parity bench). */
const SNAPSHOTS: Record<string, () => Promise<{ parsed: ParsedDocument; take: () => () => void }>> = {
  'the small DOM': async () => {
    const parsed = parseDocument(PAGE);
    return { parsed, take: parsed.snapshot! };
  },
  'linkedom through its public API': async () => {
    const parsed = await parseWithDom(PAGE, 'https://example.test/', 'linkedom');
    return { parsed, take: () => snapshotThroughDom(parsed.document) };
  },
  'jsdom through its public API': async () => {
    const parsed = await parseWithDom(PAGE, 'https://example.test/', 'jsdom');
    return { parsed, take: () => snapshotThroughDom(parsed.document) };
  },
};

describe.each(Object.entries(SNAPSHOTS))('document snapshots (%s)', (_, open) => {
  it('put back removed, moved and changed nodes, attributes and texts, and drop new nodes', async () => {
    const { parsed, take } = await open();
    const { document } = parsed;
    const before = document.documentElement.outerHTML;
    const restore = take();
    mutate(document);
    expect(document.documentElement).toBeNull();
    restore();
    expect(document.documentElement.outerHTML).toBe(before);
    expect(document.body.textContent).toContain('First bold text.');
    expect(document.querySelectorAll('li')).toHaveLength(2);
    expect(document.querySelector('span')).toBeNull();
    parsed.dispose();
  });

  it('restore as often as asked, each time to the same page', async () => {
    const { parsed, take } = await open();
    const { document } = parsed;
    const before = document.documentElement.outerHTML;
    const restore = take();
    for (let round = 0; round < 3; round++) {
      mutate(document);
      restore();
      expect(document.documentElement.outerHTML).toBe(before);
    }
    parsed.dispose();
  });
});

describe('document snapshots of the reference DOMs', () => {
  it('leave class lists, styles and data maps that read the restored attributes', async () => {
    for (const dom of ['linkedom', 'jsdom'] as const) {
      const parsed = await parseWithDom(PAGE, 'https://example.test/', dom);
      const { document } = parsed;
      const lead = document.querySelector('p')!;
      const heading = document.querySelector('h1') as HTMLElement;
      expect(lead.classList.contains('lead')).toBe(true);
      expect(lead.style.color).toBe('red');
      expect(heading.dataset.x).toBe('1');
      const restore = snapshotThroughDom(document);
      lead.classList.add('added');
      lead.className = 'other';
      lead.setAttribute('style', 'color: blue');
      heading.setAttribute('data-x', '2');
      expect([lead.style.color, heading.dataset.x]).toEqual(['blue', '2']);
      restore();
      expect([dom, lead.className]).toEqual([dom, 'lead']);
      expect([...lead.classList]).toEqual(['lead']);
      expect(lead.style.color).toBe('red');
      expect(heading.dataset.x).toBe('1');
      parsed.dispose();
    }
  });
});
