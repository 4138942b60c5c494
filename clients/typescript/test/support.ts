/**
 * What the tests share: where the service's checkout and its Python environment are, a live
 * planner started once per test file, and a `fetch` that records every request it passes on.
 */

import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { after, before } from 'node:test';

import { Planner } from '../src/index.js';
import { startLocalPlanner, type LocalPlanner } from '../src/testing.js';

/** This package's root (the tests run from `dist/test/`). */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const REPO_ROOT = resolve(PACKAGE_ROOT, '..', '..');
/** The interpreter of the project's environment, which `make test` creates. */
export const PYTHON = process.env.PLANNER_PYTHON ?? join(REPO_ROOT, '.venv', 'bin', 'python');

export function startPlanner(env: Record<string, string> = {}): Promise<LocalPlanner> {
  return startLocalPlanner({ python: PYTHON, cwd: REPO_ROOT, env });
}

/** A planner started before the calling file's tests and stopped after them, with a client. */
export interface LivePlanner {
  server: LocalPlanner;
  planner: Planner;
}

export function useLivePlanner(): LivePlanner {
  const live = {} as LivePlanner;
  before(async () => {
    live.server = await startPlanner();
    live.planner = new Planner({ baseUrl: live.server.url });
  });
  after(async () => {
    await live.server.stop();
  });
  return live;
}

export interface RecordedRequest {
  readonly url: string;
  readonly method: string;
  readonly body: unknown;
}

/** A `fetch` that records each request and then hands it to `next` (the global one by default). */
export function recordingFetch(next: typeof fetch = fetch): {
  fetch: typeof fetch;
  requests: RecordedRequest[];
} {
  const requests: RecordedRequest[] = [];
  const recording = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const text = await request.clone().text();
    requests.push({
      url: request.url,
      method: request.method,
      body: text ? JSON.parse(text) : undefined,
    });
    return next(request);
  };
  return { fetch: recording as typeof fetch, requests };
}

/** The README's plan request: sliding window of one turn over three tool rounds. */
export const RACK_MESSAGES = [
  { role: 'user', content: 'Find the hottest rack and report it.' },
  {
    role: 'assistant',
    content: '',
    tool_calls: [{ id: 'c1', name: 'whats_here', arguments: {} }],
  },
  { role: 'tool', tool_call_id: 'c1', tool_name: 'whats_here', content: 'IDS: rack-a, rack-b' },
  {
    role: 'assistant',
    content: '',
    tool_calls: [{ id: 'c2', name: 'measure', arguments: { rack: 'rack-a' } }],
  },
  { role: 'tool', tool_call_id: 'c2', tool_name: 'measure', content: 'rack-a: sensor offline' },
  {
    role: 'assistant',
    content: '',
    tool_calls: [{ id: 'c3', name: 'measure', arguments: { rack: 'rack-b' } }],
  },
  { role: 'tool', tool_call_id: 'c3', tool_name: 'measure', content: 'rack-b: 41C' },
];
