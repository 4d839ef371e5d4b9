import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { BedrockAgentClient } from '@aws-sdk/client-bedrock-agent';
import { BedrockAgentRuntimeClient } from '@aws-sdk/client-bedrock-agent-runtime';
import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminInitiateAuthCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import { S3Client } from '@aws-sdk/client-s3';
import { createKnowledgeBaseRetriever } from '../../functions/adapters/bedrock/knowledge-base-retriever.js';
import { searchTypeOf } from '../../functions/adapters/bedrock/vector-store-search.js';
import { API_TIMINGS } from '../../functions/api/route-context.js';
import { publishedTicketsKeyPrefix, stackOutputNames } from '../../lib/deployed-stack-names.js';
import {
  readDeployedStack,
  requireOutput,
  SkipError,
  vectorStoreOf,
} from '../../scripts/deployed-stack.js';
import type { IntegTarget } from './integ-target.js';
import { createPublishedTicketRemoval } from './published-ticket-removal.js';

/**
 * The deployed stack as a platform team's sandbox run sees it: stack outputs from CloudFormation,
 * a temporary Cognito user (AdminCreateUser, a permanent password, ADMIN_USER_PASSWORD_AUTH —
 * which needs IAM credentials, so it is no public sign-in path), and every API call through
 * CloudFront exactly like the browser: `x-amz-content-sha256` (OAC signs the origin request and
 * Lambda rejects unsigned payloads) and the Cognito access token in `x-auth-token` (OAC
 * overwrites `Authorization`).
 *
 * Settings (environment): INTEG_STACK_NAME (default: cdk.json `stackName` or
 * ServiceDeskAssistant), AWS_REGION (default: cdk.json `region` or us-east-1),
 * INTEG_EMAIL_DOMAIN (default: first `allowedEmailDomains` entry or example.com),
 * INTEG_LONG_MESSAGE (the long-answer request), INTEG_KNOWLEDGE_WAIT_SECONDS (how long a
 * published ticket may take to become retrievable; default 600).
 */

/** The function's heartbeat interval: a constant no deployment changes. */
const DEPLOYED_HEARTBEAT_MS = API_TIMINGS.heartbeatMs;
/** CloudFront's longest origin read timeout without a quota increase. */
const ORIGIN_READ_TIMEOUT_SPAN_MS = 60_000;
/** Above the function's own 5-minute timeout: the function ends the stream first. */
const CALL_TIMEOUT_MS = 330_000;

/**
 * Long enough to stream for well over a minute (heartbeats every 10 s over ≥ 60 s need ≥ 70 s):
 * many causes, each with steps, for two platforms, plus a long mail and to-do list. An answer
 * that reaches its output-token limit ends `truncated`, which the check accepts.
 */
const LONG_MESSAGE =
  'VPNに接続できない問題について、考えられる原因を少なくとも12個挙げ、原因ごとに見出しを付けて、' +
  '確認手順と対処手順をWindowsとMacのそれぞれについて、社内ネットワークと自宅の両方の場合に分けて、' +
  '省略せずに一つずつ詳しく説明してください。最後に、利用者への丁寧で詳しいメール文面と、' +
  '担当者のやることリストを20項目以上書いてください。';

/** Errors that mean "no usable credentials" rather than "the check failed". */
const unusableCredentialErrors = [
  'CredentialsProviderError',
  'InvalidClientTokenId',
  'ExpiredToken',
  'ExpiredTokenException',
  'UnrecognizedClientException',
];

const sha256Hex = (body: string) => createHash('sha256').update(body, 'utf8').digest('hex');

