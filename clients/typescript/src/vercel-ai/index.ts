/**
 * The planner in front of the Vercel AI SDK's model calls (AI SDK 6):
 * `import { planEachStep } from 'context-window-planner-client/vercel-ai'`, then
 * `const prepareStep = planEachStep(session)`, then
 * `generateText({ ..., tools: { ...tools, ...prepareStep.tools }, prepareStep })` (the tools: the
 * recall tool, which AI SDK 6's `prepareStep` cannot add by itself).
 *
 * `ai` is an optional peer dependency of this package: only this entry point uses it (its types,
 * and `generateText` for the summaries the step's model writes), so the client itself
 * (`context-window-planner-client`) needs none of it.
 */

export {
  RECALL_TOOL_DESCRIPTION,
  RECALL_TOOL_PARAMETERS,
  planEachStep,
  recallToolFor,
  summarizeWith,
  type PlanEachStepOptions,
  type PlannedStep,
  type PlanningPrepareStep,
  type RecallToolOptions,
  type SummaryCallSettings,
} from './prepare-step.js';
export {
  fromPlannedWindow,
  toNativeMessages,
  type ModelMessageOrigin,
  type NativeMessage,
} from './model-messages.js';
