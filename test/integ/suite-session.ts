import { parseTicketReferences } from '../../functions/chat/inquiry-rules.js';
import type { IntegTarget } from './integ-target.js';
import { answerOf, type ChatAnswer, type StreamedChat, streamChat } from './streamed-chat.js';

/**
 * Every chat the suite sends, kept for the checks that look across all of them (restricted
 * tickets, grounding, usage) and for the clean-up (each conversation is deleted at the end).
 */

export interface SentChat {
  readonly label: string;
  readonly message: string;
  readonly chat: StreamedChat;
  readonly answer: ChatAnswer;
  /** Ticket numbers the message names: those tickets are fetched, not retrieved. */
  readonly referencedIds: readonly string[];
}

export interface SuiteSession {
  readonly target: IntegTarget;
  readonly chats: readonly SentChat[];
  readonly conversationIds: ReadonlySet<string>;
  send(label: string, body: { message: string; conversationId?: string }): Promise<SentChat>;
}

export function createSuiteSession(target: IntegTarget): SuiteSession {
  const chats: SentChat[] = [];
  const conversationIds = new Set<string>();
  return {
    target,
    chats,
    conversationIds,
    async send(label, body) {
      const chat = await streamChat(target.api, body);
      const answer = answerOf(chat);
      if (answer.conversationId) conversationIds.add(answer.conversationId);
      const sent = {
        label,
        message: body.message,
        chat,
        answer,
        referencedIds: parseTicketReferences(body.message),
      };
      chats.push(sent);
      return sent;
    },
  };
}

/** Why a chat did not end as a complete answer, or undefined when it did. */
export function chatProblem(sent: SentChat): string | undefined {
  const { chat, answer } = sent;
  if (chat.status !== 200) return `${sent.label}: HTTP ${chat.status} ${chat.errorBody}`;
  if (answer.error)
    return `${sent.label}: error event ${answer.error.code}: ${answer.error.message}`;
  if (chat.events[0]?.event !== 'meta') return `${sent.label}: the first event is not meta`;
  if (answer.result === undefined) return `${sent.label}: the stream ended without a result`;
  if (answer.result.status !== 'complete') {
    return `${sent.label}: the answer is ${answer.result.status}, not complete`;
  }
  return undefined;
}

/** Runs `work` over `items`, at most `concurrency` at a time, results in order. */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(workers);
  return results;
}
