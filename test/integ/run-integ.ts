/**
 * Integration test against a deployed stack (`npm run test:integ`; not part of `npm test`).
 *
 * 1. Reads the stack outputs (CloudFormation DescribeStacks).
 * 2. Creates a temporary Cognito user (AdminCreateUser + permanent AdminSetUserPassword) and
 *    signs in with ADMIN_USER_PASSWORD_AUTH, which the web client allows for this purpose; it
 *    needs IAM credentials, so it is no public sign-in path.
 * 3. POSTs a chat through CloudFront exactly like the browser: JSON body, `x-amz-content-sha256`
 *    (CloudFront OAC signs the origin request, and Lambda rejects unsigned payloads) and the
 *    Cognito ACCESS token in `x-auth-token` (OAC overwrites `Authorization`).
 * 4. Checks the SSE sequence (`meta` first, `result` last, no `error`), the conversation through
 *    `GET /api/conversations/{id}`, and the two turns in DynamoDB.
 * 5. Deletes what it created (conversation through the API, leftovers directly; the user).
 *
 * Without credentials or without the stack it explains why and exits 0.
 *
 * Settings (environment): INTEG_STACK_NAME (default: cdk.json `stackName` or
 * ServiceDeskAssistant), AWS_REGION (default: cdk.json `region` or us-east-1),
 * INTEG_EMAIL_DOMAIN (default: first `allowedEmailDomains` entry or example.com),
 * INTEG_TENANT_ID (default: `default`, the function's TENANT_ID), INTEG_MESSAGE.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminInitiateAuthCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import {
  clientMessageKeyOf,
  conversationKeyOf,
  ownerIdOf,
} from '../../functions/adapters/dynamodb/conversation-items.js';
import { stackOutputNames } from '../../lib/service-desk-stack.js';

interface CdkContext {
  readonly stackName?: string;
  readonly region?: string;
  readonly allowedEmailDomains?: string[] | string;
}

const cdkContext: CdkContext =
  JSON.parse(readFileSync(fileURLToPath(new URL('../../cdk.json', import.meta.url)), 'utf8'))
    .context ?? {};
const stackName = process.env.INTEG_STACK_NAME ?? cdkContext.stackName ?? 'ServiceDeskAssistant';
const region = process.env.AWS_REGION ?? cdkContext.region ?? 'us-east-1';
const configuredDomains = cdkContext.allowedEmailDomains;
const emailDomain =
  process.env.INTEG_EMAIL_DOMAIN ??
  (Array.isArray(configuredDomains) ? configuredDomains[0] : configuredDomains?.split(',')[0]) ??
  'example.com';
const tenantId = process.env.INTEG_TENANT_ID ?? 'default';
const message =
  process.env.INTEG_MESSAGE ?? 'Salesforceにログインできません。どうすればよいですか？';
/** Above the function's own 5-minute timeout: the function ends the stream first. */
const chatTimeoutMs = 330_000;

class SkipError extends Error {}

/** Errors that mean "no valid credentials" rather than "the test failed". */
const unusableCredentialErrors = [
  'CredentialsProviderError',
  'InvalidClientTokenId',
  'ExpiredToken',
  'ExpiredTokenException',
  'UnrecognizedClientException',
];

function step(text: string): void {
  console.log(`• ${text}`);
}

function check(condition: unknown, text: string): asserts condition {
  if (!condition) throw new Error(`Check failed: ${text}`);
  console.log(`  ✓ ${text}`);
}

const sha256Hex = (body: string) => createHash('sha256').update(body, 'utf8').digest('hex');

async function readStackOutputs(): Promise<Record<string, string>> {
  const cloudFormation = new CloudFormationClient({ region });
  try {
    await cloudFormation.config.credentials();
  } catch (error) {
    throw new SkipError(`no AWS credentials (${(error as Error).message})`);
  }
  try {
    const { Stacks } = await cloudFormation.send(
      new DescribeStacksCommand({ StackName: stackName }),
    );
    const stack = Stacks?.[0];
    if (!stack?.StackStatus?.endsWith('_COMPLETE') || stack.StackStatus.includes('ROLLBACK')) {
      throw new SkipError(`stack ${stackName} is ${stack?.StackStatus ?? 'missing'}`);
    }
    return Object.fromEntries(
      (stack.Outputs ?? []).map((output) => [output.OutputKey ?? '', output.OutputValue ?? '']),
    );
  } catch (error) {
    if (error instanceof SkipError) throw error;
    const text = (error as Error).message ?? String(error);
    if (/does not exist/.test(text)) {
      throw new SkipError(`stack ${stackName} does not exist in ${region}`);
    }
    const name = (error as { name?: string }).name ?? '';
    if (unusableCredentialErrors.includes(name)) {
      throw new SkipError(`the AWS credentials are not usable (${name}: ${text})`);
    }
    throw error;
  }
}

