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
 */

import { generateText } from 'ai';
import type { LanguageModel, ModelMessage, PrepareStepFunction, ToolSet } from 'ai';
import type { Plan, PlanOptions } from '../planner.js';
import type { PlannerSession, Summarizer } from '../session.js';

import { fromPlannedWindow, toNativeMessages } from './model-messages.js';

export interface PlannedStep {
  readonly stepNumber: number;
  readonly plan: Plan;
  readonly messages: ModelMessage[];
}

export interface PlanEachStepOptions {
  /** Plan options for every step (strategy, pins, ledger, shaping...), passed through as given. */
  readonly plan?: Omit<PlanOptions, 'format' | 'prior_records' | 'iteration' | 'include_window'>;
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

export function planEachStep<TOOLS extends ToolSet>(
  session: PlannerSession,
  options: PlanEachStepOptions = {},
): PrepareStepFunction<TOOLS> {
  return async ({ messages, stepNumber, model }) => {
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
}
