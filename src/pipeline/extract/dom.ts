/** HTML parsing into a DOM: linkedom (fast, default) or jsdom (full fidelity). */
import { parseHTML } from 'linkedom';
import type * as Jsdom from 'jsdom';

/** Which DOM implementation parses the page. */
export type DomImplementation = 'linkedom' | 'jsdom';

/** A parsed page; call `dispose` when done so jsdom can free its window. */
export interface ParsedDocument {
  readonly document: Document;
  dispose(): void;
}

type JsdomModule = typeof Jsdom;
let jsdomModule: Promise<JsdomModule> | undefined;

/** jsdom is loaded lazily: most callers never need it and it is slow to import. */
function loadJsdom(): Promise<JsdomModule> {
  jsdomModule ??= import('jsdom');
  return jsdomModule;
}

/** Parses an HTML string. `url` becomes the document URL (jsdom) and is used to resolve links. */
export async function parseDocument(
  html: string,
  url: string,
  dom: DomImplementation,
): Promise<ParsedDocument> {
  if (dom === 'jsdom') {
    const { JSDOM, VirtualConsole } = await loadJsdom();
    // A silent console: pages' broken CSS would otherwise flood stderr.
    const window = new JSDOM(html, { url: safeUrl(url), virtualConsole: new VirtualConsole() }).window;
    return { document: window.document, dispose: () => window.close() };
  }
  let { document } = parseHTML(html) as unknown as { document: Document };
  // linkedom builds no <html>/<body> for a fragment (browsers and jsdom do): wrap it and parse again.
  if (document.documentElement?.tagName.toUpperCase() !== 'HTML' || !document.body) {
    ({ document } = parseHTML(`<!DOCTYPE html><html><head></head><body>${html}</body></html>`) as unknown as {
      document: Document;
    });
  }
  return { document, dispose: () => undefined };
}

function safeUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return 'about:blank';
  }
}
