/** Store interfaces, shared helpers and the built-in memory stores. SQLite lives in `./sqlite/index.ts`. */
export type * from './types.ts';
export {
  API_KEY_PREFIX,
  API_KEY_RANDOM_LENGTH,
  KEY_PREFIX_LENGTH,
  generateApiKey,
  hashApiKey,
  keyPrefix,
  looksLikeApiKey,
  newKeyId,
} from './keys.ts';
export { gcraStep, assertCost } from './gcra.ts';
export type { GcraStep } from './gcra.ts';
export * from './memory/index.ts';
export { budgetWindow, describeBudget, formatBudget, normalizeKeyBudget, parseBudget } from './budgets.ts';
