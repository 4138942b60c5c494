/** `PlannerSession` sends the last two non-null records, oldest first, against a live planner. */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { Planner, PlannerSession, type PlanRecord } from '../src/index.js';
import type { LocalPlanner } from '../src/testing.js';
import { RACK_MESSAGES, recordingFetch, startPlanner } from './support.js';

describe('PlannerSession', () => {
  let server: LocalPlanner;

  before(async () => {
    server = await startPlanner();
  });
  after(async () => {
    await server.stop();
  });

  it('carries the last two records and skips a plan that did not engage', async () => {
    const { fetch, requests } = recordingFetch();
    const session = new PlannerSession(new Planner({ baseUrl: server.url, fetch }), {
      strategy: { kind: 'sliding-window', keep_recent_turns: 1 },
      keep_last_tool_results: 0,
    });
    const sent = (): unknown[] =>
      (requests.at(-1)?.body as { prior_records: unknown[] }).prior_records;
    const records: PlanRecord[] = [];
    for (let iteration = 1; iteration <= 3; iteration += 1) {
      const plan = await session.plan(RACK_MESSAGES, { iteration });
      assert.deepEqual(sent(), records.slice(-2));
      assert.ok(plan.record, `plan ${iteration} did not engage`);
      assert.equal(plan.record.iteration, iteration);
      records.push(plan.record);
    }
    assert.deepEqual(session.priorRecords, records.slice(-2));

    // A transcript within the keep window: no record, and the kept ones stay as they were.
    const quiet = await session.plan([{ role: 'user', content: 'Thanks.' }], { iteration: 4 });
    assert.equal(quiet.record, null);
    assert.deepEqual(sent(), records.slice(-2));
    assert.deepEqual(session.priorRecords, records.slice(-2));

    // Per-call options win over the session's; the defaults still apply to the rest.
    await session.plan(RACK_MESSAGES, { keep_last_tool_results: 2 });
    const body = requests.at(-1)?.body as Record<string, unknown>;
    assert.equal(body.keep_last_tool_results, 2);
    assert.deepEqual(body.strategy, { kind: 'sliding-window', keep_recent_turns: 1 });

    session.reset();
    await session.plan(RACK_MESSAGES);
    assert.deepEqual(sent(), []);
  });
});
