import { readFileSync } from 'node:fs';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  VECTOR_STORES,
  type VectorStore,
} from '../functions/adapters/bedrock/vector-store-search.js';

/**
 * The deployed stack as the operator commands (`npm run eval -- --target aws`, `npm run usage --
 * --target aws`) find it: region and stack name from the environment or `cdk.json`, outputs from
 * CloudFormation. Without usable credentials it throws `SkipError`, which the commands turn into
 * a SKIPPED line and exit 0: they must be safe to run on a machine without an account.
 */

export class SkipError extends Error {}

export interface DeployedStack {
  readonly region: string;
  readonly stackName: string;
  /** Stack outputs by key (`stackOutputNames` in lib/service-desk-stack.ts). */
  readonly outputs: Readonly<Record<string, string>>;
}

export async function readDeployedStack(
  stackNameVariable: string,
  options: { readonly outputs?: boolean } = {},
): Promise<DeployedStack> {
  const context = JSON.parse(readFileSync('cdk.json', 'utf8')).context ?? {};
  const region: string = process.env.AWS_REGION ?? context.region ?? 'us-east-1';
  const stackName: string =
    process.env[stackNameVariable] ?? context.stackName ?? 'ServiceDeskAssistant';
  const cloudFormation = new CloudFormationClient({ region });
  try {
    await cloudFormation.config.credentials();
  } catch (error) {
    throw new SkipError(`no AWS credentials (${(error as Error).message})`);
  }
  if (options.outputs === false) return { region, stackName, outputs: {} };
  const { Stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
  const outputs = Object.fromEntries(
    (Stacks?.[0]?.Outputs ?? []).map((output) => [
      output.OutputKey ?? '',
      output.OutputValue ?? '',
    ]),
  );
  return { region, stackName, outputs };
}

/** An output the command needs, or an error naming the stack and the key. */
export function requireOutput(stack: DeployedStack, key: string): string {
  const value = stack.outputs[key];
  if (!value) throw new Error(`stack ${stack.stackName} (${stack.region}) has no ${key} output`);
  return value;
}

/**
 * The deployed Knowledge Base's vector store, from the stack's `VectorStore` output: what the
 * eval and the acceptance suite search with and report. A stack deployed before the output
 * existed is on OpenSearch Serverless (the only store then).
 */
export function vectorStoreOf(stack: DeployedStack): VectorStore {
  const value = stack.outputs.VectorStore;
  if (value === undefined || value === '') return 'opensearch-serverless';
  if (!(VECTOR_STORES as readonly string[]).includes(value)) {
    throw new Error(`stack ${stack.stackName} has an unknown VectorStore output: ${value}`);
  }
  return value as VectorStore;
}