export async function openAwsTarget(log: (line: string) => void): Promise<IntegTarget> {
  const context = JSON.parse(readFileSync('cdk.json', 'utf8')).context ?? {};
  const stack = await readDeployedStack('INTEG_STACK_NAME').catch((error: unknown) => {
    if (error instanceof SkipError) throw error;
    const name = (error as { name?: string }).name ?? '';
    const text = (error as Error).message ?? String(error);
    if (/does not exist/.test(text)) throw new SkipError(`the stack does not exist (${text})`);
    if (unusableCredentialErrors.includes(name)) {
      throw new SkipError(`the AWS credentials are not usable (${name}: ${text})`);
    }
    throw error;
  });
  const { region } = stack;
  const siteUrl = requireOutput(stack, stackOutputNames.siteUrl);
  const knowledgeBaseId = requireOutput(stack, stackOutputNames.knowledgeBaseId);
  const functionUrl = requireOutput(stack, stackOutputNames.functionUrl);
  const vectorStore = vectorStoreOf(stack);

  const documentBucket = stack.outputs[stackOutputNames.documentBucket];
  const dataSourceId = stack.outputs[stackOutputNames.dataSourceId];
  // The stack's own pool: a temporary user the suite creates. An external issuer (authIssuer,
  // no pool): a token the platform team gives (docs/deploy.md, "Acceptance suite").
  const signedIn = stack.outputs[stackOutputNames.userPoolId]
    ? await signInWithThePool(stack, context, log, Boolean(documentBucket && dataSourceId))
    : tokenFromThePlatformTeam(stack);
  const { accessToken, knowledgeUnavailable } = signedIn;
  return {
    kind: 'aws',
    label: `stack ${stack.stackName} (${region}) through ${siteUrl}`,
    api: (method, path, body) =>
      fetch(new URL(`api/${path}`, siteUrl), {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          accept: path === 'chat' ? 'text/event-stream' : 'application/json',
          'x-amz-content-sha256': sha256Hex(body ?? ''),
          'x-auth-token': accessToken,
        },
        body,
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      }),
    heartbeatMs: DEPLOYED_HEARTBEAT_MS,
    longAnswer: {
      message: process.env.INTEG_LONG_MESSAGE ?? LONG_MESSAGE,
      minSpanMs: ORIGIN_READ_TIMEOUT_SPAN_MS,
      how: 'a request for a long, detailed answer (INTEG_LONG_MESSAGE)',
    },
    functionUrl,
    retriever: createKnowledgeBaseRetriever({
      client: new BedrockAgentRuntimeClient({ region }),
      knowledgeBaseId,
      vectorStore,
    }),
    retrieverLabel: `Knowledge Base ${knowledgeBaseId} (${region}, ${vectorStore}, ${searchTypeOf(vectorStore)})`,
    vectorStore,
    queryExpansion: context.queryExpansion === true || context.queryExpansion === 'true',
    ...(knowledgeUnavailable || !documentBucket || !dataSourceId
      ? {}
      : {
          knowledge: {
            searchableWithinMs: Number(process.env.INTEG_KNOWLEDGE_WAIT_SECONDS ?? 600) * 1000,
            removePublished: createPublishedTicketRemoval({
              s3: new S3Client({ region }),
              agent: new BedrockAgentClient({ region }),
              bucket: documentBucket,
              keyPrefix: publishedTicketsKeyPrefix,
              knowledgeBaseId,
              dataSourceId,
            }),
          },
        }),
    notApplicable: knowledgeUnavailable ? { 'knowledge-capture': knowledgeUnavailable } : {},
    close: signedIn.close,
  };
}

interface SignedIn {
  readonly accessToken: string;
  /** Why the knowledge-capture check cannot run, if it cannot. */
  readonly knowledgeUnavailable?: string;
  close(): Promise<void>;
}

/**
 * A temporary user of the stack's pool, signed in through the acceptance suite's client (and in
 * the editors' group, so the knowledge-capture check can publish).
 */
