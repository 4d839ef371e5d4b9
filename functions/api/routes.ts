import type { createAttachmentRoutes } from '../attachments/attachment-routes.js';
import type { createChatRoute } from '../chat/chat-route.js';
import type { createConversationRoutes } from '../chat/conversation-routes.js';
import { MAX_UPLOAD_BODY_BYTES } from '../contract/attachments.js';
import { ULID_SOURCE } from '../contract/ids.js';
import type { createHandoffRoute } from '../handoff/handoff-routes.js';
import { GAP_EXAMPLE_ID_SOURCE } from '../insights/aggregates.js';
import type { createInsightsRoutes } from '../insights/insights-routes.js';
import type { createKnowledgeRoutes } from '../knowledge/knowledge-routes.js';
import type { createMailDraftRoutes } from '../mail-draft/mail-draft-routes.js';
import type { createKnownIssueRoutes } from '../surges/known-issue-routes.js';
import { type ApiRequest, HttpError, type HttpResponse } from './http.js';

/**
 * The API's routes as one table: each entry's method and path template drive dispatch, and the
 * template is the route's name in request logs and trace subsegments, so a route added here is
 * routed, logged and traced by the same line.
 */

/** What a path parameter may be; a path whose parameter does not fit names no route (404). */
const PARAMETER_PATTERNS = {
  /** A conversation id (a ULID, functions/contract/ids.ts). */
  id: ULID_SOURCE,
  inquiryId: ULID_SOURCE,
  /** An attachment's id (a ULID, functions/contract/attachments.ts). */
  attachmentId: ULID_SOURCE,
  /** A turn number: 1 and up, at most nine digits (a safe integer, and no leading zero). */
  seq: '[1-9]\\d{0,8}',
  /** A knowledge gap's example on the insights page: `<conversation ULID>-<answer seq>`. */
  exampleId: GAP_EXAMPLE_ID_SOURCE,
} as const;

type ParameterName = keyof typeof PARAMETER_PATTERNS;

/** The parameter names a path template declares: `'/a/{id}/b/{seq}'` → `'id' | 'seq'`. */
type ParametersOf<Template extends string> =
  Template extends `${string}{${infer Name}}${infer Rest}` ? Name | ParametersOf<Rest> : never;

/** One row of the table. */
export interface Route {
  readonly method: string;
  /** The path, anchored, with each `{parameter}` as a named capture group. */
  readonly pattern: RegExp;
  /** The path template, e.g. `/api/conversations/{id}/stop`: what logs and traces group by. */
  readonly name: string;
  readonly handle: (
    request: ApiRequest,
    parameters: Readonly<Record<string, string>>,
  ) => Promise<HttpResponse>;
  /** Bytes the body may have. @default MAX_BODY_BYTES (`http.ts`) */
  readonly maxBodyBytes?: number;
}

/** The route groups the table dispatches to (created once per container in `createApi`). */
export interface RouteGroups {
  readonly chat: ReturnType<typeof createChatRoute>;
  readonly knowledge: ReturnType<typeof createKnowledgeRoutes>;
  readonly conversations: ReturnType<typeof createConversationRoutes>;
  /** The hand-off summary of one inquiry (ADR 0024). */
  readonly handoff: ReturnType<typeof createHandoffRoute>;
  /** The e-mail draft's versions, refinements and actions (ADR 0023). */
  readonly mailDrafts: ReturnType<typeof createMailDraftRoutes>;
  /** The insights of the service desk's leads (ADR 0022). */
  readonly insights: ReturnType<typeof createInsightsRoutes>;
  /** Screenshots and log files sent with an inquiry (ADR 0030). */
  readonly attachments: ReturnType<typeof createAttachmentRoutes>;
  /** Known issues leads publish and close (ADR 0033). */
  readonly knownIssues: ReturnType<typeof createKnownIssueRoutes>;
}

/**
 * A table row from a method, a path template and a handler that receives the template's
 * parameters by name; a parameter without a pattern in `PARAMETER_PATTERNS` fails the typecheck.
 */
function route<Template extends string>(
  method: string,
  name: Template & (ParametersOf<Template> extends ParameterName ? unknown : never),
  handle: (
    request: ApiRequest,
    parameters: Readonly<Record<ParametersOf<Template>, string>>,
  ) => Promise<HttpResponse>,
  options: { readonly maxBodyBytes?: number } = {},
): Route {
  const source = name.replace(
    /\{(\w+)\}/g,
    (_placeholder, parameter: ParameterName) => `(?<${parameter}>${PARAMETER_PATTERNS[parameter]})`,
  );
  return {
    method,
    pattern: new RegExp(`^${source}$`),
    name,
    handle: (request, parameters) =>
      handle(request, parameters as Readonly<Record<ParametersOf<Template>, string>>),
    ...options,
  };
}

/**
 * The table: every route of `/api`.
 * @example
 * const table = createRouteTable({ chat, knowledge, conversations, handoff, mailDrafts, insights });
 * const matched = matchRoute(table, 'GET', '/api/conversations');
 */
