/**
 * `PlannerSession`: one agent run's plans, with the records the stand-down reads carried along.
 *
 * The service keeps no state, so the run does: each plan that engages returns a `record` (and under
 * `fit` with `clear`, a plan whose clear applied returns the clear-only record,
 * `docs/rules.md#holding-the-boundary`), and the next plan is sent the last two (oldest first) in
 * `prior_records`; a plan that files none returns `record: null`, which is not kept
 * (`docs/rules.md#pins-and-record`). A new session starts a new run
 * with `prior_records: []`. Options given to the session are the defaults of every plan; options
 * given to one `plan` call win over them.
 *
 * Summaries (`docs/rules.md#summaries`): the service never calls a model, so the summary of a span
 * a plan removes is written by the agent's own model and carried by the run. A session given
 * `summarize` runs that protocol: its plans ask for summary requests (the `summarize` option, with
 * `instructions` and `minSpanTokens` when given) and send the summaries it holds (`summaries`, the
 * newest 16: the service reads no more). When an answer carries a `summary_request`, the session
 * hands its ready-to-send model request (`request`, in the plan's own wire format) to `summarize`,
 * keeps the text with the request's `from`, `through` and `key`, and, unless `replan` is false,
 * plans the same transcript again at once, so that the window it returns holds the summary instead
 * of the drop notice. That second plan stands for the same model request: it is sent with the same
 * options and records, and only its record is kept. A summary request in its answer waits for the
 * next plan (one `plan` makes at most one summary and two plans). An empty or blank text keeps
 * nothing and plans nothing again. A summarizer that throws fails the `plan` call.
 *
 * Recall (`docs/rules.md#recall`): the service keeps nothing, so the history a recall is answered
 * from is the one the session was last given to plan (its `messages`, with the `format` and
 * `system` that plan was sent). `recall` asks `POST /v1/recall` over it and returns the answer;
 * `recallToolText` writes the text a tool returns to the model, with the line that asks for the
 * next page when there is one; `recallTool` is the declaration the last plan answered (the plan
 * request's `recall` option turns it on). Before any plan the history is empty: every recall
 * finds nothing.
 *
 * The answer fields are read from the answer as received, so they work whether or not the
 * generated types know them yet.
 */

import type {
  CallOptions,
  Plan,
  PlanOptions,
  PlanRecord,
  Planner,
  RecallAnswer,
} from './planner.js';
import type { PlanRequest, RecallRequest } from './generated/index.js';

/** The stand-down reads only the last two records. */
export const RECORDS_KEPT = 2;
/** The service reads at most 16 summaries; the newest are the ones that can still apply. */
export const SUMMARIES_KEPT = 16;

/** A summary the agent's model wrote for a summary request, sent back in `summaries`. */
export interface Summary {
  readonly from: number;
  readonly through: number;
  readonly key: string;
  readonly summary: string;
}

/** What a plan asks the agent's model to summarize, and the model request that asks it. */
export interface SummaryRequest {
  readonly from: number;
  readonly through: number;
  readonly key: string;
  /** In the plan's wire format: `{messages}`, `{system?, messages}`, `{instructions?, input}`... */
  readonly request: Record<string, unknown>;
}

/** Sends a summary request's `request` to the model and returns the text it answered. */
export type Summarizer = (request: Record<string, unknown>) => string | Promise<string>;

export interface SummaryOptions {
  /** Turns summaries on. */
  readonly summarize?: Summarizer;
  /** Replaces the service's default instruction. */
  readonly instructions?: string;
  /** A removed span under this many tokens gets no summary request (the service's default:
   * 1,000). */
  readonly minSpanTokens?: number;
  /** False: a new summary waits for the next plan instead of a re-plan at once. */
  readonly replan?: boolean;
  /** Summaries of an earlier session of the same run, oldest first. */
  readonly summaries?: readonly Summary[];
}

/** One `plan` call's options beyond the HTTP call's: a summarizer for this call only. */
export interface SessionCallOptions extends CallOptions {
  readonly summarize?: Summarizer;
}

/** A plan as the session returns it: after a re-plan, `replaces` is the first plan. */
export type SessionPlan = Plan & { readonly replaces?: Plan };

/** The `summary_request` of a plan, or null. */
export function summaryRequestOf(plan: Plan): SummaryRequest | null {
  const request = (plan as unknown as { summary_request?: SummaryRequest | null }).summary_request;
  return request ?? null;
}

/** The `summary_used` of a plan (`from` and `through` of the summary the window holds), or null. */
export function summaryUsedOf(plan: Plan): { from: number; through: number } | null {
  const used = (plan as unknown as { summary_used?: { from: number; through: number } | null })
    .summary_used;
  return used ?? null;
}

/** The recall tool's name when the plan request's `recall` option leaves it out. */
export const DEFAULT_RECALL_TOOL_NAME = 'context_recall';

/** What a model's recall call asks: `ref` or `query` (exactly one), and the page, from 1. */
export interface RecallArguments {
  readonly ref?: string | null;
  readonly query?: string | null;
  readonly page?: number;
}

/** The `recall_tool` of a plan (its recall tool's declaration), or undefined. */
export function recallToolOf(plan: Plan): Record<string, unknown> | undefined {
  const tool = (plan as unknown as { recall_tool?: Record<string, unknown> | null }).recall_tool;
  return tool ?? undefined;
}

