/**
 * `citewise/tools`: citewise as an AI SDK tool, and `citewiseSources`, the sources of citewise's
 * OpenAI-compatible chat route for the AI SDK's OpenAI-compatible provider.
 *
 * ```ts
 * import { generateText, isStepCount } from 'ai';
 * import { webSearchTool } from 'citewise/tools';
 * const { text } = await generateText({
 *   model,
 *   tools: { web_search: webSearchTool(engine, { apiKey }) },
 *   stopWhen: isStepCount(3),
 *   prompt: 'What changed in the latest Node.js release?',
 * });
 * ```
 */
import '#node-version-guard'; // first: stops on a Node.js older than package.json engines
export { webSearchTool, type WebSearchToolOutput, type WebSearchToolOptions } from './web-search-tool.ts';
export { citewiseSources, type ChatSourcesMetadata } from './chat-sources.ts';
export {
  toSearchRequest,
  webSearchInputShape,
  webSearchToolInput,
  type WebSearchToolInput,
} from './input.ts';
