/**
 * The Context Window Planner client: `Planner` (one method per endpoint), `PlannerSession` (a
 * run's plans with their prior records, summaries and recall), the typed errors, and every request and answer type,
 * generated from the service's OpenAPI document.
 */

export {
  DEFAULT_TIMEOUT_MS,
  Planner,
  type CallOptions,
  type CapOptions,
  type OfferOptions,
  type Plan,
  type PlannerOptions,
  type PlanOptions,
  type PlanRecord,
  type RecallAnswer,
} from './planner.js';
export {
  DEFAULT_RECALL_TOOL_NAME,
  PlannerSession,
  RECORDS_KEPT,
  SUMMARIES_KEPT,
  recallToolOf,
  recallToolText,
  summaryRequestOf,
  summaryUsedOf,
  type RecallArguments,
  type SessionCallOptions,
  type SessionPlan,
  type Summarizer,
  type Summary,
  type SummaryOptions,
  type SummaryRequest,
} from './session.js';
export { PlannerError, PlannerUnreachableError, type Problem, type ProblemItem } from './errors.js';
export { DEFAULT_RETRY, backoffDelayMs, type RetryPolicy } from './retry.js';
export type * from './generated/types.gen.js';
