/**
 * The money path of every route that spends credits, written once: a deadline, a credit hold, a fair search
 * slot, the work, then exactly one of commit or refund. Plain and streamed searches (and any other metered
 * route) go through {@link MoneyPath.run} or {@link MoneyPath.stream}; the hold, the charge and the refund
 * are the credits service's (credits.ts), which writes each to the ledger. A research job's search, paid by
 * the job's own hold, takes the same deadline and slot without a hold of its own ({@link MoneyPath.prepaid}).
 */
import type { CallOptions } from '../pipeline/types.ts';
import type { CreditsService } from './credits.ts';
import type { FairScheduler } from '../scheduling/fair-scheduler.ts';
import type { KeyBudget } from '../stores/types.ts';

/**
 * How long a credit hold outlives its request's deadline, in ms: a hold whose instance died lapses (and its
 * credits return) this long after the request could have ended.
 */
export const HOLD_GRACE_MS = 60_000;

/** Call options of one metered piece of work: its signal (client, deadline) and its deadline. */
export interface MeteredCall extends CallOptions {
  /** Epoch ms by which the work must be done. */
  readonly deadline: number;
  /** Epoch ms when the request arrived (waiting for a slot counts against latency budgets). */
  readonly startedAt: number;
}

/** Who pays and which request it is. */
export interface ChargeTarget {
  readonly account: string;
  /** Unique per request: the credit hold's id. */
  readonly requestId: string;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
  /** Epoch ms when the request arrived. @default when the money path admitted it */
  readonly arrivedAt?: number;
  /** The API key that spends (for the ledger); the money path only passes it on. */
  readonly keyId?: string;
  /** That key's budget: the hold spends it too (a 433 when it would pass it). @default none */
  readonly budget?: KeyBudget | null | undefined;
  /** Credits held now and charged on success. @default the money path's `creditCost` */
  readonly amount?: number;
}

/** Options of {@link createMoneyPath}. */
export interface MoneyPathOptions {
  readonly credits: CreditsService;
  readonly scheduler: FairScheduler;
  /** Credits charged per request unless the target names an amount. */
  readonly creditCost: number;
  /** Deadline of one request, waiting for a slot included, in ms. */
  readonly requestTimeoutMs: number;
  /**
   * Called when a commit or refund fails. A failed settlement never turns a delivered answer into an
   * error: the hold lapses after its TTL and the credits return.
   */
  readonly onSettleError: (error: unknown, requestId: string, action: 'commit' | 'refund') => void;
}

/** See the module comment. */
export interface MoneyPath {
  /**
   * Admits the request (a credit hold, then a fair slot), runs `work`, then commits when `chargeable`
   * says the result is worth paying for (default: always) and refunds otherwise or on any failure.
   * `chargeable` may also return a number of credits: that much is charged (at most the hold) and the rest
   * returned, 0 refunds. Throws what admission throws (503 queue full, 433 quota) or what `work` throws,
   * after the refund.
   */
  run<T>(
    target: ChargeTarget,
    work: (call: MeteredCall) => Promise<T>,
    chargeable?: (result: T) => boolean | number,
  ): Promise<T>;
  /**
   * Admits the request before returning (so 503 and 433 are thrown, not streamed), then relays `events`.
   * The hold is settled before the first event for which `settlesAt(event)` is true is passed on (e.g. the
   * first piece of answer text, so that a client that leaves after receiving it has paid for it):
   * committed when `chargeable(event)` (default: always; a number of credits as for `run`), else refunded.
   * Later events change nothing. Refunded when the events fail or the consumer stops before that event.
   */
  stream<E>(
    target: ChargeTarget,
    events: (call: MeteredCall) => AsyncIterable<E>,
    settlesAt: (event: E) => boolean,
    chargeable?: (event: E) => boolean | number,
  ): Promise<AsyncIterable<E>>;
  /**
   * Runs work already paid for (a research job's search: the job's own hold pays, src/jobs/): the deadline
   * and a fair slot as for {@link run}, and no hold, charge or refund here (the job settles its own).
   */
  prepaid<T>(
    target: Pick<ChargeTarget, 'account' | 'requestId' | 'signal' | 'arrivedAt'>,
    work: (call: MeteredCall) => Promise<T>,
  ): Promise<T>;
}

