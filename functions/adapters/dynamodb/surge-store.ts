import {
  type AttributeValue,
  ConditionalCheckFailedException,
  type ReturnValue,
  type ReturnValuesOnConditionCheckFailure,
} from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type {
  KnownIssueStore,
  StoredKnownIssue,
  SurgeCounter,
  SurgeScope,
} from '../../surges/ports.js';
import {
  SLICES_PER_WINDOW,
  type SurgeMark,
  type SurgeSlice,
  type SurgeState,
  sliceOf,
} from '../../surges/surge-window.js';
import { translateUnavailable } from './store-unavailable.js';

/**
 * Surges and known issues on the `Insights` table (ADR 0033), beside the insights aggregates:
 *
 * | pk                    | sk                          | what                                     |
 * |-----------------------|-----------------------------|------------------------------------------|
 * | `<tenant>#surge`      | `<windowMinutes>#<topicKey>` | the topic's slices: `q<n>` inquiry       |
 * |                       |                             | hashes, `s<n>` staff hashes (string sets),|
 * |                       |                             | `f<n>` first arrival, `e<n>` an example   |
 * | `<tenant>#known-issue` | `<id>` (a ULID)            | a lead's known issue, `closedAt` once     |
 * |                       |                             | closed                                    |
 *
 * A chat's count is ONE `UpdateItem`: `ADD` to the current slice's two string sets (a set union,
 * atomic and idempotent: the same inquiry or staff member counts once), first arrival and
 * example `if_not_exists`, the slices that left the window removed, the item's TTL pushed a
 * window ahead — returning the item as it was before (`ALL_OLD`). A slice is a set of top-level
 * attributes, so no map has to exist first and no read precedes the write. The window length is
 * part of the key, so changing it starts fresh items instead of misreading old slices.
 */

export interface DynamoDbSurgeStoreOptions {
  readonly documents: DynamoDBDocumentClient;
  /** Physical name of the `Insights` table. */
  readonly tableName: string;
}

/** How long a closed or ended known issue stays readable before TTL removes it. */
const KNOWN_ISSUE_AFTERLIFE_MS = 30 * 86_400_000;

const partition = (scope: SurgeScope, kind: 'surge' | 'known-issue') => {
  if (!scope.tenantId || scope.tenantId.includes('#')) {
    throw new Error('A tenant id must be non-empty and must not contain "#"');
  }
  return `${scope.tenantId}#${kind}`;
};

const epochSeconds = (ms: number) => Math.floor(ms / 1000);
const unmarshalled = (item: Record<string, AttributeValue>) => unmarshall(item);

export function createDynamoDbSurgeCounter(options: DynamoDbSurgeStoreOptions): SurgeCounter {
  const { documents, tableName } = options;
  return translateUnavailable<SurgeCounter>({
    async countInquiry(scope, mark, windowMinutes) {
      const key = { pk: partition(scope, 'surge'), sk: `${windowMinutes}#${mark.topicKey}` };
      const current = sliceOf(mark.at, windowMinutes);
      // Almost always one request. After a quiet window the item's slices all lie outside it:
      // the update is refused (so it never keeps them) and one more removes exactly those.
      let stale: Record<string, unknown> | undefined;
      for (let attempt = 0; attempt < 3; attempt += 1) {
        try {
          const result = await documents.send(
            new UpdateCommand({
              TableName: tableName,
              Key: key,
              ...countUpdate(mark, current, windowMinutes, stale),
            }),
          );
          return stateOf(mark.topicKey, result.Attributes ?? {});
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException)) throw error;
          // Refused: the item is stale (remove what it holds), or another chat just cleaned it.
          stale = error.Item && isStale(error.Item, current) ? unmarshalled(error.Item) : undefined;
        }
      }
      throw new Error('surge count: the topic item kept changing under three attempts');
    },

    async listTopics(scope, now, windowMinutes) {
      const prefix = `${windowMinutes}#`;
      const items: Record<string, unknown>[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await documents.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
            // A topic quiet for a whole window (its item expires two windows after its last
            // inquiry) is skipped, whether or not TTL has removed it yet.
            FilterExpression: 'expiresAt > :quietSince',
            ExpressionAttributeValues: {
              ':pk': partition(scope, 'surge'),
              ':prefix': prefix,
              ':quietSince': epochSeconds(now.getTime() + windowMinutes * 60_000),
            },
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        items.push(...(page.Items ?? []));
        start = page.LastEvaluatedKey;
      } while (start);
      return items.map((item) => stateOf(String(item.sk).slice(prefix.length), item));
    },
  });
}

/**
 * The update of one inquiry. An item holds only slices within the window of its `lastSlice`
 * (each update removes those that left), so when the last update was within a window of this
 * one, removing the slices a window before this one leaves the item within this window. When it
 * was longer ago, the update is refused, and its retry removes the stale item's own slices,
 * on condition that no other chat changed it meanwhile.
 */
