import { answerTool } from './answer-tool.js';
import { buildSystemPrompt } from './build-system-prompt.js';
import type { ChatModelRequest } from './chat-model.js';
import type { Turn } from './conversation-store.js';
import type { Language } from './detect-language.js';
import { formatArchiveSection } from './format-archive-section.js';
import { formatTicketContext } from './format-ticket-context.js';
import { toAlternatingMessages, toFlatMessage } from './history-rules.js';
import { promptLabels } from './prompt-labels.js';
import type { RetrievedTicket } from './retriever.js';
import type { ArchivedInquiry } from './split-inquiries.js';

export interface ModelRequestInput {
  /** The open inquiry's turns, ending with the user turn just recorded. */
  readonly working: readonly Pick<Turn, 'role' | 'text' | 'result'>[];
  readonly archive: readonly ArchivedInquiry[];
  readonly tickets: readonly RetrievedTicket[];
  readonly language: Language;
  readonly archiveBudget: number;
  readonly maxTokens: number;
}

/**
 * Context assembly: the working buffer as alternating messages; the KB context, the archive (as
 * reference text only) and the inquiry heading injected into the last user message.
 */
export function buildModelRequest(input: ModelRequestInput): Omit<ChatModelRequest, 'signal'> {
  const messages = toAlternatingMessages(input.working.map(toFlatMessage));
  const last = messages.at(-1);
  if (last?.role !== 'user') throw new Error('The working buffer must end with a user turn');
  const sections = [
    formatTicketContext(input.tickets, input.language),
    formatArchiveSection(input.archive, input.language, input.archiveBudget),
    `${promptLabels[input.language].inquiry}\n${last.text}`,
  ].filter((section) => section !== '');
  messages[messages.length - 1] = { role: 'user', text: sections.join('\n\n') };
  return {
    system: buildSystemPrompt(input.language),
    messages,
    tool: answerTool,
    maxTokens: input.maxTokens,
  };
}