/** The held credits of one admitted request; settles at most once. */
interface Hold {
  readonly call: MeteredCall;
  /** Commits `actual` credits (default and at most: the hold) or refunds; a commit of 0 refunds. */
  settle(action: 'commit' | 'refund', actual?: number): Promise<void>;
  /** Frees the slot and the deadline timer, refunding if nothing settled the hold. Idempotent. */
  end(): Promise<void>;
}

/** Creates the {@link MoneyPath} of one engine. */
export function createMoneyPath(options: MoneyPathOptions): MoneyPath {
  const { credits, scheduler, requestTimeoutMs } = options;

  /** Admits a request: its deadline, its credit hold (unless `paid`), then a fair slot. */
  async function admit(target: ChargeTarget, paid = false): Promise<Hold> {
    const amount = target.amount ?? options.creditCost;
    const deadlineAt = Date.now() + requestTimeoutMs;
    // A timer cleared when the request ends, not AbortSignal.timeout(), which would keep every finished
    // request's signal alive until its deadline.
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new DOMException('request deadline passed', 'TimeoutError')),
      requestTimeoutMs,
    );
    const signal = AbortSignal.any([target.signal, deadline.signal]);
    let release: (() => void) | undefined;
    let held = false;
    let settled = false;
    let ended = false;

    const hold: Hold = {
      call: {
        signal,
        requestId: target.requestId,
        account: target.account,
        deadline: deadlineAt,
        startedAt: target.arrivedAt ?? Date.now(),
      },
      async settle(requested, actual = amount) {
        if (!held || settled) return;
        settled = true;
        const charge = Math.min(amount, Math.max(0, Math.floor(actual)));
        const action = requested === 'commit' && charge > 0 ? 'commit' : 'refund';
        const of = { id: target.requestId, account: target.account, keyId: target.keyId, amount };
        try {
          if (action === 'commit') await credits.charge(of, charge);
          else await credits.refund(of);
        } catch (error) {
          options.onSettleError(error, target.requestId, action);
        }
      },
      async end() {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        release?.();
        await hold.settle('refund');
      },
    };
    try {
      // The hold first: an account without credits learns it at once (433) instead of after a wait, and
      // never takes a place in the queue.
      if (!paid) {
        await credits.hold({
          account: target.account,
          id: target.requestId,
          amount,
          ttlMs: requestTimeoutMs + HOLD_GRACE_MS,
          ...(target.keyId === undefined ? {} : { key: { id: target.keyId, budget: target.budget } }),
        });
        held = true;
      }
      release = await scheduler.acquire(target.account, signal);
    } catch (error) {
      await hold.end();
      throw error;
    }
    // A client that leaves (or a deadline that passes) before a stream is even read must still free the
    // slot and the credits.
    signal.addEventListener('abort', () => void hold.end(), { once: true });
    return hold;
  }

  return {
    async run(target, work, chargeable = () => true) {
      const hold = await admit(target);
      try {
        const result = await work(hold.call);
        const verdict = chargeable(result);
        if (typeof verdict === 'number') await hold.settle('commit', verdict);
        else await hold.settle(verdict ? 'commit' : 'refund');
        return result;
      } finally {
        await hold.end();
      }
    },

    async prepaid(target, work) {
      // Never held, so the hold's settle and end change no credits: they free the slot and the timer.
      const hold = await admit(target, true);
      try {
        return await work(hold.call);
      } finally {
        await hold.end();
      }
    },

    async stream(target, events, settlesAt, chargeable = () => true) {
      const hold = await admit(target);
      return (async function* relay() {
        let settled = false;
        try {
          for await (const event of events(hold.call)) {
            if (!settled && settlesAt(event)) {
              settled = true;
              const verdict = chargeable(event);
              if (typeof verdict === 'number') await hold.settle('commit', verdict);
              else await hold.settle(verdict ? 'commit' : 'refund');
            }
            yield event;
          }
        } finally {
          // Failure, or an early stop, before the settling event (or events that had none): refund.
          await hold.end();
        }
      })();
    },
  };
}
