/**
 * Checks, before `serve` starts, that the chosen search providers and models have what they need, and says
 * so in the CLI's terms (flags and environment variables), not the library's option names.
 */
import { MODEL_ENVIRONMENT, parseModelSpec } from '../models/resolve.ts';
import { parseProviderSpec } from '../pipeline/search/providers/index.ts';
import type { Env } from './config.ts';
import { SERVE_SETTINGS, settingLabel, type AnySetting, type ServeConfig } from './settings.ts';

/** Model providers whose SDK cannot call without an API key. */
const KEYED_MODEL_PROVIDERS: ReadonlySet<string> = new Set(['openai', 'anthropic', 'google']);

/** How to provide a setting: `--flag (VARIABLE)`, or the variable alone for a secret. */
function howToSet(setting: AnySetting): string {
  return setting.flag ? settingLabel(setting) : `the environment variable ${setting.env}`;
}

/** Throws when a provider named in `--search` lacks its URL or key, naming the flag or variable to set. */
export function checkSearchRequirements(config: ServeConfig): void {
  const names = new Set(parseProviderSpec(config.search).flat());
  for (const [name, setting] of Object.entries(SERVE_SETTINGS) as [keyof ServeConfig, AnySetting][]) {
    if (setting.requiredBy !== undefined && names.has(setting.requiredBy) && config[name] === undefined) {
      throw new Error(
        `--search ${setting.requiredBy} needs ${howToSet(setting)}: ${setting.meaning.replace(/;.*$/, '')}`,
      );
    }
  }
}

/** Why a `--model` / `--embedding-model` spec cannot work with this environment, or undefined. */
export function modelRequirementError(spec: string, config: ServeConfig, env: Env): string | undefined {
  const { provider } = parseModelSpec(spec);
  const names = MODEL_ENVIRONMENT[provider];
  if (KEYED_MODEL_PROVIDERS.has(provider) && names.apiKey && !env[names.apiKey]?.trim()) {
    return `model ${spec} needs the environment variable ${names.apiKey} (the ${provider} API key)`;
  }
  const baseUrlVariable = names.baseUrl;
  if (
    provider === 'openai-compatible' &&
    !config.modelBaseUrl &&
    !(baseUrlVariable && env[baseUrlVariable]?.trim())
  ) {
    return (
      `model ${spec} needs the server's URL: ${settingLabel(SERVE_SETTINGS.modelBaseUrl)}` +
      (baseUrlVariable ? ` or ${baseUrlVariable}` : '')
    );
  }
  return undefined;
}
