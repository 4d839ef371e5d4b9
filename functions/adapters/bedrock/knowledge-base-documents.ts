import {
  BedrockAgentClient,
  ConflictException,
  StartIngestionJobCommand,
} from '@aws-sdk/client-bedrock-agent';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { KnowledgeDocuments } from '../../knowledge/ports.js';
import type { TicketDocumentFiles, TicketDocumentNames } from '../../knowledge/ticket-document.js';

/**
 * Where `npm run import -- --upload` leaves the category set of each source's uploaded tickets
 * (`ticket-categories/imported-servicenow.json`: a JSON array): outside the data source's inclusion
 * prefix (`tickets/`), so no sync ingests it and no deploy prunes it.
 */
export const UPLOADED_CATEGORIES_KEY_PREFIX = 'ticket-categories/';

/** At most this many category files are read (one per import source in practice). */
const MAX_CATEGORY_FILES = 20;

export interface KnowledgeBaseDocumentsOptions {
  readonly s3: S3Client;
  readonly agent: BedrockAgentClient;
  readonly bucket: string;
  /** Inside the data source's inclusion prefix, e.g. `tickets/published/`. */
  readonly keyPrefix: string;
  readonly knowledgeBaseId: string;
  readonly dataSourceId: string;
  /**
   * Waits before each retry of a sync refused because one is running (one job per data source
   * at a time). @default 1, 2 and 4 seconds: a short job finishes, a long one is left to finish.
   */
  readonly syncRetryDelaysMs?: readonly number[];
  /** What the sync is for, in the job's description. @default a published ticket */
  readonly syncDescription?: string;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * `KnowledgeDocuments` on the Knowledge Base's S3 data source: objects in its document bucket
 * and `StartIngestionJob` on its data source (the sync that embeds new and changed documents).
 */
export function createKnowledgeBaseDocuments(
  options: KnowledgeBaseDocumentsOptions,
): KnowledgeDocuments {
  const keyOf = (name: string) => `${options.keyPrefix}${name}`;
  const put = (name: string, body: string, contentType: string) =>
    options.s3.send(
      new PutObjectCommand({
        Bucket: options.bucket,
        Key: keyOf(name),
        Body: body,
        ContentType: contentType,
      }),
    );
  return {
    async write(files: TicketDocumentFiles) {
      // The sidecar first: a sync that runs between the two writes sees either nothing (a
      // sidecar alone is no document) or both — never the document without its `restricted`
      // flag, which the retrieval filter would read as not restricted.
      await put(files.sidecarName, files.sidecar, 'application/json');
      await put(files.documentName, files.document, 'text/markdown; charset=utf-8');
    },
    async remove(names: TicketDocumentNames) {
      // The document first, for the same reason in reverse.
      for (const name of [names.documentName, names.sidecarName]) {
        await options.s3.send(
          new DeleteObjectCommand({ Bucket: options.bucket, Key: keyOf(name) }),
        );
      }
    },
    startSync: () => startKnowledgeBaseSync(options),
    uploadedCategories: () => readUploadedCategories(options.s3, options.bucket),
  };
}

/**
 * Every category the category files under {@link UPLOADED_CATEGORIES_KEY_PREFIX} list, as
 * written (the caller sanitizes); a file that is not a JSON array of strings adds nothing.
 */
async function readUploadedCategories(s3: S3Client, bucket: string): Promise<string[]> {
  const listing = await s3.send(
    new ListObjectsV2Command({
      Bucket: bucket,
      Prefix: UPLOADED_CATEGORIES_KEY_PREFIX,
      MaxKeys: MAX_CATEGORY_FILES,
    }),
  );
  const keys = (listing.Contents ?? [])
    .map((object) => object.Key)
    .filter((key): key is string => key?.endsWith('.json') === true);
  const files = await Promise.all(
    keys.map(async (key) => {
      const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      const text = (await object.Body?.transformToString('utf-8')) ?? '';
      try {
        const parsed: unknown = JSON.parse(text);
        return Array.isArray(parsed) ? parsed.filter((entry) => typeof entry === 'string') : [];
      } catch {
        return [];
      }
    }),
  );
  return files.flat();
}

/**
 * `StartIngestionJob` on the data source; a refusal because a job is running (one per data source
 * at a time) is retried after each of `syncRetryDelaysMs`, then reported as `pending`.
 */
export async function startKnowledgeBaseSync(
  options: Pick<
    KnowledgeBaseDocumentsOptions,
    'agent' | 'knowledgeBaseId' | 'dataSourceId' | 'syncRetryDelaysMs' | 'syncDescription' | 'sleep'
  >,
): Promise<'started' | 'pending'> {
  const delays = options.syncRetryDelaysMs ?? [1000, 2000, 4000];
  const sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 0; ; attempt++) {
    try {
      await options.agent.send(
        new StartIngestionJobCommand({
          knowledgeBaseId: options.knowledgeBaseId,
          dataSourceId: options.dataSourceId,
          description: options.syncDescription ?? 'Knowledge capture: a published ticket',
        }),
      );
      return 'started';
    } catch (error) {
      if (!(error instanceof ConflictException)) throw error;
      const delay = delays[attempt];
      // Still running: the ticket is in the bucket; the sync catch-up starts the job it is owed.
      if (delay === undefined) return 'pending';
      await sleep(delay);
    }
  }
}

/**
 * The adapter with its own clients, for the function: path-style S3 only against a local
 * endpoint (the local S3 serves no virtual hosts); `capture` lets tracing wrap each client.
 */
export function createKnowledgeBaseDocumentsWithClients(
  clients: {
    readonly region: string;
    readonly s3Endpoint?: string;
    readonly agentEndpoint?: string;
    readonly capture: <Client extends object>(client: Client) => Client;
  },
  options: Omit<KnowledgeBaseDocumentsOptions, 's3' | 'agent'>,
): KnowledgeDocuments {
  return createKnowledgeBaseDocuments({
    ...options,
    s3: clients.capture(
      new S3Client({
        region: clients.region,
        endpoint: clients.s3Endpoint,
        forcePathStyle: clients.s3Endpoint !== undefined,
      }),
    ),
    agent: clients.capture(
      new BedrockAgentClient({ region: clients.region, endpoint: clients.agentEndpoint }),
    ),
  });
}
