import { requestBound, tokensToCharge } from '../chat/daily-budget.js';
import { silentLog } from '../chat/log.js';
import type { ChatConfig, ChatModel, ConversationStore, Retriever } from '../chat/ports.js';
import {
  type Caller,
  findUnverifiedTicketLinks,
  publishKnowledgeRequestSchemaFor,
  publishKnowledgeResponseSchema,
} from '../contract/knowledge.js';
import { DEFAULT_VENDOR_LINK_DOMAINS } from '../contract/links.js';
import type { ScrubSettings } from '../knowledge/personal-data-scrub.js';
import type { IssueNumbers, KnowledgeDocuments, SyncBacklog } from '../knowledge/ports.js';
import { loadSolvedInquiry, publishTicket } from '../knowledge/publish-ticket.js';
import { createTicketCategories } from '../knowledge/ticket-categories.js';
import {
  buildDraftRequest,
  categoriesOf,
  draftScrubOptions,
  inquiryTranscript,
  streamTicketDraft,
} from '../knowledge/ticket-draft.js';
import type { KnowledgeReport } from '../observability/telemetry.js';
import {
  type ApiRequest,
  HttpError,
  type HttpResponse,
  jsonResponse,
  parseJsonBody,
  validateBody,
} from './http.js';
import { type ModelStreamDependencies, modelStreamResponse } from './model-stream-response.js';

type PublishRequestSchema = ReturnType<typeof publishKnowledgeRequestSchemaFor>;

/** Output tokens of a draft: a ticket is short; a draft that needs more has lost its way. */
const DRAFT_MAX_TOKENS = 2048;
/** Room a cited ticket's category takes in the draft prompt (`[Category] `, in UTF-8 bytes). */
const CATEGORY_ALLOWANCE_TOKENS = 64;

export interface KnowledgeRouteDependencies extends ModelStreamDependencies {
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
  > & {
    /**
     * The deployed tickets' categories (`TICKET_CATEGORIES`, ADR 0020): the draft tool's enum and
     * what a published ticket may take. @default none known: any safe category
     */
    readonly ticketCategories?: readonly string[];
  };
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
  const categories = createTicketCategories({
    deployed: dependencies.config.ticketCategories ?? [],
    documents: dependencies.documents,
    now: dependencies.now,
    onReadFailed: (error) =>
      (dependencies.log ?? silentLog).warn(
        'uploaded ticket categories unreadable; the deployed set stays',
        { error },
      ),
  });
  // One schema per category set: the set changes at most once per refresh.
  let publishSchema: { for: readonly string[]; schema: PublishRequestSchema } | undefined;
  const publishRequestSchema = (ticketCategories: readonly string[]) => {
    if (publishSchema?.for !== ticketCategories) {
      publishSchema = {
        for: ticketCategories,
        schema: publishKnowledgeRequestSchemaFor(ticketCategories),
      };
    }
    return publishSchema.schema;
  };
  const assertMayPublish = (request: ApiRequest) => {
    if (!dependencies.documents)
      throw new HttpError(
        'knowledge_capture_disabled',
        'Knowledge capture is not configured for this deployment (no Knowledge Base document bucket)',
      );
    if (!request.canPublishKnowledge)
      throw new HttpError(
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
        canViewInsights: request.canViewInsights,
        // For the knowledge form's warning; nobody else needs it.
        ...(canPublishKnowledge
          ? {
              allowedLinkDomains: [
                ...(dependencies.config.allowedLinkDomains ?? DEFAULT_VENDOR_LINK_DOMAINS),
              ],
              ticketCategories: [...(await categories.current())],
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
      const ticketCategories = await categories.current();
      const { conversation, turns } = await loadSolvedInquiry(
        store,
        request.owner,
        conversationId,
        inquiryId,
      );
      const transcript = inquiryTranscript(turns, inquiryId);
      // Reserved before the first byte (429 over the budget, ADR 0012). The cited tickets'
      // categories are looked up after it: until then each holds room for one.
      return modelStreamResponse(
        request,
        dependencies,
        {
          bound:
            requestBound(
              buildDraftRequest(transcript, DRAFT_MAX_TOKENS, undefined, ticketCategories),
            ) +
            transcript.cited.length * CATEGORY_ALLOWANCE_TOKENS,
          meta: { conversationId, inquiryId, version: conversation.version },
          failureMessage: 'The draft failed. Please try again.',
          logMessage: 'knowledge draft failed',
        },
        async ({ signal, send, charge, reservation }) => {
          const cited = transcript.cited.map((ticket) => ticket.issueId);
          // The cited tickets' categories help the model pick one; without them it still drafts.
          const tickets =
            cited.length === 0
              ? []
              : await dependencies.retriever
                  .fetchByIssueIds(cited, { limit: cited.length, signal })
                  .catch(() => []);
          const draftRequest = buildDraftRequest(
            transcript,
            DRAFT_MAX_TOKENS,
            categoriesOf(tickets),
            ticketCategories,
          );
          void reservation?.resize(requestBound(draftRequest));
          const outcome = await streamTicketDraft({
            model: dependencies.model,
            request: draftRequest,
            signal,
            send,
            ticketCategories,
            scrub: draftScrubOptions(request.owner, transcript, dependencies.scrubSettings),
          });
          charge(
            tokensToCharge({
              request: draftRequest,
              usage: outcome.usage,
              ...(outcome.failure ? { failure: outcome.failure } : {}),
              ...(outcome.draft ? { output: outcome.draft } : {}),
            }),
          );
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
        },
      );
    },

    async publish(request: ApiRequest): Promise<HttpResponse> {
      const documents = assertMayPublish(request);
      const body = validateBody(
        publishRequestSchema(await categories.current()),
        parseJsonBody(request),
      );
      const published = await publishTicket(request.owner, body, {
        store,
        documents,
        issueNumbers: dependencies.issueNumbers,
        syncBacklog: dependencies.syncBacklog,
        now: dependencies.now,
        ...(dependencies.scrubSettings ? { scrubSettings: dependencies.scrubSettings } : {}),
        ...(dependencies.log ? { log: dependencies.log } : {}),
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
