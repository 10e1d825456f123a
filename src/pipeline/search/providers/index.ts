/**
 * Search providers by name, for configuration files and the CLI: `createSearchProviderFromSpec('brave,wikipedia',
 * config)` builds a Brave → Wikipedia fallback from already-resolved settings. This module never reads the
 * environment; the CLI resolves flags and variables into a {@link SearchProviderConfig} and passes it in.
 *
 * Spec syntax: provider names separated by `,` form a fallback ladder (left to right); names joined by `+`
 * are fused with reciprocal rank fusion and act as one rung. Examples:
 * - `wikipedia` — one provider;
 * - `searxng,duckduckgo` — SearXNG, DuckDuckGo when SearXNG fails or finds nothing;
 * - `brave+tavily,wikipedia` — Brave and Tavily fused; Wikipedia when both fail.
 * Names are case-insensitive; `ddg` is an alias of `duckduckgo`. Names given in `config.providers` (e.g. `local`
 * for the local index) can be used like the built-in ones.
 */
import type { SearchProvider } from '../../types.ts';
import {
  createFallbackProvider,
  createFusionProvider,
  type FallbackProviderOptions,
  type FusionProviderOptions,
} from '../combine.ts';
import { createBraveProvider, type BraveProviderOptions } from './brave.ts';
import { createDuckDuckGoProvider, type DuckDuckGoProviderOptions } from './duckduckgo.ts';
import { createExaProvider, type ExaProviderOptions } from './exa.ts';
import type { FetchFunction } from './http-options.ts';
import { createSearxngProvider, type SearxngProviderOptions } from './searxng.ts';
import { createSerperProvider, type SerperProviderOptions } from './serper.ts';
import { createTavilyProvider, type TavilyProviderOptions } from './tavily.ts';
import { createWikipediaProvider, type WikipediaProviderOptions } from './wikipedia.ts';

export { createBraveProvider, type BraveProviderOptions } from './brave.ts';
export {
  createDuckDuckGoProvider,
  parseDuckDuckGoHtml,
  unwrapDuckDuckGoHref,
  type DuckDuckGoProviderOptions,
} from './duckduckgo.ts';
export { createExaProvider, type ExaProviderOptions } from './exa.ts';
export { createSearxngProvider, type SearxngProviderOptions } from './searxng.ts';
export { createSerperProvider, type SerperProviderOptions } from './serper.ts';
export { createTavilyProvider, type TavilyProviderOptions } from './tavily.ts';
export { createWikipediaProvider, wikipediaArticleUrl, type WikipediaProviderOptions } from './wikipedia.ts';
export {
  SearchProviderError,
  isSearchProviderError,
  type SearchProviderErrorKind,
  type SearchProviderErrorOptions,
} from './errors.ts';
export { DEFAULT_PROVIDER_TIMEOUT_MS, type FetchFunction, type HttpProviderOptions } from './http-options.ts';

/** Names of the built-in providers. */
export const SEARCH_PROVIDER_NAMES = [
  'searxng',
  'brave',
  'tavily',
  'serper',
  'exa',
  'wikipedia',
  'duckduckgo',
] as const;

/** A built-in provider name. */
export type SearchProviderName = (typeof SEARCH_PROVIDER_NAMES)[number];

const ALIASES: Readonly<Record<string, SearchProviderName>> = { ddg: 'duckduckgo' };

/**
 * Settings for building providers by name. Per-provider sections hold that provider's options; the
 * top-level `timeoutMs`, `fetch` and `userAgent` apply to every provider whose section does not set them.
 */
export interface SearchProviderConfig {
  /** `baseUrl` is required to use `searxng`. */
  readonly searxng?: Partial<SearxngProviderOptions>;
  /** `apiKey` is required to use `brave`. */
  readonly brave?: Partial<BraveProviderOptions>;
  /** `apiKey` is required to use `tavily`. */
  readonly tavily?: Partial<TavilyProviderOptions>;
  /** `apiKey` is required to use `serper`. */
  readonly serper?: Partial<SerperProviderOptions>;
  /** `apiKey` is required to use `exa`. */
  readonly exa?: Partial<ExaProviderOptions>;
  readonly wikipedia?: WikipediaProviderOptions;
  readonly duckduckgo?: DuckDuckGoProviderOptions;
  /** Per-provider request timeout in ms. @default 10000 */
  readonly timeoutMs?: number;
  /** @default undici's fetch */
  readonly fetch?: FetchFunction;
  /** User-Agent for the keyless providers (Wikipedia, DuckDuckGo, SearXNG). @default USER_AGENT (`citewise/<version> (+…)`) */
  readonly userAgent?: string;
  /**
   * Wraps each built-in provider before they are combined (not the `providers` extras), e.g. with
   * `withResilience` so every upstream gets its own retries and circuit breaker.
   */
  readonly wrapProvider?: (provider: SearchProvider) => SearchProvider;
  /** Extra providers usable by name in a spec, e.g. `{ local: localIndexProvider }`. */
  readonly providers?: Readonly<Record<string, SearchProvider>>;
  /** Options of the fallback ladder built for `,`. */
  readonly fallback?: Omit<FallbackProviderOptions, 'id'>;
  /** Options of the fusion built for `+`. */
  readonly fusion?: Omit<FusionProviderOptions, 'id'>;
}

