/**
 * Retries: a transport failure and a 503 are tried again with bounded exponential backoff, every
 * other status is thrown at once, and a caller's abort is never retried. The 503s are the real
 * service's, from a planner whose processing deadline no large transcript can meet.
 */

import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';

import { Planner, PlannerError, PlannerUnreachableError, backoffDelayMs } from '../src/index.js';
import type { LocalPlanner } from '../src/testing.js';
import { recordingFetch, startPlanner } from './support.js';

const FAST_RETRY = { attempts: 3, initialDelayMs: 20, maxDelayMs: 40 };

/**
 * Tens of thousands of tool rounds: far more work than a one-millisecond deadline allows, even
 * when a loaded machine wakes the event loop late (with 2,000 rounds the compiled reader could
 * finish before the loop looked at the deadline, and the plan was answered).
 */
function largeTranscript(rounds = 20000): unknown[] {
  const messages: unknown[] = [{ role: 'user', content: 'Measure every rack.' }];
  for (let round = 0; round < rounds; round += 1) {
    messages.push(
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: `c${round}`, name: 'measure', arguments: {} }],
      },
      { role: 'tool', tool_call_id: `c${round}`, content: `rack-${round}: ${'4'.repeat(50)}C` },
    );
  }
  return messages;
}

/** A loopback port that nothing listens on: bound by the kernel's choice, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

describe('backoff', () => {
  it('doubles each step up to the ceiling, and waits between half and all of it', () => {
    const policy = { attempts: 8, initialDelayMs: 200, maxDelayMs: 2000 };
    const longest = [1, 2, 3, 4, 5, 6].map((retry) => backoffDelayMs(policy, retry, () => 1));
    assert.deepEqual(longest, [200, 400, 800, 1600, 2000, 2000]);
    const shortest = [1, 2, 3, 4, 5, 6].map((retry) => backoffDelayMs(policy, retry, () => 0));
    assert.deepEqual(shortest, [100, 200, 400, 800, 1000, 1000]);
  });

  it('refuses a policy without an attempt', () => {
    assert.throws(
      () => new Planner({ baseUrl: 'http://127.0.0.1:1', retry: { attempts: 0 } }),
      RangeError,
    );
  });
});

describe('retries against live services', () => {
  let healthy: LocalPlanner;
  let overloaded: LocalPlanner;

  before(async () => {
    [healthy, overloaded] = await Promise.all([
      // A deadline no loaded test machine reaches with the large transcript: only the overloaded
      // replica answers 503.
      // (The graceful shutdown must cover the read timeout and the deadline, or it refuses to start.)
      startPlanner({ CWP_REQUEST_DEADLINE_SECONDS: '120', CWP_GRACEFUL_SHUTDOWN_SECONDS: '130' }),
      // Every body goes to a worker thread under a deadline of one millisecond.
      startPlanner({ CWP_REQUEST_DEADLINE_SECONDS: '0.001', CWP_INLINE_BODY_BYTES: '0' }),
    ]);
  });
  after(async () => {
    // Either may be missing when the other failed to start; the one that started still stops.
    await Promise.all([healthy?.stop(), overloaded?.stop()]);
  });

  it('gives up on a 503 after the last attempt, with the problem the service sent', async () => {
    const { fetch, requests } = recordingFetch();
    const planner = new Planner({ baseUrl: overloaded.url, fetch, retry: FAST_RETRY });
    const failure = await planner.plan(largeTranscript()).then(
      () => assert.fail('a plan past the deadline was answered'),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof PlannerError);
    assert.equal(failure.status, 503);
    assert.equal(failure.type, 'urn:context-window-planner:problem:deadline-exceeded');
    assert.deepEqual(failure.locations, [['body']]);
    assert.equal(requests.length, FAST_RETRY.attempts);
    assert.ok(requests.every((request) => request.url === `${overloaded.url}/v1/window/plan`));
  });

  it('answers once a retry after a 503 reaches a replica that can serve it', async () => {
    // The first attempt goes to the overloaded replica, the later ones to the healthy one, as a
    // load balancer would send them.
    let attempt = 0;
    const { fetch, requests } = recordingFetch(async (input, init) => {
      attempt += 1;
      const request = new Request(input, init);
      const target = attempt === 1 ? request.url : request.url.replace(overloaded.url, healthy.url);
      return globalThis.fetch(new Request(target, request));
    });
    const messages = largeTranscript();
    const planner = new Planner({ baseUrl: overloaded.url, fetch, retry: FAST_RETRY });
    const plan = await planner.plan(messages, {
      strategy: { kind: 'sliding-window', keep_recent_turns: 2 },
    });
    assert.equal(requests.length, 2);
    assert.equal(plan.stats.messages_before, messages.length);
    assert.equal(plan.engaged, true);
  });

  it('retries a transport failure and answers from the next attempt', async () => {
    let calls = 0;
    const flaky = (async (input: RequestInfo | URL, init?: RequestInit) => {
      calls += 1;
      if (calls === 1) {
        throw new TypeError('fetch failed');
      }
      return fetch(input, init);
    }) as typeof fetch;
    const planner = new Planner({ baseUrl: healthy.url, fetch: flaky, retry: FAST_RETRY });
    assert.deepEqual(await planner.health(), { status: 'ok' });
    assert.equal(calls, 2);
  });

  it('throws PlannerUnreachableError when nothing answers, after bounded waits', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}`;
    const { fetch, requests } = recordingFetch();
    const planner = new Planner({ baseUrl, fetch, retry: FAST_RETRY });
    const started = performance.now();
    const failure = await planner.info().then(
      () => assert.fail('a closed port answered'),
      (error: unknown) => error,
    );
    const elapsed = performance.now() - started;
    assert.ok(failure instanceof PlannerUnreachableError);
    assert.equal(failure.attempts, 3);
    assert.ok(failure.cause instanceof Error);
    assert.equal(requests.length, 3);
    // Two waits: at least 10 + 20 ms, at most 20 + 40 ms plus the refused connections.
    assert.ok(elapsed >= 30, `waited only ${elapsed} ms`);
    assert.ok(elapsed < 5000, `waited ${elapsed} ms`);
  });

  it('stops at once when the caller aborts, between attempts too', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}`;
    const { fetch, requests } = recordingFetch();
    const planner = new Planner({
      baseUrl,
      fetch,
      retry: { attempts: 5, initialDelayMs: 10_000, maxDelayMs: 10_000 },
    });
    const controller = new AbortController();
    const started = performance.now();
    const pending = planner.info({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error('the run was cancelled')), 50);
    await assert.rejects(pending, { message: 'the run was cancelled' });
    assert.ok(performance.now() - started < 5000);
    assert.equal(requests.length, 1);
  });

  it('retries the 503 problem of the connection ceiling, and recovers', async () => {
    // As many connections as the ceiling are held open by clients that never finish their request
    // head (the read deadline set past the test), so the service answers every other request,
    // the probes aside, with a 503 problem and `Retry-After`.
    const limit = 4;
    const limited = await startPlanner({
      CWP_LIMIT_CONCURRENCY: String(limit),
      CWP_READ_TIMEOUT_SECONDS: '60',
      CWP_GRACEFUL_SHUTDOWN_SECONDS: '70',
    });
    const holders: Socket[] = [];
    try {
      for (let held = 0; held < limit; held += 1) {
        const holder = connect(limited.port, '127.0.0.1');
        holder.write('GET /v1/info HTTP/1.1\r\nHost: held\r\n');
        holders.push(holder);
      }
      await waitFor(async () => (await infoStatus(limited.url)) === 503);
      assert.equal(await healthStatus(limited.url), 200);
      const { fetch: counted, requests } = recordingFetch();
      const planner = new Planner({ baseUrl: limited.url, fetch: counted, retry: FAST_RETRY });
      const failure = await planner.info().then(
        () => assert.fail('a request past the connection ceiling was served'),
        (error: unknown) => error,
      );
      assert.ok(failure instanceof PlannerError);
      assert.equal(failure.status, 503);
      assert.equal(failure.type, 'urn:context-window-planner:problem:over-capacity');
      assert.equal(failure.title, 'Service unavailable');
      assert.deepEqual(failure.errors, []);
      assert.equal(requests.length, FAST_RETRY.attempts);

      holders.forEach((holder) => holder.destroy());
      await waitFor(async () => (await infoStatus(limited.url)) === 200);
      assert.equal((await planner.info()).name, 'context-window-planner');
    } finally {
      holders.forEach((holder) => holder.destroy());
      await limited.stop();
    }
  });
});

/** The status of `/v1/info` and of `/healthz`, each body read so that the connection is free for
 * the next request (an unread body keeps it busy, and the next request would open one more). */
async function infoStatus(url: string): Promise<number> {
  const answer = await fetch(`${url}/v1/info`);
  await answer.arrayBuffer();
  return answer.status;
}

async function healthStatus(url: string): Promise<number> {
  const answer = await fetch(`${url}/healthz`);
  await answer.arrayBuffer();
  return answer.status;
}

/** Polls `condition` until it holds, for ten seconds at most. */
async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    assert.ok(Date.now() < deadline, 'gave up waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