function requireOutput(outputs: Record<string, string>, name: string): string {
  const value = outputs[name];
  if (!value) throw new Error(`Stack ${stackName} has no output ${name}; redeploy it.`);
  return value;
}

/** A password that satisfies the pool policy (12+, upper, lower, digit, symbol). */
function temporaryPassword(): string {
  return `Aa1!${randomBytes(18).toString('base64url')}`;
}

interface ChatOutcome {
  readonly status: number;
  readonly contentType: string;
  readonly events: EventSourceMessage[];
}

async function postChat(siteUrl: string, accessToken: string, body: string): Promise<ChatOutcome> {
  const response = await fetch(new URL('api/chat', siteUrl), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'x-amz-content-sha256': sha256Hex(body),
      'x-auth-token': accessToken,
    },
    body,
    signal: AbortSignal.timeout(chatTimeoutMs),
  });
  const contentType = response.headers.get('content-type') ?? '';
  if (!response.ok || !response.body) {
    const text = await response.text();
    throw new Error(`POST /api/chat answered ${response.status}: ${text.slice(0, 500)}`);
  }
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const decoder = new TextDecoder();
  const reader = response.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    parser.feed(decoder.decode(read.value, { stream: true }));
  }
  parser.feed(decoder.decode());
  return { status: response.status, contentType, events };
}

async function callApi(
  siteUrl: string,
  accessToken: string,
  method: 'GET' | 'DELETE',
  path: string,
): Promise<Response> {
  return fetch(new URL(`api/${path}`, siteUrl), {
    method,
    // The hash of the empty body: harmless for GET, required by OAC for methods with a body.
    headers: { 'x-auth-token': accessToken, 'x-amz-content-sha256': sha256Hex('') },
    signal: AbortSignal.timeout(30_000),
  });
}

