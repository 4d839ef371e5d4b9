import type { Duration } from 'aws-cdk-lib';
import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { SOURCE_MAPPED_STACK_TRACES } from '../../scripts/bundle-api-handler.js';

/**
 * How the app's `NodejsFunction`s are bundled (the retention sweeper, the knowledge sync
 * catch-up, the vector index handler): one ESM file built by esbuild from node_modules, SDK
 * included. The API function is built split, with the same choices (`apiBundleBuildOptions`,
 * ADR 0034).
 */
export const nodeFunctionBundling: nodejs.BundlingOptions = {
  // esbuild from node_modules: synthesis works offline and without Docker.
  forceDockerBundling: false,
  format: nodejs.OutputFormat.ESM,
  target: 'node22',
  platform: 'node',
  mainFields: ['module', 'main'],
  minify: true,
  sourceMap: true,
  sourceMapMode: nodejs.SourceMapMode.DEFAULT,
  // Line mappings for stack traces without shipping the sources (a 4 MB map otherwise).
  sourcesContent: false,
  // Stack traces in terms of the sources, each map read when a trace first needs it; the
  // functions run without `--enable-source-maps`, which reads them all at init (ADR 0034).
  inject: [SOURCE_MAPPED_STACK_TRACES],
  // Bundle the pinned SDK clients: the same versions as the tests and the local stack,
  // rather than whatever the runtime ships.
  bundleAwsSDK: true,
  // CommonJS dependencies inside an ESM bundle call require(); give them one.
  banner:
    "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  logLevel: nodejs.LogLevel.ERROR,
};

export interface AppFunctionOptions {
  /** The handler module. */
  readonly entry: string;
  /** The role's description: what the function is for. */
  readonly description: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly environment: Readonly<Record<string, string>>;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
  /** Further settings of this function (tracing, reserved concurrency, retries, bundling). */
  readonly functionProps?: Partial<nodejs.NodejsFunctionProps>;
}

/**
 * A function of this app, created in `scope` as `Logs`, `Role` and `Function`: its own log group
 * with a retention, an explicit role that may write to that group only (instead of the
 * AWSLambdaBasicExecutionRole managed policy, which may write to any), Node.js 22 on Graviton
 * (~20% cheaper per GB-second; nothing native in the bundles), bundled by `nodeFunctionBundling`
 * with source maps, read when a stack trace is first printed (`SOURCE_MAPPED_STACK_TRACES`). The
 * caller grants the rest to `role`.
 */
export function createAppFunction(scope: Construct, options: AppFunctionOptions) {
  const { logGroup, role } = logsAndRole(scope, options);
  const fn = new nodejs.NodejsFunction(scope, 'Function', {
    entry: options.entry,
    handler: 'handler',
    ...commonFunctionProps(options, logGroup, role),
    bundling: nodeFunctionBundling,
    ...options.functionProps,
  });
  acknowledgePinnedRuntime(fn);
  return { function: fn, role, logGroup };
}

/**
 * The same as {@link createAppFunction} for a function whose code is built otherwise (the API
 * function's split bundle, which `NodejsFunction` cannot build: it always passes esbuild
 * `--outfile`, and esbuild splits only into a folder). `code` holds `index.mjs` exporting
 * `handler`.
 */
export function createAppFunctionFromCode(
  scope: Construct,
  options: Omit<AppFunctionOptions, 'entry' | 'functionProps'> & {
    readonly code: lambda.Code;
    readonly functionProps?: Partial<lambda.FunctionProps>;
  },
) {
  const { logGroup, role } = logsAndRole(scope, options);
  const fn = new lambda.Function(scope, 'Function', {
    code: options.code,
    handler: 'index.handler',
    ...commonFunctionProps(options, logGroup, role),
    ...options.functionProps,
  });
  acknowledgePinnedRuntime(fn);
  return { function: fn, role, logGroup };
}

function logsAndRole(
  scope: Construct,
  options: Pick<AppFunctionOptions, 'logRetention' | 'logRemovalPolicy' | 'description'>,
) {
  const logGroup = new logs.LogGroup(scope, 'Logs', {
    retention: options.logRetention ?? logs.RetentionDays.ONE_MONTH,
    removalPolicy: options.logRemovalPolicy ?? RemovalPolicy.RETAIN,
  });
  const role = new iam.Role(scope, 'Role', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: options.description,
  });
  logGroup.grantWrite(role);
  return { logGroup, role };
}

function commonFunctionProps(
  options: Pick<AppFunctionOptions, 'memorySize' | 'timeout' | 'environment'>,
  logGroup: logs.ILogGroup,
  role: iam.IRole,
) {
  return {
    runtime: lambda.Runtime.NODEJS_22_X,
    architecture: lambda.Architecture.ARM_64,
    memorySize: options.memorySize,
    timeout: options.timeout,
    role,
    logGroup,
    environment: options.environment,
  };
}

function acknowledgePinnedRuntime(fn: lambda.Function): void {
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-L1',
    reason:
      'Node.js 22 is pinned on purpose: the bundles target node22 and the local stack and ' +
      'tests run the same major version. Move to a newer runtime in one reviewed change.',
  });
}
