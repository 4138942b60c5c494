/**
 * `PlannerSession` with a summarizer: the summary protocol of `docs/rules.md#summaries` run for
 * the caller. Each plan is answered by a live planner, sent without the summary options, plus the
 * summary fields the test scripts, so that every case is asked for exactly; the last test runs the
 * protocol against the planner itself (its worked examples S-1 and S-2).
 */

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';

import { Planner, PlannerSession, summaryRequestOf, summaryUsedOf } from '../src/index.js';
import { useLivePlanner } from './support.js';

const KEEP_ONE = { kind: 'sliding-window', keep_recent_turns: 1 } as const;
const SUMMARY = 'station 1 read 19 C; station 2 read 20 C.';

/** S-1: a task, then `rounds` native tool rounds of 500 characters each. */
function lookTranscript(rounds = 3): Array<Record<string, unknown>> {
  const messages: Array<Record<string, unknown>> = [{ role: 'user', content: 'TASK' }];
  for (let number = 1; number <= rounds; number += 1) {
    const id = `c${number}`;
    const calls = [{ id, name: 'look', arguments: {} }];
    messages.push({ role: 'assistant', content: '', tool_calls: calls });
    messages.push({ role: 'tool', tool_call_id: id, tool_name: 'look', content: 'x'.repeat(500) });
  }
  return messages;
}

function summaryRequest(from: number, through: number, text = 'R') {
  return {
    from,
    through,
    key: createHash('sha256').update(`${from}-${through}`).digest('hex'),
    request: { messages: [{ role: 'user', content: text }] },
  };
}

/** A fetch that plans through the live planner without the summary options and adds the n-th
 * scripted fields to the n-th answer; `bodies` are the requests as sent. */
function scriptedFetch(script: Array<Record<string, unknown>>) {
  const bodies: Array<Record<string, unknown>> = [];
  const scripted = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const body = JSON.parse(await request.text()) as Record<string, unknown>;
    bodies.push(body);
    const { summarize: _s, summaries: _m, ...passed } = body;
    const answer = await fetch(request.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(passed),
    });
    const fields = script.shift() ?? {};
    const json = {
      ...((await answer.json()) as object),
      summary_request: null,
      summary_used: null,
      summaries_ignored: [],
      ...fields,
    };
    return new Response(JSON.stringify(json), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  };
  return { fetch: scripted as typeof fetch, bodies };
}

function summarizer(...texts: string[]) {
  const requests: unknown[] = [];
  const summarize = async (request: Record<string, unknown>): Promise<string> => {
    requests.push(request);
    return texts[Math.min(requests.length, texts.length) - 1] ?? SUMMARY;
  };
  return { summarize, requests };
}

