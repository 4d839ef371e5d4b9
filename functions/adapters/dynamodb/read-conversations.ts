import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  ConversationConflictError,
  ConversationNotFoundError,
  InvalidCursorError,
} from '../../chat/errors.js';
import type {
  ConversationSummary,
  ConversationWithTurns,
  ListConversationsResult,
  Owner,
} from '../../chat/ports.js';
import {
  type ConversationItem,
  conversationKeyOf,
  isConversationId,
  isExpired,
  nowSeconds,
  ownerIdForConversation,
  ownerIdOf,
  searchKeyOf,
  type TurnItem,
  toConversationSummary,
  toTurn,
} from './conversation-items.js';
import type { StoreContext } from './store-context.js';
import { conversationsTable } from './table-definitions.js';
import { cacheKeyOf } from './turn-cache.js';
import { readConversationItem } from './versioned-commit.js';

/** The conversation row alone (one consistent read): cheap enough for ETag / 304 checks. */
export async function getConversation(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
): Promise<ConversationSummary> {
  const ownerId = ownerIdForConversation(owner, conversationId);
  const item = await readConversationItem(context, ownerId, conversationId);
  if (!item) throw new ConversationNotFoundError();
  return toConversationSummary(item);
}

/**
 * The conversation and its turns at one version. A consistent read gives the current version;
 * the cache answers when it holds exactly that version. Otherwise the turns are queried and the
 * version re-read: unchanged means no commit happened in between, so the turns are exactly the
 * history at that version and may be cached. Moved means retry.
 */
export async function loadConversation(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
): Promise<ConversationWithTurns> {
  const ownerId = ownerIdForConversation(owner, conversationId);
  const key = cacheKeyOf(ownerId, conversationId);
  for (let attempt = 1; attempt <= context.maxAttempts; attempt++) {
    if (attempt > 1) await context.backoff(attempt - 1);
    const conversation = await readConversationItem(context, ownerId, conversationId);
    if (!conversation) {
      context.cache.delete(key);
      throw new ConversationNotFoundError();
    }
    const cached = context.cache.get(key);
    if (cached && cached.conversation.version === conversation.version) {
      return present(context, conversation, cached.turns);
    }
    const turns = await queryAllTurns(context, conversationKeyOf(ownerId, conversationId));
    const confirmed = await readConversationItem(context, ownerId, conversationId);
    if (!confirmed) throw new ConversationNotFoundError();
    if (confirmed.version === conversation.version) {
      context.cache.set(key, { conversation: confirmed, turns });
      return present(context, confirmed, turns);
    }
  }
  throw new ConversationConflictError();
}

function present(
  context: StoreContext,
  conversation: ConversationItem,
  turns: readonly TurnItem[],
): ConversationWithTurns {
  const now = nowSeconds(context);
  // Only turns written before retention became per conversation carry an expiresAt of their own.
  return {
    conversation: toConversationSummary(conversation),
    turns: turns.filter((turn) => !isExpired(turn, now)).map(toTurn),
  };
}

