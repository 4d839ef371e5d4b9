import {
  type ApiRequest,
  HttpError,
  type HttpResponse,
  jsonResponse,
  parseJsonBody,
  validateBody,
} from '../api/http.js';
import type { RouteContext } from '../api/route-context.js';
import { RequestRefusedError, TurnNotFoundError } from '../chat/errors.js';
import { currentVersions } from '../chat/inquiry-rules.js';
import type {
  ChatConfig,
  ChatModel,
  ConversationStore,
  MailDraftChange,
  Owner,
  Turn,
} from '../chat/ports.js';
import type { MailDraftRefineStreamEvent } from '../contract/chat-events.js';
import { DEFAULT_VENDOR_LINK_DOMAINS } from '../contract/links.js';
import {
  MAX_MAIL_DRAFT_VERSIONS,
  type MailDraftUsage,
  type MailDraftVersion,
  mailDraftActionRequestSchema,
  mailDraftEditRequestSchema,
  mailDraftRefineRequestSchema,
  mailDraftUsageOf,
  type StoredMailDraft,
} from '../contract/mail-draft.js';
import type { InsightsRecorder, MailDraftEvent } from '../insights/record-insights.js';
import { requestBound } from '../model-call/daily-budget.js';
import type { ModelCallFailure } from '../model-call/forced-tool.js';
import { modelStreamResponse } from '../model-call/model-stream-response.js';
import type { MailDraftReport } from '../observability/telemetry.js';
import { MailDraftFullError } from './errors.js';
import {
  buildRefineRequest,
  checkMailDraftText,
  streamMailDraftRefinement,
} from './refine-mail-draft.js';

/** Output tokens of a refinement: an e-mail of at most 4,000 characters fits well within. */
const REFINE_MAX_TOKENS = 4096;

export interface MailDraftRouteDependencies {
  readonly store: ConversationStore;
  readonly model: ChatModel;
  readonly config: Pick<ChatConfig, 'allowedLinkDomains'>;
  /** Told of every action on a draft (logs and metrics). */
  readonly recorded?: (report: MailDraftReport) => void;
  /**
   * The insights page's acceptance counts (ADR 0023): told of every stored action, awaited
   * before the response (bounded to 1 s, never throwing — ADR 0022); nothing when absent.
   */
  readonly insights?: Pick<InsightsRecorder, 'mailDraftRecorded'>;
}

/** The answer turn whose draft a request changes, with its versions as the ‹ › counter numbers them. */
interface DraftedAnswer {
  readonly turn: Turn;
  readonly turns: readonly Turn[];
  readonly conversationVersion: number;
  /** Texts by number − 1: the original first. */
  readonly texts: readonly string[];
}

/**
 * The e-mail draft's routes (ADR 0023) under `/api/conversations/{id}/turns/{seq}/mail-draft`:
 * `PUT` stores staff's edit as a new version; `POST …/refine` streams a refinement over SSE and
 * stores it as a new version; `POST …/actions` counts a copy or an open in the mail client.
 * Every version passes the answer draft's link and reference checks; a refinement reads only the
 * draft, its inquiry's messages and that answer's cited tickets, and is charged to the daily
 * budget like an answer.
 */
