import type { FetchedPage } from '../../src/pipeline/types.ts';

/** A benchmark page (its URL and its bytes) as the fetcher hands it to the extractor: an HTML answer, 200. */
export function asFetchedPage(page: { readonly url: string; readonly html: Uint8Array }): FetchedPage {
  return {
    url: page.url,
    requestedUrl: page.url,
    status: 200,
    contentType: 'text/html',
    body: page.html,
    headers: {},
  };
}
