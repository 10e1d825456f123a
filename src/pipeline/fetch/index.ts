/** The fetch stage: safe, bounded fetching of untrusted URLs. */
export {
  DEFAULT_USER_AGENT,
  FETCHER_DEFAULTS,
  createPageFetcher,
  fetchPage,
  toFetchableUrl,
  type FetchPageOptions,
  type PageCacheOptions,
  type PageFetcherInstance,
  type PageFetcherOptions,
} from './fetcher.ts';
export { FetchError, isFetchError, type FetchErrorCode, type FetchErrorOptions } from './errors.ts';
export {
  classifyAddress,
  isPublicAddress,
  systemResolver,
  type HostResolver,
  type ResolvedAddress,
} from './address-guard.ts';
export { DEFAULT_CONTENT_TYPES, parseContentType, sniffContentType, type MediaType } from './body.ts';
export type { RobotsOptions } from './robots.ts';