async function run(): Promise<void> {
  const outputs = await readStackOutputs();
  const siteUrl = requireOutput(outputs, stackOutputNames.siteUrl);
  const userPoolId = requireOutput(outputs, stackOutputNames.userPoolId);
  const clientId = requireOutput(outputs, stackOutputNames.userPoolClientId);
  const turnsTable = requireOutput(outputs, stackOutputNames.turnsTable);
  const conversationsTable = requireOutput(outputs, stackOutputNames.conversationsTable);
  console.log(`Stack ${stackName} (${region}): ${siteUrl}`);

  const cognito = new CognitoIdentityProviderClient({ region });
  const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region }));
  const username = `integ-${randomUUID()}@${emailDomain}`;
  const clientMessageId = `integ-${randomUUID()}`;
  let accessToken: string | undefined;
  let ownerId: string | undefined;
  let conversationId: string | undefined;
  let userCreated = false;

  try {
    step(`creating temporary user ${username}`);
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
    userCreated = true;
    const password = temporaryPassword();
    await cognito.send(
      new AdminSetUserPasswordCommand({
        UserPoolId: userPoolId,
        Username: username,
        Password: password,
        Permanent: true,
      }),
    );
    const auth = await cognito.send(
      new AdminInitiateAuthCommand({
        UserPoolId: userPoolId,
        ClientId: clientId,
        AuthFlow: 'ADMIN_USER_PASSWORD_AUTH',
        AuthParameters: { USERNAME: username, PASSWORD: password },
      }),
    );
    accessToken = auth.AuthenticationResult?.AccessToken;
    check(accessToken, `signed in without a challenge (${auth.ChallengeName ?? 'none'})`);
    const claims = JSON.parse(
      Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8'),
    ) as { sub: string };
    ownerId = ownerIdOf({ tenantId, userId: claims.sub });

    step('POST /api/chat through CloudFront');
    const chat = await postChat(siteUrl, accessToken, JSON.stringify({ message, clientMessageId }));
    check(chat.status === 200, 'status 200');
    check(chat.contentType.startsWith('text/event-stream'), `content-type ${chat.contentType}`);
    const names = chat.events.map((event) => event.event ?? 'message');
    console.log(`  events: ${names.join(' ')}`);
    check(names[0] === 'meta', 'first event is meta');
    check(!names.includes('error'), 'no error event');
    check(names.at(-1) === 'result', 'last event is result');
    const meta = JSON.parse(chat.events[0]?.data ?? '{}') as { conversationId?: string };
    conversationId = meta.conversationId;
    check(conversationId, `meta names the conversation (${conversationId})`);
    const result = JSON.parse(chat.events.at(-1)?.data ?? '{}') as {
      response_type?: string;
      status?: string;
    };
    check(result.status === 'complete', `result status complete (${result.status})`);
    console.log(`  answer type: ${result.response_type}`);

    step('GET /api/conversations/{id}');
    const read = await callApi(siteUrl, accessToken, 'GET', `conversations/${conversationId}`);
    check(read.status === 200, `status 200 (${read.status})`);
    const conversation = (await read.json()) as { turns?: { role: string }[] };
    check(conversation.turns?.length === 2, 'two turns: the question and the answer');

    step('turns in DynamoDB');
    const stored = await documents.send(
      new QueryCommand({
        TableName: turnsTable,
        KeyConditionExpression: 'conversationKey = :key',
        ExpressionAttributeValues: { ':key': conversationKeyOf(ownerId, conversationId) },
        ConsistentRead: true,
      }),
    );
    const turns = stored.Items ?? [];
    check(turns.length === 2, `two turn items (${turns.length})`);
    check(
      turns[0]?.role === 'user' && turns[0]?.text === message && turns[0]?.seq === 1,
      'turn 1 is the user question',
    );
    check(
      turns[1]?.role === 'assistant' && turns[1]?.status === 'complete' && turns[1]?.seq === 2,
      'turn 2 is the complete assistant answer',
    );

    step('DELETE /api/conversations/{id}');
    const deleted = await callApi(
      siteUrl,
      accessToken,
      'DELETE',
      `conversations/${conversationId}`,
    );
    check(deleted.status === 200 || deleted.status === 204, `status ${deleted.status}`);
    const after = await callApi(siteUrl, accessToken, 'GET', `conversations/${conversationId}`);
    check(after.status === 404, 'the conversation is gone (404)');
    conversationId = undefined;
  } finally {
    // Each step on its own: a failed one must not leave the user behind or hide the test error.
    for (const [label, action] of cleanUpSteps()) {
      await action().catch((error: unknown) => {
        console.error(`Clean-up failed (${label}); remove it by hand:`, error);
        process.exitCode = 1;
      });
    }
  }

  function cleanUpSteps(): [string, () => Promise<unknown>][] {
    const steps: [string, () => Promise<unknown>][] = [];
    if (ownerId) {
      const owner = ownerId;
      // The idempotency marker of our clientMessageId (its own partition in Turns).
      steps.push([
        'client message marker',
        () =>
          documents.send(
            new DeleteCommand({
              TableName: turnsTable,
              Key: clientMessageKeyOf(owner, clientMessageId),
            }),
          ),
      ]);
      if (conversationId) {
        // The API did not delete it (the run failed before): remove it directly.
        const id = conversationId;
        steps.push([
          `conversation ${id}`,
          async () => {
            const key = conversationKeyOf(owner, id);
            const left = await documents.send(
              new QueryCommand({
                TableName: turnsTable,
                KeyConditionExpression: 'conversationKey = :key',
                ExpressionAttributeValues: { ':key': key },
                ProjectionExpression: 'seq',
              }),
            );
            for (const item of left.Items ?? []) {
              await documents.send(
                new DeleteCommand({
                  TableName: turnsTable,
                  Key: { conversationKey: key, seq: item.seq },
                }),
              );
            }
            await documents.send(
              new DeleteCommand({
                TableName: conversationsTable,
                Key: { ownerId: owner, conversationId: id },
              }),
            );
            console.log(`• deleted conversation ${id} directly`);
          },
        ]);
      }
    }
    if (userCreated) {
      steps.push([
        `user ${username}`,
        async () => {
          await cognito.send(
            new AdminDeleteUserCommand({ UserPoolId: userPoolId, Username: username }),
          );
          console.log(`• deleted temporary user ${username}`);
        },
      ]);
    }
    return steps;
  }
}

run().then(
  () => console.log('Integration test passed.'),
  (error: unknown) => {
    if (error instanceof SkipError) {
      console.log(`Integration test skipped: ${error.message}.`);
      console.log(
        'Deploy the stack (docs/deploy.md) and provide credentials (AWS_PROFILE or AWS_* ' +
          'variables) to run it.',
      );
      return;
    }
    console.error('Integration test failed:', error);
    process.exitCode = 1;
  },
);
