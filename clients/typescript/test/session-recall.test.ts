/**
 * `PlannerSession.recall` against a live planner: answered by `POST /v1/recall` over the history
 * the session was last given to plan (with that plan's `format` and `system`), `recallTool` the
 * last plan's declaration, and the text a recall tool returns to the model.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  Planner,
  PlannerSession,
  recallToolText,
  type RecallAnswer,
} from '../src/index.js';
import { RACK_MESSAGES, recordingFetch, useLivePlanner } from './support.js';

const WINDOW = {
  strategy: { kind: 'sliding-window' as const, keep_recent_turns: 1 },
  keep_last_tool_results: 0,
};

/** The README's rack run in Anthropic Messages, with its top-level system prompt. */
const ANTHROPIC_MESSAGES = [
  { role: 'user', content: 'Find the hottest rack and report it.' },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'c1', name: 'whats_here', input: {} }],
  },
  {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'IDS: rack-a, rack-b' }],
  },
  {
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'c2', name: 'measure', input: { rack: 'rack-b' } }],
  },
  {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'c2', content: 'rack-b: 41C' }],
  },
];

describe('PlannerSession recall', () => {
  const live = useLivePlanner();

  it('answers a ref and a query from the history it last planned, not the window', async () => {
    const { fetch, requests } = recordingFetch();
    const session = new PlannerSession(new Planner({ baseUrl: live.server.url, fetch }), {
      ...WINDOW,
      recall: {},
    });
    assert.equal(session.recallTool, undefined); // no plan yet

    const plan = await session.plan(RACK_MESSAGES);
    assert.deepEqual(plan.evicted_messages, [1, 2, 3, 4]);
    assert.ok(!JSON.stringify(plan.window).includes('IDS: rack-a')); // the window lost it
    assert.deepEqual(session.recallTool, plan.recall_tool);
    assert.equal(
      (session.recallTool as unknown as { function: { name: string } }).function.name,
      'context_recall',
    );

    // The evicted result, whole, by its tool_call_id.
    const byRef = await session.recall({ ref: 'c1' });
    assert.deepEqual(byRef, {
      found: true,
      text: 'IDS: rack-a, rack-b',
      page: 1,
      pages: 1,
      hits: null,
    });
    const sent = requests.at(-1)!;
    assert.ok(sent.url.endsWith('/v1/recall'));
    assert.deepEqual(sent.body, { messages: RACK_MESSAGES, ref: 'c1' });

    // A query on the evicted turns: the message holding the term, with its header.
    const byQuery = await session.recall({ query: 'rack-a sensor' });
    assert.equal(byQuery.found, true);
    assert.equal(byQuery.hits, 3);
    assert.equal(
      byQuery.text,
      '[message 4 · result of measure · ref c2]\nrack-a: sensor offline\n\n' +
        '[message 3 · assistant]\nmeasure {"rack":"rack-a"}\n\n' +
        '[message 2 · result of whats_here · ref c1]\nIDS: rack-a, rack-b',
    );
    assert.equal(recallToolText(byQuery), byQuery.text); // one page: no page line

    const missing = await session.recall({ ref: 'c9' });
    assert.deepEqual(missing, {
      found: false,
      text: 'No result with id c9 in this conversation.',
      page: 1,
      pages: 1,
      hits: null,
    });
  });

  it('sends the last plan\'s format and system, and pages long answers', async () => {
    const { fetch, requests } = recordingFetch();
    const session = new PlannerSession(new Planner({ baseUrl: live.server.url, fetch }), WINDOW);
    const system = 'You operate the lab floor through tools.';
    const long = 'x'.repeat(300) + ' rack-z ' + 'y'.repeat(300);
    const messages = [
      ...ANTHROPIC_MESSAGES.slice(0, 4),
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c2', content: long }] },
    ];
    const plan = await session.plan(messages, {
      format: 'anthropic',
      system,
      recall: { tool_name: 'look_back' },
    });
    assert.deepEqual(session.recallTool, {
      name: 'look_back',
      description: (plan.recall_tool as { description: string }).description,
      input_schema: (plan.recall_tool as { input_schema: unknown }).input_schema,
    });

    const first = await session.recall({ ref: 'c2' }, { max_chars: 256 });
    assert.deepEqual(requests.at(-1)!.body, {
      messages,
      format: 'anthropic',
      system,
      ref: 'c2',
      max_chars: 256,
    });
    assert.deepEqual(
      { ...first, text: first.text.length },
      { found: true, text: 256, page: 1, pages: 3, hits: null },
    );
    assert.equal(first.text, long.slice(0, 256));
    assert.equal(
      recallToolText(first, 'look_back'),
      `${long.slice(0, 256)}\n[page 1 of 3: call look_back with page 2 for more]`,
    );
    const last = await session.recall({ ref: 'c2', page: 3 }, { max_chars: 256 });
    assert.equal(last.text, long.slice(512));
    assert.equal(recallToolText(last, 'look_back'), long.slice(512));
    const past: RecallAnswer = await session.recall({ ref: 'c2', page: 4 }, { max_chars: 256 });
    assert.deepEqual(past, { found: true, text: '', page: 4, pages: 3, hits: null });
  });

  it('holds no recall tool when the last plan had recall off', async () => {
    const session = new PlannerSession(new Planner({ baseUrl: live.server.url }), WINDOW);
    await session.plan(RACK_MESSAGES, { recall: {} });
    assert.ok(session.recallTool);
    const off = await session.plan(RACK_MESSAGES);
    assert.equal('recall_tool' in off, false);
    assert.equal(session.recallTool, undefined);
    // The history is still the last plan's: recall works with recall off too.
    const answer = await session.recall({ query: 'rack-b 41C' });
    assert.equal(answer.found, true);
    assert.equal(answer.hits, 3);
  });

  it('finds nothing before the first plan', async () => {
    const session = new PlannerSession(new Planner({ baseUrl: live.server.url }));
    assert.deepEqual(await session.recall({ query: 'rack-a' }), {
      found: false,
      text: 'Nothing earlier in this conversation matches: rack-a.',
      page: 1,
      pages: 1,
      hits: 0,
    });
  });
});
