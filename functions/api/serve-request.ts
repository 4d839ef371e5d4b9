import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import type { Owner } from '../chat/ports.js';
import type { Observability } from '../observability/telemetry.js';
import {
  type ApiRequest,
  bodyBytesOf,
  type HttpResponse,
  jsonResponse,
  toErrorResponseBody,
} from './http.js';
import type { ResolveOwner } from './resolve-owner.js';
import { dispatch, matchRoute, type Route, type RouteMatch } from './routes.js';

/**
 * One request from the Function URL event to its response: the route matched, the caller
 * resolved, the route run, one request log line (and metric) however it ended. An error before
 * the first byte becomes its status and a JSON body (only a status below 500 shows its message);
 * with tracing on, each request is a subsegment that lasts until its body's last byte.
 */
export function createRequestServer(dependencies: {
  readonly table: readonly Route[];
  readonly resolveOwner: ResolveOwner;
  readonly observability: Pick<Observability, 'tracing' | 'requestFinished' | 'requestFailed'>;
}): (event: APIGatewayProxyEventV2, context: Context) => Promise<HttpResponse> {
  const { table, resolveOwner, observability } = dependencies;
  const respond = async (
    event: APIGatewayProxyEventV2,
    context: Context,
    method: string,
    match: RouteMatch,
  ): Promise<HttpResponse> => {
    const startedAt = performance.now();
    const outcome = (status: number, extra: { owner?: Owner; errorCode?: string } = {}) => ({
      requestId: context.awsRequestId,
      method,
      route: match.name,
      status,
      durationMs: performance.now() - startedAt,
      conversationId: match.parameters.id,
      ...extra,
    });
    let owner: Owner | undefined;
    try {
      const caller = await resolveOwner(event.headers ?? {});
      owner = caller.owner;
      const bodyBytes = bodyBytesOf(
        event,
        match.kind === 'route' ? match.route.maxBodyBytes : undefined,
      );
      const request: ApiRequest = {
        canPublishKnowledge: caller.canPublishKnowledge,
        canViewInsights: caller.canViewInsights,
        method,
        path: event.rawPath,
        headers: event.headers ?? {},
        query: event.queryStringParameters ?? {},
        rawBody: bodyBytes.toString('utf8'),
        bodyBytes,
        owner,
        remainingTimeMs: () => context.getRemainingTimeInMillis(),
      };
      const response = await dispatch(match, request);
      observability.requestFinished(outcome(response.statusCode, { owner }));
      return response;
    } catch (error) {
      const { statusCode, body, headers } = toErrorResponseBody(error);
      const failed = outcome(statusCode, { owner, errorCode: body.error.code });
      if (statusCode >= 500) observability.requestFailed(failed, error);
      else observability.requestFinished(failed);
      return jsonResponse(statusCode, body, headers);
    }
  };
  return (event, context) => {
    const method = event.requestContext.http.method.toUpperCase();
    const match = matchRoute(table, method, event.rawPath);
    return observability.tracing.traceRequest(
      `## ${method} ${match.name.replace('{id}', ':id')}`,
      () => respond(event, context, method, match),
    );
  };
}
