/**
 * `planEachStep`: a `prepareStep` for the AI SDK's `generateText` (or `streamText`) that asks the
 * planner, before every step, what stays in the window, and gives the model that window.
 *
 * The step's `messages` are the run's whole committed history (the SDK passes its initial
 * messages plus every step's response, never an earlier step's window), which is what the planner
 * should plan from. They go as native messages (`model-messages.ts`), the plan comes back as
 * `ModelMessage`s, and the run's records travel in a `PlannerSession`, so the stand-down of a pin
 * that blocked two plans works across steps. The SDK's `system` prompt is not in `messages`: it is
 * sent on every step, outside the plan, as the planner would treat a system envelope.
 *
 * Summaries (`docs/rules.md#summaries`): by default (`summarize: true`) the step's own `model`
 * writes the summary a plan asks for, through `generateText`, unless the session has a summarizer
 * of its own (`summarize: false`: none from the hook). The summary request's model request is native
 * (`{messages}`), mapped back onto the run's messages as a window is (the summary it holds and the
 * instruction are user messages), and sent with `summaryCall`'s settings: the run's `system`,
 * `tools` and `providerOptions` there let a prompt cache serve its prefix (`prepareStep` is not
 * given them). The text of the answer is the summary. `summarize` may instead be a function of the
 * model request, returning the text. The session's settings (`instructions`, `minSpanTokens`,
 * `replan`) apply.
 *
 * Recall (`docs/rules.md#recall`): the hook gives the model the recall tool, answered by the
 * session's `recall` over the history the step planned, and turns the plans' `recall` option on,
 * so the placeholders, markers, notices and summaries tell the model how to get back what they
 * stand for. AI SDK 6's `prepareStep` can change a step's messages but cannot add a tool to it
 * (its result has no `tools`), so the tool travels on the returned function: `prepareStep.tools`
 * is `{[name]: tool}`, to spread into `generateText`'s `tools`. The plans name the tool only once
 * the agent has taken it (read `prepareStep.tools`, or called `recallToolFor` for the session), so
 * an agent that does not add it is never told to call a tool it does not have, and gets the windows
 * it got before. `recall: null` turns it off altogether (`tools` is then `{}`).
 */

import { generateText, jsonSchema, tool } from 'ai';
import type { LanguageModel, ModelMessage, PrepareStepFunction, Tool, ToolSet } from 'ai';
import type { Plan, PlanOptions } from '../planner.js';
import { DEFAULT_RECALL_TOOL_NAME, recallToolText } from '../session.js';
import type { PlannerSession, RecallArguments, Summarizer } from '../session.js';

import { fromPlannedWindow, toNativeMessages } from './model-messages.js';

export interface PlannedStep {
  readonly stepNumber: number;
  readonly plan: Plan;
  readonly messages: ModelMessage[];
}

/** The recall tool's name; `{}` is the service's default name (`context_recall`). */
export interface RecallToolOptions {
  readonly tool_name?: string;
}

export interface PlanEachStepOptions {
  /** Plan options for every step (strategy, pins, ledger, shaping...), passed through as given. */
  readonly plan?: Omit<
    PlanOptions,
    'format' | 'prior_records' | 'iteration' | 'include_window' | 'recall'
  >;
  /**
   * The recall tool (`{}`, the default: named `context_recall`) that `tools` carries and the
   * plans name once the agent has taken it; null: no recall tool, and plans without `recall`.
   */
  readonly recall?: RecallToolOptions | null;
  /** Called with each step's plan and the messages the model will get. */
  readonly onPlan?: (step: PlannedStep) => void;
  /**
   * True (the default): summaries by the step's model, unless the session has a summarizer of
   * its own; a function: summaries by it; false: none from the hook (the session's still serve).
   */
  readonly summarize?: Summarizer | boolean;
  /** More settings of the summary call (`system`, `tools`, `providerOptions`, ...). */
  readonly summaryCall?: SummaryCallSettings;
}

/** What a `prepareStep` is given, but the steps (which it does not read). */
type StepOptions = Omit<Parameters<PrepareStepFunction>[0], 'steps'>;

/**
 * `planEachStep`'s `prepareStep` (a `PrepareStepFunction` of any tool set), with the tools the
 * agent adds to its own.
 */
export type PlanningPrepareStep = ((step: StepOptions) => Promise<{ messages: ModelMessage[] }>) & {
  /** `{[name]: the recall tool}` to spread into `generateText`'s `tools`; `{}` with recall off. */
  readonly tools: ToolSet;
  /** The recall tool's name; undefined with recall off. */
  readonly recallToolName: string | undefined;
};

