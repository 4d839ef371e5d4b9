/**
 * Insights read benchmark on DynamoDB Local (issue #28): what the insights page's read costs as
 * conversations grow — 100, 1,000 and 10,000 conversations, each a chat whose insight (and, for
 * most, a feedback) is recorded through the DynamoDB insights store, its two turns written to the
 * Turns table as the conversation store stores them. Side by side in one process:
 *
 * - ours: `readInsights` (the page's and `npm run insights`' read, aggregates per day and topic);
 * - the naive peer: a Scan of every conversation's turns, summing the window's answers per day
 *   (the activity table alone — a fraction of the page) as `npm run usage` does.
 *
 * Items read are what DynamoDB read to answer (ScannedCount of each Query and Scan, items of each
 * Get), with the read capacity it reported; time is the median of five reads. Both answer the
 * window's chat count, checked equal. Prints figures beside the target; never fails.
 * `npx tsx bench/insights/run.ts [maxConversations]`
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { MAX_EXAMPLES_PER_TOPIC_DAY } from '../../functions/insights/aggregates.js';
import type {
  ChatInsight,
  FeedbackInsight,
  InsightsStore,
} from '../../functions/insights/ports.js';
import { createTables } from '../../local/create-tables.js';
import { startDynamoDbLocal } from '../../local/dynamodb-local.js';
import { createInsightsStoreOn } from '../../scripts/open-insights-store.js';

const CHECKPOINTS = [100, 1_000, 10_000];
/** The window the page reads, and the days the conversations are spread over. */
const WINDOW_DAYS = 30;
/** Distinct gap topics (category × key term) the inquiries fall into. */
const TOPICS = 24;
/** Distinct tickets the answers cite and retrieve. */
const TICKETS = 97;
/** Writers at once while seeding (DynamoDB Local on two shared cores). */
const SEED_CONCURRENCY = 8;
const READS = 5;
const TENANT = { tenantId: 'bench' };

interface Reading {
  readonly requests: number;
  readonly itemsRead: number;
  readonly readCapacity: number;
}

