/**
 * One stage alone: fetch a page safely (SSRF guard, size and time limits, robots.txt) and extract its main
 * content as text and Markdown — no search, no answer, no API key.
 *
 *   node examples/extract-a-page.ts https://en.wikipedia.org/wiki/Okapi_BM25
 *
 * In your app, import from 'citewise' instead of '../src/index.ts'.
 */
import { extractContent, fetchPage } from '../src/index.ts';

/** Options of {@link extractPage}. */
export interface ExtractPageOptions {
  /** Hosts the fetcher may reach on private addresses (e.g. an intranet wiki). @default none */
  readonly allowPrivateHosts?: readonly string[];
}

/** Fetches `url` and returns its title, Markdown and plain text; `null` when the page has no main text. */
export async function extractPage(url: string, options: ExtractPageOptions = {}) {
  const page = await fetchPage(url, {
    ...(options.allowPrivateHosts ? { allowPrivateHosts: options.allowPrivateHosts } : {}),
  });
  return extractContent(page.body, {
    url: page.url,
    contentType: page.charset ? `${page.contentType}; charset=${page.charset}` : page.contentType,
  });
}

if (import.meta.main) {
  const url = process.argv[2];
  if (!url) {
    console.error('usage: node examples/extract-a-page.ts <url>');
    process.exit(2);
  }
  const content = await extractPage(url);
  if (!content) {
    console.error('no main content found');
    process.exit(1);
  }
  console.log(`# ${content.title}\n\n${content.markdown}`);
}
