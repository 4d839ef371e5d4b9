import type { ApiRequest } from './api-request.js';
import type { createChatRoute } from './chat-route.js';
import type { createConversationRoutes } from './conversation-routes.js';
import { HttpError } from './http-error.js';
import type { HttpResponse } from './json-response.js';

export interface Routes {
  readonly chat: ReturnType<typeof createChatRoute>;
  readonly conversations: ReturnType<typeof createConversationRoutes>;
}

const ID = '([0-9A-HJKMNP-TV-Z]{26})';
const CONVERSATION = new RegExp(`^/api/conversations/${ID}$`);
const STOP = new RegExp(`^/api/conversations/${ID}/stop$`);

/** Dispatches `/api/*` by method and path. Unknown paths are 404, known paths with other methods 405. */
export function routeRequest(routes: Routes, request: ApiRequest): Promise<HttpResponse> {
  const { method, path } = request;
  const notAllowed = () =>
    Promise.reject(new HttpError(405, 'method_not_allowed', `${method} is not allowed here`));
  if (path === '/api/chat') return method === 'POST' ? routes.chat(request) : notAllowed();
  if (path === '/api/conversations')
    return method === 'GET' ? routes.conversations.list(request) : notAllowed();
  const stop = STOP.exec(path)?.[1];
  if (stop) return method === 'POST' ? routes.conversations.stop(request, stop) : notAllowed();
  const conversationId = CONVERSATION.exec(path)?.[1];
  if (conversationId) {
    if (method === 'GET') return routes.conversations.get(request, conversationId);
    if (method === 'PATCH') return routes.conversations.rename(request, conversationId);
    if (method === 'DELETE') return routes.conversations.remove(request, conversationId);
    return notAllowed();
  }
  // Anything under /api/conversations that is not a valid id cannot exist: same as missing.
  return Promise.reject(new HttpError(404, 'not_found', 'Not found'));
}
