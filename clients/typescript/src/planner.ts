/**
 * `Planner`: the hand-written face of the generated client, one method per planner endpoint.
 *
 * The request and answer types, and the HTTP call of each endpoint, are generated from the
 * committed OpenAPI document (`src/generated/`); this layer decides only what the generated code
 * cannot: where the planner is, how long one attempt may take, which failures are tried again
 * (`retry.ts`), and which typed error a failure becomes (`errors.ts`).
 *
 * Every option of a request is passed through as the generated type describes it, so an option
 * the service gains needs nothing here: regenerate, and it is typed and sent.
 */

import { createClient, createConfig } from './generated/client/index.js';
import type { Client } from './generated/client/index.js';
import {
  capRouteV1ToolResultsCapPost,
  healthzHealthzGet,
  infoV1InfoGet,
  keepRouteV1KeptAnswersKeepPost,
  lookupRouteV1KeptAnswersLookupPost,
  offerRouteV1OfferPost,
  planRouteV1WindowPlanPost,
  readyzReadyzGet,
  recallRouteV1RecallPost,
  useRouteV1KeptAnswersUsePost,
} from './generated/index.js';
import type {
  CapRequest,
  CapResponse,
  Health,
  Info,
  KeepRequest,
  KeepResponse,
  LookupRequest,
  LookupResponse,
  OfferRequest,
  OfferResponse,
  PlanRequest,
  PlanResponse,
  RecallRequest,
  RecallResponse,
  UseRequest,
  UseResponse,
} from './generated/index.js';
import { PlannerError, PlannerUnreachableError } from './errors.js';
import {
  DEFAULT_RETRY,
  RETRYABLE_STATUS,
  backoffDelayMs,
  sleep,
  validatePolicy,
  type RetryPolicy,
} from './retry.js';

/** The answer of `POST /v1/window/plan`. */
export type Plan = PlanResponse;
/** Every field of a plan request but the transcript. */
export type PlanOptions = Omit<PlanRequest, 'messages'>;
/** Every field of an offer request but the transcript. */
export type OfferOptions = Omit<OfferRequest, 'messages'>;
/** Every field of a cap request but the results. */
export type CapOptions = Omit<CapRequest, 'results'>;
/** The answer of `POST /v1/recall`: one page of the text found. */
export type RecallAnswer = RecallResponse;
/** The record a plan files, to send back in `prior_records`. */
export type PlanRecord = NonNullable<PlanResponse['record']>;

export interface PlannerOptions {
  /** Where the planner serves, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string;
  /** Defaults to the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** Longest wait for one attempt's answer; past it the attempt counts as unanswered. */
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** Sent with every request (an `X-Request-ID` of yours, for instance). */
  readonly headers?: Record<string, string>;
}

export interface CallOptions {
  /** Aborting stops the call at once, between attempts too; it is never retried. */
  readonly signal?: AbortSignal;
  readonly headers?: Record<string, string>;
}

/** Above the service's own processing deadline (10 s by default), so that answers first. */
export const DEFAULT_TIMEOUT_MS = 30_000;

interface SendOptions {
  client: Client;
  signal: AbortSignal;
  headers: Record<string, string>;
}

/** What a generated operation resolves to when it does not throw. */
type Outcome<T> = { data: T | undefined; error: unknown; response: Response | undefined };

export class Planner {
  readonly baseUrl: string;
  readonly retry: RetryPolicy;
  readonly timeoutMs: number;
  private readonly client: Client;
  private readonly headers: Record<string, string>;

  constructor(options: PlannerOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retry = validatePolicy({ ...DEFAULT_RETRY, ...options.retry });
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.headers = { ...options.headers };
    const config = createConfig({ baseUrl: this.baseUrl });
    this.client = createClient(options.fetch ? { ...config, fetch: options.fetch } : config);
  }

  /** What stays in the window: `POST /v1/window/plan`. */
  plan(messages: PlanRequest['messages'], options: PlanOptions = {}, call?: CallOptions) {
    const body: PlanRequest = { ...options, messages };
    return this.send<Plan>((send) => planRouteV1WindowPlanPost({ ...send, body }), call);
  }

  /** Oversized tool results become markers: `POST /v1/tool-results/cap`. */
  cap(results: CapRequest['results'], options: CapOptions, call?: CallOptions) {
    const body: CapRequest = { ...options, results };
    return this.send<CapResponse>((send) => capRouteV1ToolResultsCapPost({ ...send, body }), call);
  }

  /** Which tool results the model may still cite: `POST /v1/offer`. */
  offer(messages: OfferRequest['messages'], options: OfferOptions = {}, call?: CallOptions) {
    const body: OfferRequest = { ...options, messages };
    return this.send<OfferResponse>((send) => offerRouteV1OfferPost({ ...send, body }), call);
  }

  /** Keep a refused call's answers: `POST /v1/kept-answers/keep`. */
  keepAnswers(body: KeepRequest, call?: CallOptions) {
    return this.send<KeepResponse>(
      (send) => keepRouteV1KeptAnswersKeepPost({ ...send, body }),
      call,
    );
  }

  /** Spend the kept answers a batch used: `POST /v1/kept-answers/use`. */
  useKeptAnswers(body: UseRequest, call?: CallOptions) {
    return this.send<UseResponse>((send) => useRouteV1KeptAnswersUsePost({ ...send, body }), call);
  }

  /** The kept answer for an argument a call leaves out: `POST /v1/kept-answers/lookup`. */
  lookupKeptAnswer(body: LookupRequest, call?: CallOptions) {
    return this.send<LookupResponse>(
      (send) => lookupRouteV1KeptAnswersLookupPost({ ...send, body }),
      call,
    );
  }

  /** Text a plan took out, found in the whole history: `POST /v1/recall`. */
  recall(body: RecallRequest, call?: CallOptions) {
    return this.send<RecallAnswer>((send) => recallRouteV1RecallPost({ ...send, body }), call);
  }

  /** Name, version, limits, option defaults and tokenizers: `GET /v1/info`. */
  info(call?: CallOptions) {
    return this.send<Info>((send) => infoV1InfoGet(send), call);
  }

  /** `GET /healthz`. */
  health(call?: CallOptions) {
    return this.send<Health>((send) => healthzHealthzGet(send), call);
  }

  /** `GET /readyz`: a draining replica answers 503, which is retried like any other. */
  readiness(call?: CallOptions) {
    return this.send<Health>((send) => readyzReadyzGet(send), call);
  }

  private async send<T>(
    operation: (send: SendOptions) => Promise<Outcome<T>>,
    call: CallOptions = {},
  ): Promise<T> {
    const headers = { ...this.headers, ...call.headers };
    let lastFailure: unknown;
    for (let attempt = 1; attempt <= this.retry.attempts; attempt += 1) {
      if (attempt > 1) {
        await sleep(backoffDelayMs(this.retry, attempt - 1), call.signal);
      }
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
      const outcome = await operation({ client: this.client, signal, headers });
      const { response } = outcome;
      if (response === undefined) {
        if (call.signal?.aborted) {
          throw call.signal.reason;
        }
        lastFailure = outcome.error;
        continue;
      }
      if (response.ok) {
        return outcome.data as T;
      }
      const failure = PlannerError.fromAnswer(response, outcome.error);
      if (response.status !== RETRYABLE_STATUS) {
        throw failure;
      }
      lastFailure = failure;
    }
    if (lastFailure instanceof PlannerError) {
      throw lastFailure;
    }
    throw new PlannerUnreachableError(this.baseUrl, this.retry.attempts, lastFailure);
  }
}
