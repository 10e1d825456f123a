import { describe, expect, it, vi } from 'vitest';
import { parseDocument } from '../../src/pipeline/extract/dom.ts';
import { elementToMarkdown } from '../../src/pipeline/extract/render.ts';

const PAGE = `<!doctype html><html><body><div id="content">
  <h2>Keepers</h2>
  <p>The   lamp was   kept by <a href="https://example.test/keeper">a keeper</a>, <em>day</em> and night.</p>
  <ul><li>Oil</li><li>Wicks</li></ul>
  <pre><code>light  --on</code></pre>
</div></body></html>`;

/** The prototype that defines `cloneNode` for this element (linkedom's Node). */
function cloneNodeOwner(element: Element): object {
  let owner: object | null = element;
  while (owner !== null && !Object.hasOwn(owner, 'cloneNode')) owner = Object.getPrototypeOf(owner) as object;
  if (owner === null) throw new Error('no cloneNode');
  return owner;
}

describe('elementToMarkdown', () => {
  it('converts the element itself: no copy of the content is built', async () => {
    const parsed = await parseDocument(PAGE, 'https://example.test/', 'linkedom');
    const root = parsed.document.getElementById('content')!;
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
    // The element's own cloneNode is back (the conversion only borrowed it).
    expect(Object.hasOwn(root, 'cloneNode')).toBe(false);
    parsed.dispose();
  });
});
