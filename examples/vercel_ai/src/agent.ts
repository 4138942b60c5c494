/**
 * The example agent: `generateText` with one tool, a scripted model and the planner before
 * every step.
 *
 * The run resumes a transcript with three earlier tool rounds; the scripted model
 * (`MockLanguageModelV3` from `ai/test`, which records every prompt it is given) calls `measure`
 * once, then answers. With a keep window of one turn and no last-tool-result pins, the planner
 * drops the older rounds and leaves a notice in their place, so what the model is given differs
 * from the history the SDK holds. The hook's recall tool is among the agent's tools, so the
 * windows tell the model how to get back what they leave out; with `recall`, the scripted model
 * does so first (a ref or a query), then answers.
 */

import { generateText, stepCountIs, tool, type ModelMessage } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import {
  Planner,
  PlannerSession,
  type Plan,
  type PlanOptions,
} from 'context-window-planner-client';
import {
  planEachStep,
  type PlannedStep,
  type RecallToolOptions,
} from 'context-window-planner-client/vercel-ai';
import { z } from 'zod';

export const SYSTEM = 'You operate the lab floor through tools.';
export const FINAL_ANSWER = 'rack-c is the hottest at 47C.';
/** Steps at most: the scripted model needs two. */
export const MAX_STEPS = 4;

/** What `measure` returned for rack-a and rack-b: 40 probes' readings. */
export const SENSOR_DUMP = (rack: string): string =>
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

/** What the scripted model answers the two summary requests of a summarized run. */
export const SUMMARY_TEXTS = [
  'rack-a read 20 to 26C on its 40 probes.',
  'rack-a and rack-b read 20 to 26C on their 40 probes each.',
] as const;

function said(text: string) {
  return {
    content: [{ type: 'text' as const, text }],
    finishReason: { unified: 'stop' as const, raw: 'stop' },
    usage,
    warnings: [],
  };
}

function called(toolCallId: string, toolName: string, input: unknown) {
  return {
    content: [
      { type: 'tool-call' as const, toolCallId, toolName, input: JSON.stringify(input) },
    ],
    finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

/** The id of the scripted model's recall call. */
export const RECALL_CALL_ID = 'r1';

/** What the scripted model asks the recall tool, instead of measuring rack-c. */
export interface RecallCall {
  readonly tool: string;
  readonly input: { ref?: string; query?: string; page?: number };
}

/**
 * One tool call, then the answer; with `summarized`, each after a summary. The call measures
 * rack-c, or with `recall` asks the recall tool.
 */
export function scriptedModel(summarized = false, recall?: RecallCall): MockLanguageModelV3 {
  const call = recall
    ? called(RECALL_CALL_ID, recall.tool, recall.input)
    : called('c3', 'measure', { rack: 'rack-c' });
  const answer = said(FINAL_ANSWER);
  const [first, second] = SUMMARY_TEXTS.map(said);
  return new MockLanguageModelV3({
    doGenerate: summarized ? [first!, call, second!, answer] : [call, answer],
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

export interface RunOptions {
  readonly summarized?: boolean;
  /** The hook's recall tool (default `{}`: `context_recall`); null turns recall off. */
  readonly recallTool?: RecallToolOptions | null;
  /** The scripted model's recall call, made instead of measuring rack-c. */
  readonly recall?: RecallCall;
}

/**
 * The run; `planOptions` go with every plan (shaping: `collapse`, `ledger`, `cap`); with
 * `summarized`, the step's model summarizes each span the planner removes.
 */
export async function runAgent(
  plannerUrl: string,
  planOptions: Omit<
    PlanOptions,
    'format' | 'prior_records' | 'iteration' | 'include_window' | 'recall'
  > = {},
  { summarized = false, recallTool, recall }: RunOptions = {},
): Promise<AgentRun> {
  const model = scriptedModel(summarized, recall);
  const session = new PlannerSession(
    new Planner({ baseUrl: plannerUrl }),
    {},
    summarized ? { minSpanTokens: 0 } : {},
  );
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
  const prepareStep = planEachStep(session, {
    plan: {
      strategy: { kind: 'sliding-window', keep_recent_turns: 1 },
      keep_last_tool_results: 0,
      ...planOptions,
    },
    onPlan: (step) => planned.push(step),
    // The hook's default is summaries by the step's model; the scripted model answers none
    // unless the run is the summarized one.
    ...(summarized
      ? { summarize: true as const, summaryCall: { system: SYSTEM } }
      : { summarize: false as const }),
    ...(recallTool !== undefined ? { recall: recallTool } : {}),
  });
  const result = await generateText({
    model,
    system: SYSTEM,
    messages: HISTORY,
    // The hook's recall tool joins the agent's own (AI SDK 6's prepareStep cannot add it).
    tools: { measure, ...prepareStep.tools },
    stopWhen: stepCountIs(MAX_STEPS),
    prepareStep,
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
