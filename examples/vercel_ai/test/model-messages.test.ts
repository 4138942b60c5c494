/**
 * The mapping between `ModelMessage`s and native messages, on windows a live planner answered:
 * kept messages come back as sent and a shaped result as its replacement text; and the native
 * side carries what the planner must read. The notice's mapping is checked by the agent's test.
 */

import assert from 'node:assert/strict';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';

import type { ModelMessage } from 'ai';
import { Planner } from 'context-window-planner-client';
import { startLocalPlanner, type LocalPlanner } from 'context-window-planner-client/testing';

import { fromPlannedWindow, toNativeMessages } from '../src/model-messages.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const PYTHON = process.env.PLANNER_PYTHON ?? join(REPO_ROOT, '.venv', 'bin', 'python');

const secret = { anthropic: { signature: 'sig-1' } };

/** A request, a round of two parallel calls (one denied), then a round with a long result. */
const HISTORY: ModelMessage[] = [
  { role: 'user', content: [{ type: 'text', text: 'Which rack runs hot?' }] },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Two racks to check.', providerOptions: secret },
      { type: 'tool-call', toolCallId: 'a', toolName: 'measure', input: { rack: 'rack-a' } },
      { type: 'tool-call', toolCallId: 'b', toolName: 'purge', input: {} },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'a',
        toolName: 'measure',
        output: { type: 'json', value: { c: 31 } },
      },
      {
        type: 'tool-result',
        toolCallId: 'b',
        toolName: 'purge',
        output: { type: 'execution-denied', reason: 'no' },
      },
    ],
  },
  {
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId: 'c', toolName: 'dump', input: { rack: 'rack-b' } }],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c',
        toolName: 'dump',
        output: { type: 'text', value: 'z'.repeat(400) },
      },
    ],
  },
];

describe('ModelMessage mapping', () => {
  let server: LocalPlanner;
  let planner: Planner;

  before(async () => {
    server = await startLocalPlanner({ python: PYTHON, cwd: REPO_ROOT });
    planner = new Planner({ baseUrl: server.url });
  });
  after(async () => {
    await server.stop();
  });

  it('sends one native message per result, with what the planner reads', () => {
    const native = toNativeMessages(HISTORY);
    assert.deepEqual(
      native.map((entry) => [entry.role, entry.tool_call_id ?? null, entry.model_message]),
      [
        ['user', null, { index: 0, part: null }],
        ['assistant', null, { index: 1, part: null }],
        ['tool', 'a', { index: 2, part: 0 }],
        ['tool', 'b', { index: 2, part: 1 }],
        ['assistant', null, { index: 3, part: null }],
        ['tool', 'c', { index: 4, part: 0 }],
      ],
    );
    assert.equal(native[0]?.content, 'Which rack runs hot?');
    assert.deepEqual(
      native[1]?.tool_calls?.map((call) => call.id),
      ['a', 'b'],
    );
    assert.equal(native[2]?.content, '{"c":31}');
    assert.equal(native[3]?.not_dispatched, true);
  });

  it('returns every kept message as sent when nothing leaves', async () => {
    const native = toNativeMessages(HISTORY);
    const plan = await planner.plan(native, { format: 'native' });
    assert.equal(plan.engaged, false);
    assert.deepEqual(fromPlannedWindow(plan.window ?? [], HISTORY, native), HISTORY);
  });

  it('maps a partial window and a capped result back', async () => {
    const native = toNativeMessages(HISTORY);
    const plan = await planner.plan(native, {
      format: 'native',
      strategy: { kind: 'sliding-window', keep_recent_turns: 1 },
      keep_last_tool_results: 0,
      cap: { max_chars: 120 },
    });
    assert.deepEqual(plan.evicted_messages, [1, 2, 3]);
    assert.equal(plan.notice, null); // the span is shorter than any notice (the agent test has one)
    const planned = fromPlannedWindow(plan.window ?? [], HISTORY, native);
    const capped = plan.window?.at(-1) as { content: string };
    assert.ok(capped.content.length <= 120 && capped.content.includes('"truncated"'));
    const expected: ModelMessage[] = [
      HISTORY[0]!,
      HISTORY[3]!,
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c',
            toolName: 'dump',
            output: { type: 'text', value: capped.content },
          },
        ],
      },
    ];
    assert.deepEqual(planned, expected);
  });
});
