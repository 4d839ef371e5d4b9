/**
 * The names a deployed stack is found and used by: its outputs, and where the ticket documents
 * live in its document bucket. The stack writes them; the operator commands (`npm run import`,
 * `insights`, `eval`, `usage`, `ingest`) and the integration suite read them. Kept apart from the
 * constructs, which load aws-cdk-lib: a command that only needs a name would spend about a
 * second of CPU loading the whole CDK library first (test/architecture/command-imports.test.ts).
 */

/** The names of the stack outputs. */
export const stackOutputNames = {
  siteUrl: 'SiteUrl',
  userPoolId: 'UserPoolId',
  userPoolClientId: 'UserPoolClientId',
  /** The acceptance suite's Cognito client (ADMIN_USER_PASSWORD_AUTH), not the staff's. */
  acceptanceTestClientId: 'AcceptanceTestClientId',
  cognitoDomain: 'CognitoDomainUrl',
  conversationsTable: 'ConversationsTableName',
  turnsTable: 'TurnsTableName',
  /** The insights aggregates (issue #28): `npm run insights` and `npm run eval -- --from-feedback` find them by it. */
  insightsTable: 'InsightsTableName',
  knowledgeBaseId: 'KnowledgeBaseId',
  dataSourceId: 'DataSourceId',
  documentBucket: 'TicketDocumentsBucket',
  functionUrl: 'ApiFunctionUrl',
  functionName: 'ApiFunctionName',
  knowledgeEditorGroup: 'KnowledgeEditorGroup',
  /** The Cognito group of service-desk leads, who may open the insights page. */
  serviceDeskLeadGroup: 'ServiceDeskLeadGroup',
  /** The `vectorStore` setting: what the acceptance suite and `npm run eval` report and search by. */
  vectorStore: 'VectorStore',
  /** The issuer of staff's access tokens: the stack's pool, or `authIssuer` (no pool then). */
  authIssuer: 'AuthIssuer',
  /** The ticket sync's state (cursors, status; ADR 0032), when `ticketSync` lists a source. */
  ticketSyncTable: 'TicketSyncTableName',
  /** The `ticketSync` entries' ids, comma-separated: `npm run import -- --status --target aws`. */
  ticketSyncSources: 'TicketSyncSources',
} as const;

/** Key prefix of the ticket documents in the document bucket: the data source's inclusion prefix. */
export const ticketsKeyPrefix = 'tickets/';

/**
 * Key prefix of the tickets staff publish from solved inquiries (knowledge capture). Inside
 * {@link ticketsKeyPrefix}, so the data source ingests them as it is; left alone by the
 * deployment's pruning (see `UploadTickets`), so a deploy keeps them.
 */
export const publishedTicketsKeyPrefix = `${ticketsKeyPrefix}published/`;

/**
 * Key prefix of the tickets `npm run import -- --upload` puts into the bucket, per source
 * (`tickets/imported/servicenow/INC0012345.md`): ingested like the seed tickets, and left alone by
 * the deployment's pruning as the published ones are (ADR 0018).
 */
export const importedTicketsKeyPrefix = `${ticketsKeyPrefix}imported/`;

/**
 * Where a `ticketSync` source's function writes (`tickets/imported/<id>/`): the folder
 * `npm run import -- --upload` fills for the same system, so an import and a sync of one system
 * never hold a ticket twice (ADR 0032).
 */
export function syncedTicketsKeyPrefix(sourceId: string): string {
  return `${importedTicketsKeyPrefix}${sourceId}/`;
}
