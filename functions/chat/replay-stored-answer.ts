import type { ChatEvent } from '../stream/chat-events.js';
import type { ConversationWithTurns, Turn } from './conversation-store.js';

/**
 * A retried POST (same clientMessageId) whose answer was already stored gets that answer again
 * instead of a second generation. Returns false when there is nothing final to replay.
 */
export function replayStoredAnswer(
  loaded: ConversationWithTurns,
  userTurn: Turn,
  send: (event: ChatEvent) => void,
): boolean {
  const next = loaded.turns.find((turn) => turn.seq > userTurn.seq);
  if (next?.role !== 'assistant' || !next.result || next.inquiryId !== userTurn.inquiryId)
    return false;
  if (next.status !== 'complete' && next.status !== 'truncated' && next.status !== 'stopped')
    return false;
  if (next.result.general_advice)
    send({ event: 'token', data: { content: next.result.general_advice } });
  for (const ticket of next.result.results ?? []) send({ event: 'ticket', data: ticket });
  const { conversationId, version } = loaded.conversation;
  send({ event: 'result', data: { ...next.result, conversationId, version, status: next.status } });
  return true;
}
