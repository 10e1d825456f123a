/**
 * Webhooks of research jobs: when a job ends, a signed `POST` to its `webhook.url`, with the Standard
 * Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`, made by the `standardwebhooks`
 * package) and a JSON body `{type, timestamp, data}` (`research.completed`, `research.failed`,
 * `research.cancelled`; `data` is the job). A delivery that fails (no 2xx, no answer) is retried with an
 * exponential backoff. URLs pass the page fetcher's SSRF guard twice: at job creation (a refused URL is a
 * 400) and at connection time (a DNS answer that changed cannot reach a private address).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { Agent } from 'undici';
import { CitewiseError } from '../errors.ts';
import {
  createAddressPolicy,
  createGuardedConnector,
  effectivePort,
  resolveChecked,
  systemResolver,
  type HostResolver,
} from '../pipeline/fetch/address-guard.ts';
import { USER_AGENT } from '../package-info.ts';

/** Options of {@link createWebhookSender}. */
/** How a webhook is delivered: attempts, the backoff between them and each one's deadline. */
export type WebhookDelivery = Pick<WebhookSenderOptions, 'attempts' | 'backoffMs' | 'timeoutMs'>;

export interface WebhookSenderOptions {
  /** The signing secret, `whsec_` and base64 (Standard Webhooks' form). */
  readonly secret: string;
  /**
   * Hosts webhooks may reach although they resolve to private addresses (`--allow-webhook-hosts`, a list
   * of its own: the page fetcher's `--allow-private-hosts` does not open them to webhooks). @default []
   */
  readonly allowPrivateHosts?: readonly string[];
  /** Deliveries before giving up. */
  readonly attempts: number;
  /** Pause before the first retry, in ms; each further retry waits four times longer. */
  readonly backoffMs: number;
  /** Deadline of one delivery, in ms. */
  readonly timeoutMs: number;
  /** Resolves host names (tests inject their own). @default the system resolver */
  readonly resolver?: HostResolver;
}

/** One webhook to deliver. */
export interface WebhookMessage {
  readonly url: string;
  /** The same for every retry of one message (`webhook-id`): receivers drop repeats by it. */
  readonly id: string;
  /** `research.completed`, `research.failed` or `research.cancelled`. */
  readonly type: string;
  readonly data: unknown;
}

/** How a delivery ended: delivered, or not, with what the last try got (an HTTP status or no answer). */
export interface WebhookOutcome {
  readonly delivered: boolean;
  /** Tries made (the first and its retries). */
  readonly attempts: number;
  /** The HTTP status of the last try, when the receiver answered. */
  readonly lastStatus?: number;
  /** Why the last try got no answer (refused, timed out, blocked by the guard). */
  readonly lastError?: string;
}

/** The log text of a delivery that failed: the host, the tries and what the last one got. */
export function webhookFailureText(url: string, outcome: WebhookOutcome): string {
  const last =
    outcome.lastStatus === undefined
      ? `no answer (${outcome.lastError ?? 'aborted'})`
      : `HTTP ${outcome.lastStatus}`;
  const tries = `${outcome.attempts} ${outcome.attempts === 1 ? 'try' : 'tries'}`;
  return `webhook to ${new URL(url).host} failed after ${tries}; the last got ${last}`;
}

/** Sends webhooks; see the module comment. */
export interface WebhookSender {
  /** Throws a 400 {@link CitewiseError} for a URL the guard refuses. */
  check(url: string): Promise<void>;
  /** Delivers `message` (retrying) until a receiver answers 2xx or the last try failed. */
  deliver(message: WebhookMessage, signal?: AbortSignal): Promise<WebhookOutcome>;
  close(): Promise<void>;
}

/** Throws a TypeError unless `secret` is a Standard Webhooks secret (`whsec_` + base64 of 24–64 bytes). */
export function assertWebhookSecret(secret: string): void {
  const body = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : '';
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(body) ? Buffer.from(body, 'base64').byteLength : 0;
  if (bytes < 24 || bytes > 64) {
    throw new TypeError('webhookSecret must be whsec_ followed by the base64 of 24 to 64 random bytes');
  }
}

/** Creates a {@link WebhookSender}. */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  assertWebhookSecret(options.secret);
  const signer = new Webhook(options.secret);
  const policy = createAddressPolicy({ allowPrivateHosts: options.allowPrivateHosts ?? [] });
  const resolver = options.resolver ?? systemResolver;
  const agent = new Agent({
    connect: createGuardedConnector({ policy, resolver, connectTimeoutMs: options.timeoutMs }),
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    allowH2: false,
  });

  /** One try: the receiver's HTTP status. */
  async function sendOnce(message: WebhookMessage, body: string): Promise<number> {
    const timestamp = new Date();
    const response = await agent.request({
      origin: new URL(message.url).origin,
      path: `${new URL(message.url).pathname}${new URL(message.url).search}`,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': message.id,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signer.sign(message.id, timestamp, body),
      },
      body,
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    await response.body.dump();
    return response.statusCode;
  }

  return {
    async check(url) {
      const parsed = new URL(url);
      try {
        await resolveChecked(parsed.hostname, policy, resolver, effectivePort(parsed.port, parsed.protocol));
      } catch (cause) {
        const description =
          `Invalid request: webhook.url is not allowed: ${parsed.hostname} is not a public address ` +
          '(the operator can allow it with --allow-webhook-hosts)';
        throw new CitewiseError('invalid_request', description, { description, cause });
      }
    },
    async deliver(message, signal) {
      const body = JSON.stringify({
        type: message.type,
        timestamp: new Date().toISOString(),
        data: message.data,
      });
      let last: WebhookOutcome = { delivered: false, attempts: 0 };
      for (let attempt = 1; attempt <= options.attempts; attempt++) {
        if (signal?.aborted) return last;
        try {
          const status = await sendOnce(message, body);
          last = { delivered: status >= 200 && status < 300, attempts: attempt, lastStatus: status };
          if (last.delivered) return last;
        } catch (error) {
          // No answer (refused, timed out, blocked by the guard): retried like a failure status.
          const { code, message } = error as { code?: unknown; message?: unknown };
          const reason = typeof code === 'string' ? code : typeof message === 'string' ? message : 'failed';
          last = { delivered: false, attempts: attempt, lastError: reason };
        }
        if (attempt < options.attempts) {
          await sleep(options.backoffMs * 4 ** (attempt - 1), undefined, { signal }).catch(() => {});
        }
      }
      return last;
    },
    async close() {
      await agent.close();
    },
  };
}
