import {
  type ApiRequest,
  HttpError,
  type HttpResponse,
  jsonResponse,
  parseJsonBody,
  validateBody,
} from '../api/http.js';
import type { RouteContext } from '../api/route-context.js';
import type { ChatConfig, ChatModel, ConversationStore, Owner, Retriever } from '../chat/ports.js';
import { fetchReferencedTickets } from '../chat/retrieval.js';
import type { KnowledgeDraftStreamEvent } from '../contract/chat-events.js';
import { retrievableDesks } from '../contract/desks.js';
import {
  type Caller,
  findUnverifiedTicketLinks,
  type PublishKnowledgeRequest,
  publishKnowledgeRequestSchemaFor,
  publishKnowledgeResponseSchema,
} from '../contract/knowledge.js';
import { DEFAULT_VENDOR_LINK_DOMAINS } from '../contract/links.js';
import { parseGapExampleId } from '../insights/aggregates.js';
import { assertServiceDeskLead } from '../insights/insights-routes.js';
import type { InsightsStore } from '../insights/ports.js';
import { requestBound } from '../model-call/daily-budget.js';
import { modelStreamResponse } from '../model-call/model-stream-response.js';
import type { KnowledgeReport } from '../observability/telemetry.js';
import type { ScrubSettings } from './personal-data-scrub.js';
import type { IssueNumbers, KnowledgeDocuments, SyncBacklog } from './ports.js';
import { loadSolvedInquiry, publishTicket } from './publish-ticket.js';
import { createTicketCategories } from './ticket-categories.js';
import {
  buildDraftRequest,
  categoriesOf,
  draftScrubOptions,
  inquiryTranscript,
  streamTicketDraft,
} from './ticket-draft.js';

type PublishRequestSchema = ReturnType<typeof publishKnowledgeRequestSchemaFor>;

/** The inquiry a draft or publish is about, and whose conversation holds it. */
interface InquirySource {
  readonly owner: Owner;
  readonly conversationId: string;
  readonly inquiryId: string;
}

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
  readonly config: Pick<ChatConfig, 'allowedLinkDomains'> & {
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
  /**
   * The insights' gap examples, which a service-desk lead drafts from (ADR 0022); undefined: no
   * insights store, so no example exists (404).
   */
  readonly gapExamples?: Pick<InsightsStore, 'findGapExample'>;
}

/**
 * Knowledge capture's routes (ADR 0011): who the caller is (`GET /api/me`), the streamed ticket
 * draft of a solved inquiry and publishing the edited draft — of the caller's own inquiry, or,
 * for a service-desk lead, of a solved gap example of the insights page (ADR 0022), resolved to
 * its owner's conversation server-side. Drafting and publishing are for knowledge editors only,
 * and both are refused with 501 where capture is not configured.
 */
