/**
 * `npm run usage` — chats, tokens and estimated cost per day and per user hash, from the usage
 * stored with every assistant turn (`turns[].usage`, functions/observability).
 *
 *   npm run usage                      the local stack's data (.data/dynamodb; stop `npm start`
 *                                      first or pass --endpoint of a running DynamoDB)
 *   npm run usage -- --target aws      the deployed stack's Turns table (stack output
 *                                      TurnsTableName; USAGE_STACK_NAME or cdk.json stackName)
 *   --days N                           only the last N days (default 30)
 *   --endpoint URL                     a DynamoDB endpoint to read instead (with --table)
 *   --table NAME                       the Turns table name (default local-Turns locally)
 *   --json                             print the report as JSON
 *
 * It scans the Turns table (assistant turns with usage only, projected), so it reads the whole
 * table once: fine for a report, not for a dashboard (the CloudWatch metrics are for that).
 * Without AWS credentials `--target aws` prints SKIPPED and exits 0.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { TurnUsage } from '../functions/contract/conversations.js';
import { estimateCostUsd } from '../functions/observability/model-prices.js';
import { stackOutputNames } from '../lib/deployed-stack-names.js';
import { startDynamoDbLocal } from '../local/dynamodb-local.js';
import { readDeployedStack, requireOutput, SkipError } from './deployed-stack.js';

const { values } = parseArgs({
  options: {
    target: { type: 'string', default: 'local' },
    days: { type: 'string', default: '30' },
    endpoint: { type: 'string' },
    table: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});

interface UsageRow {
  readonly day: string;
  readonly ownerHash: string;
  chats: number;
  /** Uncached input tokens (all input tokens of turns stored before prompt caching). */
  inputTokens: number;
  cacheReadInputTokens: number;
  cacheWriteInputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Answers whose model has no price in the table: their cost is not in `costUsd`. */
  unpriced: number;
}

interface StoredTurn {
  readonly conversationKey: string;
  readonly createdAt: string;
  readonly modelId?: string;
  readonly usage?: TurnUsage;
}

/** The owner part of `tenantId#userId#conversationId`, hashed as the function's logs hash it. */
function ownerHashOf(conversationKey: string): string {
  const ownerKey = conversationKey.split('#').slice(0, 2).join('#');
  return createHash('sha256').update(ownerKey).digest('hex').slice(0, 16);
}

async function turnsSource(): Promise<{
  client: DynamoDBClient;
  table: string;
  close: () => Promise<void>;
}> {
  if (values.target === 'aws') {
    const stack = await readDeployedStack('USAGE_STACK_NAME', {
      outputs: values.table === undefined,
    });
    const table = values.table ?? requireOutput(stack, stackOutputNames.turnsTable);
    return { client: new DynamoDBClient({ region: stack.region }), table, close: async () => {} };
  }
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  if (values.endpoint) {
    return {
      client: new DynamoDBClient({ endpoint: values.endpoint, region: 'us-east-1', credentials }),
      table: values.table ?? 'local-Turns',
      close: async () => {},
    };
  }
  const local = await startDynamoDbLocal({ port: 0, dataDir: join('.data', 'dynamodb') });
  return {
    client: new DynamoDBClient({ endpoint: local.endpoint, region: 'us-east-1', credentials }),
    table: values.table ?? 'local-Turns',
    close: () => local.stop(),
  };
}

async function main(): Promise<void> {
  const days = Number(values.days);
  if (!Number.isInteger(days) || days < 1) throw new Error('--days must be a positive integer');
  const since = new Date(Date.now() - days * 86_400_000).toISOString();
  const source = await turnsSource();
  const rows = new Map<string, UsageRow>();
  try {
    const documents = DynamoDBDocumentClient.from(source.client);
    const pages = paginateScan(
      { client: documents },
      {
        TableName: source.table,
        FilterExpression: '#role = :assistant AND attribute_exists(#usage) AND createdAt >= :since',
        ProjectionExpression: 'conversationKey, createdAt, modelId, #usage',
        ExpressionAttributeNames: { '#role': 'role', '#usage': 'usage' },
        ExpressionAttributeValues: { ':assistant': 'assistant', ':since': since },
      },
    );
    for await (const page of pages) {
      for (const turn of (page.Items ?? []) as StoredTurn[]) {
        if (!turn.usage) continue;
        const day = turn.createdAt.slice(0, 10);
        const ownerHash = ownerHashOf(turn.conversationKey);
        const key = `${day}|${ownerHash}`;
        const row = rows.get(key) ?? {
          day,
          ownerHash,
          chats: 0,
          inputTokens: 0,
          cacheReadInputTokens: 0,
          cacheWriteInputTokens: 0,
          outputTokens: 0,
          costUsd: 0,
          unpriced: 0,
        };
        row.chats += 1;
        row.inputTokens += turn.usage.inputTokens;
        // Turns stored before prompt caching have no cache counts: they read as 0.
        row.cacheReadInputTokens += turn.usage.cacheReadInputTokens ?? 0;
        row.cacheWriteInputTokens += turn.usage.cacheWriteInputTokens ?? 0;
        row.outputTokens += turn.usage.outputTokens;
        const cost = estimateCostUsd(turn.modelId ?? '', turn.usage);
        if (cost === undefined) row.unpriced += 1;
        else row.costUsd += cost;
        rows.set(key, row);
      }
    }
  } finally {
    await source.close();
  }
  const sorted = [...rows.values()].sort(
    (a, b) => a.day.localeCompare(b.day) || a.ownerHash.localeCompare(b.ownerHash),
  );
  if (values.json) {
    console.log(JSON.stringify(sorted, null, 2));
    return;
  }
  console.log(`## Usage, last ${days} days (${source.table})\n`);
  console.log(
    '| day | user hash | chats | input tokens | cache read | cache write | output tokens | est. cost (USD) |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of sorted) {
    const unpriced = row.unpriced > 0 ? ` (+${row.unpriced} unpriced)` : '';
    console.log(
      `| ${row.day} | ${row.ownerHash} | ${row.chats} | ${row.inputTokens} | ${row.cacheReadInputTokens} | ${row.cacheWriteInputTokens} | ${row.outputTokens} | ${row.costUsd.toFixed(4)}${unpriced} |`,
    );
  }
  const total = sorted.reduce(
    (sum, row) => ({
      chats: sum.chats + row.chats,
      input: sum.input + row.inputTokens,
      cacheRead: sum.cacheRead + row.cacheReadInputTokens,
      cacheWrite: sum.cacheWrite + row.cacheWriteInputTokens,
      output: sum.output + row.outputTokens,
      cost: sum.cost + row.costUsd,
    }),
    { chats: 0, input: 0, cacheRead: 0, cacheWrite: 0, output: 0, cost: 0 },
  );
  console.log(
    `| **total** | | ${total.chats} | ${total.input} | ${total.cacheRead} | ${total.cacheWrite} | ${total.output} | ${total.cost.toFixed(4)} |`,
  );
}

main().catch((error: unknown) => {
  if (error instanceof SkipError) {
    console.log(`SKIPPED: usage report against AWS — ${error.message}`);
    return;
  }
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