async function signInWithThePool(
  stack: Awaited<ReturnType<typeof readDeployedStack>>,
  context: Record<string, unknown>,
  log: (line: string) => void,
  hasDocumentBucket: boolean,
): Promise<SignedIn> {
  const { region } = stack;
  const userPoolId = requireOutput(stack, stackOutputNames.userPoolId);
  const clientId = requireOutput(stack, stackOutputNames.acceptanceTestClientId);
  // Knowledge capture needs an editor: the group is joined before sign-in, so the access token
  // carries it. A stack without the group or the bucket outputs skips that check, with why.
  const editorGroup = stack.outputs[stackOutputNames.knowledgeEditorGroup];
  const knowledgeUnavailable = !editorGroup
    ? `the stack has no ${stackOutputNames.knowledgeEditorGroup} output (deployed before knowledge capture)`
    : !hasDocumentBucket
      ? `the stack has no ${stackOutputNames.documentBucket} / ${stackOutputNames.dataSourceId} outputs (a reused Knowledge Base): the suite cannot remove its probe ticket`
      : undefined;
  const domains = context.allowedEmailDomains as string[] | string | undefined;
  const emailDomain =
    process.env.INTEG_EMAIL_DOMAIN ??
    (Array.isArray(domains) ? domains[0] : domains?.split(',')[0]) ??
    'example.com';
  const cognito = new CognitoIdentityProviderClient({ region });
  const username = `integ-${randomUUID()}@${emailDomain}`;
  log(`creating temporary user ${username}`);
  await cognito.send(
    new AdminCreateUserCommand({
      UserPoolId: userPoolId,
      Username: username,
      MessageAction: 'SUPPRESS',
      UserAttributes: [
        { Name: 'email', Value: username },
        { Name: 'email_verified', Value: 'true' },
      ],
    }),
  );
  const deleteUser = async () => {
    await cognito.send(new AdminDeleteUserCommand({ UserPoolId: userPoolId, Username: username }));
    log(`deleted temporary user ${username}`);
  };
  let accessToken: string;
  try {
    // 12+ characters with upper, lower, digit and symbol: the pool's policy.
    const password = `Aa1!${randomBytes(18).toString('base64url')}`;
    await cognito.send(
      new AdminSetUserPasswordCommand({
        UserPoolId: userPoolId,
        Username: username,
        Password: password,
        Permanent: true,
      }),
    );
    if (editorGroup && !knowledgeUnavailable) {
      await cognito.send(
        new AdminAddUserToGroupCommand({
          UserPoolId: userPoolId,
          Username: username,
          GroupName: editorGroup,
        }),
      );
    }
    const auth = await cognito.send(
      new AdminInitiateAuthCommand({
        UserPoolId: userPoolId,
        ClientId: clientId,
        AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
        AuthParameters: { USERNAME: username, PASSWORD: password },
      }),
    );
    const token = auth.AuthenticationResult?.AccessToken;
    if (!token) throw new Error(`sign-in asked for a challenge (${auth.ChallengeName})`);
    accessToken = token;
  } catch (error) {
    await deleteUser().catch(() => undefined);
    throw error;
  }

  return { accessToken, close: deleteUser, ...(knowledgeUnavailable && { knowledgeUnavailable }) };
}

/**
 * A stack signing in at an external issuer has no pool to create a user in: the platform team
 * gives an access token of a test account (`INTEG_ACCESS_TOKEN`), or the suite says what it needs.
 */
function tokenFromThePlatformTeam(stack: Awaited<ReturnType<typeof readDeployedStack>>): SignedIn {
  const issuer = stack.outputs[stackOutputNames.authIssuer] ?? '(the authIssuer setting)';
  const accessToken = process.env.INTEG_ACCESS_TOKEN;
  if (!accessToken)
    throw new SkipError(
      `the stack signs in at ${issuer}, where the suite cannot create a user: set INTEG_ACCESS_TOKEN ` +
        'to an access token of a test account there (for the web client, with the staff role, and the ' +
        'knowledge-editor role for the knowledge-capture check) — docs/deploy.md, "Acceptance suite"',
    );
  return { accessToken, close: async () => undefined };
}
