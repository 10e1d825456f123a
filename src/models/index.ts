/** Resolving `provider:model-id` specs to AI SDK language and embedding models. */
export {
  resolveModel,
  resolveEmbeddingModel,
  parseModelSpec,
  modelEnvironment,
  MODEL_ENVIRONMENT,
  LOCAL_SERVER_BASE_URLS,
} from './resolve.ts';
export type { ModelConnectionOptions, ModelProviderName, ModelSpec } from './resolve.ts';
