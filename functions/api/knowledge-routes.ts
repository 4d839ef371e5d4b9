import { requestBound, reserveWithinBudget, tokensToCharge } from '../chat/daily-budget.js';
import type {
  ChatConfig,
  ChatModel,
  ConversationStore,
  DailyBudget,
  Retriever,
} from '../chat/ports.js';
import {
  type Caller,
  findUnverifiedTicketLinks,
  publishKnowledgeRequestSchema,
  publishKnowledgeResponseSchema,
} from '../contract/knowledge.js';
import { DEFAULT_VENDOR_LINK_DOMAINS } from '../contract/links.js';
import type { SyncBacklog } from '../knowledge/owed-sync.js';
import type { ScrubSettings } from '../knowledge/personal-data-scrub.js';
import {
  type IssueNumbers,
  type KnowledgeDocuments,
  loadSolvedInquiry,
  publishTicket,
} from '../knowledge/publish-ticket.js';
import {
  buildDraftRequest,
  categoriesOf,
  draftScrubOptions,
  inquiryTranscript,
  streamTicketDraft,
} from '../knowledge/ticket-draft.js';
import type { KnowledgeReport } from '../observability/telemetry.js';
import { createSseStream, SSE_RESPONSE_HEADERS } from '../sse/sse-stream.js';
import {
  type ApiRequest,
  HttpError,
  type HttpResponse,
  jsonResponse,
  parseJsonBody,
  validateBody,
} from './http.js';

/** Output tokens of a draft: a ticket is short; a draft that needs more has lost its way. */
const DRAFT_MAX_TOKENS = 2048;
/** Room a cited ticket's category takes in the draft prompt (`[Category] `, in UTF-8 bytes). */
const CATEGORY_ALLOWANCE_TOKENS = 64;

export interface KnowledgeRouteDependencies {
  readonly store: ConversationStore;
  readonly retriever: Retriever;
  readonly model: ChatModel;
  /** Undefined when the deployment has no document bucket: capture answers 501. */
  readonly documents?: KnowledgeDocuments;
  readonly issueNumbers: IssueNumbers;
  readonly syncBacklog: SyncBacklog;
  readonly config: Pick<
    ChatConfig,
    'dailyTokenBudget' | 'modelId' | 'remainingTimeReserveMs' | 'allowedLinkDomains'
  >;
  readonly budget?: DailyBudget;
  readonly heartbeatMs: number;
  readonly now: () => Date;
  /** The deployment's personal-data scrub settings (ADR 0019); default none beyond the built-ins. */
  readonly scrubSettings?: ScrubSettings;
  /** Told of every draft streamed and ticket published (logs and metrics). */
  readonly recorded?: (report: KnowledgeReport) => void;
}

/**
 * Knowledge capture's routes (ADR 0011): who the caller is (`GET /api/me`), the streamed ticket
 * draft of a solved inquiry and publishing the edited draft. Drafting and publishing are for
 * knowledge editors only, and both are refused with 501 where capture is not configured.
 */