export async function main(maxConversations = CHECKPOINTS.at(-1) ?? 10_000): Promise<void> {
  // A JVM start on two cores shared with other work can take well over the default 30 s.
  const local = await startDynamoDbLocal({ port: 0, startTimeoutMs: 180_000 });
  try {
    const client = new DynamoDBClient({
      endpoint: local.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const meter = meterReads(client);
    const tables = await createTables(client, `bench-${randomUUID().slice(0, 8)}-`);
    const store = createInsightsStoreOn(client, tables.insights);
    const documents = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
    });
    const now = new Date();
    const rows: string[] = [];
    let seeded = 0;
    for (const checkpoint of CHECKPOINTS.filter((count) => count <= maxConversations)) {
      const seedStarted = performance.now();
      await seedConversations(store, documents, tables.turns, seeded, checkpoint, now);
      const seedSeconds = (performance.now() - seedStarted) / 1000;
      seeded = checkpoint;

      const ours = await timed(meter, () => store.readInsights(TENANT, WINDOW_DAYS, now));
      const naive = await timed(meter, () => naiveActivity(documents, tables.turns, now));
      const ourChats = ours.result.activity.totals.chats;
      const same = ourChats === naive.result ? 'same' : `differ (${ourChats} vs ${naive.result})`;
      rows.push(
        `| ${checkpoint.toLocaleString('en')} | ${ours.reading.requests} | ${ours.reading.itemsRead} | ${round(ours.reading.readCapacity)} | ${ours.ms.toFixed(1)} | ${naive.reading.requests} | ${naive.reading.itemsRead} | ${round(naive.reading.readCapacity)} | ${naive.ms.toFixed(1)} | ${ratio(naive.reading.itemsRead, ours.reading.itemsRead)} / ${ratio(naive.ms, ours.ms)} | ${same} | ${seedSeconds.toFixed(0)} s |`,
      );
      console.log(`seeded ${checkpoint} conversations in ${seedSeconds.toFixed(1)} s`);
    }
    console.log(
      `\n## The insights page's read (${WINDOW_DAYS} days, ${TOPICS} gap topics) as conversations grow, DynamoDB Local\n`,
    );
    console.log(
      '| conversations | ours: requests | items read | RCU | ms (median of 5) | naive scan: requests | items read | RCU | ms | naive ÷ ours: items / ms | chats in window | seeding |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
    // What the aggregates of this workload can hold, however many conversations: per day one
    // activity row, a gap row and up to MAX_EXAMPLES_PER_TOPIC_DAY examples per topic, a row per
    // ticket cited, and the day's retrieved set. The solved inquiries are one item each (read
    // whole by readInsights), so they are counted apart.
    const bound = WINDOW_DAYS * (1 + TOPICS * (1 + MAX_EXAMPLES_PER_TOPIC_DAY) + TICKETS + 1);
    const solved = Array.from({ length: seeded }, (_, index) => kindOf(index)).filter(
      (kind) => kind === 2,
    ).length;
    console.log(
      `\nTarget: ours reads O(days × topics) items. The per-day aggregates of this workload hold at most ${bound.toLocaleString('en')} items (${WINDOW_DAYS} days × (1 + ${TOPICS} topics × (1 + ${MAX_EXAMPLES_PER_TOPIC_DAY} examples) + ${TICKETS} tickets + 1)) whatever the number of conversations; the ${solved.toLocaleString('en')} solved inquiries of ${seeded.toLocaleString('en')} conversations are not read (an example carries its solved flag). The naive scan reads every turn ever stored.`,
    );
    client.destroy();
  } finally {
    await local.stop();
  }
}

/**
 * Conversations `from`..`to` (exclusive), spread evenly over the window's days and topics: each a
 * question and an answer in the Turns table (as stored, ≈ 2 KB), its chat insight through the
 * store, and for three in four a feedback (up, down with a reason, or solved by its first card).
 */
async function seedConversations(
  store: InsightsStore,
  documents: DynamoDBDocumentClient,
  turnsTable: string,
  from: number,
  to: number,
  now: Date,
): Promise<void> {
  const indexes = Array.from({ length: to - from }, (_, offset) => from + offset);
  // The turns in batches of 25 (two per conversation): the conversation store is not what is measured.
  for (let start = 0; start < indexes.length; start += 12) {
    const batch = indexes.slice(start, start + 12).flatMap((index) => turnItems(index, now));
    await writeBatch(documents, turnsTable, batch);
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      while (next < indexes.length) {
        const index = indexes[next++] ?? 0;
        const chat = chatInsightOf(index, now);
        await store.recordChat(TENANT, chat);
        const feedback = feedbackOf(index, chat);
        if (feedback) await store.recordFeedback(TENANT, feedback);
      }
    }),
  );
}

async function writeBatch(
  documents: DynamoDBDocumentClient,
  tableName: string,
  items: readonly Record<string, unknown>[],
): Promise<void> {
  let pending = items.map((item) => ({ PutRequest: { Item: item } }));
  while (pending.length > 0) {
    const { UnprocessedItems } = await documents.send(
      new BatchWriteCommand({ RequestItems: { [tableName]: pending } }),
    );
    pending = (UnprocessedItems?.[tableName] ?? []) as typeof pending;
  }
}

function dayOf(index: number, now: Date): string {
  return new Date(now.getTime() - (index % WINDOW_DAYS) * 86_400_000).toISOString().slice(0, 10);
}

function conversationIdOf(index: number): string {
  // A ULID-shaped id, unique per index (the store keys examples and answers by it).
  return `01J${String(index).padStart(23, '0')}`;
}

/**
 * What happens to conversation `index`: 0 a gap rated down (irrelevant_tickets), 1 rated up, 2
 * solved by its first card, 3 no feedback — rotating within each day, so every day has each.
 */
function kindOf(index: number): number {
  return Math.floor(index / WINDOW_DAYS) % 4;
}

