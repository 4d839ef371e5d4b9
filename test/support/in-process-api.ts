import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { createApi, type HandlerOverrides } from '../../functions/api/create-handler.js';
import { readFunctionConfig } from '../../functions/api/function-config.js';
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
      return readApiResponse(
        new Response(response.body, { status: response.statusCode, headers: response.headers }),
        options,
      );
    },
  };
}

/** A Function URL (payload v2) event as the front sends one. */
function functionUrlEvent(
  method: string,
  path: string,
  body: unknown,
  options: ChatCallOptions,
): APIGatewayProxyEventV2 {
  const rawBody =
    body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: {
      ...(rawBody === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.user ? { 'x-dev-user': options.user } : {}),
      ...options.headers,
    },
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'in-process',
      routeKey: '$default',
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    ...(rawBody === undefined ? {} : { body: rawBody }),
    isBase64Encoded: false,
  };
}

function lambdaContext(awsRequestId: string): Context {
  return {
    awsRequestId,
    getRemainingTimeInMillis: () => 60_000,
  } as Context;
}