/**
 * The text a recall tool returns to the model: the answer's `text`, then, when a page follows,
 * a line saying how to ask for it.
 */
export function recallToolText(
  answer: Pick<RecallAnswer, 'text' | 'page' | 'pages'>,
  toolName: string = DEFAULT_RECALL_TOOL_NAME,
): string {
  if (answer.page >= answer.pages) {
    return answer.text;
  }
  const next = answer.page + 1;
  return (
    `${answer.text}\n[page ${answer.page} of ${answer.pages}: ` +
    `call ${toolName} with page ${next} for more]`
  );
}

type SessionDefaults = Omit<PlanOptions, 'prior_records'>;

/** The history a recall is answered from: the last plan's messages, format and system. */
interface History {
  readonly messages: PlanRequest['messages'];
  readonly format?: PlanRequest['format'];
  readonly system?: PlanRequest['system'];
}

export class PlannerSession {
  private records: PlanRecord[] = [];
  private kept: Summary[];
  private readonly summary: SummaryOptions;
  private history: History = { messages: [] };
  private lastRecallTool: Record<string, unknown> | undefined;

  constructor(
    readonly planner: Planner,
    readonly defaults: SessionDefaults = {},
    summary: SummaryOptions = {},
  ) {
    this.summary = summary;
    this.kept = [...(summary.summaries ?? [])].slice(-SUMMARIES_KEPT);
  }

  /** The records the next plan will send, oldest first. */
  get priorRecords(): readonly PlanRecord[] {
    return this.records;
  }

  /** The summaries the next plan will send, oldest first. */
  get summaries(): readonly Summary[] {
    return this.kept;
  }

  /**
   * The last plan's `recall_tool` (its recall tool's declaration, in the plan's format):
   * undefined before a plan, and when that plan had recall off.
   */
  get recallTool(): Record<string, unknown> | undefined {
    return this.lastRecallTool;
  }

  /** Whether the session was made with a summarizer of its own. */
  get hasSummarizer(): boolean {
    return this.summary.summarize !== undefined;
  }

  async plan(
    messages: PlanRequest['messages'],
    options: SessionDefaults = {},
    call?: SessionCallOptions,
  ): Promise<SessionPlan> {
    const summarize = call?.summarize ?? this.summary.summarize;
    const http: CallOptions | undefined =
      call === undefined ? undefined : { signal: call.signal, headers: call.headers };
    const sent: Record<string, unknown> = {
      ...this.defaults,
      ...(summarize ? { summarize: this.summaryOption() } : {}),
      ...(this.kept.length > 0 ? { summaries: [...this.kept] } : {}),
      ...options,
      prior_records: [...this.records],
    };
    this.history = {
      messages,
      ...(sent.format != null ? { format: sent.format as PlanRequest['format'] } : {}),
      ...(sent.system != null ? { system: sent.system as PlanRequest['system'] } : {}),
    };
    let plan: SessionPlan = await this.planner.plan(messages, sent as PlanOptions, http);
    const request = summaryRequestOf(plan);
    if (summarize && request) {
      const text = await summarize(request.request);
      if (this.keep(request, text) && this.summary.replan !== false && !('summaries' in options)) {
        const again = { ...sent, summaries: [...this.kept] };
        const replanned = await this.planner.plan(messages, again as PlanOptions, http);
        plan = { ...replanned, replaces: plan };
      }
    }
    if (plan.record) {
      this.records = [...this.records, plan.record].slice(-RECORDS_KEPT);
    }
    this.lastRecallTool = recallToolOf(plan);
    return plan;
  }

  /**
   * A model's recall call answered from the history the session was last given to plan (never
   * a planned window, which holds the placeholders): `POST /v1/recall`, its answer as received.
   */
  recall(
    args: RecallArguments,
    options: Pick<RecallRequest, 'max_chars'> = {},
    call?: CallOptions,
  ): Promise<RecallAnswer> {
    const body: RecallRequest = {
      ...this.history,
      ...(args.ref != null ? { ref: args.ref } : {}),
      ...(args.query != null ? { query: args.query } : {}),
      ...(args.page != null ? { page: args.page } : {}),
      ...options,
    };
    return this.planner.recall(body, call);
  }

  /** Start a new run: the next plan sends no prior records and no summaries. */
  reset(): void {
    this.records = [];
    this.kept = [];
  }

  private summaryOption(): Record<string, unknown> {
    return {
      ...(this.summary.instructions !== undefined
        ? { instructions: this.summary.instructions }
        : {}),
      ...(this.summary.minSpanTokens !== undefined
        ? { min_span_tokens: this.summary.minSpanTokens }
        : {}),
    };
  }

  private keep(request: SummaryRequest, text: unknown): boolean {
    if (typeof text !== 'string' || text.trim() === '') {
      return false;
    }
    const same = (s: Summary): boolean =>
      s.from === request.from && s.through === request.through && s.key === request.key;
    const entry: Summary = {
      from: request.from,
      through: request.through,
      key: request.key,
      summary: text,
    };
    this.kept = [...this.kept.filter((s) => !same(s)), entry].slice(-SUMMARIES_KEPT);
    return true;
  }
}
