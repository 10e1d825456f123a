/** Racing a promise against an AbortSignal: stages that ignore their signal still cannot hold a search. */

/** The signal's reason as an Error (a reason that is not an Error becomes the cause of one). */
export function abortReason(signal: AbortSignal): Error {
  return asError(signal.reason, 'aborted');
}

/** `value` if it is an Error, else an Error with `message` whose cause is `value`. */
export function asError(value: unknown, message = String(value)): Error {
  return value instanceof Error ? value : new Error(message, { cause: value });
}

/** Settles with the promise, or rejects with the signal's reason when it aborts first. */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(asError(error));
      },
    );
  });
}
