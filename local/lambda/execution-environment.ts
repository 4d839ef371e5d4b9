import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { basename, dirname, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FunctionError, InvocationOutcome } from './runtime-api.js';
import { RuntimeApi } from './runtime-api.js';

/** The deployed function as the local environments reproduce it. */
export interface FunctionDefinition {
  readonly functionName: string;
  /** Absolute path of the bundled handler module (`.mjs`). */
  readonly bundlePath: string;
  /** The module's export to run. @default 'handler' */
  readonly handlerName?: string;
  /** The function's own environment variables. */
  readonly environment: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly memoryMb: number;
  /**
   * X-Ray active tracing: every invocation's trace header is sampled and names Lambda's segment
   * as parent, as Lambda's is with active tracing (sampling aside). @default false: the
   * pass-through header of a function without it
   */
  readonly activeTracing?: boolean;
  /** Where the function's stdout and stderr go (CloudWatch Logs in AWS). */
  readonly output: {
    readonly stdout: NodeJS.WritableStream;
    readonly stderr: NodeJS.WritableStream;
  };
}

export type InvocationResult =
  | InvocationOutcome
  | { readonly kind: 'timeout'; readonly error: FunctionError }
  | { readonly kind: 'failed'; readonly error: FunctionError };

/** Lambda's names: created for an invocation, or ahead of any (provisioned concurrency). */
export type InitializationType = 'on-demand' | 'provisioned-concurrency';

const RUNTIME_CLIENT = createRequire(import.meta.url).resolve('aws-lambda-ric');
const NATIVE_CLIENT_STAND_IN = fileURLToPath(
  new URL('./native-client-stand-in.cjs', import.meta.url),
);
const EXIT_WITH_PARENT = fileURLToPath(new URL('./exit-with-parent.cjs', import.meta.url));

/**
 * One Lambda execution environment: a Node process running the real runtime interface client
 * (aws-lambda-ric, over its node:http transport) with the bundled handler, fed by its own Runtime
 * API. Its init (loading the bundle, module-scope clients) happens once, at creation, so the first
 * invocation is a cold start and later ones are warm — per-container caches live as in Lambda.
 * A timed-out invocation kills the process, as Lambda resets the environment. The process exits
 * on its own when the one that started it dies (`exit-with-parent.cjs`), however it died.
 */
export class ExecutionEnvironment {
  readonly id = randomUUID().slice(0, 8);
  private readonly runtimeApi = new RuntimeApi();
  private process?: ChildProcess;
  private exited?: Promise<FunctionError>;
  private initError?: FunctionError;
  private busy = false;
  private dead = false;
  private invocations = 0;

  private constructor(
    private readonly definition: FunctionDefinition,
    private readonly initializationType: InitializationType,
  ) {}

  /** Starts the process; the runtime initialises in the background and then polls for work. */
  static async create(
    definition: FunctionDefinition,
    initializationType: InitializationType = 'on-demand',
  ): Promise<ExecutionEnvironment> {
    const environment = new ExecutionEnvironment(definition, initializationType);
    await environment.start();
    return environment;
  }

  get available(): boolean {
    return !this.busy && !this.dead;
  }

  get alive(): boolean {
    return !this.dead;
  }

  /** True once the runtime asks for its next invocation: every handler call it ran returned. */
  get polling(): boolean {
    return !this.dead && this.runtimeApi.polling;
  }

  /** Invocations this environment has run (0 before its cold start). */
  get invocationCount(): number {
    return this.invocations;
  }

