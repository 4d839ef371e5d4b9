import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

const TEXT_TYPES = /^(text\/|application\/(json|x-www-form-urlencoded|xml|javascript))/;

/**
 * Builds the Function URL payload v2 event from an HTTP request, as the Function URL service
 * does: lower-case headers (repeated ones joined by commas), cookies split out, the body as text
 * when its content type is textual and its bytes are UTF-8, base64 otherwise (an attachment: an
 * image, or a Shift_JIS log declared `text/plain`, reaches the function byte for byte).
 */
export function toFunctionUrlEvent(request: IncomingMessage, body: Buffer): APIGatewayProxyEventV2 {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === 'cookie') continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const cookies = request.headers.cookie?.split(';').map((cookie) => cookie.trim());
  const contentType = headers['content-type'] ?? '';
  const isText = body.length === 0 || (TEXT_TYPES.test(contentType) && isUtf8(body));
  const now = new Date();
  const requestId = crypto.randomUUID();
  const method = request.method ?? 'GET';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies,
    headers,
    queryStringParameters: url.search ? Object.fromEntries(url.searchParams) : undefined,
    requestContext: {
      accountId: 'anonymous',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: '$default',
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    body: body.length === 0 ? undefined : body.toString(isText ? 'utf8' : 'base64'),
    isBase64Encoded: !isText,
  };
}
