import type { Answer } from './answer-schema.js';
import type { ChatMessage } from './chat-model.js';
import type { Turn } from './conversation-store.js';

/**
 * What history may carry into a model request: flat `(role, text)` pairs with roles user and
 * assistant only. Anything else becomes `user`, so a stored turn can never smuggle a system
 * prompt or a tool result into the request.
 */
export function toFlatMessage(turn: Pick<Turn, 'role' | 'text' | 'result'>): ChatMessage {
  if (turn.role !== 'assistant') return { role: 'user', text: turn.text };
  return { role: 'assistant', text: compactAnswerText(turn.result, turn.text) };
}

/**
 * An assistant turn as the model sees it in the working buffer: compact JSON of what it decided
 * (never a tool call, so the model doesn't pattern-match its own past tool input).
 */
export function compactAnswerText(result: Answer | undefined, fallbackText: string): string {
  if (!result) return JSON.stringify({ response_type: 'results', general_advice: fallbackText });
  if (result.response_type === 'clarification') {
    return JSON.stringify({
      response_type: 'clarification',
      question: result.question ?? '',
      options: result.options ?? [],
    });
  }
  return JSON.stringify({ response_type: 'results', general_advice: result.general_advice });
}

/**
 * Strictly alternating user/assistant messages starting with a user message: same-role
 * neighbours are merged, leading assistant messages dropped, empty texts ignored.
 */
export function toAlternatingMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  const merged: ChatMessage[] = [];
  for (const message of messages) {
    if (message.text.trim() === '') continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    if (merged.length === 0 && role === 'assistant') continue;
    const last = merged.at(-1);
    if (last && last.role === role)
      merged[merged.length - 1] = { role, text: `${last.text}\n\n${message.text}` };
    else merged.push({ role, text: message.text });
  }
  return merged;
}
