/**
 * The Vercel AI SDK hook (`context-window-planner-client/vercel-ai`) on windows a live planner
 * answered: kept messages come back as sent and a shaped result (collapsed or capped) as the
 * caller's part with its new text; the native side carries what the planner must read; and
 * `planEachStep` gives each step that window. The notice's mapping is checked by the example's
 * agent test (examples/vercel_ai).
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { ModelMessage, ToolResultPart } from 'ai';

import { Planner, PlannerSession } from '../src/index.js';
import {
  fromPlannedWindow,
  RECALL_TOOL_DESCRIPTION,
  RECALL_TOOL_PARAMETERS,
  planEachStep,
  toNativeMessages,
  type PlannedStep,
} from '../src/vercel-ai/index.js';
import { recordingFetch, useLivePlanner } from './support.js';

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

describe('the Vercel AI SDK hook', () => {
  const live = useLivePlanner();


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
    const plan = await live.planner.plan(native, { format: 'native' });
    assert.equal(plan.engaged, false);
    assert.deepEqual(fromPlannedWindow(plan.window ?? [], HISTORY, native), HISTORY);
  });

  it('maps a partial window and a capped result back', async () => {
    const native = toNativeMessages(HISTORY);
    const plan = await live.planner.plan(native, {
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

  it('gives each step the caller\'s messages with the shaped results\' new texts', async () => {
    // rack-a's reading is long now (capped: its JSON output becomes the marker's text); the
    // dump is judged noise (collapsed to a ticket).
    const reading = { type: 'json' as const, value: { c: 31, raw: 'y'.repeat(300) } };
    const [request, calls, results, dumpCall, dump] = HISTORY as [
      ModelMessage,
      ModelMessage,
      Extract<ModelMessage, { role: 'tool' }>,
      ModelMessage,
      ModelMessage,
    ];
    const [first, denied] = results.content as [ToolResultPart, ToolResultPart];
    const history: ModelMessage[] = [
      request,
      calls,
      { role: 'tool', content: [{ ...first, output: reading }, denied] },
      dumpCall,
      dump,
    ];
    const before = structuredClone(history);
    const session = new PlannerSession(new Planner({ baseUrl: live.server.url }));
    const steps: PlannedStep[] = [];
    const prepareStep = planEachStep(session, {
      plan: {
        ledger: [{ tool_call_id: 'c', standing: 'noise' }],
        collapse: 'ledger-and-facts',
        cap: { max_chars: 200 },
      },
      onPlan: (step) => steps.push(step),
    });
    const step = (await prepareStep({
      messages: history,
      stepNumber: 0,
    } as unknown as Parameters<typeof prepareStep>[0])) as { messages: ModelMessage[] };
    const { plan } = steps[0]!;
    assert.equal(plan.engaged, false);
    assert.deepEqual(
      plan.shaped?.map((item) => [item.tool_call_id, item.action, item.window_index]),
      [
        ['a', 'capped', 2],
        ['c', 'collapsed', 5],
      ],
    );
    const window = plan.window as Array<{ content: string }>;
    assert.ok(window[2]!.content.includes('"truncated"'));
    assert.ok(window[5]!.content.includes('"collapsed"'));
    const text = (value: string) => ({ type: 'text' as const, value });
    const expected: ModelMessage[] = [
      request,
      calls,
      { role: 'tool', content: [{ ...first, output: text(window[2]!.content) }, denied] },
      dumpCall,
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c',
            toolName: 'dump',
            output: text(window[5]!.content),
          },
        ],
      },
    ];
    assert.deepEqual(step.messages, expected);
    assert.deepEqual(history, before); // the caller's history is untouched
  });

  it('names the recall tool in plans once the agent took it, never with null', async () => {
    const { fetch, requests } = recordingFetch();
    const planner = new Planner({ baseUrl: live.server.url, fetch });
    const step = { messages: HISTORY, stepNumber: 0 } as unknown as Parameters<
      ReturnType<typeof planEachStep>
    >[0];
    const sentRecall = (): unknown => (requests.at(-1)?.body as { recall?: unknown }).recall;

    // An agent that does not add the tool: no recall option, as before.
    const untaken = planEachStep(new PlannerSession(planner), { summarize: false });
    await untaken(step);
    assert.equal(sentRecall(), undefined);

    // Taken: every plan of the session names it; the tool is the service's declaration.
    const session = new PlannerSession(planner);
    const prepareStep = planEachStep(session, {
      summarize: false,
      recall: { tool_name: 'look_back' },
    });
    assert.equal(prepareStep.recallToolName, 'look_back');
    assert.deepEqual(Object.keys(prepareStep.tools), ['look_back']);
    await prepareStep(step);
    assert.deepEqual(sentRecall(), { tool_name: 'look_back' });
    assert.deepEqual(session.recallTool, {
      type: 'function',
      function: {
        name: 'look_back',
        description: RECALL_TOOL_DESCRIPTION,
        parameters: RECALL_TOOL_PARAMETERS,
      },
    });
    const tool = prepareStep.tools.look_back as {
      execute: (input: unknown, options: unknown) => unknown;
    };
    assert.equal(await tool.execute({ ref: 'a' }, {}), '{"c":31}');

    // Off: no tool, no recall option, even once taken.
    const off = planEachStep(session, { summarize: false, recall: null });
    assert.deepEqual(off.tools, {});
    assert.equal(off.recallToolName, undefined);
    await off(step);
    assert.equal(sentRecall(), undefined);
  });
});
