/**
 * Conversation-store benchmark on DynamoDB Local: requests and consumed capacity per chat turn
 * (load history + append user turn + append answer) by history length, cache hit and miss, side
 * by side with LangChain's DynamoDBChatMessageHistory; then turns lost under 20 writers × 50
 * appends. Prints figures beside targets; never fails. `npx tsx bench/store/run.ts`
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { createTables } from '../../local/create-tables.js';
import { startDynamoDbLocal } from '../../local/dynamodb-local.js';
import { type CapacityReading, meterCapacity } from './capacity-meter.js';
import {
  createLangChainHistory,
  createLangChainTable,
  createStore,
  langChainChatTurn,
  ourChatTurn,
  owner,
  seedConversation,
  seedLangChain,
} from './chat-turn-workloads.js';

const historyLengths = [1, 10, 100, 300];
const writers = 20;
const appendsPerWriter = 50;

export async function main(): Promise<void> {
  const local = await startDynamoDbLocal({ port: 0 });
  try {
    const client = new DynamoDBClient({
      endpoint: local.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const meter = meterCapacity(client);
    const prefix = `bench-${randomUUID().slice(0, 8)}-`;
    const tables = await createTables(client, prefix);
    const langChainTable = `${prefix}LangChainHistory`;
    await createLangChainTable(client, langChainTable);

    const rows: string[] = [];
    for (const length of historyLengths) {
      const warm = createStore(client, tables);
      const conversationId = await seedConversation(warm, length);
      await warm.loadConversation(owner, conversationId);
      const hit = await meter.measure(() => ourChatTurn(warm, conversationId));
      const miss = await meter.measure(() =>
        ourChatTurn(createStore(client, tables), conversationId),
      );

      const history = createLangChainHistory(local.endpoint, langChainTable, `session-${length}`);
      const theirs = meterCapacity(
        // The client is private in its types but a plain field at run time; metering needs its middleware stack.
        (history as unknown as { client: DynamoDBClient }).client,
      );
      let langChain: CapacityReading | string;
      try {
        await seedLangChain(history, length);
        langChain = await theirs.measure(() => langChainChatTurn(history));
      } catch (error) {
        langChain = `fails: ${(error as Error).message.split(':')[0]}`;
      }
      rows.push(
        `| ${length} | ${cells(hit)} | ${cells(miss)} | ${typeof langChain === 'string' ? `${langChain} | | |` : cells(langChain)} |`,
      );
    }
    console.log('\n## Per chat turn (load + append user + append answer), DynamoDB Local\n');
    console.log(
      '| history turns | ours hit: requests | reads RCU | writes WCU | ours miss: requests | reads RCU | writes WCU | LangChain: requests | reads RCU | writes WCU |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
    console.log('\nTarget: ours on a hit — read capacity per turn independent of history length.');

    console.log(
      `\n## ${writers} concurrent writers × ${appendsPerWriter} appends to one conversation\n`,
    );
    const ours = await ourConcurrency(client, tables);
    const theirs = await langChainConcurrency(local.endpoint, langChainTable);
    console.log('| store | stored | lost | errors | target |');
    console.log('|---|---|---|---|---|');
    console.log(`| ours | ${ours.stored} | ${ours.lost} | ${ours.errors} | 0 lost |`);
    console.log(
      `| LangChain | ${theirs.stored} | ${theirs.lost} | ${theirs.errors} | (reported) |`,
    );
    client.destroy();
  } finally {
    await local.stop();
  }
}

function cells(reading: CapacityReading): string {
  return `${reading.requests} (${reading.readRequests} reads) | ${round(reading.readCapacity)} | ${round(reading.writeCapacity)}`;
}

function round(value: number): string {
  return String(Math.round(value * 10) / 10);
}

async function ourConcurrency(client: DynamoDBClient, tables: Parameters<typeof createStore>[1]) {
  const setup = createStore(client, tables);
  const { conversation } = await setup.appendUserTurn(owner, { text: 'start' });
  let errors = 0;
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      const store = createStore(client, tables, 1_000);
      for (let n = 0; n < appendsPerWriter; n++) {
        await store
          .appendUserTurn(owner, {
            conversationId: conversation.conversationId,
            text: `w${writer}-${n}`,
          })
          .catch(() => errors++);
      }
    }),
  );
  const { turns } = await setup.loadConversation(owner, conversation.conversationId);
  const stored = new Set(turns.map((turn) => turn.text).filter((text) => text !== 'start')).size;
  return { stored, lost: writers * appendsPerWriter - stored, errors };
}

async function langChainConcurrency(endpoint: string, tableName: string) {
  const sessionId = `concurrency-${randomUUID()}`;
  let errors = 0;
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      const history = createLangChainHistory(endpoint, tableName, sessionId);
      for (let n = 0; n < appendsPerWriter; n++) {
        const message =
          n % 2 === 0 ? new HumanMessage(`w${writer}-${n}`) : new AIMessage(`w${writer}-${n}`);
        await history.addMessage(message).catch(() => errors++);
      }
    }),
  );
  const messages = await createLangChainHistory(endpoint, tableName, sessionId).getMessages();
  const stored = new Set(messages.map((message) => String(message.content))).size;
  return { stored, lost: writers * appendsPerWriter - stored, errors };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main();
}