/** Every turn of one conversation in `seq` order: consistent reads, following every page. */
export async function queryAllTurns(
  context: Pick<StoreContext, 'documents'> & { readonly tables: { readonly turns: string } },
  conversationKey: string,
  projection?: string,
): Promise<TurnItem[]> {
  const turns: TurnItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await context.documents.send(
      new QueryCommand({
        TableName: context.tables.turns,
        KeyConditionExpression: 'conversationKey = :key',
        ExpressionAttributeValues: { ':key': conversationKey },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
        ...(projection ? { ProjectionExpression: projection } : {}),
      }),
    );
    turns.push(...((page.Items ?? []) as TurnItem[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return turns;
}

const defaultLimit = 20;
const maxLimit = 100;

/** The row attributes a list returns (the search keys stay behind: they are read, not sent). */
const SUMMARY_ATTRIBUTES = [
  'ownerId',
  'conversationId',
  'title',
  'createdAt',
  'updatedAt',
  'version',
  'turnCount',
  'openInquiryId',
  'latestInquiryId',
  'answering',
  'expiresAt',
];

/** A search reads at most this many rows per request, then hands back a cursor to go on. */
const maxRowsScannedPerSearch = 500;
/**
 * Words of a search DynamoDB's filter checks. Each adds about 130 characters to an expression
 * DynamoDB caps at 4 KB, and a 200-character query can hold 100 words, so past these the rows
 * the filter passed are checked here for the remaining words (the search keys then come along).
 * Every word counts either way; a filter saves no reads, only the transfer of rows it drops.
 */
const maxFilteredTerms = 5;

/**
 * The owner's conversations, most recent activity first, through the `byUpdatedAt` LSI. With
 * `query`, only those whose title or messages contain every word of it (`searchKeyOf` on both
 * sides): DynamoDB filters the owner's own rows, page by page, so a search costs the reads of the
 * rows it passes over — bounded per request, continued with the cursor.
 */
export async function listConversations(
  context: StoreContext,
  owner: Owner,
  options: { limit?: number; cursor?: string; query?: string } = {},
): Promise<ListConversationsResult> {
  const ownerId = ownerIdOf(owner);
  const limit = Math.min(Math.max(1, Math.floor(options.limit ?? defaultLimit)), maxLimit);
  const start = options.cursor === undefined ? undefined : decodeListCursor(options.cursor);
  const terms = searchTermsOf(options.query);
  const filter = searchFilterOf(terms);
  // Words the filter leaves out are matched here, on the search keys read with each row.
  const checkedHere = terms.length > maxFilteredTerms;
  const names = Object.fromEntries(SUMMARY_ATTRIBUTES.map((name, index) => [`#a${index}`, name]));
  const now = nowSeconds(context);
  const items: ConversationItem[] = [];
  let startKey: Record<string, unknown> | undefined = start ? { ownerId, ...start } : undefined;
  let scanned = 0;
  do {
    const page = await context.documents.send(
      new QueryCommand({
        TableName: context.tables.conversations,
        IndexName: conversationsTable.localSecondaryIndexes[0].indexName,
        KeyConditionExpression: '#owner = :ownerId',
        ExpressionAttributeNames: { ...names, ...filter?.names, '#owner': 'ownerId' },
        ExpressionAttributeValues: { ':ownerId': ownerId, ...filter?.values },
        ProjectionExpression: [
          ...Object.keys(names),
          ...(checkedHere ? ['#questionText', '#titleKey'] : []),
        ].join(', '),
        ...(filter ? { FilterExpression: filter.expression } : {}),
        ScanIndexForward: false,
        // An LSI shares the base table's partition, so it supports consistent reads.
        ConsistentRead: true,
        // A search reads ahead (its filter drops rows after the read); a plain list reads a page.
        Limit: filter ? Math.min(100, maxRowsScannedPerSearch - scanned) : limit,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    scanned += page.ScannedCount ?? 0;
    for (const item of (page.Items ?? []) as ConversationItem[]) {
      if (items.length === limit) break;
      if (isExpired(item, now) || (checkedHere && !matchesEveryTerm(item, terms))) continue;
      items.push(item);
    }
    startKey = page.LastEvaluatedKey;
    const lastTaken = items.at(-1);
    // Stopped inside a page: go on after the last row returned, not after the page.
    if (items.length === limit && lastTaken && (page.Items ?? []).at(-1) !== lastTaken) {
      startKey = {
        ownerId,
        conversationId: lastTaken.conversationId,
        updatedAt: lastTaken.updatedAt,
      };
    }
  } while (filter && startKey && items.length < limit && scanned < maxRowsScannedPerSearch);
  const last = startKey as { updatedAt: string; conversationId: string } | undefined;
  return {
    items: items.map(toConversationSummary),
    ...(last ? { nextCursor: encodeListCursor(last) } : {}),
  };
}

/** The distinct words of a query, in the form the search keys are stored in. */
function searchTermsOf(query: string | undefined): string[] {
  return [
    ...new Set(
      searchKeyOf(query ?? '')
        .split(' ')
        .filter(Boolean),
    ),
  ];
}

/**
 * `contains` on the search keys for each word, the longest (most selective) `maxFilteredTerms`
 * of them; rows written before the keys existed match on their raw title.
 */
function searchFilterOf(terms: readonly string[]) {
  if (terms.length === 0) return undefined;
  const filtered = [...terms].sort((a, b) => b.length - a.length).slice(0, maxFilteredTerms);
  const values: Record<string, string> = {};
  const clauses = filtered.map((term, index) => {
    values[`:q${index}`] = term;
    return `(contains(#questionText, :q${index}) OR contains(#titleKey, :q${index}) OR (attribute_not_exists(#titleKey) AND contains(#title, :q${index})))`;
  });
  return {
    expression: clauses.join(' AND '),
    names: { '#questionText': 'questionText', '#titleKey': 'titleKey', '#title': 'title' },
    values,
  };
}

/** What the filter expresses, for every word: `contains` on the row's search keys. */
function matchesEveryTerm(item: ConversationItem, terms: readonly string[]): boolean {
  return terms.every(
    (term) =>
      item.questionText?.includes(term) ||
      item.titleKey?.includes(term) ||
      (item.titleKey === undefined && item.title.includes(term)),
  );
}

/**
 * The opaque sidebar cursor: the last item's `updatedAt` and `conversationId`, base64url JSON.
 * The owner is deliberately not in it — it is always taken from the verified identity, so a
 * forged cursor can only move within the caller's own partition.
 *
 * Decoding checks both parts as strictly as the items they come from (an ISO timestamp as the
 * store writes it, a ULID): DynamoDB refuses an empty or oversized key part with a
 * ValidationException, which would otherwise surface as a 500 instead of the client's mistake.
 */
function encodeListCursor(key: { updatedAt: string; conversationId: string }): string {
  return Buffer.from(JSON.stringify([key.updatedAt, key.conversationId])).toString('base64url');
}

/** `Date.prototype.toISOString` output, the only form `updatedAt` is written in. */
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function decodeListCursor(cursor: string): { updatedAt: string; conversationId: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string' &&
      ISO_TIMESTAMP.test(value[0]) &&
      isConversationId(value[1])
    ) {
      return { updatedAt: value[0], conversationId: value[1] };
    }
  } catch {
    // fall through: not JSON
  }
  throw new InvalidCursorError();
}