function topicOf(index: number) {
  // Spread over the topics independently of the day and the kind.
  const topic = (index * 5 + Math.floor(index / (WINDOW_DAYS * 4))) % TOPICS;
  const category =
    ['network', 'account', 'hardware', 'mail', 'software', 'printer'][topic % 6] ?? 'network';
  const term = `term${topic}`;
  return { topicKey: `${category}|${term}`, category, terms: [term] };
}

function chatInsightOf(index: number, now: Date): ChatInsight {
  const topic = topicOf(index);
  const cited = [`${1000 + (index % TICKETS)}`, `${1000 + ((index * 7) % TICKETS)}`];
  // One in four inquiries finds nothing good: a knowledge gap of its topic.
  const weak = kindOf(index) === 0;
  return {
    day: dayOf(index, now),
    conversationId: conversationIdOf(index),
    answerSeq: 2,
    outcome: index % 20 === 0 ? 'clarification' : 'complete',
    timeToFirstTokenMs: 600 + (index % 50) * 20,
    inputTokens: 3_000 + (index % 500),
    outputTokens: 600 + (index % 300),
    estimatedCostUsd: 0.018,
    citedIssueIds: weak ? [] : cited,
    retrievedIssueIds: [...cited, `${1000 + ((index * 13) % TICKETS)}`],
    topic,
    ...(weak && {
      gap: {
        ...topic,
        reason: 'no_ticket_cited' as const,
        example: {
          text: `inquiry ${index} about ${topic.terms[0]}`,
          ownerHash: `owner${index % 40}`,
        },
      },
    }),
  };
}

function feedbackOf(index: number, chat: ChatInsight): FeedbackInsight | undefined {
  const kind = kindOf(index);
  if (kind === 3) return undefined;
  const updatedAt = `${chat.day}T12:00:00.000Z`;
  const next =
    kind === 0
      ? { rating: 'down' as const, reason: 'irrelevant_tickets' as const, updatedAt }
      : kind === 1
        ? { rating: 'up' as const, updatedAt }
        : {
            rating: 'up' as const,
            helpfulTicketIds: chat.citedIssueIds.slice(0, 1),
            updatedAt,
          };
  return {
    answerDay: chat.day,
    conversationId: chat.conversationId,
    answerSeq: chat.answerSeq,
    next,
    citedIssueIds: chat.citedIssueIds,
    ...(chat.topic && { topic: chat.topic }),
    ...(kind === 2 && { inquiryText: `inquiry ${index}` }),
    ownerHash: `owner${index % 40}`,
  };
}

/** The question and answer turns as the conversation store keeps them (TurnItem), ≈ 2 KB. */
function turnItems(index: number, now: Date): Record<string, unknown>[] {
  const conversationKey = `bench#user${index % 40}#${conversationIdOf(index)}`;
  const createdAt = `${dayOf(index, now)}T09:00:00.000Z`;
  const inquiryId = `inq-${index}`;
  const question = {
    conversationKey,
    seq: 1,
    role: 'user',
    kind: 'question',
    inquiryId,
    text: `VPNに接続できません。在宅勤務中で、エラー 809 が表示されます (${index})`,
    status: 'complete',
    createdAt,
  };
  const kind = kindOf(index);
  const answer = {
    conversationKey,
    seq: 2,
    role: 'assistant',
    kind: 'answer',
    inquiryId,
    text: 'まず VPN クライアントを再起動し、'.repeat(40),
    status: 'complete',
    createdAt,
    modelId: 'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
    usage: { inputTokens: 3_000, outputTokens: 600, timeToFirstTokenMs: 900 },
    ...(kind !== 3 && {
      feedback: {
        rating: kind === 0 ? 'down' : 'up',
        updatedAt: `${createdAt.slice(0, 10)}T12:00:00.000Z`,
      },
    }),
  };
  return [question, answer];
}

/**
 * The naive peer: every turn of every conversation scanned, the window's answers counted per
 * day with their ratings — what a dashboard without aggregates does. Returns the window's chats.
 */
