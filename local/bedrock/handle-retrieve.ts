import type { RetrievalFilter } from '@aws-sdk/client-bedrock-agent-runtime';
import {
  unsupportedFilterOperators,
  type VectorStore,
} from '../../functions/adapters/bedrock/vector-store-search.js';
import { readJsonBody, sendAwsError } from './aws-json-protocol.js';
import type { LocalRequest, LocalResponse } from './listen-h2c-and-http1.js';
import type { RecordedRetrieveRequest, RetrieveWireRequest } from './recorded-requests.js';
import { InvalidRetrievalFilterError } from './ticket-index/match-retrieval-filter.js';
import type { TicketIndex } from './ticket-index/ticket-index.js';

export interface RetrieveContext {
  readonly knowledgeBaseId: string;
  readonly index: TicketIndex;
  readonly record: (request: RecordedRetrieveRequest) => void;
  /**
   * The vector store this Knowledge Base plays: on `s3-vectors` HYBRID and the filter operators
   * S3 Vectors lacks are refused, as AWS refuses them.
   */
  readonly vectorStore: VectorStore;
}

/**
 * `POST /knowledgebases/{knowledgeBaseId}/retrieve` in the Agent Runtime's request and response
 * shape. `numberOfResults` defaults to 5 (range 1–100); `overrideSearchType` is accepted and
 * ignored (there is only keyword search here) — except HYBRID when the endpoint plays an S3
 * Vectors Knowledge Base, which refuses it, as it refuses filter operators S3 Vectors lacks;
 * there is never a `nextToken`. A
 * `rerankingConfiguration` is refused with a ValidationException: there is no reranker model
 * here, and answering unreranked would pass off keyword order as a reranker's.
 */
export async function handleRetrieve(
  request: LocalRequest,
  response: LocalResponse,
  knowledgeBaseId: string,
  context: RetrieveContext,
): Promise<void> {
  const body = await readJsonBody<RetrieveWireRequest>(request, response);
  if (body === undefined) return;
  context.record({ knowledgeBaseId, body });
  if (knowledgeBaseId !== context.knowledgeBaseId) {
    sendAwsError(response, {
      statusCode: 404,
      type: 'ResourceNotFoundException',
      message: `Knowledge base ${knowledgeBaseId} does not exist (the local endpoint serves ${context.knowledgeBaseId}).`,
    });
    return;
  }
  const text = body.retrievalQuery?.text;
  const configuration = body.retrievalConfiguration?.vectorSearchConfiguration;
  const numberOfResults = configuration?.numberOfResults ?? 5;
  if (typeof text !== 'string') {
    sendAwsError(response, {
      statusCode: 400,
      type: 'ValidationException',
      message: 'retrievalQuery.text is required',
    });
    return;
  }
  if (configuration?.rerankingConfiguration !== undefined) {
    sendAwsError(response, {
      statusCode: 400,
      type: 'ValidationException',
      message:
        'rerankingConfiguration is not supported by the local Knowledge Base: it has no reranker ' +
        'model. Reranking is measured against a deployed one (npm run eval -- --target aws --rerank both).',
    });
    return;
  }
  if (context.vectorStore === 's3-vectors' && configuration?.overrideSearchType === 'HYBRID') {
    sendAwsError(response, {
      statusCode: 400,
      type: 'ValidationException',
      message: `HYBRID search is not supported for the vector store of knowledge base ${knowledgeBaseId} (${context.vectorStore}); use SEMANTIC`,
    });
    return;
  }
  const unsupported = unsupportedFilterOperators(
    configuration?.filter as RetrievalFilter | undefined,
    context.vectorStore,
  );
  if (unsupported.length > 0) {
    sendAwsError(response, {
      statusCode: 400,
      type: 'ValidationException',
      message: `Filter operator ${unsupported.join(', ')} is not supported for ${context.vectorStore}`,
    });
    return;
  }
  if (!Number.isInteger(numberOfResults) || numberOfResults < 1 || numberOfResults > 100) {
    sendAwsError(response, {
      statusCode: 400,
      type: 'ValidationException',
      message: 'numberOfResults must be between 1 and 100',
    });
    return;
  }
  try {
    const retrievalResults = context.index.search({
      text,
      numberOfResults,
      filter: configuration?.filter,
    });
    const payload = JSON.stringify({ retrievalResults });
    response.writeHead(200, {
      'content-type': 'application/json',
      'x-amzn-requestid': crypto.randomUUID(),
      'content-length': String(Buffer.byteLength(payload)),
    });
    response.end(payload);
  } catch (error) {
    if (!(error instanceof InvalidRetrievalFilterError)) throw error;
    sendAwsError(response, {
      statusCode: 400,
      type: 'ValidationException',
      message: error.message,
    });
  }
}
