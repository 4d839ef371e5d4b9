import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AnswerFeedback } from '../../contract/conversations.js';
import {
  answerKey,
  type CounterGroup,
  type CounterIncrement,
  type CounterRow,
  chatIncrements,
  countedVerdictOf,
  type ExampleRow,
  feedbackIncrements,
  gapKey,
  MAX_EXAMPLES_PER_TOPIC_DAY,
  type MailDraftAnswerState,
  mailDraftIncrements,
  mailDraftMarkOf,
  newGapExampleId,
  type SolvedRow,
  TICKET_SUBJECT_LABEL,
} from '../../insights/aggregates.js';
import { buildInsights, RETRIEVED_HORIZON_DAYS, windowOf } from '../../insights/build-insights.js';
import type {
  EvaluationRun,
  FeedbackInsight,
  InsightsScope,
  InsightsStore,
} from '../../insights/ports.js';
import { translateUnavailable } from './store-unavailable.js';

/**
 * The `InsightsStore` on the `Insights` table (`insightsTable` in table-definitions.ts, ADR 0022).
 * One partition per tenant and kind of item, so every read is a key-range query of one
 * partition, never a scan and never a read of conversations:
 *
 * | pk                     | sk                          | what                                        |
 * |------------------------|-----------------------------|---------------------------------------------|
 * | `<tenant>#day`         | `YYYY-MM-DD`                | activity counters, TTFT histogram buckets   |
 * | `<tenant>#gap`         | `<day>#<topicKey>`          | gap counts per reason, 👎 of inquiries the  |
 * |                        |                             | chat counted, the topic's label             |
 * | `<tenant>#ticket-day`  | `<day>#<issueId>`           | cited / solved / citedInDownRated, subject  |
 * | `<tenant>#retrieved`   | `YYYY-MM-DD`                | the set of ticket ids retrieved that day    |
 * | `<tenant>#capture`     | `YYYY-MM-DD`                | drafts / published / syncsWaited            |
 * | `<tenant>#answer`      | `<conversationId>#<seq>`    | topic, chat counted it as a gap, counted    |
 * |                        |                             | verdict, draft marks                        |
 * | `<tenant>#example`     | `<conversationId>#<seq>`    | a gap example: scrubbed text, owner's hash, |
 * |                        |                             | its owner's user id and inquiry (the lead's |
 * |                        |                             | draft; never in the page's body)            |
 * | `<tenant>#example-id`  | `<exampleId>`               | the answer an example's opaque id names     |
 * | `<tenant>#solved`      | `<conversationId>#<seq>`    | a solved inquiry: scrubbed text → tickets   |
 * | `<tenant>#eval`        | `latest`                    | the last feedback-eval run                  |
 *
 * Counters are `ADD` updates: commutative, so writes racing on one item all count, and a
 * feedback delta (`feedbackIncrements`) sums correctly whatever order they land in. An `ADD`
 * the SDK sends again after a lost response may count twice; for a dashboard of counts that is
 * accepted (ADR 0022), unlike for the daily budget, which pays for client request tokens.
 * Counter items expire `COUNTER_RETENTION_DAYS` after their day; the items holding inquiry text
 * (answer, example, solved) expire with the conversation's retention and are deleted with it
 * (`forgetConversation`, from the delete route and the retention sweeper).
 */

export interface DynamoDbInsightsStoreOptions {
  readonly documents: DynamoDBDocumentClient;
  /** Physical name of the `Insights` table. */
  readonly tableName: string;
  /** The conversations' retention: items with inquiry text expire no later than their conversation. */
  readonly retentionDays: number;
  readonly now: () => Date;
}

/** Counter items outlive every window read (90 days) and the retrieved-set horizon (365). */
export const COUNTER_RETENTION_DAYS = 400;

const pageSize = 1000;

/**
 * @example
 * const insights = createDynamoDbInsightsStore({
 *   documents, tableName: process.env.INSIGHTS_TABLE!, retentionDays: 90, now: () => new Date(),
 * });
 */
