/** Shared checks of options that carry an AI SDK model. */

/** Throws `TypeError('model is required')` unless `options` is an object with a `model`. */
export function requireModelOption(options: unknown): void {
  const model =
    options !== null && typeof options === 'object' ? (options as { model?: unknown }).model : undefined;
  if (model === undefined || model === null) throw new TypeError('model is required');
}
