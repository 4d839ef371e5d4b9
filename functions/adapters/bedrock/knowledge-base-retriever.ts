import {
  type BedrockAgentRuntimeClient,
  type RetrievalFilter,
  RetrieveCommand,
} from '@aws-sdk/client-bedrock-agent-runtime';
import type { RetrievedTicket, RetrieveOptions, Retriever } from '../../chat/retriever.js';
import { toRetrievedTicket } from './to-retrieved-ticket.js';

export interface KnowledgeBaseRetrieverOptions {
  readonly client: BedrockAgentRuntimeClient;
  readonly knowledgeBaseId: string;
  /** HYBRID needs an OpenSearch Serverless vector store; SEMANTIC works everywhere. @default 'HYBRID' */
  readonly searchType?: 'HYBRID' | 'SEMANTIC';
}

/** Restricted tickets are excluded by the Knowledge Base itself (and again by the core). */
const NOT_RESTRICTED: RetrievalFilter = { notEquals: { key: 'restricted', value: true } };

/** `Retriever` on Bedrock Knowledge Base `Retrieve`. */
export function createKnowledgeBaseRetriever(options: KnowledgeBaseRetrieverOptions): Retriever {
  const retrieve = async (
    text: string,
    filter: RetrievalFilter,
    { limit, signal }: RetrieveOptions,
  ) => {
    const response = await options.client.send(
      new RetrieveCommand({
        knowledgeBaseId: options.knowledgeBaseId,
        retrievalQuery: { text },
        retrievalConfiguration: {
          vectorSearchConfiguration: {
            numberOfResults: limit,
            overrideSearchType: options.searchType ?? 'HYBRID',
            filter,
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
    search: (query, retrieveOptions) => retrieve(query, NOT_RESTRICTED, retrieveOptions),
    fetchByIssueIds: (issueIds, retrieveOptions) =>
      retrieve(
        issueIds.map((issueId) => `#${issueId}`).join(' '),
        { andAll: [{ in: { key: 'issue_id', value: [...issueIds] } }, NOT_RESTRICTED] },
        retrieveOptions,
      ),
  };
}
