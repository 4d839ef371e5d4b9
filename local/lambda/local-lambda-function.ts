import {
  ExecutionEnvironment,
  type FunctionDefinition,
  type InvocationResult,
} from './execution-environment.js';

export interface LocalLambdaFunctionOptions extends FunctionDefinition {
  /** Concurrent environments at most, like reserved concurrency. @default 10 */
  readonly maxEnvironments?: number;
}

/** A Lambda function's invocations, each in one execution environment. */
export interface Invocations {
  invoke(event: unknown): Promise<InvocationResult>;
}

/** The 429 Lambda answers when every allowed environment is busy. */
export const THROTTLED: InvocationResult = {
  kind: 'failed',
  error: { errorType: 'TooManyRequestsException', errorMessage: 'Rate Exceeded.' },
};

/**
 * The function as Lambda scales it: an invocation goes to a warm, idle execution environment if
 * there is one; otherwise a new environment is created (a cold start); past `maxEnvironments`
 * the invocation is throttled. An environment serves one invocation at a time.
 */
export class LocalLambdaFunction implements Invocations {
  private readonly environments = new Set<ExecutionEnvironment>();
  private starting = 0;
  private created = 0;
  private stopped = false;

  constructor(private readonly options: LocalLambdaFunctionOptions) {}

  /** Environments created for an invocation so far: each one was a cold start. */
  get coldStarts(): number {
    return this.created;
  }

  /**
   * True when every live environment's runtime is asking for its next invocation: no handler
   * code of an earlier invocation is still running (tests wait on this instead of a pause).
   */
  get quiescent(): boolean {
    return [...this.environments].every((environment) => !environment.alive || environment.polling);
  }

  /**
   * Initialises `count` environments ahead of any invocation, as provisioned concurrency does:
   * requests that find one idle start warm. Their init runs in the background.
   */
  async provision(count: number): Promise<void> {
    const environments = await Promise.all(
      Array.from({ length: count }, () =>
        ExecutionEnvironment.create(this.options, 'provisioned-concurrency'),
      ),
    );
    for (const environment of environments) this.environments.add(environment);
  }

  async invoke(event: unknown): Promise<InvocationResult> {
    for (const environment of this.environments) {
      if (!environment.alive) this.environments.delete(environment);
    }
    // Claimed synchronously (`invoke` marks it busy before its first await), so two requests in
    // the same tick never share an environment.
    const warm = [...this.environments].find((environment) => environment.available);
    if (warm) return this.run(warm, event);
    if (this.environments.size + this.starting >= (this.options.maxEnvironments ?? 10)) {
      return THROTTLED;
    }
    this.starting += 1;
    let created: ExecutionEnvironment;
    try {
      created = await ExecutionEnvironment.create(this.options);
    } finally {
      this.starting -= 1;
    }
    if (this.stopped) {
      await created.stop();
      return { kind: 'failed', error: { errorType: 'Stopped', errorMessage: 'Function stopped' } };
    }
    this.created += 1;
    return this.run(created, event);
  }

  /**
   * Kills every environment that is running an invocation, as a crash (out of memory, a fatal
   * error) would: its responses break off and nothing of it runs on. For tests of what survives
   * a crash; later invocations get new environments. Returns how many were killed.
   */
  async crashBusyEnvironments(): Promise<number> {
    const busy = [...this.environments].filter(
      (environment) => environment.alive && !environment.available,
    );
    for (const environment of busy) this.environments.delete(environment);
    await Promise.all(busy.map((environment) => environment.stop()));
    return busy.length;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const environments = [...this.environments];
    this.environments.clear();
    await Promise.all(environments.map((environment) => environment.stop()));
  }

  private async run(environment: ExecutionEnvironment, event: unknown): Promise<InvocationResult> {
    const running = environment.invoke(event);
    this.environments.add(environment);
    const { result, settled } = await running;
    void settled.then(() => {
      if (!environment.alive) this.environments.delete(environment);
    });
    return result;
  }
}
