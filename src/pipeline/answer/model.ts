/**
 * The model answerer: writes the answer with any AI SDK `LanguageModel` (OpenAI, Anthropic, Google,
 * OpenAI-compatible servers) from the numbered sources, then validates its citations and strips what it
 * must not contain (see `citations.ts`, `format.ts`). Transient model errors are retried inside the
 * request's deadline; a failed answer is an `upstream_error` (HTTP 500, credits refunded) or, when a
 * fallback answerer is configured, the fallback's answer.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  APICallError,
  NoObjectGeneratedError,
  NoOutputGeneratedError,
  Output,
  RetryError,
  generateText,
  jsonSchema,
  streamText,
  type LanguageModel,
} from 'ai';
import { z } from 'zod';
import type { AnswerEvent, AnswerInput, AnswerOutput, Answerer, CallOptions } from '../types.ts';
import { CitewiseError } from '../../errors.ts';
import { requireModelOption } from '../../models/options.ts';
import { buildAnswerPrompt, type AnswerPrompt, type AnswerPromptOptions } from './prompt.ts';
import { createAnswerFilter } from './format.ts';
import { checkTelemetrySettings, telemetryCallOptions, type ModelTelemetrySettings } from './telemetry.ts';
import { noAnswerTextOf, type NoAnswerText } from './no-answer.ts';
import {
  nonNegativeInteger,
  nonNegativeNumber,
  numberOptions,
  positiveInteger,
  positiveNumber,
} from '../../options.ts';

type GenerateTextOptions = Parameters<typeof generateText>[0];

/** Options of {@link createModelAnswerer}. */
export interface ModelAnswererOptions {
  /** Any AI SDK language model, e.g. `openai('gpt-4.1-mini')` or one from `resolveModel('ollama:…')`. */
  readonly model: LanguageModel;
  /**
   * Most tokens the model may write.
   * @default 1024
   */
  readonly maxOutputTokens?: number;
  /** Sampling temperature; the provider's default when absent (some reasoning models reject it). */
  readonly temperature?: number;
  /**
   * Retries of a transient model error (HTTP 408/409/429/5xx, network), with jittered exponential
   * backoff, as long as the request's deadline leaves time for another attempt.
   * @default 2
   */
  readonly maxRetries?: number;
  /**
   * Base delay of the backoff in ms: attempt k waits a random time up to `retryDelayMs × 2^k` (capped by
   * `maxRetryDelayMs`), or the server's `Retry-After` when it says so and the deadline allows.
   * @default 500
   */
  readonly retryDelayMs?: number;
  /** @default 4000 */
  readonly maxRetryDelayMs?: number;
  /**
   * A retry is only started when at least this many ms remain before the request's deadline after the delay.
   * @default 1000
   */
  readonly minAttemptMs?: number;
  /** Answerer used when the model fails (e.g. `createExtractiveAnswerer()`); otherwise the request fails. */
  readonly fallback?: Answerer;
  /**
   * Answer when no passages were found (the model is not called); a function is asked at each answer.
   * @default 'The available sources do not contain an answer to this question.'
   */
  readonly noAnswerText?: NoAnswerText;
  /** Prompt options (context length, extra instructions). */
  readonly prompt?: Omit<AnswerPromptOptions, 'nonce'>;
  /** Provider-specific options passed to the AI SDK, e.g. `{ openai: { reasoningEffort: 'low' } }`. */
  readonly providerOptions?: GenerateTextOptions['providerOptions'];
  /** Extra HTTP headers for the model provider. */
  readonly headers?: Record<string, string>;
  /**
   * With `response_type: "json"`: further attempts after the model returned JSON that does not parse or
   * does not match the schema (sent at once, without backoff). Then the request fails with a 500.
   * @default 1
   */
  readonly maxInvalidJsonRetries?: number;
  /**
   * Telemetry of the model calls through the AI SDK's `telemetry` option (events named by the SDK, e.g.
   * `ai.generateText`, with this `functionId` and the request id as runtime context).
   * @default none: the AI SDK's defaults (globally registered integrations, if any)
   */
  readonly telemetry?: ModelTelemetrySettings;
  /** Called on every failed model attempt (for logging); never receives prompt text. */
  readonly onError?: (
    error: unknown,
    details: { readonly attempt: number; readonly willRetry: boolean },
  ) => void;
}

