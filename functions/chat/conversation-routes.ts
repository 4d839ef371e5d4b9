import type * as z from 'zod';
import {
  type ApiRequest,
  HttpError,
  type HttpResponse,
  jsonResponse,
  parseJsonBody,
  validateBody,
} from '../api/http.js';
import type { RouteContext } from '../api/route-context.js';
import type { AttachmentStore } from '../attachments/ports.js';
import {
  type AnswerFeedback,
  type ConversationDetail,
  type ConversationList,
  type ConversationSummary,
  conversationSummarySchema,
  feedbackRequestSchema,
  listConversationsQuerySchema,
  renameConversationSchema,
  stopRequestSchema,
  turnSchema,
} from '../contract/conversations.js';
import type { InsightsRecorder } from '../insights/record-insights.js';
import type { FeedbackReport } from '../observability/telemetry.js';
import { InvalidCursorError, TurnNotFoundError } from './errors.js';
import { currentVersions } from './inquiry-rules.js';
import type { ConversationStore, Turn } from './ports.js';

/** The ETag of a conversation is its version: every change bumps it. */
const etagOf = (version: number) => `"${version}"`;

export interface ConversationRouteOptions {
  readonly feedbackRecorded?: (report: FeedbackReport) => void;
  /** Service-desk insights of feedback and deletes (ADR 0022): bounded, never throwing. */
  readonly insights?: Pick<InsightsRecorder, 'feedbackRecorded' | 'conversationDeleted'>;
  /** Where the turns' attachments live (ADR 0030): a delete removes them too. */
  readonly attachments: Pick<AttachmentStore, 'remove'>;
}

