/**
 * `startLocalPlanner`: a real planner process for tests, as `python -m app` serves it.
 *
 * The server is asked for port 0, so the kernel picks a free one and no test races another for
 * it; the bound port is read from uvicorn's own start-up line (`Uvicorn running on
 * http://HOST:PORT`), which it logs at info level whatever the log format, so the level is set to
 * info here. The server counts as started once `/readyz` answers 200. Nothing sleeps for a fixed
 * time: every wait polls its condition until a deadline.
 */

import { spawn, type ChildProcess } from 'node:child_process';

export interface LocalPlannerOptions {
  /** The Python interpreter of an environment where the service is installed. */
  readonly python: string;
  /** The directory to start it in (the service's checkout). */
  readonly cwd?: string;
  /** More `CWP_` settings, e.g. `{ CWP_REQUEST_DEADLINE_SECONDS: '0.001' }`. */
  readonly env?: Record<string, string>;
  readonly startTimeoutMs?: number;
}

export interface LocalPlanner {
  readonly url: string;
  readonly port: number;
  readonly process: ChildProcess;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM, then wait for the exit (SIGKILL if it takes longer than the timeout). */
  stop(timeoutMs?: number): Promise<void>;
}

const HOST = '127.0.0.1';
const UVICORN_RUNNING = /Uvicorn running on https?:\/\/[^\s:]+:(\d+)/;
const POLL_MS = 25;

export async function startLocalPlanner(options: LocalPlannerOptions): Promise<LocalPlanner> {
  const child = spawn(options.python, ['-m', 'app'], {
    cwd: options.cwd,
    env: {
      ...process.env,
      CWP_HOST: HOST,
      CWP_PORT: '0',
      CWP_SHUTDOWN_DRAIN_SECONDS: '0',
      ...options.env,
      CWP_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (timeoutMs = 20_000): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    }
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  try {
    const port = await pollUntil(deadline, 'the server to bind a port', () => {
      if (child.exitCode !== null) {
        throw new Error(`the server exited with ${child.exitCode}`);
      }
      const found = UVICORN_RUNNING.exec(stderr);
      return found ? Number(found[1]) : undefined;
    });
    const url = `http://${HOST}:${port}`;
    await pollUntil(deadline, '/readyz to answer 200', async () => {
      try {
        const answer = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) });
        await answer.arrayBuffer(); // an unread body keeps its pooled connection busy
        return answer.status === 200 ? true : undefined;
      } catch {
        return undefined;
      }
    });
    return { url, port, process: child, stderr: () => stderr, stop };
  } catch (error) {
    await stop();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`the planner did not start: ${reason}\n${stderr}`);
  }
}

async function pollUntil<T>(
  deadline: number,
  what: string,
  condition: () => T | undefined | Promise<T | undefined>,
): Promise<T> {
  for (;;) {
    const value = await condition();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() >= deadline) {
      throw new Error(`gave up waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