export function createKnowledgeRoutes(dependencies: KnowledgeRouteDependencies) {
  const { store } = dependencies;
  const assertMayPublish = (request: ApiRequest) => {
    if (!dependencies.documents)
      throw new HttpError(
        501,
        'knowledge_capture_disabled',
        'Knowledge capture is not configured for this deployment (no Knowledge Base document bucket)',
      );
    if (!request.canPublishKnowledge)
      throw new HttpError(
        403,
        'not_a_knowledge_editor',
        'Only knowledge editors may draft and publish knowledge tickets',
      );
    return dependencies.documents;
  };

  return {
    async me(request: ApiRequest): Promise<HttpResponse> {
      const canPublishKnowledge =
        request.canPublishKnowledge && dependencies.documents !== undefined;
      const body: Caller = {
        userId: request.owner.userId,
        canPublishKnowledge,
        // For the knowledge form's warning; nobody else needs it.
        ...(canPublishKnowledge
          ? {
              allowedLinkDomains: [
                ...(dependencies.config.allowedLinkDomains ?? DEFAULT_VENDOR_LINK_DOMAINS),
              ],
            }
          : {}),
      };
      return jsonResponse(200, body);
    },

    async draft(
      request: ApiRequest,
      conversationId: string,
      inquiryId: string,
    ): Promise<HttpResponse> {
      assertMayPublish(request);
      parseJsonBody(request); // a body, if any, must be JSON; the route takes no fields
      const { conversation, turns } = await loadSolvedInquiry(
        store,
        request.owner,
        conversationId,
        inquiryId,
      );
      const transcript = inquiryTranscript(turns, inquiryId);
      // Reserved before the first byte (429 over the budget, ADR 0012). The cited tickets'
      // categories are looked up after it: until then each holds room for one.
      const reservation = await reserveWithinBudget(
        request.owner,
        dependencies.now(),
        requestBound(buildDraftRequest(transcript, DRAFT_MAX_TOKENS)) +
          transcript.cited.length * CATEGORY_ALLOWANCE_TOKENS,
        dependencies,
      );
      let tokensCharged = 0;
      const budgetMs = request.remainingTimeMs() - dependencies.config.remainingTimeReserveMs;
      const signal = AbortSignal.timeout(Math.max(1000, budgetMs));
      const sse = createSseStream({ heartbeatMs: dependencies.heartbeatMs });
      const run = async () => {
        sse.send({
          event: 'meta',
          data: {
            conversationId,
            inquiryId,
            version: conversation.version,
            modelId: dependencies.config.modelId,
          },
        });
        sse.send({ event: 'progress', data: { step: 'generating' } });
        const cited = transcript.cited.map((ticket) => ticket.issueId);
        // The cited tickets' categories help the model pick one; without them it still drafts.
        const tickets =
          cited.length === 0
            ? []
            : await dependencies.retriever
                .fetchByIssueIds(cited, { limit: cited.length, signal })
                .catch(() => []);
        const draftRequest = buildDraftRequest(transcript, DRAFT_MAX_TOKENS, categoriesOf(tickets));
        void reservation?.resize(requestBound(draftRequest));
        const outcome = await streamTicketDraft({
          model: dependencies.model,
          request: draftRequest,
          signal,
          send: (event) => sse.send(event),
          scrub: draftScrubOptions(request.owner, transcript, dependencies.scrubSettings),
        });
        tokensCharged = tokensToCharge({
          request: draftRequest,
          usage: outcome.usage,
          ...(outcome.failure ? { failure: outcome.failure } : {}),
          ...(outcome.draft ? { output: outcome.draft } : {}),
        });
        dependencies.recorded?.({
          kind: 'draft',
          owner: request.owner,
          conversationId,
          inquiryId,
          complete: outcome.draft?.complete,
          failureCode: outcome.failure?.code,
          inputTokens: outcome.usage?.inputTokens,
          outputTokens: outcome.usage?.outputTokens,
        });
      };
      void run()
        .catch((error: unknown) => {
          console.error('knowledge draft failed', error);
          sse.send({
            event: 'error',
            data: {
              code: 'internal',
              message: 'The draft failed. Please try again.',
              retryable: true,
            },
          });
        })
        // Settled before the body closes: the invocation ends with it.
        .finally(async () => {
          await reservation?.settle(tokensCharged);
          sse.close();
        });
      return { statusCode: 200, headers: { ...SSE_RESPONSE_HEADERS }, body: sse.stream };
    },

    async publish(request: ApiRequest): Promise<HttpResponse> {
      const documents = assertMayPublish(request);
      const body = validateBody(publishKnowledgeRequestSchema, parseJsonBody(request));
      const published = await publishTicket(request.owner, body, {
        store,
        documents,
        issueNumbers: dependencies.issueNumbers,
        syncBacklog: dependencies.syncBacklog,
        now: dependencies.now,
        ...(dependencies.scrubSettings ? { scrubSettings: dependencies.scrubSettings } : {}),
      });
      dependencies.recorded?.({
        kind: 'published',
        owner: request.owner,
        conversationId: body.conversationId,
        inquiryId: body.inquiryId,
        issueId: published.issueId,
        category: body.category,
        restricted: body.restricted,
        ingestion: published.ingestion,
      });
      const allowed = dependencies.config.allowedLinkDomains ?? DEFAULT_VENDOR_LINK_DOMAINS;
      const unverifiedLinks = findUnverifiedTicketLinks(body, allowed);
      return jsonResponse(
        201,
        publishKnowledgeResponseSchema.parse({ ...published, unverifiedLinks }),
      );
    },
  };
}
