import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { createApi, type HandlerOverrides } from '../../functions/api/create-handler.js';
import { readFunctionConfig } from '../../functions/api/function-config.js';
import { toFunctionUrlEvent } from '../../local/function-url/function-url-event.js';
import { type ChatCallOptions, type ChatResponse, readApiResponse } from './chat-client.js';

/**
 * The API function's own routing, adapters and error handling called in process — no runtime
 * client, no Function URL front, no child processes — for rules that only the API shows. The
 * settings are the function's environment variables (`readFunctionConfig`), so a test exercises
 * the same wiring a deployment does; `overrides` replace adapters as in the test handlers.
 * @example
 * const api = createInProcessApi({ MODEL_ID: 'offline.x', BEDROCK_RUNTIME_ENDPOINT: url });
 * const response = await api.call('POST', '/api/chat', { message: 'VPN' }, { user: 'alice' });
 */
export function createInProcessApi(
  environment: Record<string, string>,
  overrides: HandlerOverrides = {},
) {
  const api = createApi(
    readFunctionConfig({
      AUTH_MODE: 'local',
      CONVERSATIONS_TABLE: 'Conversations',
      TURNS_TABLE: 'Turns',
      KNOWLEDGE_BASE_ID: 'LOCALKB001',
      METRICS: 'false',
      LOG_LEVEL: 'WARN',
      ...environment,
    }),
    overrides,
  );
  let requests = 0;
  return {
    async call(
      method: string,
      path: string,
      body?: unknown,
      options: ChatCallOptions = {},
    ): Promise<ChatResponse> {
      requests += 1;
      const response = await api(
        functionUrlEvent(method, path, body, options),
        lambdaContext(`in-process-${requests}`),
      );
      // A 204 or 304 has no body: the Response constructor refuses even an empty one.
      const responseBody = NULL_BODY_STATUSES.has(response.statusCode) ? null : response.body;
      return readApiResponse(
        new Response(responseBody, { status: response.statusCode, headers: response.headers }),
        options,
      );
    },
  };
}

/** Statuses whose responses carry no body (fetch spec, "null body status"). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The Function URL (payload v2) event for a request, built by the local Function URL front's own
 * `toFunctionUrlEvent` from the parts of an HTTP request it reads.
 */
function functionUrlEvent(
  method: string,
  path: string,
  body: unknown,
  options: ChatCallOptions,
): APIGatewayProxyEventV2 {
  const rawBody =
    body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const request = {
    method,
    url: path,
    httpVersion: '1.1',
    socket: { remoteAddress: '127.0.0.1' },
    headers: {
      ...(rawBody === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.user ? { 'x-dev-user': options.user } : {}),
      ...options.headers,
    },
  } as unknown as IncomingMessage;
  return toFunctionUrlEvent(request, Buffer.from(rawBody ?? ''));
}

function lambdaContext(awsRequestId: string): Context {
  return {
    awsRequestId,
    getRemainingTimeInMillis: () => 60_000,
  } as Context;
}