async function naiveActivity(
  documents: DynamoDBDocumentClient,
  turnsTable: string,
  now: Date,
): Promise<number> {
  const since = new Date(now.getTime() - (WINDOW_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const perDay = new Map<string, { chats: number; up: number; down: number }>();
  const pages = paginateScan(
    { client: documents },
    {
      TableName: turnsTable,
      FilterExpression: '#role = :assistant AND createdAt >= :since',
      ProjectionExpression: 'createdAt, feedback, #usage',
      ExpressionAttributeNames: { '#role': 'role', '#usage': 'usage' },
      ExpressionAttributeValues: { ':assistant': 'assistant', ':since': since },
    },
  );
  for await (const page of pages) {
    for (const turn of (page.Items ?? []) as {
      createdAt: string;
      feedback?: { rating: string };
    }[]) {
      const day = turn.createdAt.slice(0, 10);
      const figures = perDay.get(day) ?? { chats: 0, up: 0, down: 0 };
      figures.chats++;
      if (turn.feedback?.rating === 'up') figures.up++;
      if (turn.feedback?.rating === 'down') figures.down++;
      perDay.set(day, figures);
    }
  }
  return [...perDay.values()].reduce((sum, figures) => sum + figures.chats, 0);
}

/** Median time of `READS` runs of `read`, and what one run read. */
async function timed<T>(
  meter: Meter,
  read: () => Promise<T>,
): Promise<{ result: T; reading: Reading; ms: number }> {
  const { result, reading } = await meter.measure(read);
  const times: number[] = [];
  for (let run = 0; run < READS; run++) {
    const started = performance.now();
    await read();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { result, reading, ms: times[Math.floor(times.length / 2)] ?? 0 };
}

/**
 * Counts the requests sent through `client`, the items DynamoDB read for them (ScannedCount of a
 * Query or Scan — before any filter — one per item a Get returned) and the read capacity it
 * reported (`ReturnConsumedCapacity: TOTAL` added to every request).
 */
interface Meter {
  measure<T>(work: () => Promise<T>): Promise<{ result: T; reading: Reading }>;
}

function meterReads(client: DynamoDBClient): Meter {
  let reading = { requests: 0, itemsRead: 0, readCapacity: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
      reading.requests++;
      const result = await next(args);
      const output = result.output as {
        ScannedCount?: number;
        Item?: unknown;
        Responses?: Record<string, unknown[]> | unknown[];
        ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[];
      };
      const command = String(context.commandName);
      if (command === 'QueryCommand' || command === 'ScanCommand') {
        reading.itemsRead += output.ScannedCount ?? 0;
      } else if (command === 'GetItemCommand') {
        reading.itemsRead += output.Item ? 1 : 0;
      } else if (command === 'BatchGetItemCommand' || command === 'TransactGetItemsCommand') {
        const responses = output.Responses ?? [];
        reading.itemsRead += Array.isArray(responses)
          ? responses.length
          : Object.values(responses).reduce((sum, items) => sum + items.length, 0);
      }
      if (/Get|Query|Scan/.test(command)) {
        for (const entry of [output.ConsumedCapacity ?? []].flat()) {
          reading.readCapacity += entry.CapacityUnits ?? 0;
        }
      }
      return result;
    },
    { step: 'initialize', name: 'meterReads' },
  );
  return {
    async measure<T>(work: () => Promise<T>): Promise<{ result: T; reading: Reading }> {
      reading = { requests: 0, itemsRead: 0, readCapacity: 0 };
      const result = await work();
      // A copy: the timed reads after this one go through the same middleware.
      return { result, reading: { ...reading } };
    },
  };
}

function ratio(naive: number, ours: number): string {
  return ours === 0 ? '—' : `${(naive / ours).toFixed(1)}×`;
}

function round(value: number): string {
  return String(Math.round(value * 10) / 10);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const limit = process.argv[2] ? Number(process.argv[2]) : undefined;
  await main(limit);
}