export function createDynamoDbInsightsStore(options: DynamoDbInsightsStoreOptions): InsightsStore {
  const { documents, tableName } = options;
  const { now } = options;
  const pk = (scope: InsightsScope, kind: CounterGroup | ItemKind) => {
    if (!scope.tenantId || scope.tenantId.includes('#')) {
      throw new Error('A tenant id must be non-empty and must not contain "#"');
    }
    return `${scope.tenantId}#${kind}`;
  };
  const epochSeconds = (ms: number) => Math.floor(ms / 1000);
  const counterExpiry = (day: string) =>
    epochSeconds(Date.parse(`${day}T00:00:00Z`) + COUNTER_RETENTION_DAYS * 86_400_000);
  const textExpiry = () => epochSeconds(now().getTime() + options.retentionDays * 86_400_000);

  async function apply(scope: InsightsScope, increment: CounterIncrement): Promise<void> {
    const names: Record<string, string> = { '#expiresAt': 'expiresAt' };
    const values: Record<string, unknown> = {
      ':expiresAt': counterExpiry(increment.key.slice(0, 10)),
    };
    const adds = Object.entries(increment.add).map(([name, value], index) => {
      names[`#c${index}`] = name;
      values[`:c${index}`] = value;
      return `#c${index} :c${index}`;
    });
    const sets = ['#expiresAt = :expiresAt'];
    for (const [index, [name, value]] of Object.entries(increment.labels ?? {}).entries()) {
      names[`#l${index}`] = name;
      values[`:l${index}`] = value;
      // The first writer names the item: a topic's label is that of its first inquiry of the day.
      sets.push(`#l${index} = if_not_exists(#l${index}, :l${index})`);
    }
    for (const [index, [name, value]] of Object.entries(increment.latestLabels ?? {}).entries()) {
      names[`#n${index}`] = name;
      values[`:n${index}`] = value;
      // The last writer names it: a ticket's subject as the Knowledge Base has it now.
      sets.push(`#n${index} = :n${index}`);
    }
    await documents.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: pk(scope, increment.group), sk: increment.key },
        UpdateExpression: `${adds.length ? `ADD ${adds.join(', ')} ` : ''}SET ${sets.join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  }

  /** Every item of one partition (optionally a key range), page by page. */
  async function queryAll(
    partition: string,
    range?: { from: string; to: string } | { prefix: string },
  ): Promise<Record<string, unknown>[]> {
    const input: QueryCommandInput = {
      TableName: tableName,
      KeyConditionExpression:
        range === undefined
          ? 'pk = :pk'
          : 'prefix' in range
            ? 'pk = :pk AND begins_with(sk, :prefix)'
            : 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': partition,
        ...(range === undefined
          ? {}
          : 'prefix' in range
            ? { ':prefix': range.prefix }
            : { ':from': range.from, ':to': range.to }),
      },
      Limit: pageSize,
    };
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await documents.send(
        new QueryCommand({ ...input, ...(start ? { ExclusiveStartKey: start } : {}) }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }

  async function readCounters(
    scope: InsightsScope,
    group: CounterGroup,
    range: { from: string; to: string },
  ): Promise<CounterRow[]> {
    const items = await queryAll(pk(scope, group), range);
    return items.map(toCounterRow);
  }

  // An outage is a 503 like the conversation store's (the lead's page, a draft from a gap example).
  return translateUnavailable<InsightsStore>({
    async recordChat(scope, insight) {
      const increments = chatIncrements(insight);
      await Promise.all(increments.map((increment) => apply(scope, increment)));
      const id = answerKey(insight.conversationId, insight.answerSeq);
      const topic =
        insight.topic ??
        (insight.gap
          ? {
              topicKey: insight.gap.topicKey,
              category: insight.gap.category,
              terms: insight.gap.terms,
            }
          : undefined);
      const retrieved = new Set([...insight.retrievedIssueIds, ...insight.citedIssueIds]);
      await Promise.all([
        retrieved.size > 0
          ? documents.send(
              new UpdateCommand({
                TableName: tableName,
                Key: { pk: pk(scope, 'retrieved'), sk: insight.day },
                UpdateExpression: 'ADD issueIds :ids SET expiresAt = :expiresAt',
                ExpressionAttributeValues: {
                  ':ids': retrieved,
                  ':expiresAt': counterExpiry(insight.day),
                },
              }),
            )
          : undefined,
        // An update, not a put: it must not drop a verdict already swapped in.
        documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: pk(scope, 'answer'), sk: id },
            // `chatGap` in the same write as the topic: a feedback's swap finds both or neither,
            // so its 👎 adds an inquiry to the gap only if the chat did not (ADR 0022).
            UpdateExpression: `SET #day = :day, expiresAt = :expiresAt, chatGap = :chatGap${topic ? ', topic = :topic' : ''}${insight.hasMailDraft ? ', mailDraft = :mailDraft' : ''}`,
            ExpressionAttributeNames: { '#day': 'day' },
            ExpressionAttributeValues: {
              ':day': insight.day,
              ':expiresAt': textExpiry(),
              ':chatGap': insight.gap !== undefined,
              ...(topic ? { ':topic': topic } : {}),
              ...(insight.hasMailDraft ? { ':mailDraft': true } : {}),
            },
          }),
        ),
        insight.gap?.example ? recordExample(scope, insight, id) : undefined,
      ]);
    },

    async recordFeedback(scope, insight) {
      const id = answerKey(insight.conversationId, insight.answerSeq);
      // The verdict this write replaces is the one the answer's item held, swapped atomically:
      // racing posts each get the verdict they replaced, so their deltas telescope to the last
      // one; an older verdict arriving late, or the same one twice (a retry), changes nothing.
      let replaced: Record<string, unknown> | undefined;
      try {
        const swapped = await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { pk: pk(scope, 'answer'), sk: id },
            UpdateExpression:
              'SET verdict = :verdict, feedbackAt = :at, expiresAt = if_not_exists(expiresAt, :expiresAt)',
            ConditionExpression: 'attribute_not_exists(feedbackAt) OR feedbackAt < :at',
            ExpressionAttributeValues: {
              ':verdict': countedVerdictOf(insight.next),
              ':at': insight.next.updatedAt,
              ':expiresAt': textExpiry(),
            },
            ReturnValues: 'ALL_OLD',
          }),
        );
        replaced = swapped.Attributes;
      } catch (error) {
        if ((error as Error).name === 'ConditionalCheckFailedException') return;
        throw error;
      }
      const topic = insight.topic ?? (replaced?.topic as FeedbackInsight['topic']);
      const previous = replaced?.verdict as AnswerFeedback | undefined;
      const resolved: FeedbackInsight = { ...insight, ...(topic ? { topic } : {}) };
      // The flag as the same swap found it: constant across racing posts once the chat wrote it.
      const answer = { chatCountedGap: replaced?.chatGap === true };
      await Promise.all([
        ...feedbackIncrements(resolved, previous, answer).map((increment) =>
          apply(scope, increment),
        ),
        recordSolved(scope, resolved, id),
        markExampleSolved(scope, id, resolved.next),
      ]);
    },

    async recordMailDraft(scope, insight) {
      // The answer's mark, set only if unset, with the item as it was: of racing actions exactly
      // one finds the mark missing (single-item updates are atomic), so "first" is exact. Never
      // conditional, so it also creates the item of an answer recordChat did not see (its
      // counts then name no draft and the answer counts as no accepted one).
      const mark = mailDraftMarkOf(insight.action);
      const marked = await documents.send(
        new UpdateCommand({
          TableName: tableName,
          Key: {
            pk: pk(scope, 'answer'),
            sk: answerKey(insight.conversationId, insight.answerSeq),
          },
          UpdateExpression:
            'SET #mark = if_not_exists(#mark, :at), expiresAt = if_not_exists(expiresAt, :expiresAt)',
          ExpressionAttributeNames: { '#mark': mark },
          ExpressionAttributeValues: { ':at': insight.at, ':expiresAt': textExpiry() },
          ReturnValues: 'ALL_OLD',
        }),
      );
      const before = marked.Attributes;
      const state: MailDraftAnswerState | undefined = before && {
        ...(typeof before.day === 'string' ? { day: before.day } : {}),
        hasMailDraft: before.mailDraft === true,
        ...(typeof before.acceptedAt === 'string' ? { acceptedAt: before.acceptedAt } : {}),
        ...(typeof before.changedAt === 'string' ? { changedAt: before.changedAt } : {}),
      };
      await Promise.all(
        mailDraftIncrements(insight, state).map((increment) => apply(scope, increment)),
      );
    },

    async recordCapture(scope, event) {
      const counter = { draft: 'drafts', published: 'published', sync_waited: 'syncsWaited' }[
        event.kind
      ];
      await apply(scope, { group: 'capture', key: event.day, add: { [counter]: 1 } });
    },

    async forgetConversation(scope, conversationId) {
      const prefix = `${conversationId}#`;
      await Promise.all(
        (['example', 'solved', 'answer'] as const).map(async (kind) => {
          const partition = pk(scope, kind);
          const items = await queryAll(partition, { prefix });
          await Promise.all(
            items.flatMap((item) => [
              documents.send(
                new DeleteCommand({ TableName: tableName, Key: { pk: partition, sk: item.sk } }),
              ),
              // An example's id goes with it: it names nothing any more.
              ...(typeof item.exampleId === 'string'
                ? [
                    documents.send(
                      new DeleteCommand({
                        TableName: tableName,
                        Key: { pk: pk(scope, 'example-id'), sk: item.exampleId },
                      }),
                    ),
                  ]
                : []),
            ]),
          );
        }),
      );
    },

    async listSolvedInquiries(scope) {
      return (await queryAll(pk(scope, 'solved')))
        .map(toSolvedRow)
        .filter((row) => row.issueIds.length > 0)
        .map((row) => ({ text: row.text, issueIds: row.issueIds, day: row.day }));
    },

    async findGapExample(scope, exampleId) {
      const named = await documents.send(
        new GetCommand({
          TableName: tableName,
          Key: { pk: pk(scope, 'example-id'), sk: exampleId },
          ConsistentRead: true,
        }),
      );
      const conversationId = named.Item?.conversationId;
      const answerSeq = named.Item?.answerSeq;
      if (typeof conversationId !== 'string' || typeof answerSeq !== 'number') return undefined;
      const found = await documents.send(
        new GetCommand({
          TableName: tableName,
          Key: { pk: pk(scope, 'example'), sk: answerKey(conversationId, answerSeq) },
          // The solved flag follows the latest verdict, written a moment before the lead's click.
          ConsistentRead: true,
        }),
      );
      const row = found.Item ? toExampleRow(found.Item) : undefined;
      if (!row?.source || row.exampleId !== exampleId) return undefined;
      return { conversationId, answerSeq, ...row.source, solved: row.solved === true };
    },

    async recordEvaluationRun(scope, run) {
      await documents.send(
        new PutCommand({
          TableName: tableName,
          Item: { pk: pk(scope, 'eval'), sk: 'latest', run },
        }),
      );
    },

    async readInsights(scope, days, at, options) {
      const window = windowOf(days, at);
      const horizon = windowOf(RETRIEVED_HORIZON_DAYS, at);
      const dayRange = { from: window.first, to: window.last };
      // `#` sorts before every character of a topic key or issue id: `<last>#\uffff` ends the day.
      const keyedRange = { from: window.first, to: `${window.last}#\uffff` };
      // Never the solved inquiries: they grow with use; an example carries its own solved flag.
      const [dayRows, gaps, tickets, captures, retrieved, examples, evaluation] = await Promise.all(
        [
          readCounters(scope, 'day', dayRange),
          readCounters(scope, 'gap', keyedRange),
          readCounters(scope, 'ticket-day', keyedRange),
          readCounters(scope, 'capture', dayRange),
          queryAll(pk(scope, 'retrieved'), { from: horizon.first, to: horizon.last }),
          queryAll(pk(scope, 'example')),
          documents.send(
            new GetCommand({ TableName: tableName, Key: { pk: pk(scope, 'eval'), sk: 'latest' } }),
          ),
        ],
      );
      const run = evaluation.Item?.run as EvaluationRun | undefined;
      return buildInsights(
        {
          days: dayRows,
          gaps,
          tickets,
          captures,
          retrieved: retrieved.map((item) => ({
            day: String(item.sk),
            issueIds: [...((item.issueIds as Set<string> | undefined) ?? [])],
          })),
          examples: examples.map(toExampleRow),
        },
        {
          days,
          now: at,
          ...(run ? { evaluation: run } : {}),
          // Listed by the caller (TicketCatalog), not read here: the store's read stays bounded.
          ...(options?.catalog ? { catalog: options.catalog } : {}),
        },
      );
    },
  });

  /**
   * A gap example, if its topic has a slot left that day: the slot is taken by a conditional
   * `ADD` on the topic's counter item (created just before by the gap increment), so racing
   * chats never keep more than `MAX_EXAMPLES_PER_TOPIC_DAY`.
   */
  async function recordExample(
    scope: InsightsScope,
    insight: Parameters<InsightsStore['recordChat']>[1],
    id: string,
  ): Promise<void> {
    const gap = insight.gap;
    if (!gap?.example) return;
    try {
      await documents.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: pk(scope, 'gap'), sk: gapKey(insight.day, gap.topicKey) },
          UpdateExpression: 'ADD examples :one',
          ConditionExpression: 'attribute_not_exists(examples) OR examples < :max',
          ExpressionAttributeValues: { ':one': 1, ':max': MAX_EXAMPLES_PER_TOPIC_DAY },
        }),
      );
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return;
      throw error;
    }
    // The id's item first: an example whose id resolves to nothing would offer a dead draft.
    const exampleId = newGapExampleId();
    await documents.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          pk: pk(scope, 'example-id'),
          sk: exampleId,
          conversationId: insight.conversationId,
          answerSeq: insight.answerSeq,
          expiresAt: textExpiry(),
        },
      }),
    );
    await documents.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          pk: pk(scope, 'example'),
          sk: id,
          exampleId,
          day: insight.day,
          topicKey: gap.topicKey,
          text: gap.example.text,
          ownerHash: gap.example.ownerHash,
          // For a lead's knowledge draft of the example; never read into the page's body.
          ...(gap.example.source
            ? {
                ownerUserId: gap.example.source.ownerUserId,
                inquiryId: gap.example.source.inquiryId,
              }
            : {}),
          expiresAt: textExpiry(),
        },
      }),
    );
  }

  /**
   * Whether a gap example's inquiry is solved follows the answer's latest verdict (`solvedAt`
   * orders racing posts as `feedbackAt` does); an answer that is no gap example has nothing to mark.
   */
  async function markExampleSolved(scope: InsightsScope, id: string, verdict: AnswerFeedback) {
    try {
      await documents.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: pk(scope, 'example'), sk: id },
          UpdateExpression: 'SET solved = :solved, solvedAt = :at',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(solvedAt) OR solvedAt <= :at)',
          ExpressionAttributeValues: {
            ':solved': (verdict.helpfulTicketIds ?? []).length > 0,
            ':at': verdict.updatedAt,
          },
        }),
      );
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
  }

  /**
   * The labelled query of the feedback eval, while a ticket is marked as the solution. Written
   * only if no newer verdict did already (`feedbackAt`), so racing posts leave the last one's;
   * a verdict without a solution empties an existing item (text removed) rather than deleting
   * it, so an older verdict arriving later cannot bring the text back.
   */
  async function recordSolved(scope: InsightsScope, insight: FeedbackInsight, id: string) {
    const issueIds = insight.next.helpfulTicketIds ?? [];
    const key = { pk: pk(scope, 'solved'), sk: id };
    try {
      if (issueIds.length > 0 && insight.inquiryText !== undefined) {
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              ...key,
              day: insight.answerDay,
              text: insight.inquiryText,
              issueIds: [...issueIds],
              ...(insight.topic ? { topicKey: insight.topic.topicKey } : {}),
              feedbackAt: insight.next.updatedAt,
              expiresAt: textExpiry(),
            },
            ConditionExpression: 'attribute_not_exists(feedbackAt) OR feedbackAt <= :at',
            ExpressionAttributeValues: { ':at': insight.next.updatedAt },
          }),
        );
      } else {
        await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key,
            UpdateExpression: 'SET issueIds = :none, feedbackAt = :at REMOVE #text',
            ConditionExpression: 'attribute_exists(pk) AND feedbackAt <= :at',
            ExpressionAttributeNames: { '#text': 'text' },
            ExpressionAttributeValues: { ':none': [], ':at': insight.next.updatedAt },
          }),
        );
      }
    } catch (error) {
      // A newer verdict is already there, or there was nothing to take back.
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
  }
}

