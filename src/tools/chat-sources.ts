/**
 * The sources of citewise's OpenAI-compatible chat route for the AI SDK's OpenAI-compatible provider, which
 * reads no source parts of its own: a metadata extractor that puts them in `providerMetadata.citewise`.
 */
import type { MetadataExtractor } from '@ai-sdk/openai-compatible';

/** What the extractor puts in `providerMetadata.citewise`. */
export interface ChatSourcesMetadata {
  /** The source URLs, in `[n]` order (`citations[n-1]` is `[n]`). */
  readonly citations: string[];
  /** Each source with its title and the passage the answer used. */
  readonly searchResults: { title: string; url: string; snippet: string }[];
}

type Body = { citations?: unknown; search_results?: unknown } | null;

const urls = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((url): url is string => typeof url === 'string') : [];

const results = (value: unknown): ChatSourcesMetadata['searchResults'] =>
  Array.isArray(value)
    ? value.flatMap((entry: { title?: unknown; url?: unknown; snippet?: unknown } | null) =>
        typeof entry?.url === 'string'
          ? [
              {
                url: entry.url,
                title: typeof entry.title === 'string' ? entry.title : entry.url,
                snippet: typeof entry.snippet === 'string' ? entry.snippet : '',
              },
            ]
          : [],
      )
    : [];

/**
 * Pass as `metadataExtractor` of `createOpenAICompatible` (from `@ai-sdk/openai-compatible`) pointed at
 * citewise's `/v1`: `generateText` and `streamText` then give the sources in
 * `providerMetadata.citewise` ({@link ChatSourcesMetadata}). The `@ai-sdk/openai` provider needs nothing:
 * it reads the route's `url_citation` annotations as `sources`.
 *
 * ```ts
 * const citewise = createOpenAICompatible({ name: 'citewise', baseURL, apiKey, metadataExtractor: citewiseSources });
 * const result = streamText({ model: citewise.chatModel('citewise'), prompt });
 * const { citations } = (await result.providerMetadata)?.citewise ?? {};
 * ```
 */
export const citewiseSources: MetadataExtractor = {
  async extractMetadata({ parsedBody }) {
    const body = parsedBody as Body;
    const citations = urls(body?.citations);
    if (citations.length === 0 && !Array.isArray(body?.citations)) return undefined;
    return { citewise: { citations, searchResults: results(body?.search_results) } };
  },
  createStreamExtractor() {
    let citations: string[] | undefined;
    let searchResults: ChatSourcesMetadata['searchResults'] = [];
    return {
      processChunk(parsedChunk) {
        const chunk = parsedChunk as Body;
        // The first chunk has the candidate sources, the last the cited ones: the last word wins.
        if (Array.isArray(chunk?.citations)) citations = urls(chunk.citations);
        if (Array.isArray(chunk?.search_results)) searchResults = results(chunk.search_results);
      },
      buildMetadata() {
        return citations === undefined ? undefined : { citewise: { citations, searchResults } };
      },
    };
  },
};
