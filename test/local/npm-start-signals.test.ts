import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

/**
 * `npm start` as the README starts it and as a supervisor (systemd, a container, CI, `timeout`)
 * stops it: a signal to the npm process's PID, nothing else. Every process of the stack — the
 * TypeScript runner, DynamoDB Local's JVM, the Lambda execution environments — must be gone
 * within a bound and the port closed, whatever the signal; even SIGKILL, which no handler sees,
 * must leave nothing serving.
 */
describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
  let running: StartedStack | undefined;
  afterEach(() => {
    // A failed case must not leave its stack serving for the next one — nor one that never came
    // up (a handler that cannot start, a start that timed out), which `running` does not hold.
    if (running) for (const pid of [running.npm.pid ?? 0, ...running.descendants]) kill(pid);
    running = undefined;
    for (const npm of spawned) {
      // Only while it runs: an exited npm's pid (and so its "children") may be another's now.
      if (npm.exitCode !== null || npm.signalCode !== null || npm.pid === undefined) continue;
      for (const pid of [npm.pid, ...descendantsOf(npm.pid)]) kill(pid);
    }
    spawned.clear();
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`stops every process it started on ${signal} to the npm process`, async () => {
      running = await startNpmStart(dataDir);
      const exited = new Promise((done) => running?.npm.once('exit', done));
      running.npm.kill(signal);
      await exited;
      await expectAllGone(running);
    }, 180_000);
  }

  it('leaves nothing serving when the npm process is killed with SIGKILL', async () => {
    running = await startNpmStart(dataDir);
    running.npm.kill('SIGKILL');
    await expectAllGone(running);
  }, 180_000);

  it('leaves nothing serving when the stack process itself is killed with SIGKILL', async () => {
    running = await startNpmStart(dataDir);
    const stackProcess = running.descendants.findLast((pid) => commandOf(pid).includes('start.ts'));
    expect(stackProcess).toBeDefined();
    kill(stackProcess ?? 0);
    await expectAllGone(running);
  }, 180_000);
});

/** Every `npm start` this file spawned, until its case's cleanup. */
const spawned = new Set<ChildProcess>();

interface StartedStack {
  readonly npm: ChildProcess;
  readonly port: number;
  readonly dynamoDbPort: number;
  /** Every process under npm while the stack served (they are re-parented once orphaned). */
  readonly descendants: readonly number[];
}

/**
 * Spawns `npm start` on a free port with its data in `dataDir`, waits for the URL it prints,
 * makes one API request (so a Lambda execution environment exists) and records the process tree.
 */
async function startNpmStart(dataDir: string): Promise<StartedStack> {
  const npm = spawn('npm', ['start'], {
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.add(npm);
  let output = '';
  npm.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  npm.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /Service-desk assistant: (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    };
    npm.stdout?.on('data', onData);
    npm.once('exit', (code) => reject(new Error(`npm start exited (${code}):\n${output}`)));
  });
  const response = await fetch(`${url}/api/conversations`);
  expect(response.status).toBe(200);
  const dynamoDbPort = Number(/DynamoDB: http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1]);
  const descendants = descendantsOf(npm.pid ?? 0);
  const commands = descendants.map(commandOf);
  // The tree this test is about: the JVM and at least one execution environment.
  expect(commands.some((command) => command.includes('DynamoDBLocal.jar'))).toBe(true);
  expect(commands.some((command) => command.includes('aws-lambda-ric'))).toBe(true);
  return { npm, port: Number(new URL(url).port), dynamoDbPort, descendants };
}

async function expectAllGone(stack: StartedStack): Promise<void> {
  const pids = [stack.npm.pid ?? 0, ...stack.descendants];
  // Bounded: the stack's stop kills what is left after a few seconds; a loaded machine is slow.
  // A JVM's first thread can show as a zombie while its others still hold the socket, so the
  // ports are waited on as well.
  const serving = async () =>
    pids.some(isAlive) || (await accepts(stack.port)) || (await accepts(stack.dynamoDbPort));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && (await serving())) await pause(100);
  expect(pids.filter(isAlive).map((pid) => `${pid} ${commandOf(pid)}`)).toEqual([]);
  expect(await accepts(stack.port)).toBe(false);
  expect(await accepts(stack.dynamoDbPort)).toBe(false);
}

function descendantsOf(root: number): number[] {
  const table = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const [pid, ppid] of table) {
      if (ppid === parent) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** Running, not a zombie waiting for a parent that does not reap it. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const pause = (ms: number) => new Promise((wake) => setTimeout(wake, ms));
