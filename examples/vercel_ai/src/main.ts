/**
 * `node dist/src/main.js`: run the example agent against the planner at `PLANNER_URL`
 * (default `http://127.0.0.1:8080`, where `make run` serves it) and print what each step planned.
 */

import { describeStep, runAgent } from './agent.js';

const plannerUrl = process.env.PLANNER_URL ?? 'http://127.0.0.1:8080';
const run = await runAgent(plannerUrl);
for (const { plan, stepNumber } of run.planned) {
  console.log(describeStep(plan, stepNumber));
}
console.log(`finished after ${run.steps} steps (${run.finishReason}): ${run.text}`);
