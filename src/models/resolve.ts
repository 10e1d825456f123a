/**
 * Resolves `provider:model-id` specs (as given to the CLI's `--model`) to AI SDK models. Provider packages
 * are optional peer dependencies loaded with `import()` only when used: `@ai-sdk/openai`,
 * `@ai-sdk/anthropic`, `@ai-sdk/google`; `@ai-sdk/openai-compatible` (a dependency) serves local and
 * self-hosted OpenAI-compatible servers such as Ollama, vLLM, llama.cpp and LM Studio.
 */
import type { EmbeddingModel, LanguageModel } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';

/** Provider names understood by {@link resolveModel}. */
export type ModelProviderName =
  'openai' | 'anthropic' | 'google' | 'openai-compatible' | 'ollama' | 'lmstudio' | 'vllm' | 'llamacpp';

/** Connection settings of a model. */
export interface ModelConnectionOptions {
  /** Base URL of the API (required for `openai-compatible`; optional elsewhere). */
  readonly baseUrl?: string;
  /** API key; for the hosted providers it is required unless their package finds it itself. */
  readonly apiKey?: string;
  /** Extra HTTP headers sent with every model request. */
  readonly headers?: Record<string, string>;
  /** Custom fetch (proxies, tests). */
  readonly fetch?: typeof globalThis.fetch;
}

/** Default base URLs of local OpenAI-compatible servers (override with `baseUrl`). */
export const LOCAL_SERVER_BASE_URLS: Readonly<Record<'ollama' | 'lmstudio' | 'vllm' | 'llamacpp', string>> = {
  ollama: 'http://127.0.0.1:11434/v1',
  lmstudio: 'http://127.0.0.1:1234/v1',
  vllm: 'http://127.0.0.1:8000/v1',
  llamacpp: 'http://127.0.0.1:8080/v1',
};

const PACKAGES = {
  openai: { name: '@ai-sdk/openai', factory: 'createOpenAI' },
  anthropic: { name: '@ai-sdk/anthropic', factory: 'createAnthropic' },
  google: { name: '@ai-sdk/google', factory: 'createGoogleGenerativeAI' },
} as const;

const PROVIDERS: ReadonlySet<string> = new Set<ModelProviderName>([
  'openai',
  'anthropic',
  'google',
  'openai-compatible',
  'ollama',
  'lmstudio',
  'vllm',
  'llamacpp',
]);

/** The parts of a `provider:model-id` spec. */
export interface ModelSpec {
  readonly provider: ModelProviderName;
  readonly modelId: string;
}

/**
 * Splits `provider:model-id` at the first colon (model ids may contain colons: `ollama:llama3.2:3b`).
 * @throws TypeError when the spec is malformed or the provider unknown.
 */
export function parseModelSpec(spec: string): ModelSpec {
  if (typeof spec !== 'string') throw new TypeError('model spec must be a string "provider:model-id"');
  const colon = spec.indexOf(':');
  const provider = spec.slice(0, colon).trim().toLowerCase();
  const modelId = spec.slice(colon + 1).trim();
  if (colon <= 0 || modelId.length === 0)
    throw new TypeError(
      `model spec "${spec}" must look like "provider:model-id", e.g. "openai:gpt-4.1-mini"`,
    );
  if (!PROVIDERS.has(provider))
    throw new TypeError(`unknown model provider "${provider}"; use one of ${[...PROVIDERS].join(', ')}`);
  return { provider: provider as ModelProviderName, modelId };
}

interface ProviderInstance {
  (modelId: string): unknown;
  languageModel?: (modelId: string) => unknown;
  embeddingModel?: (modelId: string) => unknown;
  textEmbeddingModel?: (modelId: string) => unknown;
}

function checkBaseUrl(baseUrl: string | undefined): void {
  if (baseUrl === undefined) return;
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
  } catch {
    throw new TypeError(`baseUrl "${baseUrl}" must be an http(s) URL`);
  }
}

async function loadProvider(spec: ModelSpec, options: ModelConnectionOptions): Promise<ProviderInstance> {
  checkBaseUrl(options.baseUrl);
  const settings = {
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  };
  if (spec.provider === 'openai' || spec.provider === 'anthropic' || spec.provider === 'google') {
    const { name, factory } = PACKAGES[spec.provider];
    let module: Record<string, unknown>;
    try {
      // A variable specifier keeps the optional package out of static resolution (and type checking).
      const specifier: string = name;
      module = (await import(specifier)) as Record<string, unknown>;
    } catch (error) {
      throw new Error(`install ${name} to use ${spec.provider}:${spec.modelId} (npm install ${name})`, {
        cause: error,
      });
    }
    const create = module[factory];
    if (typeof create !== 'function') throw new Error(`${name} does not export ${factory}`);
    return (create as (settings: object) => ProviderInstance)(settings);
  }
  const baseURL =
    options.baseUrl ??
    (spec.provider === 'openai-compatible' ? undefined : LOCAL_SERVER_BASE_URLS[spec.provider]);
  if (baseURL === undefined)
    throw new TypeError(
      `openai-compatible:${spec.modelId} needs a base URL (e.g. http://127.0.0.1:11434/v1)`,
    );
  return createOpenAICompatible({
    ...settings,
    baseURL,
    name: spec.provider,
  });
}