  /**
   * Runs one invocation: resolves when the response stream starts (or the function failed or
   * timed out before it). The timeout keeps counting while the response streams; `settled`
   * resolves when the environment is free again.
   */
  async invoke(event: unknown): Promise<{ result: InvocationResult; settled: Promise<void> }> {
    if (!this.available) throw new Error(`Execution environment ${this.id} is not available`);
    this.busy = true;
    this.invocations += 1;
    const { functionName, timeoutMs } = this.definition;
    const requestId = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<InvocationResult>((resolve) => {
      timer = setTimeout(() => {
        this.definition.output.stderr.write(
          `${new Date().toISOString()} ${requestId} Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds\n`,
        );
        this.kill();
        resolve({
          kind: 'timeout',
          error: {
            errorType: 'Sandbox.Timedout',
            errorMessage: `Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`,
          },
        });
      }, timeoutMs);
    });
    const exited = (this.exited ?? Promise.resolve(this.initError)).then(
      (error): InvocationResult => ({
        kind: 'failed',
        error: this.initError ??
          error ?? { errorType: 'Runtime.ExitError', errorMessage: 'exited' },
      }),
    );
    const result = await Promise.race([
      this.runtimeApi.invoke({
        requestId,
        event,
        deadlineMs: Date.now() + timeoutMs,
        invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
        traceId: this.traceHeader(),
      }),
      timedOut,
      exited,
    ]);
    const finished =
      result.kind === 'response' ? result.response.ended.then(() => undefined) : Promise.resolve();
    const settled = Promise.race([
      finished,
      timedOut.then(() => undefined),
      exited.then(() => undefined),
    ]).then(() => {
      clearTimeout(timer);
      if (result.kind === 'failed') this.kill();
      this.busy = false;
    });
    return { result, settled };
  }

  private traceHeader(): string {
    const root = `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replaceAll('-', '').slice(0, 24)}`;
    if (!this.definition.activeTracing) return `${root};Sampled=0`;
    return `${root};Parent=${randomUUID().replaceAll('-', '').slice(0, 16)};Sampled=1`;
  }

  /** Stops the process (a frozen or reclaimed environment in Lambda terms). */
  async stop(): Promise<void> {
    this.kill();
    await this.exited;
    await this.runtimeApi.close();
  }

  private async start(): Promise<void> {
    const runtimeApi = await this.runtimeApi.listen();
    this.runtimeApi.onInitError((error) => {
      this.initError = error;
    });
    const { bundlePath, environment, functionName, memoryMb, timeoutMs } = this.definition;
    const handlerName = this.definition.handlerName ?? 'handler';
    const module = basename(bundlePath, extname(bundlePath));
    const child = spawn(
      process.execPath,
      // No --enable-source-maps: as in Lambda it is the function's choice (NODE_OPTIONS); the
      // app's bundles map their traces themselves, when one is printed (ADR 0034).
      ['--require', NATIVE_CLIENT_STAND_IN, '--require', EXIT_WITH_PARENT, RUNTIME_CLIENT],
      {
        cwd: dirname(bundlePath),
        // stdin: a pipe never written to; its end tells the environment the stack is gone.
        stdio: ['pipe', 'pipe', 'pipe'],
        env: {
          // What Lambda sets for a Node function, plus the function's own variables.
          PATH: process.env.PATH,
          TZ: ':UTC',
          LANG: 'en_US.UTF-8',
          AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
          AWS_LAMBDA_FUNCTION_NAME: functionName,
          AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
          AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memoryMb),
          AWS_LAMBDA_FUNCTION_TIMEOUT: String(Math.ceil(timeoutMs / 1000)),
          AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${functionName}`,
          AWS_LAMBDA_LOG_STREAM_NAME: `local/${this.id}`,
          AWS_LAMBDA_INITIALIZATION_TYPE: this.initializationType,
          LAMBDA_TASK_ROOT: dirname(bundlePath),
          _HANDLER: `${module}.${handlerName}`,
          AWS_LAMBDA_RUNTIME_API: runtimeApi,
          // The documented switch to the runtime client's node:http transport (no native addon).
          AWS_LAMBDA_NODEJS_USE_ALTERNATIVE_CLIENT_1: 'true',
          // The SDK warns on Node 20 that releases after January 2027 need Node 22 (Lambda runs 22).
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          ...environment,
        },
      },
    );
    this.process = child;
    // Never written to; a pipe closing under a dying process must not be an unhandled error.
    child.stdin?.on('error', () => undefined);
    child.stdout?.pipe(this.definition.output.stdout, { end: false });
    child.stderr?.pipe(this.definition.output.stderr, { end: false });
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.dead = true;
        resolve({
          errorType: 'Runtime.ExitError',
          errorMessage: `RequestId: exited with ${signal ? `signal ${signal}` : `code ${code}`}`,
        });
      });
    });
  }

  private kill(): void {
    if (this.dead) return;
    this.dead = true;
    this.process?.kill('SIGKILL');
  }
}