export function createKnowledgeRoutes(
  context: RouteContext,
  dependencies: KnowledgeRouteDependencies,
) {
  const { store } = dependencies;
  const categories = createTicketCategories({
    deployed: dependencies.config.ticketCategories ?? [],
    documents: dependencies.documents,
    now: context.now,
    onReadFailed: (error) =>
      context.log.warn('uploaded ticket categories unreadable; the deployed set stays', { error }),
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

  /**
   * Streams the ticket draft of one solved inquiry of `source.owner`'s conversation to the
   * caller, whose daily budget pays for it (ADR 0012): the model reads that inquiry alone.
   */
  async function streamDraft(request: ApiRequest, source: InquirySource): Promise<HttpResponse> {
    const { conversationId, inquiryId } = source;
    const ticketCategories = await categories.current();
    const { conversation, turns } = await loadSolvedInquiry(
      store,
      source.owner,
      conversationId,
      inquiryId,
    );
    const transcript = inquiryTranscript(turns, inquiryId);
    // Reserved before the first byte (429 over the budget, ADR 0012). The cited tickets'
    // categories are looked up after it: until then each holds room for one.
    return modelStreamResponse<KnowledgeDraftStreamEvent>(
      request,
      context,
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
      async ({ signal, send, call }) => {
        const cited = transcript.cited.map((ticket) => ticket.issueId);
        // The cited tickets' categories help the model pick one; without them it still drafts.
        // Fetched as the caller, and only the tickets the caller may retrieve stay cited (ADR
        // 0029): a lead drafting from another desk's gap example learns nothing of its tickets.
        const tickets =
          cited.length === 0
            ? []
            : await fetchReferencedTickets(
                dependencies.retriever,
                cited,
                request.desks,
                signal,
              ).catch(() => []);
        const retrievable = new Set(tickets.map((ticket) => ticket.issueId));
        const visible = {
          ...transcript,
          cited: transcript.cited.filter((ticket) => retrievable.has(ticket.issueId)),
        };
        const draftRequest = buildDraftRequest(
          visible,
          DRAFT_MAX_TOKENS,
          categoriesOf(tickets),
          ticketCategories,
        );
        call.requestBuilt(draftRequest);
        const outcome = await streamTicketDraft({
          model: dependencies.model,
          request: draftRequest,
          signal,
          send,
          ticketCategories,
          scrub: await draftScrubOptions(
            source.owner,
            visible,
            dependencies.scrubSettings,
            request.owner,
          ),
        });
        call.ended({
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
      },
    );
  }

  /**
   * Publishes `body`'s inquiry of `owner`'s conversation; the caller is its author, and the
   * ticket's desk one the caller may retrieve (ADR 0029): an editor cannot file a ticket where
   * they could not read it back.
   */
  async function publishDraft(
    request: ApiRequest,
    documents: KnowledgeDocuments,
    owner: Owner,
    body: PublishKnowledgeRequest,
  ): Promise<HttpResponse> {
    if (!retrievableDesks(request.desks).includes(body.desk))
      throw new HttpError(
        'bad_request',
        `desk: you may publish to ${retrievableDesks(request.desks).join(', ')} only`,
        { field: 'desk' },
      );
    const published = await publishTicket(
      owner,
      body,
      {
        store,
        documents,
        issueNumbers: dependencies.issueNumbers,
        syncBacklog: dependencies.syncBacklog,
        now: context.now,
        ...(dependencies.scrubSettings ? { scrubSettings: dependencies.scrubSettings } : {}),
        log: context.log,
      },
      request.owner,
    );
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
  }

  /**
   * The conversation and inquiry of a solved gap example of the caller's tenant. 404 alike for an
   * id that names none, an example forgotten with its conversation or expired, one stored before
   * sources were kept, and one whose solution staff took back: a lead learns only that there is
   * no such example to draft from.
   */
  async function gapExampleInquiry(request: ApiRequest, exampleId: string): Promise<InquirySource> {
    const named = parseGapExampleId(exampleId);
    const scope = { tenantId: request.owner.tenantId };
    const found =
      named === undefined
        ? undefined
        : await dependencies.gapExamples?.findGapExample(scope, named);
    if (!found?.solved)
      throw new HttpError('not_found', 'No solved knowledge-gap example with that id');
    return {
      owner: { tenantId: request.owner.tenantId, userId: found.ownerUserId },
      conversationId: found.conversationId,
      inquiryId: found.inquiryId,
    };
  }

  return {
    async me(request: ApiRequest): Promise<HttpResponse> {
      const canPublishKnowledge =
        request.canPublishKnowledge && dependencies.documents !== undefined;
      const body: Caller = {
        userId: request.owner.userId,
        canPublishKnowledge,
        canViewInsights: request.canViewInsights,
        // For the knowledge form's warning and choices; nobody else needs them.
        ...(canPublishKnowledge
          ? {
              allowedLinkDomains: [
                ...(dependencies.config.allowedLinkDomains ?? DEFAULT_VENDOR_LINK_DOMAINS),
              ],
              ticketCategories: [...(await categories.current())],
              desks: retrievableDesks(request.desks),
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
      return streamDraft(request, { owner: request.owner, conversationId, inquiryId });
    },

    /**
     * A service-desk lead's draft from a solved gap example of the insights page (ADR 0022): the
     * example resolves to its owner's conversation and inquiry server-side, then the draft is
     * the staff route's — that inquiry alone, the lead's budget, the same events.
     */
    async draftFromGapExample(request: ApiRequest, exampleId: string): Promise<HttpResponse> {
      assertServiceDeskLead(request);
      assertMayPublish(request);
      parseJsonBody(request); // a body, if any, must be JSON; the route takes no fields
      return streamDraft(request, await gapExampleInquiry(request, exampleId));
    },

    async publish(request: ApiRequest): Promise<HttpResponse> {
      const documents = assertMayPublish(request);
      const body = validateBody(
        publishRequestSchema(await categories.current()),
        parseJsonBody(request),
      );
      return publishDraft(request, documents, request.owner, body);
    },

    /**
     * A service-desk lead publishes the edited draft of a gap example: the staff route's checks,
     * scrub and order on the example owner's conversation; the ticket's author is the lead.
     */
    async publishFromGapExample(request: ApiRequest, exampleId: string): Promise<HttpResponse> {
      assertServiceDeskLead(request);
      const documents = assertMayPublish(request);
      const ticket = validateBody(
        publishRequestSchema(await categories.current()).omit({
          conversationId: true,
          inquiryId: true,
        }),
        parseJsonBody(request),
      );
      const { owner, conversationId, inquiryId } = await gapExampleInquiry(request, exampleId);
      return publishDraft(request, documents, owner, { ...ticket, conversationId, inquiryId });
    },
  };
}
