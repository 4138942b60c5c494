/**
 * The example agent: `generateText` with one tool, a scripted model and the planner before
 * every step.
 *
 * The run resumes a transcript with three earlier tool rounds; the scripted model
 * (`MockLanguageModelV3` from `ai/test`, which records every prompt it is given) calls `measure`
 * once, then answers. With a keep window of one turn and no last-tool-result pins, the planner
 * drops the older rounds and leaves a notice in their place, so what the model is given differs
 * from the history the SDK holds.
 */

import { generateText, stepCountIs, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import {
  Planner,
  PlannerSession,
  type Plan,
  type PlanOptions,
} from 'context-window-planner-client';
import { planEachStep, type PlannedStep } from 'context-window-planner-client/vercel-ai';
import { z } from 'zod';

export const SYSTEM = 'You operate the lab floor through tools.';
export const FINAL_ANSWER = 'rack-c is the hottest at 47C.';
/** Steps at most: the scripted model needs two. */
export const MAX_STEPS = 4;

const SENSOR_DUMP = (rack: string): string =>
  `${rack}: ` + Array.from({ length: 40 }, (_, i) => `probe-${i}=${20 + (i % 7)}C`).join(', ');

/** The history the run resumes: a request and three measured racks. */
export const HISTORY: ModelMessage[] = [
  { role: 'user', content: 'Find the hottest rack on the floor and report it.' },
  ...['rack-a', 'rack-b'].flatMap((rack, round): ModelMessage[] => [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `Measuring ${rack}.` },
        { type: 'tool-call', toolCallId: `c${round + 1}`, toolName: 'measure', input: { rack } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: `c${round + 1}`,
          toolName: 'measure',
          output: { type: 'text', value: SENSOR_DUMP(rack) },
        },
      ],
    },
  ]),
];

const usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};

export function scriptedModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doGenerate: [
      {
        content: [
          { type: 'tool-call', toolCallId: 'c3', toolName: 'measure', input: '{"rack":"rack-c"}' },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      },
      {
        content: [{ type: 'text', text: FINAL_ANSWER }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      },
    ],
  });
}

export interface AgentRun {
  readonly text: string;
  readonly finishReason: string;
  readonly steps: number;
  readonly model: MockLanguageModelV3;
  readonly planned: PlannedStep[];
  readonly measured: string[];
  readonly session: PlannerSession;
}

/** The run; `planOptions` go with every plan (shaping: `collapse`, `ledger`, `cap`). */
export async function runAgent(
  plannerUrl: string,
  planOptions: Omit<PlanOptions, 'format' | 'prior_records' | 'iteration' | 'include_window'> = {},
): Promise<AgentRun> {
  const model = scriptedModel();
  const session = new PlannerSession(new Planner({ baseUrl: plannerUrl }));
  const planned: PlannedStep[] = [];
  const measured: string[] = [];
  const measure = tool({
    description: 'Read every temperature probe of one rack.',
    inputSchema: z.object({ rack: z.string() }),
    execute: async ({ rack }) => {
      measured.push(rack);
      return rack === 'rack-c' ? 'rack-c: 47C' : SENSOR_DUMP(rack);
    },
  });
  const result = await generateText({
    model,
    system: SYSTEM,
    messages: HISTORY,
    tools: { measure },
    stopWhen: stepCountIs(MAX_STEPS),
    prepareStep: planEachStep(session, {
      plan: {
        strategy: { kind: 'sliding-window', keep_recent_turns: 1 },
        keep_last_tool_results: 0,
        ...planOptions,
      },
      onPlan: (step) => planned.push(step),
    }),
  });
  return {
    text: result.text,
    finishReason: result.finishReason,
    steps: result.steps.length,
    model,
    planned,
    measured,
    session,
  };
}

/** One line per step: what the planner removed and what the model was given. */
export function describeStep(plan: Plan, stepNumber: number): string {
  const notice = plan.notice ? `, notice at ${plan.notice.window_index}` : '';
  return (
    `step ${stepNumber}: ${plan.stats.messages_before} messages -> ${plan.stats.messages_after}` +
    ` (removed ${plan.stats.removed_message_count}${notice})`
  );
}
