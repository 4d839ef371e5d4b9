import {
  KNOWN_ISSUE_ELEMENTS,
  PROMPT_ELEMENTS,
  TICKET_ATTRIBUTES,
} from '../../../functions/contract/prompt-data.js';
import type { PromptElement } from '../../../functions/contract/prompt-markup.js';
import { isElement, type OfflineRequest, promptElementsOf, textOf } from './offline-request.js';

/** What the answer generator reads of a chat request: the inquiry, its tickets and archive. */
export interface OfflinePrompt {
  /** The user's text in each user message of the working buffer, oldest first. */
  readonly inquiries: readonly string[];
  /** Retrieved tickets from the last user message, one per issue id (chunks merged). */
  readonly tickets: readonly KbTicketBlock[];
  /** The archive entries of the last user message; absent without an `earlier_inquiries` element. */
  readonly archive?: readonly ArchiveEntry[];
  /** The lead's known issues of the last user message (`known_issue` elements), in order. */
  readonly knownIssues: readonly KnownIssueBlock[];
  /**
   * The working buffer already holds an assistant turn. A `results` answer closes an inquiry,
   * so an assistant turn in the buffer can only be a clarification: answer with results now.
   */
  readonly answeredClarification: boolean;
}

/**
 * Reads a chat request's user messages by their elements (`functions/chat/prompt-text.ts`): the
 * inquiries, the Knowledge Base tickets and the archive. A user message without markup counts as
 * inquiry text as a whole.
 */
export function readOfflinePrompt(request: OfflineRequest): OfflinePrompt {
  const userMessages = request.messages
    .filter((message) => message.role === 'user')
    .map((message) => readPromptMessage(message.text));
  const last = userMessages.at(-1);
  return {
    inquiries: userMessages.map((message) => message.inquiry).filter((text) => text !== ''),
    tickets: mergeChunks(last?.tickets ?? []),
    archive: last?.archive,
    knownIssues: last?.knownIssues ?? [],
    answeredClarification: request.messages.some((message) => message.role === 'assistant'),
  };
}

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

/** One `known_issue` element: a lead's note. */
export interface KnownIssueBlock {
  readonly author: string;
  readonly title: string;
  readonly note: string;
  readonly workaround?: string;
  readonly link?: string;
}

/** One user message read by its elements. */
export interface PromptMessage {
  /** What staff wrote: the `inquiry` element's text, or a message without markup as a whole. */
  readonly inquiry: string;
  /** The `knowledge_base` element's tickets; absent without one. */
  readonly tickets?: readonly KbTicketBlock[];
  /** The `earlier_inquiries` element's entries; absent without one. */
  readonly archive?: readonly ArchiveEntry[];
  /** The `known_issue` elements; absent without one. */
  readonly knownIssues?: readonly KnownIssueBlock[];
}

/**
 * Reads one user message. A message that is not markup (a hand-written request: curl, a test
 * sending plain text) or has no element is its own inquiry.
 */
export function readPromptMessage(text: string): PromptMessage {
  const elements = promptElementsOf(text);
  if (elements.length === 0) return { inquiry: text };
  const named = (name: string) => elements.find((element) => element.name === name);
  const knowledgeBase = named(PROMPT_ELEMENTS.knowledgeBase);
  const archive = named(PROMPT_ELEMENTS.archive);
  const knownIssues = elements.filter((element) => element.name === PROMPT_ELEMENTS.knownIssue);
  return {
    // What was read from a screenshot is what a model sees in the image: part of the inquiry.
    inquiry: elements
      .filter(
        (element) =>
          element.name === PROMPT_ELEMENTS.inquiry ||
          element.name === PROMPT_ELEMENTS.screenshotReading,
      )
      .map(textOf)
      .join('\n\n'),
    ...(knowledgeBase ? { tickets: knowledgeBase.children.filter(isElement).map(readTicket) } : {}),
    ...(archive ? { archive: archive.children.filter(isElement).map(readArchiveEntry) } : {}),
    ...(knownIssues.length > 0 ? { knownIssues: knownIssues.map(readKnownIssue) } : {}),
  };
}

function readKnownIssue(element: PromptElement): KnownIssueBlock {
  const child = (name: string) => {
    const found = element.children.find((node) => isElement(node) && node.name === name);
    return found === undefined ? undefined : textOf(found as PromptElement);
  };
  const workaround = child(KNOWN_ISSUE_ELEMENTS.workaround);
  const link = child(KNOWN_ISSUE_ELEMENTS.link);
  return {
    author: element.attributes.author ?? '',
    title: child(KNOWN_ISSUE_ELEMENTS.title) ?? '',
    note: child(KNOWN_ISSUE_ELEMENTS.note) ?? '',
    ...(workaround !== undefined ? { workaround } : {}),
    ...(link !== undefined ? { link } : {}),
  };
}

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
