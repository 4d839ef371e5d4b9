import {
  BedrockAgentClient,
  type DocumentStatus,
  ListKnowledgeBaseDocumentsCommand,
} from '@aws-sdk/client-bedrock-agent';
import type { Log } from '../../chat/log.js';
import type { TicketCatalog } from '../../insights/ports.js';
import { issueIdOfDocumentName } from '../../knowledge/ticket-document.js';

/**
 * The documents a listing counts as in the index: indexed whole or in part, or indexed with a
 * metadata update that failed or went in partly (the document itself is still searchable). Not
 * counted: documents still on their way in (`PENDING`, `STARTING`, `IN_PROGRESS`), refused or
 * missing (`FAILED`, `IGNORED`, `NOT_FOUND`) and on their way out (`DELETING`,
 * `DELETE_IN_PROGRESS`) — none of them can be retrieved now. (Bedrock API reference,
 * `KnowledgeBaseDocumentDetail.status`.)
 */
export const INDEXED_DOCUMENT_STATUSES: ReadonlySet<DocumentStatus> = new Set<DocumentStatus>([
  'INDEXED',
  'PARTIALLY_INDEXED',
  'METADATA_PARTIALLY_INDEXED',
  'METADATA_UPDATE_FAILED',
]);

/** The API's largest page (`maxResults`, 1–1000): 100,000 tickets are 100 calls. */
export const MAX_DOCUMENTS_PER_PAGE = 1000;

/** How long one listing serves a function instance: the page's figure may be this much behind a sync. */
export const CATALOG_CACHE_MS = 15 * 60_000;

/**
 * Pages read at most (with the largest page: a million documents). A data source that big, or a
 * `nextToken` that never ends, makes the listing fail (logged, no catalog) instead of running on.
 */
const MAX_PAGES = 1000;

export interface KnowledgeBaseTicketCatalogOptions {
  readonly client: Pick<BedrockAgentClient, 'send'>;
  readonly knowledgeBaseId: string;
  readonly dataSourceId: string;
  /** `maxResults` of each call (1–1000). @default MAX_DOCUMENTS_PER_PAGE */
  readonly pageSize?: number;
  /** @default CATALOG_CACHE_MS */
  readonly cacheMs?: number;
  /** @default Date.now */
  readonly now?: () => number;
  /** Where a failed listing is reported. */
  readonly log: Log;
}

/**
 * `TicketCatalog` over the Knowledge Base's data source (`ListKnowledgeBaseDocuments`, every page):
 * each indexed document's S3 key mapped back to its issue id (`issueIdOfDocumentName`), metadata
 * sidecars and objects that are no ticket document left out. One listing serves the function
 * instance for `cacheMs` (after that it still answers while the next one is read), and
 * concurrent reads share the one under way; a failure is logged as a
 * warning and answers `undefined` (the page then says it cannot list), and the next read tries
 * again. Restricted tickets are listed like any other: the listing carries no metadata.
 */
export function createKnowledgeBaseTicketCatalog(
  options: KnowledgeBaseTicketCatalogOptions,
): TicketCatalog {
  const pageSize = options.pageSize ?? MAX_DOCUMENTS_PER_PAGE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_DOCUMENTS_PER_PAGE) {
    throw new Error(`pageSize must be an integer from 1 to ${MAX_DOCUMENTS_PER_PAGE}: ${pageSize}`);
  }
  const cacheMs = options.cacheMs ?? CATALOG_CACHE_MS;
  const now = options.now ?? Date.now;
  const { log } = options;
  let cached: { readonly issueIds: readonly string[]; readonly listedAt: number } | undefined;
  let listing: Promise<readonly string[] | undefined> | undefined;

  const list = async (): Promise<readonly string[]> => {
    const issueIds = new Set<string>();
    let nextToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const response = await options.client.send(
        new ListKnowledgeBaseDocumentsCommand({
          knowledgeBaseId: options.knowledgeBaseId,
          dataSourceId: options.dataSourceId,
          maxResults: pageSize,
          ...(nextToken === undefined ? {} : { nextToken }),
        }),
      );
      for (const document of response.documentDetails ?? []) {
        const uri = document.identifier?.s3?.uri;
        if (uri === undefined || !INDEXED_DOCUMENT_STATUSES.has(document.status as DocumentStatus))
          continue;
        const issueId = issueIdOfDocumentName(uri);
        if (issueId !== undefined) issueIds.add(issueId);
      }
      nextToken = response.nextToken || undefined;
      if (nextToken === undefined) return [...issueIds].sort();
    }
    throw new Error(`the listing did not end within ${MAX_PAGES} pages of ${pageSize}`);
  };

  const refresh = () => {
    listing ??= list()
      .then((issueIds) => {
        cached = { issueIds, listedAt: now() };
        return issueIds;
      })
      .catch((error: unknown) => {
        log.warn('could not list the Knowledge Base documents: no ticket catalog this time', {
          knowledgeBaseId: options.knowledgeBaseId,
          dataSourceId: options.dataSourceId,
          error,
        });
        return undefined;
      })
      .finally(() => {
        listing = undefined;
      });
    return listing;
  };

  return {
    issueIds() {
      if (cached === undefined) return refresh();
      // Stale while it revalidates: an expired listing still answers at once while the next
      // one (about 100 calls at 100,000 tickets) runs, so only an instance's first read waits.
      if (now() - cached.listedAt >= cacheMs) void refresh();
      return Promise.resolve(cached.issueIds);
    },
  };
}

/** The catalog with its own client, for the function (`capture` lets tracing wrap it). */
export function createKnowledgeBaseTicketCatalogWithClient(
  client: {
    readonly region: string;
    readonly agentEndpoint?: string;
    readonly capture: <Client extends object>(client: Client) => Client;
  },
  options: Omit<KnowledgeBaseTicketCatalogOptions, 'client'>,
): TicketCatalog {
  return createKnowledgeBaseTicketCatalog({
    ...options,
    client: client.capture(
      new BedrockAgentClient({ region: client.region, endpoint: client.agentEndpoint }),
    ),
  });
}