/** The conversation routes: list, get (ETag/304), rename, delete, stop, feedback on an answer. */
export function createConversationRoutes(
  context: Pick<RouteContext, 'now' | 'log'>,
  store: ConversationStore,
  options: ConversationRouteOptions,
) {
  const { now, log } = context;
  return {
    async list(request: ApiRequest): Promise<HttpResponse> {
      const query = listConversationsQuerySchema.safeParse(request.query);
      if (!query.success) {
        if (query.error.issues.some((issue) => issue.path[0] === 'cursor'))
          throw new InvalidCursorError();
        if (query.error.issues.some((issue) => issue.path[0] === 'q'))
          throw new HttpError('bad_request', 'q must be at most 200 characters', { field: 'q' });
        throw new HttpError('bad_request', 'limit must be 1-100', { field: 'limit' });
      }
      const { q, ...paging } = query.data;
      const page = await store.listConversations(request.owner, {
        ...paging,
        ...(q?.trim() ? { query: q } : {}),
      });
      const body: ConversationList = {
        items: page.items.map(toSummaryBody),
        nextCursor: page.nextCursor,
      };
      return jsonResponse(200, body);
    },

    async get(request: ApiRequest, conversationId: string): Promise<HttpResponse> {
      const current = await store.getConversation(request.owner, conversationId);
      const etag = etagOf(current.version);
      if (request.headers['if-none-match'] === etag)
        return { statusCode: 304, headers: { etag }, body: '' };
      const { conversation, turns } = await store.loadConversation(request.owner, conversationId);
      const { answering } = conversation;
      const body: ConversationDetail = {
        conversationId,
        title: conversation.title,
        version: conversation.version,
        turns: turns.map((turn) => pickDeclared(turnSchema, turn)),
        // Past its deadline the request is gone (timed out, crashed): nothing is in flight.
        ...(answering && Date.parse(answering.until) > now().getTime()
          ? { answering: { seq: answering.seq, until: answering.until } }
          : {}),
        ...(conversation.knowledge?.length ? { knowledge: [...conversation.knowledge] } : {}),
      };
      return jsonResponse(200, body, { etag: etagOf(conversation.version) });
    },

    async rename(request: ApiRequest, conversationId: string): Promise<HttpResponse> {
      const { title } = validateBody(renameConversationSchema, parseJsonBody(request));
      const renamed = await store.renameConversation(request.owner, conversationId, title);
      return jsonResponse(200, toSummaryBody(renamed), { etag: etagOf(renamed.version) });
    },

    /**
     * Deletes the conversation, then its attachments' bytes (ADR 0030). The files are listed
     * before and removed only after the conversation is gone: a failed delete leaves both. A
     * failed removal after it is logged (no ids, no owner) and left to the bucket's lifecycle
     * rule, which expires every attachment anyway; the conversation stays deleted (204).
     */
    async remove(request: ApiRequest, conversationId: string): Promise<HttpResponse> {
      const { turns } = await store.loadConversation(request.owner, conversationId);
      const attachmentIds = [
        ...new Set(turns.flatMap((turn) => (turn.attachments ?? []).map(({ id }) => id))),
      ];
      await store.deleteConversation(request.owner, conversationId);
      // Its gap examples and solved inquiry go with it; the counts stay.
      await options.insights?.conversationDeleted(request.owner, conversationId);
      if (attachmentIds.length > 0) {
        try {
          await options.attachments.remove(request.owner, attachmentIds);
        } catch (error) {
          log.warn(
            'could not delete a deleted conversation’s attachments; the lifecycle rule will',
            {
              error: (error as Error).name,
              attachments: attachmentIds.length,
            },
          );
        }
      }
      return { statusCode: 204, headers: {}, body: '' };
    },

    /**
     * `POST /api/conversations/{id}/stop` with `{ userSeq }`: JSON like every POST (415 otherwise,
     * the CSRF rule of `parseJsonBody`), naming the answer to stop; 404 `turn_not_found` for a
     * turn this conversation does not have yet.
     */
    async stop(request: ApiRequest, conversationId: string): Promise<HttpResponse> {
      const { userSeq } = validateBody(stopRequestSchema, parseJsonBody(request));
      await store.requestStop(request.owner, conversationId, userSeq);
      return jsonResponse(202, { stopping: true });
    },

    /**
     * `POST /api/conversations/{id}/turns/{seq}/feedback`: validated against the answer as
     * stored (turns are append-only, so what it cites cannot change before the write lands).
     */
    async feedback(
      request: ApiRequest,
      conversationId: string,
      seq: number,
    ): Promise<HttpResponse> {
      const body = validateBody(feedbackRequestSchema, parseJsonBody(request));
      const { turns } = await store.loadConversation(request.owner, conversationId);
      const answer = turns.find((turn) => turn.seq === seq);
      if (!answer) throw new TurnNotFoundError(seq);
      if (answer.kind !== 'answer') {
        throw new HttpError(
          'not_an_answer',
          `Turn ${seq} is a ${answer.role} ${answer.kind}; feedback is given on answers`,
        );
      }
      assertTicketsCited(answer, body.helpfulTicketIds ?? []);
      const feedback: AnswerFeedback = { ...body, updatedAt: now().toISOString() };
      const updated = await store.recordFeedback(request.owner, conversationId, seq, feedback);
      options.feedbackRecorded?.({
        owner: request.owner,
        conversationId,
        inquiryId: answer.inquiryId,
        feedback,
        previousRating: answer.feedback?.rating,
      });
      await options.insights?.feedbackRecorded({
        owner: request.owner,
        conversationId,
        answer,
        next: feedback,
        inquiryText: questionTextOf(turns, answer),
      });
      return jsonResponse(
        200,
        { seq, feedback, version: updated.version },
        { etag: etagOf(updated.version) },
      );
    },
  };
}

/** The inquiry's user text as the answer was written for it (the versions current before it). */
function questionTextOf(turns: readonly Turn[], answer: Turn): string {
  return currentVersions(turns.filter((turn) => turn.seq < answer.seq))
    .filter((turn) => turn.inquiryId === answer.inquiryId && turn.role === 'user')
    .map((turn) => turn.text)
    .join('\n');
}

/** "This solved it" can only name a ticket card of that answer. */
function assertTicketsCited(answer: Turn, helpfulTicketIds: readonly string[]): void {
  const cited = new Set(answer.result?.results?.map((ticket) => ticket.issue_id));
  const uncited = helpfulTicketIds.filter((issueId) => !cited.has(issueId));
  if (uncited.length > 0) {
    throw new HttpError(
      'ticket_not_cited',
      `helpfulTicketIds must be tickets this answer cites; not cited: ${uncited.join(', ')}`,
    );
  }
}

function toSummaryBody(conversation: ConversationSummary): ConversationSummary {
  return pickDeclared(conversationSummarySchema, conversation);
}

/**
 * The fields the contract declares, nothing else: the store's own fields (the open inquiry, keys)
 * never leak into a response, and a field added to the contract is sent without another list here.
 */
function pickDeclared<S extends z.ZodObject>(schema: S, value: object): z.infer<S> {
  const source = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(schema.shape)
      .filter((key) => source[key] !== undefined)
      .map((key) => [key, source[key]]),
  ) as z.infer<S>;
}