type ItemKind = 'retrieved' | 'answer' | 'example' | 'example-id' | 'solved' | 'eval';

const KEY_ATTRIBUTES = new Set(['pk', 'sk', 'expiresAt']);
const LABEL_ATTRIBUTES = new Set(['topicKey', 'category', 'terms', TICKET_SUBJECT_LABEL]);

function toCounterRow(item: Record<string, unknown>): CounterRow {
  const counters: Record<string, number> = {};
  const labels: Record<string, string | readonly string[]> = {};
  for (const [name, value] of Object.entries(item)) {
    if (KEY_ATTRIBUTES.has(name)) continue;
    if (LABEL_ATTRIBUTES.has(name)) labels[name] = value as string | string[];
    else if (typeof value === 'number') counters[name] = value;
  }
  return {
    key: String(item.sk),
    counters,
    ...(Object.keys(labels).length ? { labels } : {}),
  };
}

function toExampleRow(item: Record<string, unknown>): ExampleRow {
  return {
    id: String(item.sk),
    day: String(item.day),
    topicKey: String(item.topicKey),
    text: String(item.text),
    ownerHash: String(item.ownerHash),
    ...(item.solved === true ? { solved: true } : {}),
    ...(typeof item.ownerUserId === 'string' && typeof item.inquiryId === 'string'
      ? { source: { ownerUserId: item.ownerUserId, inquiryId: item.inquiryId } }
      : {}),
    ...(typeof item.exampleId === 'string' ? { exampleId: item.exampleId } : {}),
  };
}

function toSolvedRow(item: Record<string, unknown>): SolvedRow {
  return {
    id: String(item.sk),
    day: String(item.day),
    text: typeof item.text === 'string' ? item.text : '',
    issueIds: Array.isArray(item.issueIds) ? item.issueIds.map(String) : [],
    ...(typeof item.topicKey === 'string' ? { topicKey: item.topicKey } : {}),
  };
}
