/**
 * Telemetry of the model calls, through the AI SDK's own telemetry option: the SDK emits lifecycle events
 * (`ai.generateText` start, model call, end, error) to telemetry integrations, e.g. `OpenTelemetry` of
 * `@ai-sdk/otel`, which turns them into spans. Inputs are not recorded by default: the prompt carries page
 * text and the user's questions.
 */
import type { Telemetry, TelemetryOptions } from 'ai';

/** Telemetry settings of the model calls (answerer and query planner). */
export interface ModelTelemetrySettings {
  /** Set to `false` to emit nothing even when integrations are registered globally. @default true */
  readonly isEnabled?: boolean;
  /** Groups the events of one kind of call, e.g. `citewise.answer`. @default per stage */
  readonly functionId?: string;
  /** Record prompts and schemas (page text, the user's questions). @default false */
  readonly recordInputs?: boolean;
  /** Record the model's answers. @default true */
  readonly recordOutputs?: boolean;
  /**
   * Integrations receiving the events, e.g. `new OpenTelemetry({ tracer })` from `@ai-sdk/otel`.
   * @default the integrations registered with the AI SDK's `registerTelemetry()`
   */
  readonly integrations?: Telemetry | readonly Telemetry[];
}

/** Runtime context attached to every model call: the request id, so spans can be joined with logs. */
export interface ModelCallContext extends Record<string, unknown> {
  readonly requestId: string;
}

function integrationList(integrations: Telemetry | readonly Telemetry[]): Telemetry[] {
  return isList(integrations) ? [...integrations] : [integrations];
}

function isList(value: Telemetry | readonly Telemetry[]): value is readonly Telemetry[] {
  return Array.isArray(value);
}

/** Checks telemetry settings; throws TypeError on a malformed value. */
export function checkTelemetrySettings(settings: ModelTelemetrySettings | undefined): void {
  if (settings === undefined) return;
  if (settings === null || typeof settings !== 'object') throw new TypeError('telemetry must be an object');
  for (const name of ['isEnabled', 'recordInputs', 'recordOutputs'] as const) {
    const value = settings[name];
    if (value !== undefined && typeof value !== 'boolean')
      throw new TypeError(`telemetry.${name} must be a boolean`);
  }
  if (
    settings.functionId !== undefined &&
    (typeof settings.functionId !== 'string' || !settings.functionId)
  ) {
    throw new TypeError('telemetry.functionId must be a non-empty string');
  }
}

/**
 * The AI SDK call options for telemetry: `telemetry` and, with a request id, a `runtimeContext` holding it
 * (the only runtime-context field telemetry may include). Nothing when `settings` is absent, so the SDK's
 * defaults (globally registered integrations, if any) apply unchanged.
 */
export function telemetryCallOptions(
  settings: ModelTelemetrySettings | undefined,
  defaultFunctionId: string,
  requestId?: string,
): { telemetry?: TelemetryOptions<ModelCallContext>; runtimeContext?: ModelCallContext } {
  if (settings === undefined) return {};
  const { integrations } = settings;
  const telemetry: TelemetryOptions<ModelCallContext> = {
    isEnabled: settings.isEnabled ?? true,
    functionId: settings.functionId ?? defaultFunctionId,
    recordInputs: settings.recordInputs ?? false,
    recordOutputs: settings.recordOutputs ?? true,
    includeRuntimeContext: { requestId: true },
    ...(integrations === undefined ? {} : { integrations: integrationList(integrations) }),
  };
  return requestId === undefined ? { telemetry } : { telemetry, runtimeContext: { requestId } };
}