function missing(name: string, what: string, key: string): TypeError {
  return new TypeError(`search provider '${name}' needs ${what}: set ${key} in the search provider config`);
}

/** A keyed provider's config section, which must hold its API key. */
function withApiKey<Section extends { readonly apiKey?: string }>(
  name: string,
  section: Section | undefined,
): Section & { readonly apiKey: string } {
  const apiKey = section?.apiKey;
  if (!apiKey) throw missing(name, 'an API key', `${name}.apiKey`);
  return { ...section, apiKey };
}

function normalizeName(raw: string): string {
  const name = raw.trim().toLowerCase();
  return ALIASES[name] ?? name;
}

/**
 * Creates one provider by name (built-in, alias or a name from `config.providers`).
 * Throws TypeError for an unknown name or a missing key/URL, naming the config field to set.
 */
export function createSearchProvider(name: string, config: SearchProviderConfig = {}): SearchProvider {
  const normalized = normalizeName(name);
  const custom = config.providers?.[normalized];
  if (custom) return custom;
  const provider = createBuiltInProvider(normalized, name, config);
  return config.wrapProvider ? config.wrapProvider(provider) : provider;
}

function createBuiltInProvider(
  normalized: string,
  name: string,
  config: SearchProviderConfig,
): SearchProvider {
  const common = { timeoutMs: config.timeoutMs, fetch: config.fetch };
  const withUserAgent = { ...common, userAgent: config.userAgent };
  switch (normalized) {
    case 'searxng': {
      const section = config.searxng ?? {};
      if (!section.baseUrl) throw missing('searxng', 'the instance URL', 'searxng.baseUrl');
      return createSearxngProvider({ ...withUserAgent, ...section, baseUrl: section.baseUrl });
    }
    case 'brave':
      return createBraveProvider({ ...common, ...withApiKey('brave', config.brave) });
    case 'tavily':
      return createTavilyProvider({ ...common, ...withApiKey('tavily', config.tavily) });
    case 'serper':
      return createSerperProvider({ ...common, ...withApiKey('serper', config.serper) });
    case 'exa':
      return createExaProvider({ ...common, ...withApiKey('exa', config.exa) });
    case 'wikipedia':
      return createWikipediaProvider({ ...withUserAgent, ...config.wikipedia });
    case 'duckduckgo':
      return createDuckDuckGoProvider({ ...withUserAgent, ...config.duckduckgo });
    default: {
      const known = [...SEARCH_PROVIDER_NAMES, ...Object.keys(config.providers ?? {})].join(', ');
      throw new TypeError(`unknown search provider '${name.trim()}' (known: ${known})`);
    }
  }
}

/** Splits a spec into fallback rungs of fused names; validates syntax only. */
export function parseProviderSpec(spec: string): string[][] {
  if (typeof spec !== 'string' || spec.trim() === '') {
    throw new TypeError('search provider spec must be a non-empty string such as "wikipedia,duckduckgo"');
  }
  return spec.split(',').map((rung) => {
    const names = rung.split('+').map(normalizeName);
    if (names.some((n) => n === '')) {
      throw new TypeError(
        `search provider spec "${spec}" has an empty name (check the commas and plus signs)`,
      );
    }
    return names;
  });
}

/**
 * Creates the providers of a comma-separated list, in order, e.g. `parseProviderList('wikipedia,duckduckgo',
 * config)` → `[wikipedia, duckduckgo]`. Use it to compose providers yourself; `+` is not accepted here.
 */
export function parseProviderList(spec: string, config: SearchProviderConfig = {}): SearchProvider[] {
  return parseProviderSpec(spec).map((rung) => {
    if (rung.length > 1) {
      throw new TypeError(
        `parseProviderList takes names separated by commas; use createSearchProviderFromSpec for "+"`,
      );
    }
    return createSearchProvider(rung[0] ?? '', config);
  });
}

/**
 * Creates one {@link SearchProvider} from a spec: `,` = fallback in order, `+` = reciprocal rank fusion
 * (see the module comment). A single name returns that provider unwrapped.
 */
export function createSearchProviderFromSpec(
  spec: string,
  config: SearchProviderConfig = {},
): SearchProvider {
  const rungs = parseProviderSpec(spec).map((names) => {
    const providers = names.map((name) => createSearchProvider(name, config));
    return providers.length === 1 && providers[0]
      ? providers[0]
      : createFusionProvider(providers, config.fusion);
  });
  if (rungs.length === 1 && rungs[0]) return rungs[0];
  return createFallbackProvider(rungs, config.fallback);
}
