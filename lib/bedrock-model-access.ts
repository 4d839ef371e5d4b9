import { Aws, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';

/** Prefixes of system-defined cross-Region inference profiles (`us.anthropic…`, `global.…`). */
const inferenceProfilePrefixes = ['global', 'us', 'us-gov', 'eu', 'apac', 'jp', 'au', 'ca'];

/** The inference-profile prefix of a model id, or undefined for a plain foundation model id. */
export function inferenceProfilePrefix(modelId: string): string | undefined {
  const head = modelId.split('.')[0] ?? '';
  return inferenceProfilePrefixes.includes(head) && modelId.includes('.') ? head : undefined;
}

/**
 * The destination regions of the geographic profiles whose destinations AWS fixes: a `jp.`
 * profile runs in Tokyo and Osaka only (Bedrock user guide, "Supported Regions and models for
 * inference profiles"; `dataResidency: jp` relies on it). Other profiles route to regions AWS
 * extends over time.
 */
export const fixedProfileDestinations: Readonly<Record<string, readonly string[]>> = {
  jp: ['ap-northeast-1', 'ap-northeast-3'],
};

/**
 * Whether the grant for `modelId` names the foundation model in any region (`bedrock:*::…`):
 * inference profiles whose destinations AWS may extend. A `jp.` profile names its two regions.
 */
export function grantsModelInAnyRegion(modelId: string): boolean {
  const prefix = inferenceProfilePrefix(modelId);
  return prefix !== undefined && fixedProfileDestinations[prefix] === undefined;
}

/** The foundation model behind a model or inference-profile id. */
export function foundationModelId(modelId: string): string {
  const prefix = inferenceProfilePrefix(modelId);
  return prefix ? modelId.slice(prefix.length + 1) : modelId;
}

/**
 * Least-privilege statements to invoke `modelId` with `actions`.
 *
 * - A foundation model id: that model's ARN in the stack's region.
 * - An inference profile (`us.…`, `global.…`): the profile ARN in the stack's region, plus the
 *   foundation model in *any* region, but only when the call goes through this profile
 *   (`bedrock:InferenceProfileArn`). The profile decides where a request runs: geographic
 *   profiles route to a model-specific set of regions that AWS extends over time, and global
 *   profiles authorize the region-less `arn:aws:bedrock:::foundation-model/…`. A fixed region
 *   list would break with AccessDenied when AWS adds a destination; the condition keeps the
 *   grant as narrow as a list would (this model, through this profile only).
 *   https://docs.aws.amazon.com/bedrock/latest/userguide/global-cross-region-inference.html
 * - A profile with fixed destinations ({@link fixedProfileDestinations}, `jp.…`): the foundation
 *   model in exactly those regions, through this profile only — no region outside them.
 */
export function modelInvokeStatements(
  scope: IConstruct,
  modelId: string,
  actions: readonly string[],
): iam.PolicyStatement[] {
  const stack = Stack.of(scope);
  if (!inferenceProfilePrefix(modelId)) {
    return [
      new iam.PolicyStatement({
        actions: [...actions],
        resources: [`arn:${Aws.PARTITION}:bedrock:${stack.region}::foundation-model/${modelId}`],
      }),
    ];
  }
  const profileArn = `arn:${Aws.PARTITION}:bedrock:${stack.region}:${stack.account}:inference-profile/${modelId}`;
  const destinations = fixedProfileDestinations[inferenceProfilePrefix(modelId) ?? ''];
  if (destinations) {
    return [
      new iam.PolicyStatement({ actions: [...actions], resources: [profileArn] }),
      new iam.PolicyStatement({
        actions: [...actions],
        resources: destinations.map(
          (region) =>
            `arn:${Aws.PARTITION}:bedrock:${region}::foundation-model/${foundationModelId(modelId)}`,
        ),
        conditions: { ArnLike: { 'bedrock:InferenceProfileArn': profileArn } },
      }),
    ];
  }
  return [
    new iam.PolicyStatement({ actions: [...actions], resources: [profileArn] }),
    new iam.PolicyStatement({
      actions: [...actions],
      resources: [
        foundationModelArnInAnyRegion(modelId),
        // A global profile's requests are authorized on the region-less ARN. IAM's `*` matches
        // the empty region too, but AWS's policy for global profiles names this ARN itself, and
        // the first chat must not depend on a matching subtlety (AccessDenied otherwise).
        ...(inferenceProfilePrefix(modelId) === 'global'
          ? [regionlessFoundationModelArn(modelId)]
          : []),
      ],
      conditions: { ArnLike: { 'bedrock:InferenceProfileArn': profileArn } },
    }),
  ];
}

/**
 * `arn:<partition>:bedrock:::foundation-model/<model>`: the foundation model of a global
 * inference profile as AWS's IAM example grants it
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/global-cross-region-inference.html).
 */
export function regionlessFoundationModelArn(modelId: string): string {
  return `arn:${Aws.PARTITION}:bedrock:::foundation-model/${foundationModelId(modelId)}`;
}

/** `arn:<partition>:bedrock:*::foundation-model/<model>` (the `*` also matches the empty region). */
export function foundationModelArnInAnyRegion(modelId: string): string {
  return `arn:${Aws.PARTITION}:bedrock:*::foundation-model/${foundationModelId(modelId)}`;
}

/** The ARN of a reranker foundation model in the stack's region (`rerankingModelId` setting). */
export function rerankingModelArn(scope: IConstruct, rerankingModelId: string): string {
  return `arn:${Aws.PARTITION}:bedrock:${Stack.of(scope).region}::foundation-model/${rerankingModelId}`;
}

/**
 * What `Retrieve` with a reranking configuration needs, per the Bedrock permissions for
 * reranking (https://docs.aws.amazon.com/bedrock/latest/userguide/rerank-prereq.html):
 * `bedrock:Rerank` — an action without a resource type, so `*`, as in AWS's example policy, held
 * to the stack's region by `aws:RequestedRegion` — and
 * `bedrock:InvokeModel` scoped to the reranker model. The page lists them for the caller and for
 * the Knowledge Base's service role; both get them (see ADR 0008).
 */
export function rerankStatements(
  scope: IConstruct,
  rerankingModelId: string,
): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({
      sid: 'RerankRetrievedChunks',
      actions: ['bedrock:Rerank'],
      resources: ['*'],
      // No resource to name, so the region is named instead: `dataResidency` reviews ask that
      // every Bedrock permission stay in the stack's region, and reranking runs only there.
      conditions: { StringEquals: { 'aws:RequestedRegion': Stack.of(scope).region } },
    }),
    new iam.PolicyStatement({
      sid: 'InvokeRerankerModel',
      actions: ['bedrock:InvokeModel'],
      resources: [rerankingModelArn(scope, rerankingModelId)],
    }),
  ];
}
