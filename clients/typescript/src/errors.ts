/**
 * The two ways a call to the planner fails, as types a caller can tell apart.
 *
 * `PlannerError` is the service's answer: every error the planner sends is RFC 9457
 * `application/problem+json`, so the problem's fields are carried as they came (with
 * `errors[].loc` naming each field a 422 refused). An answer that is not a problem, such as the
 * plain-text 502 or 503 page of a proxy in front of the service, is carried as a problem made from
 * the status line and the body text, so a caller reads one shape either way.
 *
 * `PlannerUnreachableError` is no answer at all (refused connection, reset, per-attempt timeout)
 * after every attempt was spent; the last transport error is its `cause`.
 */

import type { Problem, ProblemItem } from './generated/index.js';

export type { Problem, ProblemItem };

export class PlannerError extends Error {
  override readonly name = 'PlannerError';
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly type: string;
  readonly errors: readonly ProblemItem[];
  /** The request id: the problem's `instance`, or the `X-Request-ID` header when not a problem. */
  readonly requestId: string | undefined;
  /** The problem as received (or as made from a non-problem answer). */
  readonly problem: Problem;

  constructor(problem: Problem) {
    super(`${problem.status} ${problem.title}: ${problem.detail}`);
    this.problem = problem;
    this.status = problem.status;
    this.title = problem.title;
    this.detail = problem.detail;
    this.type = problem.type;
    this.errors = problem.errors;
    this.requestId = problem.instance || undefined;
  }

  /** The field paths the service refused, e.g. `[["body", "max_chars"], ["body", "results"]]`. */
  get locations(): ReadonlyArray<ReadonlyArray<string | number>> {
    return this.errors.map((item) => item.loc);
  }

  /** The error for a non-2xx answer whose body the generated client has already read. */
  static fromAnswer(response: Response, body: unknown): PlannerError {
    if (isProblem(body)) {
      return new PlannerError(body);
    }
    const text = typeof body === 'string' ? body : JSON.stringify(body ?? '');
    return new PlannerError({
      type: 'about:blank',
      title: response.statusText || `HTTP ${response.status}`,
      status: response.status,
      detail: text.trim(),
      errors: [],
      instance: response.headers.get('x-request-id') ?? '',
    });
  }
}

export class PlannerUnreachableError extends Error {
  override readonly name = 'PlannerUnreachableError';
  readonly attempts: number;

  constructor(url: string, attempts: number, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`the planner at ${url} did not answer after ${attempts} attempt(s): ${reason}`, {
      cause,
    });
    this.attempts = attempts;
  }
}

function isProblem(body: unknown): body is Problem {
  if (typeof body !== 'object' || body === null) {
    return false;
  }
  const fields = body as Record<string, unknown>;
  return (
    typeof fields.status === 'number' &&
    typeof fields.title === 'string' &&
    typeof fields.detail === 'string' &&
    Array.isArray(fields.errors)
  );
}