/** The model answerer: an {@link Answerer} with streaming. */
export interface ModelAnswerer extends Answerer {
  stream(input: AnswerInput, options: CallOptions): AsyncIterable<AnswerEvent>;
}

/** True for errors worth another attempt: the provider marks them retryable, or the network failed. */
export function isRetryableModelError(error: unknown): boolean {
  if (RetryError.isInstance(error)) return isRetryableModelError(error.lastError);
  if (APICallError.isInstance(error)) return error.isRetryable;
  if (typeof error === 'object' && error !== null) {
    const retryable = (error as { isRetryable?: unknown }).isRetryable;
    if (typeof retryable === 'boolean') return retryable;
    const code = (error as { code?: unknown; cause?: { code?: unknown } }).cause?.code;
    if (typeof code === 'string' && /^(?:ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|UND_ERR_SOCKET)$/.test(code))
      return true;
    if (error instanceof TypeError && error.message === 'fetch failed') return true;
  }
  return false;
}

/** Milliseconds the server asked us to wait (`retry-after-ms` or `retry-after`), if it did. */
function retryAfterMs(error: unknown): number | undefined {
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  if (!APICallError.isInstance(cause)) return undefined;
  const headers = cause.responseHeaders ?? {};
  const ms = Number.parseFloat(headers['retry-after-ms'] ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers['retry-after'];
  if (value === undefined) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

class EmptyAnswerError extends Error {
  override readonly name = 'EmptyAnswerError';
}

/**
 * The model's JSON did not match the request's schema, even after the retries. Not the model's outage:
 * `isRetryable: false` keeps it from counting against the answerer's circuit breaker.
 */
export class InvalidJsonAnswerError extends Error {
  override readonly name = 'InvalidJsonAnswerError';
  readonly isRetryable = false;
}

/** True when the model answered, but not with JSON matching the schema. */
function isInvalidJsonAnswer(error: unknown): boolean {
  return NoObjectGeneratedError.isInstance(error) || NoOutputGeneratedError.isInstance(error);
}

/** A validator of the request's JSON Schema (zod's converter), in the AI SDK's `jsonSchema()` form. */
function structuredSchema(schema: Readonly<Record<string, unknown>>) {
  const validator = z.fromJSONSchema(schema);
  return jsonSchema<unknown>(schema, {
    validate: (value) => {
      const result = validator.safeParse(value);
      return result.success ? { success: true, value: result.data } : { success: false, error: result.error };
    },
  });
}

/** Defaults of {@link ModelAnswererOptions}. */
export const MODEL_ANSWERER_DEFAULTS = {
  maxOutputTokens: 1024,
  maxRetries: 2,
  retryDelayMs: 500,
  maxRetryDelayMs: 4000,
  minAttemptMs: 1000,
  maxInvalidJsonRetries: 1,
} as const;

/**
 * Creates the model answerer.
 *
 * `answer` builds the prompt ({@link buildAnswerPrompt}), calls `generateText` with the request's
 * `AbortSignal` (the AI SDK's own retries are off: retries here respect the request deadline), and
 * post-processes the text: citations validated and renumbered, invented links and images stripped, plain
 * text for `response_type: "text"`. `stream` yields the candidate sources, then filtered deltas from
 * `streamText`, then `done`; the concatenated deltas equal `done.answer`. A failure before any text was
 * streamed is retried or falls back like `answer`; after text went out, it fails the stream.
 *
 * @throws TypeError / RangeError on invalid options.
 */
export function createModelAnswerer(options: ModelAnswererOptions): ModelAnswerer {
  requireModelOption(options);
  const { maxOutputTokens, maxRetries, retryDelayMs, maxRetryDelayMs, minAttemptMs, maxInvalidJsonRetries } =
    numberOptions(options, MODEL_ANSWERER_DEFAULTS, {
      maxOutputTokens: positiveInteger,
      maxRetries: nonNegativeInteger,
      retryDelayMs: positiveNumber,
      maxRetryDelayMs: positiveNumber,
      minAttemptMs: nonNegativeNumber,
      maxInvalidJsonRetries: nonNegativeInteger,
    });
  const noAnswerText = noAnswerTextOf(options.noAnswerText);
  checkTelemetrySettings(options.telemetry);
  // Checked only: without it the provider's default applies.
  if (options.temperature !== undefined)
    nonNegativeNumber('temperature', options.temperature, options.temperature);
  if (options.fallback !== undefined && typeof options.fallback.answer !== 'function')
    throw new TypeError('fallback must be an Answerer');
  buildAnswerPrompt(
    { prompt: '', context: [], query: '', responseType: 'text', passages: [] },
    options.prompt,
  );

  const callSettings = (prompt: AnswerPrompt, signal: AbortSignal, requestId: string) =>
    ({
      ...telemetryCallOptions(options.telemetry, 'citewise.answer', requestId),
      model: options.model,
      instructions: prompt.system,
      prompt: prompt.user,
      maxOutputTokens,
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      maxRetries: 0,
      abortSignal: signal,
      ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
      ...(options.headers === undefined ? {} : { headers: options.headers }),
    }) satisfies GenerateTextOptions;

  /** Delay before the next attempt, or `null` when the error is final. */
  const nextDelay = (error: unknown, attempt: number, call: CallOptions): number | null => {
    const { deadline } = call;
    let delay: number | null = null;
    if (!call.signal.aborted && attempt < maxRetries && isRetryableModelError(error)) {
      const cap = Math.min(maxRetryDelayMs, retryDelayMs * 2 ** attempt);
      delay = Math.max(retryAfterMs(error) ?? 0, Math.random() * cap);
      if (typeof deadline === 'number' && Date.now() + delay + minAttemptMs > deadline) delay = null;
    }
    options.onError?.(error, { attempt, willRetry: delay !== null });
    return delay;
  };

  /** The error to throw (or the fallback answer to give) once the model has failed for good. */
  const failure = async (error: unknown, input: AnswerInput, call: CallOptions): Promise<AnswerOutput> => {
    if (call.signal.aborted) throw call.signal.reason ?? error;
    if (options.fallback) return options.fallback.answer(input, call);
    const message = error instanceof Error ? error.message : String(error);
    throw new CitewiseError('upstream_error', `model answer failed: ${message}`, { cause: error });
  };

  /**
   * `response_type: "json"`: an object matching the request's schema, written from the same delimited
   * sources, as its JSON text. The sources are all those given to the model (which of them filled which
   * field cannot be told). No fallback: a text answer would not match the schema.
   */
  const answerJson = async (
    input: AnswerInput & { readonly jsonSchema: Readonly<Record<string, unknown>> },
    call: CallOptions,
  ): Promise<AnswerOutput> => {
    // A JSON object cannot say that the sources hold no answer; without sources it would be invented.
    if (input.passages.length === 0) {
      throw new CitewiseError('ungrounded_answer', 'no source to write the JSON answer from', {
        description: 'Unprocessable: the search found no source to answer from',
      });
    }
    const prompt = buildAnswerPrompt(input, options.prompt);
    const sources = prompt.sources.map((source) => source.url);
    const output = Output.object({ schema: structuredSchema(input.jsonSchema), name: 'answer' });
    let invalidAnswers = 0;
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await generateText({ ...callSettings(prompt, call.signal, call.requestId), output });
        return { answer: JSON.stringify(result.output), sources };
      } catch (error) {
        call.signal.throwIfAborted();
        if (isInvalidJsonAnswer(error)) {
          options.onError?.(error, { attempt, willRetry: invalidAnswers < maxInvalidJsonRetries });
          if (invalidAnswers++ < maxInvalidJsonRetries) continue;
          throw new CitewiseError('server_error', 'model answer did not match json_schema', {
            description: 'Server Error: the model did not return JSON matching json_schema',
            cause: new InvalidJsonAnswerError('model answer did not match json_schema', { cause: error }),
          });
        }
        const delay = nextDelay(error, attempt, call);
        if (delay === null) {
          const message = error instanceof Error ? error.message : String(error);
          throw new CitewiseError('upstream_error', `model answer failed: ${message}`, { cause: error });
        }
        await sleep(delay, undefined, { signal: call.signal });
      }
    }
  };

  return {
    structuredOutput: true,

    async answer(input: AnswerInput, call: CallOptions): Promise<AnswerOutput> {
      call.signal.throwIfAborted();
      if (input.jsonSchema) return answerJson({ ...input, jsonSchema: input.jsonSchema }, call);
      if (input.passages.length === 0) return { answer: noAnswerText(), sources: [] };
      const prompt = buildAnswerPrompt(input, options.prompt);
      const sources = prompt.sources.map((source) => source.url);
      for (let attempt = 0; ; attempt++) {
        try {
          const result = await generateText(callSettings(prompt, call.signal, call.requestId));
          const filter = createAnswerFilter({ sources, responseType: input.responseType });
          const answer = filter.push(result.text) + filter.end();
          if (answer.length === 0) throw new EmptyAnswerError('the model returned an empty answer');
          return { answer, sources: [...filter.cited] };
        } catch (error) {
          const delay = nextDelay(error, attempt, call);
          if (delay === null) return failure(error, input, call);
          await sleep(delay, undefined, { signal: call.signal });
        }
      }
    },

    async *stream(input: AnswerInput, call: CallOptions): AsyncGenerator<AnswerEvent> {
      call.signal.throwIfAborted();
      if (input.jsonSchema) {
        // A JSON object is only valid once complete: it is sent as one delta.
        const output = await answerJson({ ...input, jsonSchema: input.jsonSchema }, call);
        yield { type: 'sources', sources: output.sources };
        yield { type: 'delta', text: output.answer };
        yield { type: 'done', answer: output.answer, sources: output.sources };
        return;
      }
      const prompt = buildAnswerPrompt(input, options.prompt);
      const sources = prompt.sources.map((source) => source.url);
      yield { type: 'sources', sources };
      if (input.passages.length === 0) {
        const text = noAnswerText();
        yield { type: 'delta', text };
        yield { type: 'done', answer: text, sources: [] };
        return;
      }
      for (let attempt = 0; ; attempt++) {
        // Our own controller, so that a consumer that stops reading also ends the model call.
        const controller = new AbortController();
        const signal = AbortSignal.any([call.signal, controller.signal]);
        const filter = createAnswerFilter({ sources, responseType: input.responseType });
        let answer = '';
        try {
          const result = streamText({ ...callSettings(prompt, signal, call.requestId), onError: () => {} });
          for await (const part of result.fullStream) {
            if (part.type === 'text-delta') {
              const text = filter.push(part.text);
              if (text.length > 0) {
                answer += text;
                yield { type: 'delta', text };
              }
            } else if (part.type === 'error') {
              throw part.error;
            } else if (part.type === 'abort') {
              call.signal.throwIfAborted();
              throw new Error('model stream aborted');
            }
          }
          const tail = filter.end();
          if (tail.length > 0) {
            answer += tail;
            yield { type: 'delta', text: tail };
          }
          if (answer.length === 0) throw new EmptyAnswerError('the model returned an empty answer');
          yield { type: 'done', answer, sources: [...filter.cited] };
          return;
        } catch (error) {
          if (answer.length > 0) {
            // Text already went out: neither a retry nor a fallback can take it back.
            if (call.signal.aborted) throw call.signal.reason ?? error;
            const message = error instanceof Error ? error.message : String(error);
            throw new CitewiseError('upstream_error', `model stream failed: ${message}`, { cause: error });
          }
          const delay = nextDelay(error, attempt, call);
          if (delay === null) {
            const output = await failure(error, input, call);
            yield { type: 'delta', text: output.answer };
            yield { type: 'done', answer: output.answer, sources: output.sources };
            return;
          }
          await sleep(delay, undefined, { signal: call.signal });
        } finally {
          controller.abort();
        }
      }
    },
  };
}
