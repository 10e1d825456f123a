/** Fallback when Readability finds nothing: the body without page chrome, narrowed to its densest text block. */

const CHROME_SELECTOR = [
  'nav',
  'header',
  'footer',
  'aside',
  'form',
  'menu',
  'button',
  'select',
  '[role="navigation"]',
  '[role="banner"]',
  '[role="contentinfo"]',
  '[role="complementary"]',
  '[role="search"]',
].join(', ');

function textLength(element: Element): number {
  return (element.textContent ?? '').replace(/\s+/g, ' ').trim().length;
}

function linkTextLength(element: Element): number {
  let length = 0;
  for (const link of Array.from(element.querySelectorAll('a'))) length += textLength(link);
  return length;
}

/**
 * The body (a detached copy) minus navigation, header, footer, asides and forms; then, when one descendant
 * holds most of the remaining non-link text, that descendant. Null when no text is left.
 */
export function fallbackContent(body: Element): Element | null {
  for (const element of Array.from(body.querySelectorAll(CHROME_SELECTOR))) element.remove();
  const total = textLength(body);
  if (total === 0) return null;
  let best: Element = body;
  // Descend while a single child keeps at least 80% of the text: that child is the content block.
  for (;;) {
    let next: Element | null = null;
    for (const child of Array.from(best.children)) {
      if (textLength(child) - linkTextLength(child) >= 0.8 * (textLength(best) - linkTextLength(best))) {
        next = child;
        break;
      }
    }
    if (!next || textLength(next) < 200) break;
    best = next;
  }
  return best;
}
