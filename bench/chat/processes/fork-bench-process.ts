import { type ChildProcess, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { ChildMessage, ChildRequest } from './messages.js';

export interface BenchProcess<Ready> {
  readonly pid: number;
  /** What the child announced once started (endpoints, URL…). */
  readonly ready: Ready;
  /** One request over IPC; rejects with the child's error, or if the child exits first. */
  call<Result>(method: string, params?: unknown): Promise<Result>;
  /** Asks the child to stop, escalating to SIGTERM and SIGKILL of its process group. Idempotent. */
  stop(): Promise<void>;
}

export interface ForkBenchProcessOptions {
  /** Extra environment for the child (on top of this process's). */
  readonly env?: Record<string, string>;
  /** Extra node flags for the child, e.g. `--cpu-prof` when looking into a figure. */
  readonly execArgv?: readonly string[];
  /** @default 60_000 (DynamoDB Local's JVM can take a while on a loaded machine) */
  readonly readyTimeoutMs?: number;
}

const STOP_GRACE_MS = 15_000;
const SIGTERM_GRACE_MS = 3_000;

/**
 * Forks `entry` (a TypeScript file) under tsx with an IPC channel and waits until it announces
 * itself. The child leads its own process group, so SIGKILL as a last resort also takes any
 * process it started (DynamoDB Local's java) with it; a hook on this process's `exit` does the
 * same if the bench exits without stopping it. Children stop on their own when the IPC channel
 * closes (see `serveParent`).
 */
export async function forkBenchProcess<Ready>(
  entry: string,
  options: ForkBenchProcessOptions = {},
): Promise<BenchProcess<Ready>> {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = fork(entry, [], {
    // Not the parent's execArgv: it may carry flags of the runner (vitest, --inspect…).
    execArgv: ['--import', tsx, ...(options.execArgv ?? [])],
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // A process group of its own: `killGroup` reaches the child's java too, and a Ctrl-C meant
    // for the bench does not hit the child mid-stop (it stops once the channel closes).
    detached: true,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not fork ${entry}`);
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  const killOnExit = () => killGroup('SIGKILL');
  process.on('exit', killOnExit);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  void exited.then(() => process.off('exit', killOnExit));

  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 0;
  child.on('message', (message: ChildMessage<Ready>) => {
    if (message.kind !== 'reply') return;
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if ('error' in message) waiter?.reject(new Error(`${entry}: ${message.error}`));
    else waiter?.resolve(message.result);
  });
  void exited.then(() => {
    for (const waiter of pending.values()) waiter.reject(new Error(`${entry} exited`));
    pending.clear();
  });

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= stopChild(child, exited, killGroup, () => call('stop'));
    return stopping;
  };
  const call = <Result>(method: string, params?: unknown) =>
    new Promise<Result>((resolve, reject) => {
      if (!child.connected) return reject(new Error(`${entry} is not running`));
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      child.send({ kind: 'request', id, method, params } satisfies ChildRequest);
    });

  try {
    const ready = await waitForReady<Ready>(child, entry, options.readyTimeoutMs ?? 60_000);
    return { pid, ready, call, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function waitForReady<Ready>(child: ChildProcess, entry: string, timeoutMs: number) {
  return new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`${entry} did not start within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onMessage = (message: ChildMessage<Ready>) => {
      if (message.kind === 'ready') settle(() => resolve(message.ready));
      else if (message.kind === 'failed')
        fail(new Error(`${entry} failed to start: ${message.message}`));
    };
    const onExit = (code: number | null) =>
      fail(new Error(`${entry} exited (${code}) before it was ready`));
    const settle = (then: () => void) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      then();
    };
    const fail = (error: Error) => settle(() => reject(error));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** `stop` request → SIGTERM to the group → SIGKILL to the group, each after a grace period. */
async function stopChild(
  child: ChildProcess,
  exited: Promise<void>,
  killGroup: (signal: NodeJS.Signals) => void,
  requestStop: () => Promise<unknown>,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return killGroup('SIGKILL');
  const exitedWithin = (ms: number) =>
    Promise.race([
      exited.then(() => true),
      new Promise<boolean>((done) => setTimeout(() => done(false), ms).unref()),
    ]);
  if (child.connected) requestStop().catch(() => undefined);
  if (!(await exitedWithin(STOP_GRACE_MS))) {
    killGroup('SIGTERM');
    if (!(await exitedWithin(SIGTERM_GRACE_MS))) killGroup('SIGKILL');
    await exited;
  }
  // Anything the child started and left behind (it should not) goes with the group.
  killGroup('SIGKILL');
}
