import {
  type BedrockAgentRuntimeClient,
  type KnowledgeBaseRetrievalResult,
  type RetrievalFilter,
  RetrieveCommand,
} from '@aws-sdk/client-bedrock-agent-runtime';
import type { RetrievedTicket, RetrieveOptions, Retriever } from '../../chat/ports.js';
import { DESK_KEY, retrievableDesks } from '../../contract/desks.js';
import { canonicalIssueId, formatIssueId } from '../../contract/ticket-references.js';
import {
  searchTypeOf,
  searchTypeProblem,
  unsupportedFilterOperators,
  type VectorStore,
} from './vector-store-search.js';

export interface KnowledgeBaseRetrieverOptions {
  readonly client: BedrockAgentRuntimeClient;
  readonly knowledgeBaseId: string;
  /**
   * The Knowledge Base's vector store: it decides the default search type and which filter
   * operators may be sent (vector-store-search.ts).
   * @default 'opensearch-serverless'
   */
  readonly vectorStore?: VectorStore;
  /**
   * HYBRID needs an OpenSearch Serverless vector store (asking for it elsewhere throws here,
   * not on the first chat); SEMANTIC works everywhere.
   * @default HYBRID on OpenSearch Serverless, SEMANTIC on any other store
   */
  readonly searchType?: 'HYBRID' | 'SEMANTIC';
  /**
   * Rerank searches with this Bedrock reranker model (its foundation-model ARN): `Retrieve`
   * fetches `rerankCandidates(limit)` chunks and the reranker returns the best `limit`.
   * Fetching tickets by issue id is never reranked (there is no query to rank against).
   * @default no reranking
   */
  readonly rerankingModelArn?: string;
}

/**
 * How many chunks a reranked search retrieves for `limit` results: five times as many, at most
 * 100 (Retrieve's maximum). A reranker can only promote what retrieval found, so it needs a wider
 * net than the answer's count; Bedrock prices reranking per query of up to 100 chunks, so 40 for
 * the default 8 costs the same as 8, and keeps the extra retrieval latency small.
 */
export function rerankCandidates(limit: number): number {
  return Math.min(100, Math.max(limit, limit * 5));
}

/** Restricted tickets are excluded by the Knowledge Base itself (and again by the core). */
const NOT_RESTRICTED: RetrievalFilter = { notEquals: { key: 'restricted', value: true } };

/**
 * What every retrieval must also meet: not restricted, and of a desk the caller may retrieve
 * (ADR 0029) — `in`, which both vector stores accept, on the sidecar's `desk` string. A ticket
 * without a desk matches no `in` and stays out (the core drops it again). One flat `andAll` per
 * call: the conditions are spread into it, never nested.
 */
export function retrievableConditions(desks: readonly string[]): RetrievalFilter[] {
  return [NOT_RESTRICTED, { in: { key: DESK_KEY, value: retrievableDesks(desks) } }];
}

/** `Retriever` on Bedrock Knowledge Base `Retrieve`. */
export function createKnowledgeBaseRetriever(options: KnowledgeBaseRetrieverOptions): Retriever {
  const vectorStore = options.vectorStore ?? 'opensearch-serverless';
  const searchType = options.searchType ?? searchTypeOf(vectorStore);
  const problem = searchTypeProblem(searchType, vectorStore);
  if (problem) throw new Error(problem);
  const retrieve = async (
    text: string,
    filter: RetrievalFilter,
    { limit, signal }: RetrieveOptions,
    rerankingModelArn?: string,
  ) => {
    // The filters below are fixed; this keeps a future one from reaching a store that rejects it.
    const unsupported = unsupportedFilterOperators(filter, vectorStore);
    if (unsupported.length > 0) {
      throw new Error(`${vectorStore} has no filter operator ${unsupported.join(', ')}`);
    }
    const response = await options.client.send(
      new RetrieveCommand({
        knowledgeBaseId: options.knowledgeBaseId,
        retrievalQuery: { text },
        retrievalConfiguration: {
          vectorSearchConfiguration: {
            numberOfResults: rerankingModelArn ? rerankCandidates(limit) : limit,
            overrideSearchType: searchType,
            filter,
            ...(rerankingModelArn && {
              rerankingConfiguration: {
                type: 'BEDROCK_RERANKING_MODEL',
                bedrockRerankingConfiguration: {
                  modelConfiguration: { modelArn: rerankingModelArn },
                  numberOfRerankedResults: limit,
                },
              },
            }),
          },
        },
      }),
      { abortSignal: signal },
    );
    return (response.retrievalResults ?? [])
      .map(toRetrievedTicket)
      .filter((ticket): ticket is RetrievedTicket => ticket !== undefined);
  };
  return {
    search: (query, retrieveOptions) =>
      retrieve(
        query,
        { andAll: retrievableConditions(retrieveOptions.desks) },
        retrieveOptions,
        options.rerankingModelArn,
      ),
    fetchByIssueIds: (issueIds, retrieveOptions) =>
      retrieve(
        issueIds.map(formatIssueId).join(' '),
        {
          andAll: [
            { in: { key: 'issue_id', value: [...issueIds] } },
            ...retrievableConditions(retrieveOptions.desks),
          ],
        },
        retrieveOptions,
      ),
  };
}

/**
 * One Retrieve result as a ticket. Metadata comes from the `.metadata.json` sidecars; a chunk
 * without an issue id is dropped (it cannot be cited or grounded). `restricted` is read
 * defensively — sidecars written by hand may say "true": any value but false/"false" counts as
 * restricted. A document without the key is not restricted (as the Knowledge Base filter
 * `notEquals restricted true` treats it), so an existing KB without the attribute still works.
 * `desk` is read as written: a ticket without one has none, and the core lets it reach nobody.
 */
export function toRetrievedTicket(
  result: KnowledgeBaseRetrievalResult,
): RetrievedTicket | undefined {
  const metadata = (result.metadata ?? {}) as Record<string, unknown>;
  // Sidecars hold the canonical form (`sourceTicketId`, ADR 0020); one written by hand as
  // `inc0012345` or 1001 still grounds. An id the grammar cannot read stays as written.
  const written = asText(metadata.issue_id);
  const issueId = written === undefined ? undefined : (canonicalIssueId(written) ?? written);
  const text = result.content?.text;
  if (!issueId || text === undefined) return undefined;
  const desk = asText(metadata[DESK_KEY]);
  return {
    issueId,
    subject: asText(metadata.subject) ?? '',
    category: asText(metadata.category),
    status: asText(metadata.status),
    createdAt: asText(metadata.created_at),
    restricted: isRestricted(metadata.restricted),
    ...(desk === undefined ? {} : { desk }),
    text,
    score: result.score ?? 0,
    uri: result.location?.s3Location?.uri,
  };
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number') return String(value);
  return undefined;
}

function isRestricted(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (typeof value === 'string') return value.trim().toLowerCase() !== 'false';
  return true;
}
