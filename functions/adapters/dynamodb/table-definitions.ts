/**
 * The tables of the app, defined once as plain data: the two conversation tables and the
 * insights aggregates (ADR 0022). The CDK construct
 * (`lib/constructs/conversation-tables.ts`) and the local stack (`local/create-tables.ts`) both
 * build their tables from this object, so names, keys and indexes can never drift apart.
 * No AWS imports here: the function bundle imports it too (for index names).
 */
export interface KeyAttribute {
  readonly name: string;
  readonly type: 'S' | 'N';
}

export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey: KeyAttribute;
}

export interface TableDefinition {
  /** Logical name; the deployed physical name is chosen by CloudFormation, the local one is `prefix + baseName`. */
  readonly baseName: string;
  readonly partitionKey: KeyAttribute;
  readonly sortKey: KeyAttribute;
  readonly timeToLiveAttribute: string;
  /** LSIs share the partition key and allow consistent reads; they must exist at table creation. */
  readonly localSecondaryIndexes: readonly IndexDefinition[];
  readonly globalSecondaryIndexes: readonly IndexDefinition[];
}

export const conversationsTable = {
  baseName: 'Conversations',
  partitionKey: { name: 'ownerId', type: 'S' },
  sortKey: { name: 'conversationId', type: 'S' },
  timeToLiveAttribute: 'expiresAt',
  localSecondaryIndexes: [
    {
      indexName: 'byUpdatedAt',
      partitionKey: { name: 'ownerId', type: 'S' },
      sortKey: { name: 'updatedAt', type: 'S' },
    },
  ],
  globalSecondaryIndexes: [],
} as const satisfies TableDefinition;

export const turnsTable = {
  baseName: 'Turns',
  partitionKey: { name: 'conversationKey', type: 'S' },
  sortKey: { name: 'seq', type: 'N' },
  timeToLiveAttribute: 'expiresAt',
  localSecondaryIndexes: [],
  globalSecondaryIndexes: [],
} as const satisfies TableDefinition;

export const conversationTableDefinitions = [conversationsTable, turnsTable] as const;

/**
 * Service-desk insights (issue #28, ADR 0022): counters per tenant and day, topic or ticket, and
 * the few items holding scrubbed inquiry text (gap examples, solved inquiries), keyed
 * `pk = <tenant>#<kind>`, `sk` a day or `<day>#<topic|ticket>` or `<conversationId>#<seq>`
 * (`functions/adapters/dynamodb/insights-store.ts`). No indexes: every read is a key range.
 */
export const insightsTable = {
  baseName: 'Insights',
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  timeToLiveAttribute: 'expiresAt',
  localSecondaryIndexes: [],
  globalSecondaryIndexes: [],
} as const satisfies TableDefinition;

/** Every table, as the local stack and the tests create them. */
export const tableDefinitions = [...conversationTableDefinitions, insightsTable] as const;

/** Physical names of every table: the conversation tables and `insights`. */
export interface TableNames extends ConversationTableNames {
  readonly insights: string;
}

/** Physical table names the function reads from its environment. */
export interface ConversationTableNames {
  readonly conversations: string;
  readonly turns: string;
}

/**
 * The `userIdentity` of a DynamoDB Streams REMOVE record written by TTL, as opposed to a delete
 * by a user or a function. The event source mapping filters on it and the retention sweeper
 * checks it again. https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/time-to-live-ttl-streams.html
 */
export const ttlDeletionIdentity = {
  type: 'Service',
  principalId: 'dynamodb.amazonaws.com',
} as const;

/**
 * The owed-sync marker of knowledge capture: one item of the Turns table at seq 0, under a key
 * that can never look like a conversation key (which ends in a ULID). Here because the sync
 * catch-up's IAM policy names it (`dynamodb:LeadingKeys`) as well as the adapter.
 */
export const syncBacklogKey = { conversationKey: 'knowledge#sync-pending', seq: 0 } as const;

/**
 * The deployed ticket sync's state (ADR 0032), one partition per source (`source` = the
 * `ticketSync` entry's id): its cursor and lease (`item = cursor`), its last runs' status
 * (`status`) and the content hash of every ticket it wrote (`ticket#<issue id>`). A table of its
 * own, not items of the conversation tables: each source's function is granted its own
 * partition (`dynamodb:LeadingKeys`) and nothing of the staff's history.
 */
export const ticketSyncTable = {
  baseName: 'TicketSync',
  partitionKey: { name: 'source', type: 'S' },
  sortKey: { name: 'item', type: 'S' },
  timeToLiveAttribute: 'expiresAt',
  localSecondaryIndexes: [],
  globalSecondaryIndexes: [],
} as const satisfies TableDefinition;