/**
 * Resolves a `provider:model-id` spec to an AI SDK language model.
 *
 * Providers: `openai`, `anthropic`, `google` (install `@ai-sdk/openai`, `@ai-sdk/anthropic` or
 * `@ai-sdk/google`), `openai-compatible` (any OpenAI-compatible server; `baseUrl` required), and the
 * shortcuts `ollama`, `lmstudio`, `vllm`, `llamacpp`, which are `openai-compatible` with the server's
 * usual local base URL ({@link LOCAL_SERVER_BASE_URLS}).
 *
 * @example
 * const model = await resolveModel('openai:gpt-4.1-mini', { apiKey: process.env.OPENAI_API_KEY });
 * const local = await resolveModel('ollama:llama3.2:3b');
 * @throws TypeError on a malformed spec, unknown provider or missing base URL; Error when the
 * provider's package is not installed ("install @ai-sdk/anthropic to use anthropic:…").
 */
export async function resolveModel(
  spec: string,
  options: ModelConnectionOptions = {},
): Promise<LanguageModel> {
  const parsed = parseModelSpec(spec);
  const provider = await loadProvider(parsed, options);
  const model = provider.languageModel ? provider.languageModel(parsed.modelId) : provider(parsed.modelId);
  return model as LanguageModel;
}

/**
 * Resolves a `provider:model-id` spec to an AI SDK embedding model (for the embedding re-ranker), e.g.
 * `openai:text-embedding-3-small`, `google:text-embedding-004`, `ollama:nomic-embed-text`.
 * Anthropic has no embedding models.
 * @throws like {@link resolveModel}; TypeError for a provider without embedding models.
 */
export async function resolveEmbeddingModel(
  spec: string,
  options: ModelConnectionOptions = {},
): Promise<EmbeddingModel> {
  const parsed = parseModelSpec(spec);
  if (parsed.provider === 'anthropic') throw new TypeError('anthropic has no embedding models');
  const provider = await loadProvider(parsed, options);
  const create = provider.embeddingModel ?? provider.textEmbeddingModel;
  if (typeof create !== 'function') throw new TypeError(`${parsed.provider} has no embedding models`);
  return create.call(provider, parsed.modelId) as EmbeddingModel;
}

/** Environment variables read for each provider: API key and base URL. */
export const MODEL_ENVIRONMENT: Readonly<
  Record<ModelProviderName, { readonly apiKey?: string; readonly baseUrl?: string }>
> = {
  openai: { apiKey: 'OPENAI_API_KEY', baseUrl: 'OPENAI_BASE_URL' },
  anthropic: { apiKey: 'ANTHROPIC_API_KEY', baseUrl: 'ANTHROPIC_BASE_URL' },
  google: { apiKey: 'GOOGLE_GENERATIVE_AI_API_KEY', baseUrl: 'GOOGLE_GENERATIVE_AI_BASE_URL' },
  'openai-compatible': { apiKey: 'OPENAI_COMPATIBLE_API_KEY', baseUrl: 'OPENAI_COMPATIBLE_BASE_URL' },
  ollama: { baseUrl: 'OLLAMA_BASE_URL' },
  lmstudio: { baseUrl: 'LMSTUDIO_BASE_URL' },
  vllm: { apiKey: 'VLLM_API_KEY', baseUrl: 'VLLM_BASE_URL' },
  llamacpp: { apiKey: 'LLAMACPP_API_KEY', baseUrl: 'LLAMACPP_BASE_URL' },
};

/**
 * Connection settings for a spec from an environment (the CLI passes `process.env`): the provider's usual
 * API key variable (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GOOGLE_GENERATIVE_AI_API_KEY`, …) and base-URL
 * variable ({@link MODEL_ENVIRONMENT}). Empty values are ignored. Explicit options should override it.
 *
 * @example
 * const model = await resolveModel(spec, { ...modelEnvironment(spec, process.env), ...flags });
 */
export function modelEnvironment(
  spec: string,
  env: Readonly<Record<string, string | undefined>>,
): { apiKey?: string; baseUrl?: string } {
  const names = MODEL_ENVIRONMENT[parseModelSpec(spec).provider];
  const read = (name: string | undefined): string | undefined => {
    const value = name === undefined ? undefined : env[name]?.trim();
    return value ? value : undefined;
  };
  const apiKey = read(names.apiKey);
  const baseUrl = read(names.baseUrl);
  return { ...(apiKey === undefined ? {} : { apiKey }), ...(baseUrl === undefined ? {} : { baseUrl }) };
}