export function createRouteTable(groups: RouteGroups): readonly Route[] {
  const {
    chat,
    knowledge,
    conversations,
    handoff,
    mailDrafts,
    insights,
    attachments,
    knownIssues,
  } = groups;
  return [
    route('POST', '/api/chat', (request) => chat(request)),
    route('POST', '/api/attachments', (request) => attachments.upload(request), {
      maxBodyBytes: MAX_UPLOAD_BODY_BYTES,
    }),
    route('GET', '/api/attachments/{attachmentId}', (request, p) =>
      attachments.read(request, p.attachmentId),
    ),
    route('GET', '/api/conversations', (request) => conversations.list(request)),
    route('GET', '/api/me', (request) => knowledge.me(request)),
    route('GET', '/api/insights', (request) => insights.read(request)),
    route('POST', '/api/insights/gap-examples/{exampleId}/knowledge-draft', (request, p) =>
      knowledge.draftFromGapExample(request, p.exampleId),
    ),
    route('POST', '/api/insights/gap-examples/{exampleId}/knowledge', (request, p) =>
      knowledge.publishFromGapExample(request, p.exampleId),
    ),
    route('POST', '/api/knowledge', (request) => knowledge.publish(request)),
    route('GET', '/api/known-issues', (request) => knownIssues.list(request)),
    route('POST', '/api/known-issues', (request) => knownIssues.publish(request)),
    route('POST', '/api/known-issues/{id}/close', (request, p) => knownIssues.close(request, p.id)),
    route('POST', '/api/conversations/{id}/inquiries/{inquiryId}/knowledge-draft', (request, p) =>
      knowledge.draft(request, p.id, p.inquiryId),
    ),
    route('POST', '/api/conversations/{id}/inquiries/{inquiryId}/handoff', (request, p) =>
      handoff(request, p.id, p.inquiryId),
    ),
    route('POST', '/api/conversations/{id}/turns/{seq}/feedback', (request, p) =>
      conversations.feedback(request, p.id, Number(p.seq)),
    ),
    route('PUT', '/api/conversations/{id}/turns/{seq}/mail-draft', (request, p) =>
      mailDrafts.edit(request, p.id, Number(p.seq)),
    ),
    route('POST', '/api/conversations/{id}/turns/{seq}/mail-draft/refine', (request, p) =>
      mailDrafts.refine(request, p.id, Number(p.seq)),
    ),
    route('POST', '/api/conversations/{id}/turns/{seq}/mail-draft/actions', (request, p) =>
      mailDrafts.action(request, p.id, Number(p.seq)),
    ),
    route('POST', '/api/conversations/{id}/stop', (request, p) =>
      conversations.stop(request, p.id),
    ),
    route('GET', '/api/conversations/{id}', (request, p) => conversations.get(request, p.id)),
    route('PATCH', '/api/conversations/{id}', (request, p) => conversations.rename(request, p.id)),
    route('DELETE', '/api/conversations/{id}', (request, p) => conversations.remove(request, p.id)),
  ];
}

/**
 * The outcome of looking a request up in the table: a route to call with its parameters; a
 * known path with another method (405); or no route at all (404). `name` is what logs show:
 * the template, or `unmatched` for a path no route has (so a scan of random paths does not
 * become one log group per path).
 */
export type RouteMatch =
  | {
      readonly kind: 'route';
      readonly name: string;
      readonly route: Route;
      readonly parameters: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: 'method_not_allowed';
      readonly name: string;
      readonly parameters: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: 'not_found';
      readonly name: 'unmatched';
      readonly parameters: Readonly<Record<string, string>>;
    };

/** Looks up a method and path (already upper-cased, as `createApi` does). */
export function matchRoute(table: readonly Route[], method: string, path: string): RouteMatch {
  let pathMatch: { name: string; parameters: Record<string, string> } | undefined;
  for (const candidate of table) {
    const matched = candidate.pattern.exec(path);
    if (!matched) continue;
    const parameters = { ...matched.groups };
    if (candidate.method === method) {
      return { kind: 'route', name: candidate.name, route: candidate, parameters };
    }
    pathMatch ??= { name: candidate.name, parameters };
  }
  if (pathMatch) return { kind: 'method_not_allowed', ...pathMatch };
  return { kind: 'not_found', name: 'unmatched', parameters: {} };
}

/**
 * Calls the route a match names. A known path with another method is 405; anything else —
 * including anything under `/api/conversations` whose id is not a ULID, which cannot exist —
 * is 404, the same answer as a conversation that is missing or someone else's.
 */
export function dispatch(match: RouteMatch, request: ApiRequest): Promise<HttpResponse> {
  if (match.kind === 'route') return match.route.handle(request, match.parameters);
  if (match.kind === 'method_not_allowed') {
    return Promise.reject(
      new HttpError('method_not_allowed', `${request.method} is not allowed here`),
    );
  }
  return Promise.reject(new HttpError('not_found', 'Not found'));
}
