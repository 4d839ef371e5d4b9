import { join } from 'node:path';
import type { VectorStore } from '../../functions/adapters/bedrock/vector-store-search.js';
import { ticketSidecarsOf } from '../../lib/ticket-categories.js';
import { sendAwsError } from './aws-json-protocol.js';
import { handleConverseStream } from './handle-converse-stream.js';
import {
  handleGetIngestionJob,
  handleStartIngestionJob,
  type IngestionJob,
  type RecordedIngestionJob,
} from './handle-ingestion-job.js';
import { handleListKnowledgeBaseDocuments } from './handle-list-documents.js';
import { handleRetrieve } from './handle-retrieve.js';
import { openKnowledgeBaseDataSource } from './knowledge-base-data-source.js';
import {
  type ConnectionCounts,
  type LocalRequestHandler,
  listenH2cAndHttp1,
} from './listen-h2c-and-http1.js';
import {
  DEFAULT_PACING,
  LOCAL_DATA_SOURCE_ID,
  LOCAL_KNOWLEDGE_BASE_ID,
  LOCAL_KNOWLEDGE_BUCKET,
  LOCAL_TICKET_BUCKET,
} from './local-bedrock-defaults.js';
import type { ModelScript } from './model-script.js';
import { createLocalPromptCache, type LocalPromptCacheOptions } from './prompt-cache.js';
import type { RecordedConverseRequest, RecordedRetrieveRequest } from './recorded-requests.js';
import type { FragmentSentHook } from './write-converse-stream.js';

export interface LocalBedrockServerOptions {
  /** @default 0 (a random free port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /**
   * Knowledge Base documents: `<id>.md` + `<id>.md.metadata.json` (`TICKETS_DIR` of `npm start`).
   * A folder that is missing or holds no ticket stops the start with its name.
   * @default 'data/tickets'
   */
  readonly ticketsDir?: string;
  /**
   * The local S3 folder publishing writes tickets to (`<s3 root>/<bucket>/tickets/published`),
   * read at start and by every ingestion job, beside `ticketsDir`. @default none
   */
  readonly publishedDir?: string;
  /** Where `publishedDir` is in S3, for the retrieval results' URIs. @default `s3://local-knowledge-documents/tickets/published/` */
  readonly publishedUriPrefix?: string;
  /**
   * Where the Knowledge Base index keeps its snapshot and analysis cache between starts
   * (ADR 0021): with them a restart over 100,000 unchanged tickets reads one file and analyses
   * nothing, and a changed ticket is analysed alone. Written after the server is listening
   * (`DataSourceOptions.writeCachesAfterReady`); `close` waits for them. @default none (tests)
   */
  readonly indexCacheDirectory?: string;
  /** The only Knowledge Base id served; others get ResourceNotFoundException. @default LOCAL_KNOWLEDGE_BASE_ID */
  readonly knowledgeBaseId?: string;
  /**
   * The vector store the local Knowledge Base plays (what it refuses, not how it ranks).
   * @default 'opensearch-serverless'
   */
  readonly vectorStore?: VectorStore;
  /** Gap between streamed fragments of the offline responder. Use `{ minMs: 0, maxMs: 0 }` in tests. @default DEFAULT_PACING */
  readonly pacing?: { readonly minMs: number; readonly maxMs: number };
  /**
   * Called right after each tool-input fragment is written, with `performance.now()`; for
   * benchmarks that time the pipeline behind the endpoint (bench/chat). @default undefined
   */
  readonly onFragmentSent?: FragmentSentHook;
  /** The prompt-cache model's clock and TTL (tests). @default Date.now, 5 minutes */
  readonly promptCache?: LocalPromptCacheOptions;
}

export interface LocalBedrockServer {
  /** For `BedrockRuntimeClient({ endpoint })` (`BEDROCK_RUNTIME_ENDPOINT`). */
  readonly runtimeEndpoint: string;
  /** For `BedrockAgentRuntimeClient({ endpoint })` (`BEDROCK_AGENT_RUNTIME_ENDPOINT`); same port. */
  readonly agentRuntimeEndpoint: string;
  readonly knowledgeBaseId: string;
  /** The Knowledge Base's one data source (`StartIngestionJob`). */
  readonly dataSourceId: string;
  /** For `BedrockAgentClient({ endpoint })` (`BEDROCK_AGENT_ENDPOINT`); same port. */
  readonly agentEndpoint: string;
  /** Answer the next ConverseStream request with this script (FIFO), whatever the model id. */
  enqueueScript(script: ModelScript): void;
  /** Every ConverseStream request received, in order. */
  readonly converseRequests: RecordedConverseRequest[];
  /** Every Retrieve request received, in order. */
  readonly retrieveRequests: RecordedRetrieveRequest[];
  /** Every StartIngestionJob request received, in order, with the job it answered. */
  readonly ingestionJobs: RecordedIngestionJob[];
  /** TCP connections accepted so far, by protocol: how often the clients connected. */
  readonly connections: Readonly<ConnectionCounts>;
  close(): Promise<void>;
}

const CONVERSE_STREAM_PATH = /^\/model\/([^/]+)\/converse-stream$/;
const RETRIEVE_PATH = /^\/knowledgebases\/([^/]+)\/retrieve$/;
const INGESTION_JOBS_PATH =
  /^\/knowledgebases\/([^/]+)\/datasources\/([^/]+)\/ingestionjobs\/([^/]*)$/;
const DOCUMENTS_PATH = /^\/knowledgebases\/([^/]+)\/datasources\/([^/]+)\/documents$/;

