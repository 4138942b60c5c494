/**
 * The example against a live planner: the run completes, and at every step the model was given
 * exactly the window the planner answered (compared with the planner's own native `window`, not
 * with this example's mapping), which is not the history the SDK holds.
 */

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';

import type { LanguageModelV3FunctionTool, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { Planner } from 'context-window-planner-client';
import { startLocalPlanner, type LocalPlanner } from 'context-window-planner-client/testing';
import { toNativeMessages } from 'context-window-planner-client/vercel-ai';

import {
  FINAL_ANSWER,
  HISTORY,
  RECALL_CALL_ID,
  SENSOR_DUMP,
  SUMMARY_TEXTS,
  SYSTEM,
  runAgent,
  type AgentRun,
} from '../src/agent.js';

const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const REPO_ROOT = resolve(PACKAGE_ROOT, '..', '..');
const PYTHON = process.env.PLANNER_PYTHON ?? join(REPO_ROOT, '.venv', 'bin', 'python');

/** One message as the model sees it: its role, its text, its calls, the results it holds. */
interface Seen {
  role: string;
  text: string;
  calls: string[];
  results: Array<{ id: string; text: string }>;
}

function seenInPrompt(prompt: LanguageModelV3Prompt): Seen[] {
  return prompt.map((message) => {
    if (message.role === 'system') {
      return { role: 'system', text: message.content, calls: [], results: [] };
    }
    const seen: Seen = { role: message.role, text: '', calls: [], results: [] };
    for (const part of message.content) {
      if (part.type === 'text') {
        seen.text += part.text;
      } else if (part.type === 'tool-call') {
        seen.calls.push(part.toolCallId);
      } else if (part.type === 'tool-result') {
        assert.equal(part.output.type, 'text');
        seen.results.push({ id: part.toolCallId, text: part.output.value });
      }
    }
    return seen;
  });
}

interface NativeEntry {
  role: string;
  content: string;
  tool_calls?: Array<{ id: string }>;
  tool_call_id?: string;
}

/** The planner's native window as the model should see it: the SDK sends consecutive tool
 * messages as one. */
function seenInWindow(window: readonly unknown[]): Seen[] {
  const seen: Seen[] = [];
  for (const entry of window as NativeEntry[]) {
    const last = seen.at(-1);
    if (entry.role === 'tool') {
      const result = { id: entry.tool_call_id ?? '', text: entry.content };
      if (last?.role === 'tool') {
        last.results.push(result);
      } else {
        seen.push({ role: 'tool', text: '', calls: [], results: [result] });
      }
      continue;
    }
    seen.push({
      role: entry.role,
      text: entry.content,
      calls: (entry.tool_calls ?? []).map((call) => call.id),
      results: [],
    });
  }
  return seen;
}

/** The tools the model was given at each step, by name. */
function toolsGiven(run: AgentRun): Array<Map<string, LanguageModelV3FunctionTool>> {
  return run.model.doGenerateCalls.map(
    (call) =>
      new Map(
        (call.tools ?? []).flatMap((tool) =>
          tool.type === 'function' ? [[tool.name, tool] as const] : [],
        ),
      ),
  );
}

describe('the Vercel AI SDK example', () => {
  let planner: LocalPlanner;

  before(async () => {
    planner = await startLocalPlanner({ python: PYTHON, cwd: REPO_ROOT });
  });
  after(async () => {
    await planner.stop();
  });

  it('gives the model exactly the planned window at every step, and completes', async () => {
    const run = await runAgent(planner.url);
    assert.equal(run.text, FINAL_ANSWER);
    assert.equal(run.finishReason, 'stop');
    assert.equal(run.steps, 2);
    assert.deepEqual(run.measured, ['rack-c']);

    const prompts = run.model.doGenerateCalls.map((call) => call.prompt);
    assert.equal(prompts.length, 2);
    assert.equal(run.planned.length, 2);
    prompts.forEach((prompt, step) => {
      const { plan } = run.planned[step]!;
      assert.ok(plan.window, `step ${step} has no window`);
      const [system, ...conversation] = seenInPrompt(prompt);
      assert.deepEqual(system, { role: 'system', text: SYSTEM, calls: [], results: [] });
      assert.deepEqual(conversation, seenInWindow(plan.window), `step ${step}`);
      // The planner engaged: older rounds left, and its notice took their place.
      assert.equal(plan.engaged, true);
      assert.ok(plan.notice, `step ${step} has no notice`);
      assert.equal(conversation[plan.notice.window_index]?.text, plan.notice.content);
      assert.ok(plan.stats.messages_after < plan.stats.messages_before);
    });

    // Step 0 planned the history as given: the request, the notice, the last round.
    const first = seenInPrompt(prompts[0]!).slice(1);
    assert.equal(first[0]?.text, 'Find the hottest rack on the floor and report it.');
    assert.deepEqual(
      first.flatMap((seen) => seen.calls),
      ['c2'],
    );
    // Step 1 planned the history with the step's own call and result: only that round stays.
    const second = seenInPrompt(prompts[1]!).slice(1);
    assert.deepEqual(
      second.flatMap((seen) => seen.calls),
      ['c3'],
    );
    assert.deepEqual(second.at(-1)?.results, [{ id: 'c3', text: 'rack-c: 47C' }]);
    assert.equal(run.planned[1]!.plan.stats.messages_before, HISTORY.length + 2);

    // The second plan was sent the first plan's record.
    const records = run.planned.map((step) => step.plan.record);
    assert.deepEqual(run.session.priorRecords, records);
    assert.deepEqual(
      records.map((record) => record?.iteration),
      [1, 2],
    );
  });

  it('gives the model a shaped result as the run\'s tool result with its new text', async () => {
    const run = await runAgent(planner.url, { cap: { max_chars: 200 } });
    assert.equal(run.text, FINAL_ANSWER);
    const prompts = run.model.doGenerateCalls.map((call) => call.prompt);
    assert.equal(prompts.length, 2);
    prompts.forEach((prompt, step) => {
      const { plan } = run.planned[step]!;
      assert.deepEqual(seenInPrompt(prompt).slice(1), seenInWindow(plan.window ?? []));
    });
    // Step 0 keeps rack-b's round, whose long dump went as the cap's marker.
    const shaped = run.planned[0]!.plan.shaped?.filter((item) => item.window_index !== null);
    assert.deepEqual(
      shaped?.map((item) => [item.tool_call_id, item.action]),
      [['c2', 'capped']],
    );
    const results = seenInPrompt(prompts[0]!).flatMap((seen) => seen.results);
    assert.equal(results.length, 1);
    assert.ok(results[0]!.text.includes('"truncated"') && results[0]!.text.length <= 200);
    // The SDK's history still holds the dump as the tool returned it.
    const kept = HISTORY[4] as { content: Array<{ output: { value: string } }> };
    assert.ok(kept.content[0]!.output.value.length > 200);
  });

  it('gives the model a cleared result as the run\'s tool result with the placeholder', async () => {
    const run = await runAgent(planner.url, {
      strategy: { kind: 'sliding-window', keep_recent_turns: 5 },
      clear: { keep_last: 0, step: 1 },
    });
    assert.equal(run.text, FINAL_ANSWER);
    const prompts = run.model.doGenerateCalls.map((call) => call.prompt);
    prompts.forEach((prompt, step) => {
      const { plan } = run.planned[step]!;
      assert.deepEqual(seenInPrompt(prompt).slice(1), seenInWindow(plan.window ?? []));
    });
    // Step 0: rack-a's dump, read by the model before its last message, went as the placeholder.
    const shaped = run.planned[0]!.plan.shaped?.filter((item) => item.window_index !== null);
    assert.deepEqual(
      shaped?.map((item) => [item.tool_call_id, item.action]),
      [['c1', 'cleared']],
    );
    const results = seenInPrompt(prompts[0]!).flatMap((seen) => seen.results);
    assert.ok(results[0]!.text.startsWith('{"cleared":true,"tool_call_id":"c1"'));
    // The SDK's history still holds the dump as the tool returned it.
    const kept = HISTORY[2] as { content: Array<{ output: { value: string } }> };
    assert.ok(kept.content[0]!.output.value.length > 200);
  });

  it('has the step\'s model write the summaries the windows carry', async () => {
    const run = await runAgent(planner.url, {}, { summarized: true });
    assert.equal(run.text, FINAL_ANSWER);
    assert.equal(run.steps, 2);
    const prompts = run.model.doGenerateCalls.map((call) => call.prompt);
    assert.equal(prompts.length, 4);
    // The hook's recall tool is among the agent's tools: the summary message names it.
    const recall = '; call context_recall with a query for their full text]\n\n';
    const heads = [
      '[compacted history — 2 earlier message(s) summarized by the model' + recall,
      '[compacted history — 4 earlier message(s) summarized by the model' + recall,
    ];
    run.planned.forEach(({ plan }, step) => {
      const first = (plan as { replaces?: unknown }).replaces as
        | { summary_request?: { through: number; request: { messages: unknown[] } } }
        | undefined;
      const asked = first?.summary_request;
      assert.ok(asked, `step ${step} asked for no summary`);
      // The summary call: the summary request's messages as the model sees them, the run's
      // system prompt first.
      const [system, ...summaryCall] = seenInPrompt(prompts[2 * step]!);
      assert.deepEqual(system, { role: 'system', text: SYSTEM, calls: [], results: [] });
      assert.deepEqual(summaryCall, seenInWindow(asked.request.messages));
      // The step's call: the window, with the summary in the notice's place.
      const conversation = seenInPrompt(prompts[2 * step + 1]!).slice(1);
      assert.deepEqual(conversation, seenInWindow(plan.window ?? []));
      assert.equal(conversation[1]?.text, heads[step]! + SUMMARY_TEXTS[step]!);
      assert.equal(plan.notice?.rung, 'summary');
    });
    assert.deepEqual(
      run.session.summaries.map((summary) => [summary.from, summary.through, summary.summary]),
      [
        [1, 2, SUMMARY_TEXTS[0]],
        [1, 4, SUMMARY_TEXTS[1]],
      ],
    );
  });

  it('answers the model\'s recall of a cleared result with the result as the tool returned it', async () => {
    const run = await runAgent(
      planner.url,
      {
        strategy: { kind: 'sliding-window', keep_recent_turns: 5 },
        clear: { keep_last: 0, step: 1 },
      },
      { recall: { tool: 'context_recall', input: { ref: 'c1' } } },
    );
    assert.equal(run.text, FINAL_ANSWER);
    assert.equal(run.steps, 2);
    assert.deepEqual(run.measured, []);
    const prompts = run.model.doGenerateCalls.map((call) => call.prompt);
    prompts.forEach((prompt, step) => {
      const { plan } = run.planned[step]!;
      assert.deepEqual(seenInPrompt(prompt).slice(1), seenInWindow(plan.window ?? []));
    });
    // Every step: the recall tool is a real tool of the model's call, as the plan declares it.
    const declared = run.planned[0]!.plan.recall_tool as {
      function: { name: string; description: string; parameters: unknown };
    };
    assert.equal(declared.function.name, 'context_recall');
    for (const tools of toolsGiven(run)) {
      assert.deepEqual([...tools.keys()], ['measure', 'context_recall']);
      const given = tools.get('context_recall')!;
      assert.equal(given.description, declared.function.description);
      assert.deepEqual(given.inputSchema, declared.function.parameters);
    }
    // Step 0: rack-a's dump went as the placeholder, whose hint names the tool.
    const [placeholder] = seenInPrompt(prompts[0]!).flatMap((seen) => seen.results);
    assert.equal(placeholder!.id, 'c1');
    assert.ok(placeholder!.text.startsWith('{"cleared":true,"tool_call_id":"c1"'));
    assert.ok(placeholder!.text.includes('"hint":"call context_recall with this tool_call_id'));
    // Step 1: the model's call was answered from the history: the dump, whole.
    const results = seenInPrompt(prompts[1]!).flatMap((seen) => seen.results);
    assert.deepEqual(results.at(-1), { id: RECALL_CALL_ID, text: SENSOR_DUMP('rack-a') });
    assert.ok(results.some((result) => result.id === 'c1' && result.text.includes('"cleared"')));
  });

  it('answers the model\'s query on an evicted turn from the whole history', async () => {
    const query = 'rack-a probe-3';
    const run = await runAgent(planner.url, {}, {
      recall: { tool: 'context_recall', input: { query } },
    });
    assert.equal(run.text, FINAL_ANSWER);
    const prompts = run.model.doGenerateCalls.map((call) => call.prompt);
    // Step 0: rack-a's round left the window, and the notice says how to get it back.
    const { plan } = run.planned[0]!;
    assert.deepEqual(plan.evicted_messages, [1, 2]);
    assert.ok(plan.notice?.content.includes('call context_recall with a query'));
    assert.ok(!JSON.stringify(seenInPrompt(prompts[0]!)).includes(SENSOR_DUMP('rack-a')));
    // Step 1: the answer is the service's answer over the history the step planned.
    const expected = await new Planner({ baseUrl: planner.url }).recall({
      messages: toNativeMessages(HISTORY),
      format: 'native',
      query,
    });
    assert.equal(expected.found, true);
    assert.ok(
      expected.text.includes('[message 2 · result of measure · ref c1]\n' + SENSOR_DUMP('rack-a')),
    );
    const results = seenInPrompt(prompts[1]!).flatMap((seen) => seen.results);
    assert.deepEqual(results.at(-1), { id: RECALL_CALL_ID, text: expected.text });
  });

  it('keeps the windows and tools it had before with recall off', async () => {
    const on = await runAgent(planner.url);
    const off = await runAgent(planner.url, {}, { recallTool: null });
    assert.equal(off.text, FINAL_ANSWER);
    for (const tools of toolsGiven(off)) {
      assert.deepEqual([...tools.keys()], ['measure']);
    }
    off.planned.forEach(({ plan }, step) => {
      assert.equal('recall_tool' in plan, false);
      assert.ok(!plan.notice?.content.includes('context_recall'));
      assert.ok(on.planned[step]!.plan.notice?.content.includes('call context_recall'));
      // The same plan but the texts naming the tool.
      assert.deepEqual(plan.evicted_messages, on.planned[step]!.plan.evicted_messages);
    });
  });

  it('runs as a program', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(PACKAGE_ROOT, 'dist', 'src', 'main.js')],
      { env: { ...process.env, PLANNER_URL: planner.url } },
    );
    assert.match(stdout, /^step 0: 5 messages -> 4 \(removed 2, notice at 1\)$/m);
    assert.match(stdout, new RegExp(`finished after 2 steps \\(stop\\): ${FINAL_ANSWER}`));
  });
});