describe('PlannerSession with a summarizer', () => {
  const live = useLivePlanner();

  it('summarizes a summary request once and plans again at once', async () => {
    const first = summaryRequest(1, 4);
    const { fetch, bodies } = scriptedFetch([
      { summary_request: first },
      { summary_used: { from: 1, through: 4 } },
    ]);
    const { summarize, requests } = summarizer(SUMMARY);
    const session = new PlannerSession(
      new Planner({ baseUrl: live.server.url, fetch }),
      { strategy: KEEP_ONE, iteration: 1 },
      { summarize, instructions: 'Be brief.', minSpanTokens: 0 },
    );
    const plan = await session.plan(lookTranscript());
    assert.deepEqual(requests, [first.request]);
    const entry = { from: 1, through: 4, key: first.key, summary: SUMMARY };
    assert.deepEqual(session.summaries, [entry]);
    assert.equal(bodies.length, 2);
    const [asked, again] = bodies as [Record<string, unknown>, Record<string, unknown>];
    assert.deepEqual(asked.summarize, { instructions: 'Be brief.', min_span_tokens: 0 });
    assert.equal('summaries' in asked, false);
    assert.deepEqual(again.summaries, [entry]);
    assert.equal(again.iteration, 1);
    assert.deepEqual(again.prior_records, asked.prior_records);
    assert.deepEqual(summaryUsedOf(plan), { from: 1, through: 4 });
    assert.ok(plan.replaces);
    assert.deepEqual(summaryRequestOf(plan.replaces), first);
    assert.deepEqual(session.priorRecords, [plan.record]);
    await session.plan(lookTranscript(), { iteration: 2 });
    assert.deepEqual(bodies.at(-1)?.summaries, [entry]);
    assert.equal(requests.length, 1);
  });

  it('leaves a summary request in the second answer to the next plan', async () => {
    const { fetch, bodies } = scriptedFetch([
      { summary_request: summaryRequest(1, 4) },
      { summary_request: summaryRequest(1, 6) },
      { summary_request: summaryRequest(1, 8) },
    ]);
    const { summarize, requests } = summarizer('first', 'second');
    const session = new PlannerSession(
      new Planner({ baseUrl: live.server.url, fetch }),
      { strategy: KEEP_ONE },
      { summarize },
    );
    const plan = await session.plan(lookTranscript());
    assert.equal(bodies.length, 2);
    assert.equal(requests.length, 1);
    assert.deepEqual(summaryRequestOf(plan), summaryRequest(1, 6));
    await session.plan(lookTranscript());
    assert.equal(bodies.length, 4);
    assert.deepEqual(
      session.summaries.map((s) => [s.through, s.summary]),
      [
        [4, 'first'],
        [8, 'second'],
      ],
    );
  });

  it('replan false leaves the summary to the next plan; a blank text keeps nothing', async () => {
    const { fetch, bodies } = scriptedFetch([
      { summary_request: summaryRequest(1, 4) },
      {},
      { summary_request: summaryRequest(1, 6) },
    ]);
    const planner = new Planner({ baseUrl: live.server.url, fetch });
    const { summarize } = summarizer(SUMMARY);
    const later = new PlannerSession(planner, { strategy: KEEP_ONE }, { summarize, replan: false });
    const plan = await later.plan(lookTranscript());
    assert.equal(bodies.length, 1);
    assert.equal(plan.replaces, undefined);
    assert.equal(later.summaries.length, 1);
    await later.plan(lookTranscript());
    assert.deepEqual(bodies[1]?.summaries, later.summaries);

    const blank = new PlannerSession(planner, { strategy: KEEP_ONE }, { summarize: () => ' \n' });
    await blank.plan(lookTranscript());
    assert.equal(bodies.length, 3);
    assert.deepEqual(blank.summaries, []);
  });

  it('keeps and sends the newest sixteen summaries', async () => {
    const script = Array.from({ length: 18 }, (_, n) => ({
      summary_request: summaryRequest(1, n + 2),
    }));
    const { fetch, bodies } = scriptedFetch(script);
    const texts = Array.from({ length: 18 }, (_, n) => `summary ${n}`);
    const { summarize } = summarizer(...texts);
    const session = new PlannerSession(
      new Planner({ baseUrl: live.server.url, fetch }),
      { strategy: KEEP_ONE },
      { summarize, replan: false },
    );
    for (let n = 0; n < 18; n += 1) {
      await session.plan(lookTranscript());
    }
    assert.deepEqual(
      session.summaries.map((s) => s.through),
      Array.from({ length: 16 }, (_, n) => n + 4),
    );
    const last = bodies.at(-1)?.summaries as Array<{ through: number; summary: string }>;
    assert.equal(last.length, 16);
    assert.deepEqual(last[0], {
      from: 1,
      through: 3,
      key: summaryRequest(1, 3).key,
      summary: 'summary 1',
    });
    session.reset();
    assert.deepEqual(session.summaries, []);
  });

  it('asks nothing without a summarizer; one given to a call serves that call', async () => {
    const { fetch, bodies } = scriptedFetch([
      { summary_request: summaryRequest(1, 4) },
      { summary_request: summaryRequest(1, 4) },
    ]);
    const session = new PlannerSession(new Planner({ baseUrl: live.server.url, fetch }), {
      strategy: KEEP_ONE,
    });
    const plan = await session.plan(lookTranscript());
    assert.equal('summarize' in (bodies[0] ?? {}), false);
    assert.ok(summaryRequestOf(plan));
    assert.deepEqual(session.summaries, []);
    const { summarize, requests } = summarizer(SUMMARY);
    await session.plan(lookTranscript(), {}, { summarize });
    assert.deepEqual(bodies[1]?.summarize, {});
    assert.equal(requests.length, 1);
    assert.equal(session.summaries.length, 1);
  });

  it('runs S-1 then S-2 against the planner itself', async () => {
    const { summarize, requests } = summarizer('S');
    const session = new PlannerSession(
      live.planner,
      { strategy: KEEP_ONE, keep_last_tool_results: 0 },
      { summarize, minSpanTokens: 0 },
    );
    const transcript = lookTranscript();
    const plan = await session.plan(transcript as never);
    assert.equal(requests.length, 1);
    assert.ok(plan.replaces);
    assert.deepEqual(summaryRequestOf(plan.replaces)?.request, requests[0]);
    assert.deepEqual(summaryUsedOf(plan), { from: 1, through: 4 });
    assert.deepEqual(plan.window, [
      transcript[0],
      {
        role: 'user',
        content: '[compacted history — 4 earlier message(s) summarized by the model]\n\nS',
      },
      ...transcript.slice(5),
    ]);
    assert.equal(plan.notice?.rung, 'summary');
  });
});
