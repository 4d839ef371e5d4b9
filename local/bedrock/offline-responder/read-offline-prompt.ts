import {
  type PromptElement,
  PromptMarkupError,
  type PromptNode,
  parsePromptMarkup,
} from '../../../functions/chat/prompt-markup.js';
import { PROMPT_ELEMENTS, TICKET_ATTRIBUTES } from '../../../functions/chat/prompt-text.js';
import type { ConverseWireRequest } from '../recorded-requests.js';

/** What the offline responder knows: only what the ConverseStream request carries. */
export interface OfflinePrompt {
  /** The forced tool (`toolChoice.tool`), else the only/first tool. */
  readonly toolName: string;
  readonly inputSchema: unknown;
  readonly maxTokens?: number;
  /** The user's text in each user message of the working buffer, oldest first. */
  readonly inquiries: readonly string[];
  /** The last user message's whole text (the draft tool reads its transcript elements). */
  readonly lastUserText: string;
  /** Retrieved tickets from the last user message, one per issue id (chunks merged). */
  readonly tickets: readonly KbTicketBlock[];
  /** The archive entries of the last user message; absent without an `earlier_inquiries` element. */
  readonly archive?: readonly ArchiveEntry[];
  /**
   * The working buffer already holds an assistant turn. A `results` answer closes an inquiry,
   * so an assistant turn in the buffer can only be a clarification: answer with results now.
   */
  readonly answeredClarification: boolean;
}

/** The request cannot be answered offline (e.g. no tool to call); sent as a ValidationException. */
export class OfflineRequestError extends Error {
  override readonly name = 'OfflineRequestError';
}

/**
 * Reads a ConverseStream request body the way the offline responder needs it: the tool to call,
 * and from the user messages (markup, `functions/chat/prompt-markup.ts`) the inquiries, the
 * Knowledge Base tickets and the archive. A user message without markup counts as inquiry text
 * as a whole.
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
  const userTexts = messages
    .filter((message) => message.role === 'user')
    .map((message) => messageText(message));
  const userMessages = userTexts.map((text) => readPromptMessage(text));
  const last = userMessages.at(-1);
  if (last === undefined) throw new OfflineRequestError('There is no user message to answer.');

  return {
    toolName,
    inputSchema: tool?.toolSpec?.inputSchema?.json,
    maxTokens: body.inferenceConfig?.maxTokens,
    inquiries: userMessages.map((message) => message.inquiry).filter((text) => text !== ''),
    lastUserText: userTexts.at(-1) ?? '',
    tickets: mergeChunks(last.tickets ?? []),
    archive: last.archive,
    answeredClarification: messages.some((message) => message.role === 'assistant'),
  };
}

const messageText = (message: NonNullable<ConverseWireRequest['messages']>[number]) =>
  (message.content ?? [])
    // A guarded block is text the model reads like any other.
    .map((block) => block.text ?? block.guardContent?.text?.text ?? '')
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

// ---------------------------------------------------------------------------------------------
// A user message is markup (ADR 0015): the chat core writes `knowledge_base`, `earlier_inquiries`
// and `inquiry` elements (`PROMPT_ELEMENTS` of `functions/chat/prompt-text.ts`) with every text
// escaped, so the elements found here are exactly the ones the core wrote.

/** One ticket element as the offline responder reads it. */
export interface KbTicketBlock {
  readonly issueId: string;
  readonly subject: string;
  readonly category?: string;
  readonly score?: number;
  readonly text: string;
}

/** One `earlier_inquiry` element of the archive. */
export interface ArchiveEntry {
  readonly number: number;
  readonly question: string;
  readonly followUps?: string;
  readonly answer?: string;
}

/** One user message read by its elements. */
export interface PromptMessage {
  /** What staff wrote: the `inquiry` element's text, or a message without markup as a whole. */
  readonly inquiry: string;
  /** The `knowledge_base` element's tickets; absent without one. */
  readonly tickets?: readonly KbTicketBlock[];
  /** The `earlier_inquiries` element's entries; absent without one. */
  readonly archive?: readonly ArchiveEntry[];
}

/**
 * Reads one user message. A message that is not markup (a hand-written request: curl, a test
 * sending plain text) or has no element is its own inquiry.
 */
export function readPromptMessage(text: string): PromptMessage {
  const nodes = parseOrUndefined(text);
  const elements = (nodes ?? []).filter(isElement);
  if (elements.length === 0) return { inquiry: text };
  const named = (name: string) => elements.find((element) => element.name === name);
  const knowledgeBase = named(PROMPT_ELEMENTS.knowledgeBase);
  const archive = named(PROMPT_ELEMENTS.archive);
  return {
    inquiry: elements
      .filter((element) => element.name === PROMPT_ELEMENTS.inquiry)
      .map(textOf)
      .join('\n\n'),
    ...(knowledgeBase ? { tickets: knowledgeBase.children.filter(isElement).map(readTicket) } : {}),
    ...(archive ? { archive: archive.children.filter(isElement).map(readArchiveEntry) } : {}),
  };
}

function parseOrUndefined(text: string): PromptNode[] | undefined {
  try {
    return parsePromptMarkup(text);
  } catch (error) {
    if (error instanceof PromptMarkupError) return undefined;
    throw error;
  }
}

/**
 * The top-level elements of a message in the prompt markup; none when it is not markup (a
 * hand-written request) — the offline modes then read the text itself.
 */
export function promptElementsOf(text: string): PromptElement[] {
  return (parseOrUndefined(text) ?? []).filter(isElement);
}

/** Whether a markup node is an element (not text). */
export const isElement = (node: PromptNode): node is PromptElement => typeof node !== 'string';

/** The text directly inside an element (nothing for a missing one). */
export const textOf = (element: PromptElement | undefined) =>
  (element?.children ?? []).filter((child) => typeof child === 'string').join('');

function readTicket(element: PromptElement): KbTicketBlock {
  const score = Number.parseFloat(element.attributes[TICKET_ATTRIBUTES.score] ?? '');
  return {
    issueId: element.attributes[TICKET_ATTRIBUTES.issueId] ?? '',
    subject: element.attributes[TICKET_ATTRIBUTES.subject] ?? '',
    category: element.attributes[TICKET_ATTRIBUTES.category],
    score: Number.isFinite(score) ? score : undefined,
    text: textOf(element),
  };
}

function readArchiveEntry(element: PromptElement): ArchiveEntry {
  const child = (name: string) => {
    const found = element.children.find((node) => isElement(node) && node.name === name);
    return found === undefined ? undefined : textOf(found as PromptElement);
  };
  return {
    number: Number(element.attributes.number),
    question: child(PROMPT_ELEMENTS.archiveQuestion) ?? '',
    followUps: child(PROMPT_ELEMENTS.archiveFollowUps),
    answer: child(PROMPT_ELEMENTS.archiveAnswer),
  };
}
