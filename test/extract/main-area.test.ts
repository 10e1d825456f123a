import { describe, expect, it } from 'vitest';
import { DOMS, parseWithDom, type DomName } from '../../bench/lib/reference-doms.ts';
import { isLandmark, mainAreaMeasure } from '../../src/pipeline/extract/main-area.ts';
import { normalizedText } from '../../src/pipeline/extract/text-index.ts';

/** The landmarks as one selector: what the walk of `mainAreaMeasure` must find. */
const LANDMARK_SELECTOR =
  'nav, header, footer, aside, form, [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], #comments, .comment-list, .commentlist';

function linkLength(element: Element): number {
  let length = 0;
  for (const link of Array.from(element.querySelectorAll('a'))) length += normalizedText(link).length;
  return length;
}

/** `mainAreaMeasure` written with selector queries: the region's text minus its outermost landmarks'. */
function measureByQuery(document: Document): { length: number; linkLength: number } {
  const body = document.body;
  const mains = Array.from(body.querySelectorAll('main, [role="main"]'));
  let region: Element = body;
  let best = 0;
  for (const main of mains) {
    const length = normalizedText(main).length;
    if (length > best) [region, best] = [main, length];
  }
  if (region !== body && (best < 0.3 * normalizedText(body).length || best < 200)) region = body;
  let length = normalizedText(region).length;
  let links = linkLength(region);
  for (const landmark of Array.from(region.querySelectorAll(LANDMARK_SELECTOR))) {
    if (landmark.parentElement?.closest(LANDMARK_SELECTOR)) continue;
    length -= normalizedText(landmark).length;
    links -= linkLength(landmark);
  }
  return { length: Math.max(0, length), linkLength: Math.max(0, links) };
}

const PROSE = 'Prose of the page that is long enough to count as its content, with a link or two. '.repeat(4);
const PAGES = {
  'landmarks of every kind, nested': `<header><a href="/">Home</a> Site</header>
<div class="content"><p>${PROSE}</p><aside>Aside <nav><a href="/n">nested nav</a></nav></aside>
<div role="complementary">Related <a href="/r">story</a></div><div role="banner">Banner</div>
<div id="comments"><p>Comment one</p><form><input>Reply</form></div>
<ol class="x comment-list">  <li>Listed <a href="/c">comment</a></li></ol><div class="commentlist">Old theme</div>
<div class="comment-lists">Not a landmark: a longer class name</div><div id="Comments">Nor this: the id differs in case</div>
<p>${PROSE}<a href="/in">in prose</a></p></div><footer role="contentinfo">Footer</footer>`,
  'a main region holding the content': `<nav><a href="/">Menu</a></nav><main><h1>Title</h1><p>${PROSE}</p>
<aside>Inside main</aside><p>${PROSE}</p></main><div role="navigation">Outside <a href="/o">links</a></div>`,
  'the whole page inside a form (ASP.NET)': `<form id="aspnetForm"><div role="main"><p>${PROSE}</p>
<nav>Inner nav</nav><p>${PROSE}</p></div><footer>Footer</footer></form>`,
  'a main that is only a widget': `<div><p>${PROSE}${PROSE}${PROSE}</p><main>Small</main><footer>End</footer></div>`,
};

describe.each<DomName>(DOMS)('mainAreaMeasure (%s)', (dom) => {
  it.each(Object.entries(PAGES))(
    'measures %s as selector queries of its landmarks would',
    async (_name, body) => {
      const html = `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;
      const parsed = await parseWithDom(html, 'https://example.test/', dom);
      try {
        const { document } = parsed;
        const measured = mainAreaMeasure(document);
        expect(measured).toEqual(measureByQuery(document));
        const all = Array.from(document.querySelectorAll('*'));
        const landmarks = new Set(Array.from(document.querySelectorAll(LANDMARK_SELECTOR)));
        for (const element of all)
          expect([element.outerHTML.slice(0, 60), isLandmark(element)]).toEqual([
            element.outerHTML.slice(0, 60),
            landmarks.has(element),
          ]);
      } finally {
        parsed.dispose();
      }
    },
  );

  it('counts every landmark kind (the pages above are not trivially equal)', async () => {
    const html = `<!doctype html><html><body>${PAGES['landmarks of every kind, nested']}</body></html>`;
    const parsed = await parseWithDom(html, 'https://example.test/', dom);
    try {
      const { document } = parsed;
      expect(mainAreaMeasure(document).length).toBeLessThan(normalizedText(document.body).length - 80);
      expect(Array.from(document.querySelectorAll('*')).filter(isLandmark)).toHaveLength(10);
    } finally {
      parsed.dispose();
    }
  });
});
