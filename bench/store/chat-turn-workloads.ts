import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient, waitUntilTableExists } from '@aws-sdk/client-dynamodb';
import { DynamoDBChatMessageHistory } from '@langchain/community/stores/message/dynamodb';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { createDynamoDbConversationStore } from '../../functions/adapters/dynamodb/create-dynamodb-conversation-store.js';
import type { ConversationTableNames } from '../../functions/adapters/dynamodb/table-definitions.js';
import type { ConversationStore, Owner } from '../../functions/chat/ports.js';

/** Realistic sizes: a short question, an answer of ~2 KB of markdown. */
export const userText =
  'VPNに接続できません。GlobalProtectで「ゲートウェイに接続できない」と表示されます。';
export const assistantText = `## 対処\n${'プロファイルを再作成し、証明書を更新してください。'.repeat(40)}`;

export const owner: Owner = { tenantId: 'bench', userId: 'user' };

export function createStore(
  client: DynamoDBClient,
  tables: ConversationTableNames,
  maxAttempts = 10,
) {
  return createDynamoDbConversationStore({
    client,
    tables,
    retentionDays: 30,
    cacheMaxBytes: 64 * 1024 * 1024,
    now: () => new Date(),
    maxAttempts,
    backoff: maxAttempts > 10 ? { baseDelayMs: 20, maxDelayMs: 400 } : {},
  });
}

/** A conversation with `turns` alternating user/assistant turns (setup, not measured). */
export async function seedConversation(store: ConversationStore, turns: number): Promise<string> {
  const first = await store.appendUserTurn(owner, { text: userText });
  const { conversationId } = first.conversation;
  for (let seq = 2; seq <= turns; seq++) {
    if (seq % 2 === 0) await assistantTurn(store, conversationId, first.turn.inquiryId);
    else await store.appendUserTurn(owner, { conversationId, text: userText });
  }
  return conversationId;
}

/**
 * One chat turn on our store, as the chat route runs it: load the history, append the user turn
 * with its `clientMessageId` (the web app always sends one: an idempotency marker carrying the
 * generation claim), append the answer, release the claim.
 */
export async function ourChatTurn(store: ConversationStore, conversationId: string) {
  await store.loadConversation(owner, conversationId);
  const clientMessageId = randomUUID();
  const generation = { holder: randomUUID(), until: new Date(Date.now() + 15 * 60_000) };
  const user = await store.appendUserTurn(owner, {
    conversationId,
    text: userText,
    clientMessageId,
    generation,
  });
  await assistantTurn(store, conversationId, user.turn.inquiryId);
  await store.releaseGeneration(owner, clientMessageId, generation.holder);
}

function assistantTurn(store: ConversationStore, conversationId: string, inquiryId: string) {
  return store.appendAssistantTurn(owner, {
    conversationId,
    inquiryId,
    kind: 'clarification',
    text: assistantText,
    status: 'complete',
  });
}

/** LangChain's history on its own single-key table (`id`), as its docs set it up. */
export async function createLangChainTable(client: DynamoDBClient, tableName: string) {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 60 }, { TableName: tableName });
}

export function createLangChainHistory(endpoint: string, tableName: string, sessionId: string) {
  return new DynamoDBChatMessageHistory({
    tableName,
    sessionId,
    config: {
      endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    },
  });
}

/**
 * Grows the LangChain history the way a chat would (a few messages per update) so that a
 * failure shows the history length at which its single item stops accepting messages.
 */
export async function seedLangChain(history: DynamoDBChatMessageHistory, turns: number) {
  const chunk = 10;
  for (let start = 0; start < turns; start += chunk) {
    const messages = Array.from({ length: Math.min(chunk, turns - start) }, (_, offset) =>
      (start + offset) % 2 === 0 ? new HumanMessage(userText) : new AIMessage(assistantText),
    );
    try {
      await history.addMessages(messages);
    } catch (error) {
      throw new Error(`item full at ${start} turns (400 KB limit): ${(error as Error).message}`);
    }
  }
}

/** The same chat turn with LangChain: read the history, add the question, add the answer. */
export async function langChainChatTurn(history: DynamoDBChatMessageHistory) {
  await history.getMessages();
  await history.addMessage(new HumanMessage(userText));
  await history.addMessage(new AIMessage(assistantText));
}

export { DynamoDBClient };
