import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsNamed, postChat } from '../support/chat-client.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';

/**
 * The function's Bedrock clients keep their connections between requests (ADR 0035): the SDK's
 * default for both runtime clients opens an HTTP/2 session — in AWS a TCP connection and a TLS
 * handshake — for every Retrieve and every ConverseStream. Counted where the connections arrive:
 * the local Bedrock endpoint, behind the function's own wiring (`createApi`).
 */

let chat: InProcessApi;
beforeAll(async () => {
  chat = await startInProcessApi();
});
afterAll(() => chat?.stop());

describe('the Bedrock clients of a warm function', () => {
  it('answer three chats one after another over one connection per client, HTTP/1.1', async () => {
    const messages = ['VPNに接続できない', 'プリンターで印刷できません', 'Outlook が起動しない'];
    for (const [index, message] of messages.entries()) {
      const response = await postChat(chat.api, { message }, { user: `connections-${index}` });
      expect(eventsNamed(response, 'result')).toHaveLength(1);
    }
    // Each chat retrieved and called the model: six requests or more.
    expect(chat.bedrock.retrieveRequests.length).toBeGreaterThanOrEqual(3);
    expect(chat.bedrock.converseRequests).toHaveLength(3);
    // One keep-alive connection for the retriever, one for the model.
    expect(chat.bedrock.connections).toEqual({ http1: 2, http2: 0 });
  });
});
