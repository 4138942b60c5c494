/**
 * `PlannerSession`: one agent run's plans, with the records the stand-down reads carried along.
 *
 * The service keeps no state, so the run does: each plan that engages returns a `record`, and the
 * next plan is sent the last two (oldest first) in `prior_records`; a plan that does not engage
 * returns `record: null`, which is not kept (`docs/rules.md#pins-and-record`). A new session starts a new run
 * with `prior_records: []`. Options given to the session are the defaults of every plan; options
 * given to one `plan` call win over them.
 */

import type { CallOptions, Plan, PlanOptions, PlanRecord, Planner } from './planner.js';
import type { PlanRequest } from './generated/index.js';

/** The stand-down reads only the last two records. */
export const RECORDS_KEPT = 2;

export class PlannerSession {
  private records: PlanRecord[] = [];

  constructor(
    readonly planner: Planner,
    readonly defaults: Omit<PlanOptions, 'prior_records'> = {},
  ) {}

  /** The records the next plan will send, oldest first. */
  get priorRecords(): readonly PlanRecord[] {
    return this.records;
  }

  async plan(
    messages: PlanRequest['messages'],
    options: Omit<PlanOptions, 'prior_records'> = {},
    call?: CallOptions,
  ): Promise<Plan> {
    const plan = await this.planner.plan(
      messages,
      { ...this.defaults, ...options, prior_records: [...this.records] },
      call,
    );
    if (plan.record) {
      this.records = [...this.records, plan.record].slice(-RECORDS_KEPT);
    }
    return plan;
  }

  /** Start a new run: the next plan sends no prior records. */
  reset(): void {
    this.records = [];
  }
}