/** The recall tool's description and input schema, as the service declares them. */
export const RECALL_TOOL_DESCRIPTION =
  'Get back text that was taken out of your context window to save space: a tool result shown ' +
  'as cleared or truncated, or earlier messages that were dropped or summarized. Give ref (the ' +
  'tool_call_id shown in a cleared or truncated result) to get that result whole, or query ' +
  '(words or identifiers it contained: a path, an id, a number) to search everything earlier in ' +
  'this conversation. Long answers come in pages: ask again with page 2, 3, and so on.';

export const RECALL_TOOL_PARAMETERS = {
  type: 'object',
  properties: {
    ref: { type: 'string', description: 'the tool_call_id of a cleared or truncated result' },
    query: {
      type: 'string',
      description: 'words or identifiers to search the earlier conversation for',
    },
    page: { type: 'integer', description: 'which page of a long answer, from 1' },
  },
} as const;

/**
 * The recall tool of `session` as an AI SDK tool: its call is answered by `session.recall` over
 * the history the session last planned, and returns the answer's text (with the line asking for
 * the next page when there is one). A refused call (neither `ref` nor `query`, or both) fails
 * the tool, which the SDK gives the model as the tool's error.
 */
export function recallToolFor(
  session: PlannerSession,
  name: string = DEFAULT_RECALL_TOOL_NAME,
): Tool<RecallArguments, string> {
  taken.add(session);
  return tool<RecallArguments, string>({
    description: RECALL_TOOL_DESCRIPTION,
    inputSchema: jsonSchema<RecallArguments>(RECALL_TOOL_PARAMETERS),
    execute: async ({ ref, query, page }) =>
      recallToolText(await session.recall({ ref, query, page }), name),
  });
}

/** The sessions whose recall tool an agent has taken: their plans may name it. */
const taken = new WeakSet<PlannerSession>();

/** `generateText`'s settings for a summary call, but its model and prompt. */
export type SummaryCallSettings = Omit<
  Parameters<typeof generateText>[0],
  'model' | 'messages' | 'prompt' | 'prepareStep'
>;

/**
 * A summarizer that sends a summary request's native model request to `model` with
 * `generateText`, the run's own `messages` in it where the request has them.
 */
export function summarizeWith(
  model: LanguageModel,
  messages: readonly ModelMessage[],
  native: ReturnType<typeof toNativeMessages> = toNativeMessages(messages),
  settings: SummaryCallSettings = {},
): Summarizer {
  return async (request) => {
    const entries = Array.isArray(request.messages) ? (request.messages as unknown[]) : [];
    const result = await generateText({
      ...settings,
      model,
      messages: fromPlannedWindow(entries, messages, native),
    } as Parameters<typeof generateText>[0]);
    return result.text;
  };
}

export function planEachStep(
  session: PlannerSession,
  options: PlanEachStepOptions = {},
): PlanningPrepareStep {
  const recall = options.recall === undefined ? {} : options.recall;
  const name = recall === null ? undefined : (recall.tool_name ?? DEFAULT_RECALL_TOOL_NAME);
  let tools: ToolSet | undefined;
  const prepareStep = async ({ messages, stepNumber, model }: StepOptions) => {
    const native = toNativeMessages(messages);
    const chosen = options.summarize ?? true;
    const summarize =
      chosen === true
        ? session.hasSummarizer
          ? undefined
          : summarizeWith(model, messages, native, options.summaryCall)
        : chosen === false
          ? undefined
          : chosen;
    const plan = await session.plan(
      native,
      {
        ...options.plan,
        ...(recall !== null && taken.has(session) ? { recall: { ...recall } } : {}),
        format: 'native',
        iteration: stepNumber + 1,
        include_window: true,
      },
      summarize ? { summarize } : undefined,
    );
    if (!plan.window) {
      throw new Error('the planner answered without a window');
    }
    const planned = fromPlannedWindow(plan.window, messages, native);
    options.onPlan?.({ stepNumber, plan, messages: planned });
    return { messages: planned };
  };
  return Object.defineProperties(prepareStep, {
    tools: {
      get: (): ToolSet => {
        tools ??= name === undefined ? {} : { [name]: recallToolFor(session, name) };
        return tools;
      },
      enumerable: true,
    },
    recallToolName: { value: name, enumerable: true },
  }) as PlanningPrepareStep;
}
