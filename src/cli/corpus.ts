/**
 * Which documents `serve` and `mcp` answer from: the user's own documents alone once they gave some
 * (`--corpus` folders, or the index `citewise index` built), else citewise's manual; `--include-manual` adds
 * the manual back.
 */
import { DEFAULT_CORPUS } from '../engine/index.ts';
import { DEFAULT_NO_ANSWER_TEXT, type NoAnswerText } from '../pipeline/answer/no-answer.ts';
import type { LocalIndexProvider } from '../pipeline/search/local-index.ts';
import type { ServeConfig } from './settings.ts';

/** The answer when the user's documents hold none. */
export const NO_ANSWER_IN_YOUR_DOCUMENTS = 'No answer in your documents.';

/** The folders of the local index, and those the engine serves at `/docs/` (in that order). */
export interface CorpusFolders {
  /** Searched always. */
  readonly paths: readonly string[];
  /** Searched only while `paths` and the index file hold no document (the manual). */
  readonly fallbackPaths: readonly string[];
  /** Every folder, numbered as the `/docs/` route serves them. */
  readonly served: readonly string[];
  /** For the start-up log line. */
  readonly description: string;
}

/** The corpus folders of `serve` and `mcp` from `--corpus` and `--include-manual`. */
export function corpusFolders(config: Pick<ServeConfig, 'corpus' | 'includeManual'>): CorpusFolders {
  const given = config.corpus ?? [];
  if (given.length === 0) {
    // The manual until `citewise index` gives documents; with --include-manual, always.
    return config.includeManual
      ? { paths: [DEFAULT_CORPUS], fallbackPaths: [], served: [DEFAULT_CORPUS], description: 'built-in docs' }
      : {
          paths: [],
          fallbackPaths: [DEFAULT_CORPUS],
          served: [DEFAULT_CORPUS],
          description: 'your index, else the built-in docs',
        };
  }
  const paths = config.includeManual ? [...given, DEFAULT_CORPUS] : given;
  return {
    paths,
    fallbackPaths: [],
    served: paths,
    description: config.includeManual ? `${given.join(', ')} and the built-in docs` : given.join(', '),
  };
}

/**
 * The no-answer text when only the local index is searched: "No answer in your documents." while the
 * user's documents are the corpus; `undefined` (the answerers' default) with web search.
 */
export function noAnswerTextFor(search: string, local: LocalIndexProvider): NoAnswerText | undefined {
  if (search.trim() !== 'local') return undefined;
  return () => (local.hasOwnDocuments() ? NO_ANSWER_IN_YOUR_DOCUMENTS : DEFAULT_NO_ANSWER_TEXT);
}
