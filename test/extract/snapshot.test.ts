import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../src/pipeline/extract/dom.ts';
import { snapshotDocument } from '../../src/pipeline/extract/snapshot.ts';

const PAGE = `<!doctype html><html lang="en"><head><title>Snapshot</title></head><body>
<header class="top bar"><a href="/">Home</a></header>
<main id="main"><h1 data-x="1">Title</h1><p class="lead" style="color: red">First <b>bold</b> text.</p>
<ul><li>One</li><li>Two</li></ul><!-- a comment --></main>
<footer>Footer</footer></body></html>`;

async function linkedomPage(): Promise<Document> {
  return (await parseDocument(PAGE, 'https://example.test/', 'linkedom')).document;
}

/** Changes of every kind Readability and the clean-ups make: removals, moves, new nodes, attributes, texts. */
function mutate(document: Document): void {
  const body = document.body;
  document.querySelector('header')!.remove();
  const list = document.querySelector('ul')!;
  body.appendChild(list);
  const wrapper = document.createElement('div');
  wrapper.append(document.querySelector('h1')!, document.createTextNode('new text'));
  document.querySelector('main')!.prepend(wrapper);
  const lead = document.querySelector('p')!;
  lead.classList.add('added');
  lead.setAttribute('id', 'lead');
  lead.removeAttribute('style');
  lead.style.display = 'none';
  (lead.firstChild as Text).data = 'Changed ';
  document.querySelector('li')!.replaceWith(document.createElement('span'));
  document.querySelector('footer')!.textContent = '';
}

describe('document snapshots', () => {
  it('put back removed, moved and changed nodes, attributes and texts, and drop new nodes', async () => {
    const document = await linkedomPage();
    const before = document.documentElement.outerHTML;
    const snapshot = snapshotDocument(document)!;
    expect(snapshot).toBeDefined();
    mutate(document);
    expect(document.documentElement.outerHTML).not.toBe(before);
    snapshot.restore();
    expect(document.documentElement.outerHTML).toBe(before);
    expect(document.body.textContent).toContain('First bold text.');
    expect(document.querySelectorAll('li')).toHaveLength(2);
    expect(document.querySelector('span')).toBeNull();
  });

  it('restore as often as asked, each time to the same page', async () => {
    const document = await linkedomPage();
    const before = document.documentElement.outerHTML;
    const snapshot = snapshotDocument(document)!;
    for (let round = 0; round < 3; round++) {
      mutate(document);
      snapshot.restore();
      expect(document.documentElement.outerHTML).toBe(before);
    }
  });

  it('leave class lists, styles and data maps that read the restored attributes', async () => {
    const document = await linkedomPage();
    const lead = document.querySelector('p')!;
    const heading = document.querySelector('h1') as HTMLElement;
    expect(lead.classList.contains('lead')).toBe(true);
    expect(lead.style.color).toBe('red');
    expect(heading.dataset.x).toBe('1');
    const snapshot = snapshotDocument(document)!;
    lead.classList.add('added');
    lead.className = 'other';
    lead.setAttribute('style', 'color: blue');
    heading.setAttribute('data-x', '2');
    expect([lead.style.color, heading.dataset.x]).toEqual(['blue', '2']);
    snapshot.restore();
    expect(lead.className).toBe('lead');
    expect([...lead.classList]).toEqual(['lead']);
    expect(lead.style.color).toBe('red');
    expect(heading.dataset.x).toBe('1');
  });

  it('are not taken of a jsdom document, which keeps its nodes otherwise', async () => {
    const parsed = await parseDocument(PAGE, 'https://example.test/', 'jsdom');
    expect(snapshotDocument(parsed.document)).toBeUndefined();
    parsed.dispose();
  });
});
