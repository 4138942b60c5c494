/** Every `Planner` method against a real planner process, and the typed error of a refusal. */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Planner, PlannerError } from '../src/index.js';
import { RACK_MESSAGES, recordingFetch, useLivePlanner } from './support.js';

describe('Planner against a live service', () => {
  const live = useLivePlanner();


  it('plans a window and says what left and why', async () => {
    const plan = await live.planner.plan(RACK_MESSAGES, {
      strategy: { kind: 'sliding-window', keep_recent_turns: 1 },
      ledger: [{ tool_call_id: 'c2', standing: 'noise' }],
      iteration: 2,
    });
    assert.equal(plan.format, 'native');
    assert.equal(plan.engaged, true);
    assert.deepEqual(plan.evicted_messages, [3, 4]);
    assert.deepEqual(
      plan.window,
      [0, 1, 2, 5, 6].map((index) => RACK_MESSAGES[index]),
    );
    assert.deepEqual(plan.dropped_standings, [{ tool_call_id: 'c2', standing: 'noise' }]);
    assert.equal(plan.record?.iteration, 2);
    assert.equal(plan.record?.removed_message_count, 2);
  });

  it('passes every option through as sent', async () => {
    const { fetch, requests } = recordingFetch();
    const recording = new Planner({ baseUrl: live.server.url, fetch });
    const options = {
      format: 'openai',
      strategy: { kind: 'sliding-window', keep_recent_turns: 3 },
      include_turns: false,
      request_text: 'Which rack?',
    } as const;
    const messages = [{ role: 'user', content: 'Which rack?' }];
    const plan = await recording.plan(messages, options);
    assert.deepEqual(requests[0]?.body, { ...options, messages });
    assert.equal(plan.format, 'openai');
    assert.equal(plan.turns, undefined); // include_turns: false leaves the per-turn lists out
    assert.equal(plan.engaged, false);
    assert.equal(plan.record, null);
  });

  it('caps an oversized result into a marker within the ceiling', async () => {
    const answer = await live.planner.cap(
      [
        { tool_name: 'orders_export', tool_call_id: 'c1', result: 'x'.repeat(500) },
        { tool_name: 'read_file', tool_call_id: 'c2', result: { rows: [1, 2, 3] } },
      ],
      { max_chars: 200, max_chars_by_tool: { read_file: 1000 } },
    );
    assert.equal(answer.truncated_count, 1);
    const [capped, passed] = answer.results;
    assert.equal(capped?.truncated, true);
    assert.equal(capped?.chars, 500);
    assert.ok(JSON.stringify(capped?.result).length <= 200);
    assert.deepEqual(passed?.result, { rows: [1, 2, 3] });
    assert.equal(passed?.max_chars, 1000);
  });

  it('offers the results the model may still name', async () => {
    const answer = await live.planner.offer(
      [
        { role: 'user', content: 'Which port is open?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'c1', name: 'lookup_port', arguments: {} },
            { id: 'c2', name: 'lookup_port', arguments: {} },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'port 22 closed' },
        { role: 'tool', tool_call_id: 'c2', content: 'port 443 open' },
      ],
      { ledger: [{ tool_call_id: 'c1', standing: 'noise' }], limit: 32 },
    );
    assert.deepEqual(answer.offered, ['c2']);
    assert.deepEqual(answer.served, ['c1', 'c2']);
    assert.deepEqual(answer.undeclared, ['c2']);
  });

  it('keeps, looks up and spends a kept answer', async () => {
    const { kept } = await live.planner.keepAnswers({
      turn: 3,
      tool_name: 'purge_logs',
      answers: [{ argument: 'window', value: '24h' }],
    });
    assert.deepEqual(kept, [
      { turn: 3, tool_name: 'purge_logs', argument: 'window', value: '24h' },
    ]);
    const found = await live.planner.lookupKeptAnswer({
      kept,
      turn: 3,
      tool_name: 'purge_logs',
      argument: 'window',
    });
    assert.deepEqual(found.answer, kept[0]);
    const spent = await live.planner.useKeptAnswers({
      kept,
      turn: 3,
      used: [{ tool_name: 'purge_logs', argument: 'window' }],
    });
    assert.equal(spent.kept, null);
  });

  it('reads the service info, liveness and readiness', async () => {
    const info = await live.planner.info();
    assert.equal(info.name, 'context-window-planner');
    assert.ok(info.tokenizers.length > 0);
    assert.deepEqual(await live.planner.health(), { status: 'ok' });
    assert.deepEqual(await live.planner.readiness(), { status: 'ready' });
  });

  it('throws a PlannerError carrying the problem, once, for a refused request', async () => {
    const { fetch, requests } = recordingFetch();
    const recording = new Planner({
      baseUrl: live.server.url,
      fetch,
      headers: { 'x-request-id': 'ts-422' },
    });
    const refusal = await recording.cap([], { max_chars: 0 }).then(
      () => assert.fail('a cap of 0 chars with no results was accepted'),
      (error: unknown) => error,
    );
    assert.ok(refusal instanceof PlannerError);
    assert.equal(refusal.status, 422);
    assert.equal(refusal.title, 'Invalid request');
    assert.equal(refusal.type, 'urn:context-window-planner:problem:invalid-request');
    assert.ok(refusal.detail.length > 0);
    assert.deepEqual(refusal.locations, [
      ['body', 'max_chars'],
      ['body', 'results'],
    ]);
    assert.equal(refusal.requestId, 'ts-422');
    assert.equal(requests.length, 1); // a 422 is the same on every attempt: never retried
  });
});
