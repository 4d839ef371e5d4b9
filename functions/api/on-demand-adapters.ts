import type { AttachmentStore } from '../attachments/ports.js';
import type { Log } from '../chat/log.js';
import type { InsightsStore, TicketCatalog } from '../insights/ports.js';
import type { KnowledgeDocuments } from '../knowledge/ports.js';
import type { FunctionConfig } from '../settings/function-settings.js';

/**
 * The adapters only a publish or a lead's insights read needs, loaded on their first use: the S3
 * and Bedrock Agent clients stay out of the chat's cold start (bench/chat: module init).
 */

/**
 * The document bucket and data source of knowledge capture, when the deployment has them,
 * loaded on first use: the S3 and Bedrock Agent clients are a fifth of the bundle and only a
 * publish needs them, so no cold start evaluates them (bench/chat: module init).
 */
export function knowledgeDocumentsFor(
  config: FunctionConfig,
  tracing: { captureClient<Client extends object>(client: Client): Client },
): KnowledgeDocuments | undefined {
  const bucket = config.knowledge.bucket;
  const dataSourceId = config.knowledge.dataSourceId;
  if (!bucket || !dataSourceId) return undefined;
  let loaded: Promise<KnowledgeDocuments> | undefined;
  const load = () => {
    loaded ??= import('../adapters/bedrock/knowledge-base-documents.js').then((adapter) =>
      adapter.createKnowledgeBaseDocumentsWithClients(
        {
          region: config.endpoints.region,
          s3Endpoint: config.endpoints.s3,
          agentEndpoint: config.endpoints.bedrockAgent,
          capture: (client) => tracing.captureClient(client),
        },
        {
          bucket,
          keyPrefix: config.knowledge.keyPrefix,
          knowledgeBaseId: config.knowledgeBase.id,
          dataSourceId,
        },
      ),
    );
    return loaded;
  };
  return {
    write: async (files) => (await load()).write(files),
    remove: async (names) => (await load()).remove(names),
    startSync: async () => (await load()).startSync(),
    uploadedCategories: async () => (await load()).uploadedCategories(),
  };
}

/**
 * The Knowledge Base's ticket catalog (issue #28), when the function knows its data source
 * (`KNOWLEDGE_DATA_SOURCE_ID`: a stack that created the Knowledge Base or was given its data
 * source); an existing Knowledge Base without one has none. Loaded on a lead's first insights read,
 * like the capture adapter: no cold start evaluates the Bedrock Agent client for it. The adapter
 * caches one listing per instance for 15 minutes.
 */
export function ticketCatalogFor(
  config: FunctionConfig,
  tracing: { captureClient<Client extends object>(client: Client): Client },
  log: Log,
): TicketCatalog | undefined {
  const dataSourceId = config.knowledge.dataSourceId;
  if (!dataSourceId) return undefined;
  let loaded: Promise<TicketCatalog> | undefined;
  return {
    issueIds: async () => {
      loaded ??= import('../adapters/bedrock/knowledge-base-ticket-catalog.js').then((adapter) =>
        adapter.createKnowledgeBaseTicketCatalogWithClient(
          {
            region: config.endpoints.region,
            agentEndpoint: config.endpoints.bedrockAgent,
            capture: (client) => tracing.captureClient(client),
          },
          { knowledgeBaseId: config.knowledgeBase.id, dataSourceId, log },
        ),
      );
      return (await loaded).issueIds();
    },
  };
}

/**
 * A function without `INSIGHTS_TABLE` (a deployment older than the table) has no figures to
 * show: a lead's read is a 500 with the reason in the log, not an empty page that would look
 * like a quiet month.
 */
export const withoutInsightsStore: Pick<InsightsStore, 'readInsights'> = {
  readInsights: () => Promise.reject(new Error('INSIGHTS_TABLE is not set: no insights store')),
};

/**
 * The attachments' bucket (ADR 0030), loaded on the first upload or chat that names one: no cold
 * start of a text-only chat evaluates the S3 client for it. Without `ATTACHMENTS_BUCKET` every
 * use fails (a 500 with this reason in the log).
 */
export function attachmentStoreFor(
  config: FunctionConfig,
  tracing: { captureClient<Client extends object>(client: Client): Client },
): AttachmentStore {
  const bucket = config.attachments.bucket;
  let loaded: Promise<AttachmentStore> | undefined;
  const load = () => {
    if (!bucket) return Promise.reject(new Error('ATTACHMENTS_BUCKET is not set: no attachments'));
    loaded ??= import('../adapters/s3/s3-attachment-store.js').then((adapter) =>
      adapter.createS3AttachmentStoreWithClient(
        {
          region: config.endpoints.region,
          s3Endpoint: config.endpoints.s3,
          capture: (client) => tracing.captureClient(client),
        },
        { bucket, keyPrefix: config.attachments.keyPrefix },
      ),
    );
    return loaded;
  };
  return {
    put: async (owner, attachment) => (await load()).put(owner, attachment),
    get: async (owner, id) => (await load()).get(owner, id),
    describe: async (owner, id) => (await load()).describe(owner, id),
    remove: async (owner, ids) => (await load()).remove(owner, ids),
  };
}