/**
 * Starts the local Bedrock endpoint: ConverseStream (Bedrock Runtime), Retrieve (Agent
 * Runtime) and StartIngestionJob/GetIngestionJob/ListKnowledgeBaseDocuments (Bedrock Agent, the
 * Knowledge Base's control plane) over the real wire protocols, so the real SDK clients talk to it with only
 * `endpoint`, dummy credentials and a region changed. The runtime clients default to HTTP/2; HTTP/1.1
 * is served on the same port too (curl, `NodeHttpHandler`, which the function uses).
 *
 * @example
 * const bedrock = await startLocalBedrockServer({ pacing: { minMs: 0, maxMs: 0 } });
 * const client = new BedrockRuntimeClient({
 *   endpoint: bedrock.runtimeEndpoint,
 *   region: 'us-east-1',
 *   credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
 * });
 * // …
 * await bedrock.close();
 */
export async function startLocalBedrockServer(
  options: LocalBedrockServerOptions = {},
): Promise<LocalBedrockServer> {
  const knowledgeBaseId = options.knowledgeBaseId ?? LOCAL_KNOWLEDGE_BASE_ID;
  const ticketsDir = options.ticketsDir ?? join(process.cwd(), 'data', 'tickets');
  ticketSidecarsOf(ticketsDir); // throws, naming the folder, when it holds no ticket
  const dataSource = await openKnowledgeBaseDataSource(
    [
      {
        directory: ticketsDir,
        uriPrefix: `s3://${LOCAL_TICKET_BUCKET}/`,
      },
      ...(options.publishedDir === undefined
        ? []
        : [
            {
              directory: options.publishedDir,
              uriPrefix:
                options.publishedUriPrefix ?? `s3://${LOCAL_KNOWLEDGE_BUCKET}/tickets/published/`,
            },
          ]),
    ],
    // Serving first: the caches for the next start are written while Retrieve answers.
    { indexCacheDirectory: options.indexCacheDirectory, writeCachesAfterReady: true },
  );
  const ingestionJobs: RecordedIngestionJob[] = [];
  const ingestionContext = {
    knowledgeBaseId,
    dataSourceId: LOCAL_DATA_SOURCE_ID,
    dataSource,
    jobs: new Map<string, IngestionJob>(),
    record: (recorded: RecordedIngestionJob) => ingestionJobs.push(recorded),
  };
  const scripts: ModelScript[] = [];
  const converseRequests: RecordedConverseRequest[] = [];
  const retrieveRequests: RecordedRetrieveRequest[] = [];
  const pacing = options.pacing ?? DEFAULT_PACING;
  const promptCache = createLocalPromptCache(options.promptCache);

  const route = async (...[request, response]: Parameters<LocalRequestHandler>) => {
    const path = new URL(request.url ?? '/', 'http://local').pathname;
    const converse = CONVERSE_STREAM_PATH.exec(path);
    const retrieve = RETRIEVE_PATH.exec(path);
    const ingestion = INGESTION_JOBS_PATH.exec(path);
    const documents = DOCUMENTS_PATH.exec(path);
    if (request.method === 'POST' && converse?.[1] !== undefined) {
      await handleConverseStream(request, response, decodeURIComponent(converse[1]), {
        takeScript: () => scripts.shift(),
        record: (recorded) => converseRequests.push(recorded),
        pacing,
        promptCache,
        onFragmentSent: options.onFragmentSent,
      });
    } else if (request.method === 'POST' && retrieve?.[1] !== undefined) {
      await handleRetrieve(request, response, decodeURIComponent(retrieve[1]), {
        knowledgeBaseId,
        index: dataSource.index,
        record: (recorded) => retrieveRequests.push(recorded),
        vectorStore: options.vectorStore ?? 'opensearch-serverless',
      });
    } else if (ingestion !== null && request.method === 'PUT' && ingestion[3] === '') {
      await handleStartIngestionJob(request, response, ingestionPath(ingestion), ingestionContext);
    } else if (ingestion !== null && request.method === 'GET' && ingestion[3] !== '') {
      handleGetIngestionJob(
        response,
        { ...ingestionPath(ingestion), ingestionJobId: decodeURIComponent(ingestion[3] ?? '') },
        ingestionContext,
      );
    } else if (documents !== null && request.method === 'POST') {
      await handleListKnowledgeBaseDocuments(
        request,
        response,
        ingestionPath(documents),
        ingestionContext,
      );
    } else {
      sendAwsError(response, {
        statusCode: 404,
        type: 'UnknownOperationException',
        message: `The local Bedrock endpoint does not serve ${request.method} ${path}`,
      });
    }
  };

  const listener = await listenH2cAndHttp1(
    (request, response) => {
      route(request, response).catch((error: unknown) => {
        // A bug here must show up as a 500 the SDK reports, not as a hung request.
        console.error('local Bedrock endpoint failed', error);
        if (!response.headersSent) {
          sendAwsError(response, {
            statusCode: 500,
            type: 'InternalServerException',
            message: 'The local Bedrock endpoint failed; see its log.',
          });
        } else response.end();
      });
    },
    { port: options.port ?? 0, host: options.host ?? '127.0.0.1' },
  );

  return {
    runtimeEndpoint: listener.url,
    agentRuntimeEndpoint: listener.url,
    agentEndpoint: listener.url,
    knowledgeBaseId,
    dataSourceId: LOCAL_DATA_SOURCE_ID,
    enqueueScript: (script) => {
      scripts.push(script);
    },
    converseRequests,
    retrieveRequests,
    ingestionJobs,
    connections: listener.connections,
    // A cache still being written is finished, not left as a temporary file.
    close: async () => {
      await listener.close();
      await dataSource.cachesWritten();
    },
  };
}

const ingestionPath = (match: RegExpExecArray) => ({
  knowledgeBaseId: decodeURIComponent(match[1] ?? ''),
  dataSourceId: decodeURIComponent(match[2] ?? ''),
});
