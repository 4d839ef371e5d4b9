import { readJsonBody, sendAwsError } from './aws-json-protocol.js';
import type { KnowledgeBaseDataSource } from './knowledge-base-data-source.js';
import type { LocalRequest, LocalResponse } from './listen-h2c-and-http1.js';

export interface ListDocumentsContext {
  readonly knowledgeBaseId: string;
  readonly dataSourceId: string;
  readonly dataSource: Pick<KnowledgeBaseDataSource, 'documentUris'>;
}

/** The API's `maxResults` range; a listing without one gets the largest page. */
const MAX_RESULTS = 1000;

/**
 * `POST /knowledgebases/{kbId}/datasources/{dsId}/documents` (ListKnowledgeBaseDocuments) over
 * the local index: every document it holds (the served ticket folder and the published
 * documents, after the last sync) as an `INDEXED` S3 document, in URI order, `maxResults` (1–1000,
 * else ValidationException as the API answers) a page. The `nextToken` is the offset of the next
 * page into that order; a sync between two pages may shift it, as a real listing during a sync
 * may also show a document twice or not at all.
 */
export async function handleListKnowledgeBaseDocuments(
  request: LocalRequest,
  response: LocalResponse,
  path: { readonly knowledgeBaseId: string; readonly dataSourceId: string },
  context: ListDocumentsContext,
): Promise<void> {
  const body = await readJsonBody<{ maxResults?: unknown; nextToken?: unknown }>(request, response);
  if (body === undefined) return;
  if (
    path.knowledgeBaseId !== context.knowledgeBaseId ||
    path.dataSourceId !== context.dataSourceId
  ) {
    sendAwsError(response, {
      statusCode: 404,
      type: 'ResourceNotFoundException',
      message: `Data source ${path.dataSourceId} of knowledge base ${path.knowledgeBaseId} does not exist (the local one is ${context.dataSourceId} of ${context.knowledgeBaseId}).`,
    });
    return;
  }
  const maxResults = body.maxResults ?? MAX_RESULTS;
  if (
    typeof maxResults !== 'number' ||
    !Number.isInteger(maxResults) ||
    maxResults < 1 ||
    maxResults > MAX_RESULTS
  ) {
    sendAwsError(response, {
      statusCode: 400,
      type: 'ValidationException',
      message: `maxResults must be an integer from 1 to ${MAX_RESULTS}`,
    });
    return;
  }
  const uris = context.dataSource.documentUris();
  const offset = body.nextToken === undefined ? 0 : Number(body.nextToken);
  if (
    (body.nextToken !== undefined && typeof body.nextToken !== 'string') ||
    !Number.isSafeInteger(offset) ||
    offset < 0 ||
    offset > uris.length
  ) {
    sendAwsError(response, {
      statusCode: 400,
      type: 'ValidationException',
      message: 'nextToken is not one this listing gave',
    });
    return;
  }
  const end = Math.min(uris.length, offset + maxResults);
  const payload = JSON.stringify({
    documentDetails: uris.slice(offset, end).map((uri) => ({
      knowledgeBaseId: path.knowledgeBaseId,
      dataSourceId: path.dataSourceId,
      status: 'INDEXED',
      identifier: { dataSourceType: 'S3', s3: { uri } },
    })),
    ...(end < uris.length ? { nextToken: String(end) } : {}),
  });
  response.writeHead(200, {
    'content-type': 'application/json',
    'x-amzn-requestid': crypto.randomUUID(),
    'content-length': String(Buffer.byteLength(payload)),
  });
  response.end(payload);
}
