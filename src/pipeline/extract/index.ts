/** Content extraction stage: HTML (Readability + pre/post passes), PDF, text; worker pool. */
export { extractContent, contentKind, type ExtractContentOptions, type ContentKind } from './extract.ts';
export { EXTRACTOR_DEFAULTS, createContentExtractor, type ContentExtractorOptions } from './extractor.ts';
export {
  CONTENT_CACHE_DEFAULTS,
  withContentCache,
  type CachingContentExtractor,
  type ContentCacheOptions,
} from './content-cache.ts';
export { decodeBytes, sniffMetaCharset, type DecodedText, type DecodeOptions } from './decode.ts';
export { isHiddenByInlineStyle, stripInvisibleCharacters } from './hidden.ts';
export {
  createWorkerPool,
  type WorkerPool,
  type WorkerPoolOptions,
  type WorkerTaskOptions,
} from '../../scheduling/worker-pool.ts';
export { BOILERPLATE_RULES, type BoilerplateRule } from './boilerplate.ts';
export { PAGE_TYPES, detectPageType, type PageType } from './page-type.ts';
