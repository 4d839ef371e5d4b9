import { ulid } from 'ulid';
import {
  type ApiRequest,
  HttpError,
  type HttpResponse,
  jsonResponse,
  parseJsonBody,
  validateBody,
} from '../api/http.js';
import type { RouteContext } from '../api/route-context.js';
import { findUnverifiedLinks, isAllowedLink, parseLinkTarget } from '../contract/links.js';
import {
  KNOWN_ISSUE_LIMITS,
  type KnownIssue,
  knownIssueListSchema,
  knownIssueRequestSchema,
} from '../contract/surges.js';
import { assertServiceDeskLead } from '../insights/insights-routes.js';
import { noticeOf } from './known-issue-match.js';
import type { KnownIssueStore, StoredKnownIssue } from './ports.js';

/**
 * Known issues (issue #53, ADR 0033): `POST /api/known-issues` and
 * `POST /api/known-issues/{id}/close` for service-desk leads, `GET /api/known-issues` for every
 * signed-in staff member (the same notes reach their answers). A known issue's text is a lead's,
 * shown to every staff member and put in prompts: every link in it must be within the
 * deployment's allowed domains, like an answer's, or the request is refused with nothing written.
 */

export interface KnownIssueRouteDependencies {
  /** Undefined without the insights table: the routes answer 501-like `internal`. */
  readonly knownIssues?: KnownIssueStore;
  readonly config: { readonly allowedLinkDomains: readonly string[] };
}

/**
 * The author a known issue shows: the caller's display name (the token's `name` claim, else the
 * user id, as the owner resolver decides).
 */
export function authorNameOf(request: Pick<ApiRequest, 'displayName'>): string {
  return request.displayName;
}

export function createKnownIssueRoutes(
  context: Pick<RouteContext, 'now'>,
  dependencies: KnownIssueRouteDependencies,
) {
  const allowed = dependencies.config.allowedLinkDomains;
  const storeOf = () => {
    if (!dependencies.knownIssues) {
      throw new Error('INSIGHTS_TABLE is not set: no known-issue store');
    }
    return dependencies.knownIssues;
  };

  return {
    async publish(request: ApiRequest): Promise<HttpResponse> {
      assertServiceDeskLead(request);
      const body = validateBody(knownIssueRequestSchema, parseJsonBody(request));
      for (const field of ['title', 'note', 'workaround'] as const) {
        const text = body[field];
        if (text === undefined) continue;
        const outside = findUnverifiedLinks(text, allowed);
        if (outside.length > 0) {
          throw new HttpError(
            'bad_request',
            `${field}: links must be https within the allowed domains (${outside[0]})`,
            { field },
          );
        }
      }
      if (body.link !== undefined && !isAllowedLink(parseLinkTarget(body.link), allowed)) {
        throw new HttpError(
          'bad_request',
          'link: must be an https link within the allowed domains',
          {
            field: 'link',
          },
        );
      }
      const now = context.now();
      const endsAt =
        body.endsAt === undefined
          ? now.getTime() + KNOWN_ISSUE_LIMITS.maxOpenMs
          : Date.parse(body.endsAt);
      if (endsAt <= now.getTime()) {
        throw new HttpError('bad_request', 'endsAt: must be in the future', { field: 'endsAt' });
      }
      if (endsAt > now.getTime() + KNOWN_ISSUE_LIMITS.maxOpenMs) {
        throw new HttpError('bad_request', 'endsAt: at most 7 days from now', { field: 'endsAt' });
      }
      const issue: StoredKnownIssue = {
        id: ulid(now.getTime()),
        title: body.title,
        note: body.note,
        ...(body.workaround !== undefined ? { workaround: body.workaround } : {}),
        ...(body.link !== undefined ? { link: body.link } : {}),
        matches: body.matches,
        author: authorNameOf(request),
        publishedAt: now.toISOString(),
        endsAt: new Date(endsAt).toISOString(),
      };
      await storeOf().publish({ tenantId: request.owner.tenantId }, issue);
      return jsonResponse(201, { id: issue.id });
    },

    async list(request: ApiRequest): Promise<HttpResponse> {
      const open = await storeOf().listOpen({ tenantId: request.owner.tenantId }, context.now());
      const knownIssues: KnownIssue[] = open.map((issue) => ({
        ...noticeOf(issue),
        matches: [...issue.matches],
        endsAt: issue.endsAt,
      }));
      return jsonResponse(200, knownIssueListSchema.parse({ knownIssues }), {
        'cache-control': 'private, no-store',
      });
    },

    async close(request: ApiRequest, id: string): Promise<HttpResponse> {
      assertServiceDeskLead(request);
      const closedAt = context.now();
      const outcome = await storeOf().close({ tenantId: request.owner.tenantId }, id, closedAt);
      if (outcome === 'not_found') throw new HttpError('not_found', 'No such known issue');
      if (outcome === 'already_closed') {
        throw new HttpError('conflict', 'This known issue is already closed or has ended');
      }
      return jsonResponse(200, { id, closedAt: closedAt.toISOString() });
    },
  };
}
