/**
 * Finalizing research jobs: when a job ends, the credits held for it are settled through the credits service
 * (what a completed job used is charged, the rest refunded), its webhook is delivered in the background, and
 * the job is marked finalized. A job whose worker died before that is finalized later by the sweep of any
 * worker.
 */
import type { CreditsService } from '../contract/credits.ts';
import { viewOf, type ResearchJobQueue, type ResearchJobRecord } from './records.ts';
import { webhookFailureText, type WebhookDelivery, type WebhookSender } from './webhooks.ts';

/** The id of the credit reservation held for a job (its hold, charge and refund all use it). */
export const reservationOf = (jobId: string) => `research:${jobId}`;

/** Margin past its webhook deliveries an ended job may wait for its finalization. */
const FINALIZE_MARGIN_MS = 60_000;

/**
 * How long an ended job may wait for its finalization before another worker does it: the configured webhook
 * deliveries (each attempt's deadline, the backoffs between them when webhooks are sent) and a margin.
 */
export function finalizeGraceMs(webhooks: WebhookSender | null, delivery: WebhookDelivery): number {
  const { attempts, backoffMs, timeoutMs } = delivery;
  const backoff = webhooks ? backoffMs * ((4 ** (attempts - 1) - 1) / 3) : 0;
  return backoff + attempts * timeoutMs + FINALIZE_MARGIN_MS;
}

/** What {@link createJobFinalizer} works with. */
export interface JobFinalizerDeps {
  readonly queue: ResearchJobQueue;
  /** Charges and refunds (each written to the ledger). */
  readonly credits: CreditsService;
  readonly webhooks: WebhookSender | null;
  /** The webhook deliveries configured (`jobs.webhookAttempts`, …): how long a finalization may take. */
  readonly webhookDelivery: WebhookDelivery;
  readonly onError: (error: unknown, context: string, jobId?: string) => void;
  /** The sweep runs at most once a lease. */
  readonly leaseMs: number;
  /** Aborted when the service closes: webhook deliveries stop and the job is left for a later sweep. */
  readonly closing: AbortSignal;
}

/** Finalizes ended jobs. */
export interface JobFinalizer {
  /** Settles the credits of an ended job, then delivers its webhook (in the background) and marks it done. */
  readonly finalize: (job: ResearchJobRecord) => Promise<void>;
  /** Finalizes jobs that ended on a worker that died before finishing that (at most once a lease). */
  readonly sweep: () => Promise<void>;
  /** Waits for the finalizations in flight (their webhooks and marks), on close. */
  readonly drain: () => Promise<void>;
}

/** Creates the finalizer of the research service's jobs. */
export function createJobFinalizer(deps: JobFinalizerDeps): JobFinalizer {
  const { queue, credits, webhooks, onError, closing } = deps;
  const finalizing = new Set<Promise<void>>();
  let lastSweep = 0;

  /** Charges what a completed job used (the rest returns), refunds any other; once, by the job's hold id. */
  async function settle(job: ResearchJobRecord): Promise<void> {
    const hold = {
      id: reservationOf(job.id),
      account: job.account,
      ...(job.keyId ? { keyId: job.keyId } : {}),
      amount: job.input.reserved,
    };
    const charge = job.status === 'completed' ? job.creditsUsed : 0;
    await (charge > 0 ? credits.charge(hold, charge) : credits.refund(hold));
  }

  async function finalize(job: ResearchJobRecord): Promise<void> {
    try {
      await settle(job);
    } catch (error) {
      // Left unfinalized: a later sweep settles it (commit and refund are idempotent).
      onError(error, 'settle', job.id);
      return;
    }
    const url = job.input.request.webhook?.url;
    const work = (async () => {
      if (url && webhooks) {
        const outcome = await webhooks.deliver(
          { url, id: `msg_${job.id}`, type: `research.${job.status}`, data: viewOf(job) },
          closing,
        );
        if (closing.aborted) return;
        if (!outcome.delivered) onError(new Error(webhookFailureText(url, outcome)), 'webhook', job.id);
      }
      await queue.markFinalized(job.id);
    })().catch((error: unknown) => onError(error, 'finalize', job.id));
    finalizing.add(work);
    void work.finally(() => finalizing.delete(work));
  }

  async function sweep(): Promise<void> {
    if (Date.now() - lastSweep < deps.leaseMs) return;
    lastSweep = Date.now();
    const stale = await queue.unfinalized({
      endedBefore: Date.now() - finalizeGraceMs(webhooks, deps.webhookDelivery),
      limit: 50,
    });
    for (const job of stale) await finalize(job);
  }

  return {
    finalize,
    sweep,
    async drain() {
      await Promise.all([...finalizing]);
    },
  };
}
