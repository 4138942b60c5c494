/**
 * When a failed call is tried again, and how long to wait first.
 *
 * Every planner endpoint is a pure function of its request body (the service keeps no state
 * between requests), so sending the same body again is always safe, even when the first attempt
 * may have reached the server. Only failures that a later attempt can cure are retried: no
 * answer at all (a transport error or the per-attempt timeout) and 503 (the processing deadline,
 * the concurrency limit, or a replica draining for shutdown). Every other status is the same on
 * every attempt and is thrown at once.
 *
 * The waits grow exponentially up to a ceiling, with "equal jitter": a random wait between half
 * and all of the step, so clients that failed together do not retry together, yet each waits at
 * least half the step.
 */

export interface RetryPolicy {
  /** Attempts in all, the first included; 1 turns retries off. */
  readonly attempts: number;
  /** The step before the first retry; each later step doubles. */
  readonly initialDelayMs: number;
  /** The largest step. */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, initialDelayMs: 200, maxDelayMs: 2000 };

export const RETRYABLE_STATUS = 503;

/** The wait before retry number `retry` (1 for the first retry). */
export function backoffDelayMs(
  policy: RetryPolicy,
  retry: number,
  random: () => number = Math.random,
): number {
  const step = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (retry - 1));
  return step / 2 + (random() * step) / 2;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function validatePolicy(policy: RetryPolicy): RetryPolicy {
  if (!Number.isInteger(policy.attempts) || policy.attempts < 1) {
    throw new RangeError(`retry.attempts must be an integer of at least 1, not ${policy.attempts}`);
  }
  if (!(policy.initialDelayMs >= 0) || !(policy.maxDelayMs >= policy.initialDelayMs)) {
    throw new RangeError('retry delays must satisfy 0 <= initialDelayMs <= maxDelayMs');
  }
  return policy;
}