export function createMailDraftRoutes(
  context: RouteContext,
  dependencies: MailDraftRouteDependencies,
) {
  const { store } = dependencies;
  const allowedLinkDomains = dependencies.config.allowedLinkDomains ?? DEFAULT_VENDOR_LINK_DOMAINS;

  const check = (answer: DraftedAnswer, text: string) =>
    checkMailDraftText(
      text,
      allowedLinkDomains,
      new Set(answer.turn.result?.results?.map((ticket) => ticket.issue_id)),
    );

  /** Stores a version; the answer's counts and the new conversation version come back. */
  const storeVersion = async (
    request: ApiRequest,
    conversationId: string,
    answer: DraftedAnswer,
    version: MailDraftVersion,
  ): Promise<StoredMailDraft> => {
    const updated = await store.recordMailDraft(request.owner, conversationId, answer.turn.seq, {
      kind: 'version',
      version,
      maxVersions: MAX_MAIL_DRAFT_VERSIONS,
      versionsSeen: answer.turn.mailDraftVersions?.length ?? 0,
    });
    return {
      seq: answer.turn.seq,
      // Assigned in the store's commit: concurrent versions of one answer never share a number.
      number: updated.versionNumber,
      version,
      usage: mailDraftUsageOf({
        ...answer.turn,
        mailDraftVersions: [...(answer.turn.mailDraftVersions ?? []), version],
      }),
      conversationVersion: updated.version,
    };
  };

  /** Counts a stored action for the insights page; only after the store took it. */
  const counted = (
    request: ApiRequest,
    conversationId: string,
    answer: DraftedAnswer,
    action: MailDraftEvent['action'],
  ): Promise<void> =>
    dependencies.insights?.mailDraftRecorded({
      owner: request.owner,
      conversationId,
      answer: answer.turn,
      action,
    }) ?? Promise.resolve();

  const report = (
    request: ApiRequest,
    conversationId: string,
    answer: DraftedAnswer,
    fields: Pick<MailDraftReport, 'action' | 'after'> & Partial<MailDraftReport>,
  ) =>
    dependencies.recorded?.({
      owner: request.owner,
      conversationId,
      inquiryId: answer.turn.inquiryId,
      seq: answer.turn.seq,
      before: mailDraftUsageOf(answer.turn),
      ...fields,
    });

  return {
    /** `PUT …/mail-draft` with `{ text }`: staff's edit, checked and stored as a new version. */
    async edit(request: ApiRequest, conversationId: string, seq: number): Promise<HttpResponse> {
      const body = validateBody(mailDraftEditRequestSchema, parseJsonBody(request));
      const answer = await loadDraftedAnswer(store, request.owner, conversationId, seq);
      assertRoomForVersion(answer);
      const version: MailDraftVersion = {
        ...check(answer, body.text),
        origin: 'edit',
        createdAt: context.now().toISOString(),
      };
      const stored = await storeVersion(request, conversationId, answer, version);
      report(request, conversationId, answer, { action: 'edit', after: stored.usage });
      await counted(request, conversationId, answer, 'edit');
      return jsonResponse(200, stored);
    },

    /**
     * `POST …/mail-draft/refine` with `{ style, basedOn? }`: refused before the first byte when
     * the draft is full or the budget spent; then `meta`, `mail_draft_token`s and the stored
     * `mail_draft_version`, or an `error` event (nothing stored).
     */
    async refine(request: ApiRequest, conversationId: string, seq: number): Promise<HttpResponse> {
      const body = validateBody(mailDraftRefineRequestSchema, parseJsonBody(request));
      const answer = await loadDraftedAnswer(store, request.owner, conversationId, seq);
      assertRoomForVersion(answer);
      const basedOn = body.basedOn ?? answer.texts.length;
      const draft = answer.texts[basedOn - 1];
      if (draft === undefined)
        throw new HttpError(
          'bad_request',
          `basedOn must be a version of this draft: 1-${answer.texts.length}`,
          { field: 'basedOn' },
        );
      const refineRequest = buildRefineRequest(
        {
          style: body.style,
          draft,
          inquiry: inquiryMessages(answer.turns, answer.turn.inquiryId),
          cited: answer.turn.result?.results ?? [],
        },
        REFINE_MAX_TOKENS,
      );
      // Reserved before the first byte: 429 over the budget (ADR 0012).
      return modelStreamResponse<MailDraftRefineStreamEvent>(
        request,
        context,
        {
          bound: requestBound(refineRequest),
          meta: {
            conversationId,
            inquiryId: answer.turn.inquiryId,
            version: answer.conversationVersion,
          },
          failureMessage: 'The refinement failed. Please try again.',
          logMessage: 'mail draft refinement failed',
        },
        async ({ signal, send, call }) => {
          let after: MailDraftUsage = mailDraftUsageOf(answer.turn);
          let failure: ModelCallFailure | undefined;
          let usage: { inputTokens: number; outputTokens: number } | undefined;
          try {
            const outcome = await streamMailDraftRefinement({
              model: dependencies.model,
              request: refineRequest,
              signal,
              send,
            });
            usage = outcome.usage;
            call.ended({
              request: refineRequest,
              usage: outcome.usage,
              ...(outcome.failure ? { failure: outcome.failure } : {}),
              ...(outcome.partial ? { output: { mail_draft: outcome.partial } } : {}),
            });
            failure = outcome.failure;
            if (outcome.text !== undefined) {
              const version: MailDraftVersion = {
                ...check(answer, outcome.text),
                origin: body.style,
                createdAt: context.now().toISOString(),
              };
              try {
                const stored = await storeVersion(request, conversationId, answer, version);
                after = stored.usage;
                send({ event: 'mail_draft_version', data: stored });
                // After the version's event: the count holds the stream's close, not the draft.
                await counted(request, conversationId, answer, 'refine');
              } catch (error) {
                // Past the first byte a refusal is an event (another tab filled the draft, the
                // conversation went away); anything else is the stream's own failure.
                if (!(error instanceof RequestRefusedError)) throw error;
                failure = {
                  code: 'save_failed',
                  message: `The refined draft could not be saved: ${error.message}`,
                  retryable: false,
                };
              }
            }
            if (failure) send({ event: 'error', data: failure });
          } finally {
            report(request, conversationId, answer, {
              action: 'refine',
              style: body.style,
              after,
              ...(failure ? { failureCode: failure.code } : {}),
              ...(usage
                ? { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens }
                : {}),
            });
          }
        },
      );
    },

    /** `POST …/mail-draft/actions` with `{ action }`: a copy or an open in the mail client, counted. */
    async action(request: ApiRequest, conversationId: string, seq: number): Promise<HttpResponse> {
      const body = validateBody(mailDraftActionRequestSchema, parseJsonBody(request));
      const answer = await loadDraftedAnswer(store, request.owner, conversationId, seq);
      if (body.version !== undefined && body.version > answer.texts.length)
        throw new HttpError(
          'bad_request',
          `version must be a version of this draft: 1-${answer.texts.length}`,
          { field: 'version' },
        );
      const change: MailDraftChange = { kind: 'action', action: body.action };
      const updated = await store.recordMailDraft(request.owner, conversationId, seq, change);
      const before = mailDraftUsageOf(answer.turn);
      const usage: MailDraftUsage =
        body.action === 'copy'
          ? { ...before, copies: before.copies + 1 }
          : { ...before, mailOpens: before.mailOpens + 1 };
      report(request, conversationId, answer, { action: body.action, after: usage });
      await counted(request, conversationId, answer, body.action);
      const stored: StoredMailDraft = { seq, usage, conversationVersion: updated.version };
      return jsonResponse(200, stored);
    },
  };
}

