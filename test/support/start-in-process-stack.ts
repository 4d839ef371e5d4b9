import { randomUUID } from 'node:crypto';
import { inject, vi } from 'vitest';
import type { HandlerOverrides } from '../../functions/api/create-handler.js';
import {
  type ConversationDetail,
  conversationDetailSchema,
} from '../../functions/contract/conversations.js';
import type { LocalBedrockServer } from '../../local/bedrock/start-local-bedrock-server.js';
import type { LocalS3Server } from '../../local/s3/start-local-s3-server.js';
import { type LocalStackOptions, startLocalServices } from '../../local/start-local-stack.js';
import type { ChatCallOptions, ChatResponse } from './chat-client.js';
import { createInProcessApi } from './in-process-api.js';

/** The API in process on the local stack's services, with the calls a test makes. */
export interface InProcessStack {
  readonly bedrock: LocalBedrockServer;
  readonly s3?: LocalS3Server;
  readonly dynamoDbEndpoint: string;
  /** The function's environment, as the stack's execution environments would get it. */
  readonly functionEnvironment: Readonly<Record<string, string>>;
  /** Any `/api` request, read as the web app reads it (JSON, or SSE events as they arrive). */
  call(
    method: string,
    path: string,
    body?: unknown,
    options?: ChatCallOptions,
  ): Promise<ChatResponse>;
  /** `POST /api/chat`. */
  postChat(body: unknown, options?: ChatCallOptions): Promise<ChatResponse>;
  /** `GET /api/conversations/{id}` as `user`, checked against the contract; anything but 200 throws. */
  fetchConversation(conversationId: string, user: string): Promise<ConversationDetail>;
  stop(): Promise<void>;
}

/**
 * The local stack without its function runtime: the run's shared DynamoDB Local with tables of
 * its own, the local Bedrock endpoint (unpaced) and the local S3 of knowledge capture — started
 * by the same `startLocalServices` as `startTestStack`, with the same function settings — and
 * the API function's own wiring (`createApi`, real SDK clients) called in process instead of the
 * bundled handler under the runtime client behind the Function URL front. For every rule the
 * API decides; what only the runtime or the front shows stays on `startTestStack`.
 * @example
 * const stack = await startInProcessStack();
 * const chat = await stack.postChat({ message: 'VPN' }, { user: 'alice' });
 */
export async function startInProcessStack(
  options: Pick<LocalStackOptions, 'functionEnvironment' | 'environment'> & {
    /** Adapters to replace, as `createHandler`'s overrides (e.g. a Cognito verifier). */
    readonly overrides?: HandlerOverrides;
  } = {},
): Promise<InProcessStack> {
  const endpoint = inject('dynamoDbEndpoint');
  if (!endpoint) throw new Error(inject('dynamoDbLocalError') ?? 'DynamoDB Local is not running');
  const services = await startLocalServices({
    responderPacing: { minMs: 0, maxMs: 0 },
    tablePrefix: `inproc-${randomUUID().slice(0, 8)}-`,
    log: () => undefined,
    ...options,
    environment: { DYNAMODB_ENDPOINT: endpoint, ...options.environment },
    functionEnvironment: {
      LOG_LEVEL: 'SILENT',
      DAILY_TOKEN_BUDGET: '0',
      METRICS: 'false',
      ...options.functionEnvironment,
    },
  });
  const { bedrock, functionEnvironment } = services;
  if (!bedrock) throw new Error('expected the local Bedrock endpoint');
  // The SDK clients in process read their credentials from this process's environment, as the
  // function's read them from its own; the local endpoints accept any signature.
  for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'] as const) {
    const value = functionEnvironment[name];
    if (value) vi.stubEnv(name, value);
  }
  const api = createInProcessApi({ ...functionEnvironment }, options.overrides);
  const call: InProcessStack['call'] = (method, path, body, callOptions) =>
    api.call(method, path, body, callOptions);
  return {
    bedrock,
    s3: services.s3,
    dynamoDbEndpoint: services.dynamoDbEndpoint,
    functionEnvironment,
    call,
    postChat: (body, callOptions) => call('POST', '/api/chat', body, callOptions),
    async fetchConversation(conversationId, user) {
      const path = `/api/conversations/${conversationId}`;
      const response = await call('GET', path, undefined, { user });
      if (response.status !== 200) {
        throw new Error(`GET ${path}: ${response.status} ${response.text}`);
      }
      return conversationDetailSchema.parse(response.json);
    },
    stop: () => services.stop(),
  };
}
