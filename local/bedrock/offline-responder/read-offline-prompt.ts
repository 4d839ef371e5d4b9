import type { ConverseWireRequest } from '../recorded-requests.js';
import { type KbTicketBlock, parseKbTicketBlocks } from './kb-ticket-block.js';
import { OfflineRequestError } from './offline-request-error.js';
import { splitPromptSections } from './prompt-sections.js';

/** What the offline responder knows: only what the ConverseStream request carries. */
export interface OfflinePrompt {
  /** The forced tool (`toolChoice.tool`), else the only/first tool. */
  readonly toolName: string;
  readonly inputSchema: unknown;
  readonly maxTokens?: number;
  /** The user's text in each user message of the working buffer, oldest first. */
  readonly inquiries: readonly string[];
  /** Retrieved tickets from the last user message, one per issue id (chunks merged). */
  readonly tickets: readonly KbTicketBlock[];
  readonly archive?: string;
  /**
   * The working buffer already holds an assistant turn. A `results` answer closes an inquiry,
   * so an assistant turn in the buffer can only be a clarification: answer with results now.
   */
  readonly answeredClarification: boolean;
}

const messageText = (message: NonNullable<ConverseWireRequest['messages']>[number]) =>
  (message.content ?? [])
    .map((block) => block.text ?? '')
    .join('\n')
    .trim();

const mergeChunks = (tickets: readonly KbTicketBlock[]): KbTicketBlock[] => {
  const byId = new Map<string, KbTicketBlock>();
  for (const ticket of tickets) {
    const seen = byId.get(ticket.issueId);
    byId.set(
      ticket.issueId,
      seen === undefined
        ? ticket
        : {
            ...seen,
            score: Math.max(seen.score ?? 0, ticket.score ?? 0),
            text: `${seen.text}\n\n${ticket.text}`,
          },
    );
  }
  return [...byId.values()];
};

/**
 * Reads a ConverseStream request body the way the offline responder needs it: the tool to call,
 * and from the user messages the inquiry sections, the Knowledge Base tickets and the archive.
 * A user message without a `## 問い合わせ` / `## Inquiry` section counts as inquiry text as a whole
 * (minus any Knowledge Base and archive sections).
 * @throws OfflineRequestError without a tool or without a user message
 */
export function readOfflinePrompt(body: ConverseWireRequest): OfflinePrompt {
  const tools = body.toolConfig?.tools ?? [];
  const forced = body.toolConfig?.toolChoice?.tool?.name;
  const tool = tools.find((candidate) => candidate.toolSpec?.name === forced) ?? tools[0];
  const toolName = tool?.toolSpec?.name;
  if (toolName === undefined) {
    throw new OfflineRequestError(
      'The offline responder answers through a tool: send toolConfig with the forced tool.',
    );
  }
  const messages = body.messages ?? [];
  const userSections = messages
    .filter((message) => message.role === 'user')
    .map((message) => splitPromptSections(messageText(message)));
  const last = userSections.at(-1);
  if (last === undefined) throw new OfflineRequestError('There is no user message to answer.');

  return {
    toolName,
    inputSchema: tool?.toolSpec?.inputSchema?.json,
    maxTokens: body.inferenceConfig?.maxTokens,
    inquiries: userSections
      .map((sections) => sections.inquiry ?? sections.preamble)
      .filter((text) => text !== ''),
    tickets: mergeChunks(parseKbTicketBlocks(last.knowledgeBase ?? '')),
    archive: last.archive,
    answeredClarification: messages.some((message) => message.role === 'assistant'),
  };
}
