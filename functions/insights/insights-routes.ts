import { type ApiRequest, HttpError, type HttpResponse, jsonResponse } from '../api/http.js';
import type { RouteContext } from '../api/route-context.js';
import type { Log } from '../chat/log.js';
import type { Retriever } from '../chat/ports.js';
import { fetchReferencedTickets } from '../chat/retrieval.js';
import { type Insights, insightsSchema, insightsWindowSchema } from '../contract/insights.js';
import type { ActiveSurge } from '../contract/surges.js';
import type { ScrubSettings } from '../knowledge/personal-data-scrub.js';
import { scrubGapExamplesForLead } from './gap-example-scrub.js';
import type { InsightsStore, KnowledgeFreshness, TicketCatalog } from './ports.js';

export interface InsightsRouteDependencies {
  /** The aggregates kept where events happen (ADR 0022); the route only reads them. */
  readonly insights: Pick<InsightsStore, 'readInsights'>;
  /** Whether this deployment keeps gap examples (`INSIGHTS_EXAMPLES`). @default true */
  readonly examplesKept?: boolean;
  /**
   * The tickets the Knowledge Base holds, for "never retrieved in 90 days" out of all of them.
   * Absent (a Knowledge Base without a data source id to list): the body leaves `total` absent
   * and the page says this deployment cannot list its tickets.
   */
  readonly catalog?: TicketCatalog;
  /** How long a read waits for the catalog's listing. @default CATALOG_WAIT_MS */
  readonly catalogWaitMs?: number;
  /** The deployment's personal-data settings, for the gap examples' scrub at a lead's read. */
  readonly scrubSettings?: ScrubSettings;
  /**
   * The Knowledge Base, asked which of the page's tickets the lead may retrieve (ADR 0029): the
   * aggregates keep no desk, the tickets' sidecars do.
   */
  readonly tickets: Pick<Retriever, 'fetchByIssueIds'>;
  /** The live-synced ticket systems' freshness (`ticketSync`); absent: the deployment has none. */
  readonly knowledgeFreshness?: KnowledgeFreshness;
  /** The tenant's active surges now (ADR 0033); absent: the body lists none. */
  readonly surges?: (scope: { readonly tenantId: string }, now: Date) => Promise<ActiveSurge[]>;
}

/** The longest the page waits for the ticket catalog (100 listing calls at 100,000 tickets). */
export const CATALOG_WAIT_MS = 2_000;

/** The listing if it is there within `waitMs`, else undefined (it keeps running and caches). */
async function withinCatalogWait(
  listing: Promise<readonly string[] | undefined> | undefined,
  waitMs: number,
): Promise<readonly string[] | undefined> {
  if (listing === undefined) return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), waitMs);
  });
  try {
    return await Promise.race([listing, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Refuses anyone but a service-desk lead with 403 `not_a_service_desk_lead`: the insights read
 * and the knowledge drafts from its gap examples (knowledge-routes.ts) ask the same way.
 */
export function assertServiceDeskLead(request: ApiRequest): void {
  if (!request.canViewInsights)
    throw new HttpError('not_a_service_desk_lead', 'Only service-desk leads may see insights');
}

/**
 * Service-desk insights (issue #28): `GET /api/insights?days=30|90`, the body of the lead's
 * `/insights` page. Leads only — the body carries inquiry text (a gap's examples) — and stored
 * by no cache (`private, no-store`): neither CloudFront nor the browser keeps a copy that the
 * next person at a shared desk could see.
 */
export function createInsightsRoutes(
  context: Pick<RouteContext, 'now' | 'log'>,
  dependencies: InsightsRouteDependencies,
) {
  return {
    async read(request: ApiRequest): Promise<HttpResponse> {
      // Before the window: a non-lead learns nothing, not even which windows exist.
      assertServiceDeskLead(request);
      const days = insightsWindowSchema.safeParse(request.query.days);
      if (!days.success)
        throw new HttpError('bad_request', 'days: must be 30 or 90', { field: 'days' });
      // Listed here, not in the store: the catalog is no DynamoDB read (cached by the adapter).
      // An instance's first listing of a large Knowledge Base takes seconds; the page does not
      // wait for it past CATALOG_WAIT_MS — this read goes without `total`, the next finds it.
      const catalog = await withinCatalogWait(
        dependencies.catalog?.issueIds(),
        dependencies.catalogWaitMs ?? CATALOG_WAIT_MS,
      );
      const scope = { tenantId: request.owner.tenantId };
      const now = context.now();
      const [stored, surges] = await Promise.all([
        dependencies.insights.readInsights(
          scope,
          days.data,
          now,
          catalog === undefined ? {} : { catalog },
        ),
        dependencies.surges?.(scope, now) ?? [],
      ]);
      const scoped = await ticketsOfDesks(stored, request.desks, dependencies.tickets, context.log);
      const insights = await scrubGapExamplesForLead(scoped, dependencies.scrubSettings ?? {});
      const knowledgeFreshness = await dependencies.knowledgeFreshness?.read(now);
      // Parsed on the way out: the contract's objects drop any key they do not declare, so
      // nothing a store keeps beside the figures (a user id, a conversation id) reaches the page.
      const body: Insights = insightsSchema.parse({
        ...insights,
        examplesKept: dependencies.examplesKept ?? true,
        ...(knowledgeFreshness && { knowledgeFreshness }),
        surges,
      });
      return jsonResponse(200, body, { 'cache-control': 'private, no-store' });
    },
  };
}

/**
 * The page with only the tickets the lead may retrieve in "what helped" and in the sample of
 * "never retrieved" (ADR 0029): one fetch by issue id through both exits of retrieval (the
 * Knowledge Base filter, then the core's), as the lead's own chat would. A ticket the fetch does
 * not return — another desk's, restricted, or gone from the Knowledge Base — is left out; a
 * failed fetch leaves every list empty. The counts (`count`, `total`) stay the Knowledge Base's:
 * numbers, which name no ticket.
 */
async function ticketsOfDesks(
  insights: Insights,
  desks: readonly string[],
  tickets: Pick<Retriever, 'fetchByIssueIds'>,
  log: Log,
): Promise<Insights> {
  const { helped } = insights;
  const named = [
    ...new Set([
      ...helped.mostSolved.map((use) => use.issueId),
      ...helped.citedButDownRated.map((use) => use.issueId),
      ...helped.neverRetrieved.sample,
    ]),
  ];
  if (named.length === 0) return insights;
  const retrievable = new Set(
    await fetchReferencedTickets(tickets, named, desks).then(
      (found) => found.map((ticket) => ticket.issueId),
      (error: unknown) => {
        log.warn("could not check the insights' tickets against the lead's desks", { error });
        return [];
      },
    ),
  );
  return {
    ...insights,
    helped: {
      mostSolved: helped.mostSolved.filter((use) => retrievable.has(use.issueId)),
      citedButDownRated: helped.citedButDownRated.filter((use) => retrievable.has(use.issueId)),
      neverRetrieved: {
        ...helped.neverRetrieved,
        sample: helped.neverRetrieved.sample.filter((issueId) => retrievable.has(issueId)),
      },
    },
  };
}