/**
 * The answer turn `seq` with its draft: 404 when the conversation has no turn `seq`, 400
 * `not_an_answer` for another kind, 400 `no_mail_draft` for an answer without a draft.
 */
async function loadDraftedAnswer(
  store: ConversationStore,
  owner: Owner,
  conversationId: string,
  seq: number,
): Promise<DraftedAnswer> {
  const { conversation, turns } = await store.loadConversation(owner, conversationId);
  const turn = turns.find((candidate) => candidate.seq === seq);
  if (!turn) throw new TurnNotFoundError(seq);
  if (turn.kind !== 'answer')
    throw new HttpError(
      'not_an_answer',
      `Turn ${seq} is a ${turn.role} ${turn.kind}; only an answer has a mail draft`,
    );
  const original = turn.result?.mail_draft;
  if (!original?.trim())
    throw new HttpError('no_mail_draft', `The answer in turn ${seq} has no mail draft`);
  return {
    turn,
    turns,
    conversationVersion: conversation.version,
    texts: [original, ...(turn.mailDraftVersions ?? []).map((version) => version.text)],
  };
}

/** Refused before anything is generated: a full draft would throw the refinement away. */
function assertRoomForVersion(answer: DraftedAnswer): void {
  if ((answer.turn.mailDraftVersions?.length ?? 0) >= MAX_MAIL_DRAFT_VERSIONS)
    throw new MailDraftFullError(MAX_MAIL_DRAFT_VERSIONS);
}

/**
 * The staff messages of one inquiry, current versions only (ADR 0010): what a refinement may
 * know of the inquiry. Never another inquiry's, never an answer's text.
 */
function inquiryMessages(turns: readonly Turn[], inquiryId: string): string[] {
  return currentVersions(turns)
    .filter((turn) => turn.role === 'user' && turn.inquiryId === inquiryId)
    .map((turn) => turn.text);
}
