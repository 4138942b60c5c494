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
 */

import type { ModelMessage, PrepareStepFunction, ToolSet } from 'ai';
import type { Plan, PlanOptions } from '../planner.js';
import type { PlannerSession } from '../session.js';

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
}

export function planEachStep<TOOLS extends ToolSet>(
  session: PlannerSession,
  options: PlanEachStepOptions = {},
): PrepareStepFunction<TOOLS> {
  return async ({ messages, stepNumber }) => {
    const native = toNativeMessages(messages);
    const plan = await session.plan(native, {
      ...options.plan,
      format: 'native',
      iteration: stepNumber + 1,
      include_window: true,
    });
    if (!plan.window) {
      throw new Error('the planner answered without a window');
    }
    const planned = fromPlannedWindow(plan.window, messages, native);
    options.onPlan?.({ stepNumber, plan, messages: planned });
    return { messages: planned };
  };
}