function countUpdate(
  mark: SurgeMark,
  current: number,
  windowMinutes: number,
  stale: Record<string, unknown> | undefined,
) {
  const names: Record<string, string> = {
    '#q': `q${current}`,
    '#s': `s${current}`,
    '#f': `f${current}`,
    '#label': 'label',
    '#last': 'lastSlice',
    '#expiresAt': 'expiresAt',
  };
  const values: Record<string, unknown> = {
    ':q': new Set([mark.inquiryHash]),
    ':s': new Set([mark.staffHash]),
    ':f': mark.at.toISOString(),
    ':label': mark.label,
    ':current': current,
    // A window after the last inquiry the item has nothing left to count; TTL removes it later.
    ':expiresAt': epochSeconds(mark.at.getTime() + 2 * windowMinutes * 60_000),
  };
  const sets = [
    '#f = if_not_exists(#f, :f)',
    '#label = if_not_exists(#label, :label)',
    '#last = :current',
    '#expiresAt = :expiresAt',
  ];
  if (mark.example !== undefined) {
    names['#e'] = `e${current}`;
    values[':e'] = mark.example;
    sets.push('#e = if_not_exists(#e, :e)');
  }
  const removedNames = stale
    ? Object.keys(stale).filter(
        (name) =>
          SLICE_ATTRIBUTE.test(name) &&
          name !== names['#q'] &&
          name !== names['#s'] &&
          name !== names['#f'] &&
          name !== names['#e'],
      )
    : Array.from(
        { length: SLICES_PER_WINDOW },
        (_, index) => current - SLICES_PER_WINDOW - index,
      ).flatMap((slice) => ['q', 's', 'f', 'e'].map((kind) => `${kind}${slice}`));
  const removed = removedNames.map((name, index) => {
    names[`#r${index}`] = name;
    return `#r${index}`;
  });
  let condition: string;
  if (stale) {
    values[':seen'] = stale.lastSlice;
    condition = '#last = :seen';
  } else {
    values[':oldest'] = current - SLICES_PER_WINDOW;
    condition = 'attribute_not_exists(#last) OR #last >= :oldest';
  }
  return {
    UpdateExpression: `ADD #q :q, #s :s SET ${sets.join(', ')}${removed.length ? ` REMOVE ${removed.join(', ')}` : ''}`,
    ConditionExpression: condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ReturnValues: 'ALL_OLD' as ReturnValue,
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as ReturnValuesOnConditionCheckFailure,
  };
}

const SLICE_ATTRIBUTE = /^([qsfe])(\d+)$/;

/** Whether a refused update's item was last counted more than a window ago. */
function isStale(item: Record<string, AttributeValue>, current: number): boolean {
  const last = Number(item.lastSlice?.N);
  return Number.isFinite(last) && last < current - SLICES_PER_WINDOW;
}

/** A topic item's slices, read back from its attributes. */
function stateOf(topicKey: string, item: Record<string, unknown>): SurgeState {
  const bySlice = new Map<number, Partial<Record<'q' | 's' | 'f' | 'e', unknown>>>();
  for (const [name, value] of Object.entries(item)) {
    const matched = SLICE_ATTRIBUTE.exec(name);
    if (!matched) continue;
    const slice = Number(matched[2]);
    const parts = bySlice.get(slice) ?? {};
    parts[matched[1] as 'q' | 's' | 'f' | 'e'] = value;
    bySlice.set(slice, parts);
  }
  const slices: SurgeSlice[] = [...bySlice]
    .filter(([, parts]) => parts.q instanceof Set && parts.s instanceof Set)
    .map(([slice, parts]) => ({
      slice,
      inquiries: parts.q as Set<string>,
      staff: parts.s as Set<string>,
      firstAt: typeof parts.f === 'string' ? parts.f : new Date(0).toISOString(),
      ...(typeof parts.e === 'string' ? { example: parts.e } : {}),
    }))
    .sort((a, b) => a.slice - b.slice);
  return { topicKey, label: typeof item.label === 'string' ? item.label : '', slices };
}

export function createDynamoDbKnownIssueStore(options: DynamoDbSurgeStoreOptions): KnownIssueStore {
  const { documents, tableName } = options;
  return translateUnavailable<KnownIssueStore>({
    async publish(scope, issue) {
      await documents.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            pk: partition(scope, 'known-issue'),
            sk: issue.id,
            ...issue,
            matches: [...issue.matches],
            expiresAt: epochSeconds(Date.parse(issue.endsAt) + KNOWN_ISSUE_AFTERLIFE_MS),
          },
          // Ids are ULIDs: a clash is a bug, never an overwrite of another lead's issue.
          ConditionExpression: 'attribute_not_exists(sk)',
        }),
      );
    },

    async listOpen(scope, now) {
      const issues: StoredKnownIssue[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await documents.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk',
            FilterExpression: 'attribute_not_exists(closedAt) AND endsAt > :now',
            ExpressionAttributeValues: {
              ':pk': partition(scope, 'known-issue'),
              ':now': now.toISOString(),
            },
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        issues.push(...(page.Items ?? []).map(knownIssueOf));
        start = page.LastEvaluatedKey;
      } while (start);
      return issues;
    },

    async close(scope, id, at) {
      try {
        await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: partition(scope, 'known-issue'), sk: id },
            UpdateExpression: 'SET closedAt = :at, expiresAt = :expiresAt',
            ConditionExpression:
              'attribute_exists(sk) AND attribute_not_exists(closedAt) AND endsAt > :at',
            ExpressionAttributeValues: {
              ':at': at.toISOString(),
              ':expiresAt': epochSeconds(at.getTime() + KNOWN_ISSUE_AFTERLIFE_MS),
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return 'closed';
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        return error.Item === undefined ? 'not_found' : 'already_closed';
      }
    },
  });
}

function knownIssueOf(item: Record<string, unknown>): StoredKnownIssue {
  const text = (name: string) => (typeof item[name] === 'string' ? (item[name] as string) : '');
  const optional = (name: string) => (typeof item[name] === 'string' ? { [name]: item[name] } : {});
  return {
    id: text('id'),
    title: text('title'),
    note: text('note'),
    ...optional('workaround'),
    ...optional('link'),
    matches: Array.isArray(item.matches) ? item.matches.map(String) : [],
    author: text('author'),
    publishedAt: text('publishedAt'),
    endsAt: text('endsAt'),
    ...optional('closedAt'),
  };
}
