import { detectLanguage, type Language } from '../../../functions/contract/language.js';
import { ANSWER_LANGUAGE_ELEMENT } from '../../../functions/contract/prompt-data.js';
import {
  type PromptElement,
  PromptMarkupError,
  type PromptNode,
  parsePromptMarkup,
} from '../../../functions/contract/prompt-markup.js';
import type { ConverseWireRequest } from '../recorded-requests.js';

/**
 * A ConverseStream request as the offline responder reads it: the forced tool (name and input
 * schema) and the data — the messages and the markup elements of each (ADR 0015). Never the
 * system prompt, the tool's description or the schema's descriptions: those are instructions in
 * words, and rewording them must not change what the responder answers.
 */
export interface OfflineRequest {
  /** The forced tool (`toolChoice.tool`), else the only/first tool: it picks the generator. */
  readonly toolName: string;
  readonly inputSchema: unknown;
  readonly maxTokens?: number;
  /** Every message, oldest first. */
  readonly messages: readonly OfflineMessage[];
  /**
   * The `answer_language` element of the last user message; undefined in a request that has
   * none (one written by hand), where each generator takes the language of its data.
   */
  readonly answerLanguage?: Language;
}

export interface OfflineMessage {
  readonly role: 'user' | 'assistant';
  /** The message's whole text. */
  readonly text: string;
  /** The message's images (ConverseStream `image` blocks), decoded from base64. */
  readonly images?: readonly OfflineImage[];
}

export interface OfflineImage {
  readonly format: string;
  readonly bytes: Buffer;
}

/** The request cannot be answered offline (e.g. no tool to call); sent as a ValidationException. */
export class OfflineRequestError extends Error {
  override readonly name = 'OfflineRequestError';
}

/**
 * Reads the tool and the data of a ConverseStream request body.
 * @throws OfflineRequestError without a tool or without a user message
 */
export function readOfflineRequest(body: ConverseWireRequest): OfflineRequest {
  const tools = body.toolConfig?.tools ?? [];
  const forced = body.toolConfig?.toolChoice?.tool?.name;
  const tool = tools.find((candidate) => candidate.toolSpec?.name === forced) ?? tools[0];
  const toolName = tool?.toolSpec?.name;
  if (toolName === undefined) {
    throw new OfflineRequestError(
      'The offline responder answers through a tool: send toolConfig with the forced tool.',
    );
  }
  const messages = (body.messages ?? []).map((message): OfflineMessage => {
    const images = (message.content ?? []).flatMap((block) =>
      block.image?.source?.bytes !== undefined
        ? [
            {
              format: block.image.format ?? '',
              bytes: Buffer.from(block.image.source.bytes, 'base64'),
            },
          ]
        : [],
    );
    return {
      role: message.role === 'assistant' ? 'assistant' : 'user',
      text: messageText(message),
      ...(images.length > 0 ? { images } : {}),
    };
  });
  const lastUser = messages.findLast((message) => message.role === 'user');
  if (lastUser === undefined) throw new OfflineRequestError('There is no user message to answer.');
  const answerLanguage = answerLanguageIn(promptElementsOf(lastUser.text));
  return {
    toolName,
    inputSchema: tool?.toolSpec?.inputSchema?.json,
    maxTokens: body.inferenceConfig?.maxTokens,
    messages,
    ...(answerLanguage ? { answerLanguage } : {}),
  };
}

const messageText = (message: NonNullable<ConverseWireRequest['messages']>[number]) =>
  (message.content ?? [])
    // A guarded block is text the model reads like any other.
    .map((block) => block.text ?? block.guardContent?.text?.text ?? '')
    .join('\n')
    .trim();

/** The last user message's text (`readOfflineRequest` guarantees there is one). */
export const lastUserText = (request: OfflineRequest): string =>
  request.messages.findLast((message) => message.role === 'user')?.text ?? '';

/** The language the request asks for, else the language of `text` (the request's own data). */
export const answerLanguageOr = (request: OfflineRequest, text: string): Language =>
  request.answerLanguage ?? detectLanguage(text);

/** The `answer_language` element's value among `elements`, when it names one. */
export function answerLanguageIn(elements: readonly PromptElement[]): Language | undefined {
  const named = textOf(elements.find((element) => element.name === ANSWER_LANGUAGE_ELEMENT)).trim();
  return named === 'ja' || named === 'en' ? named : undefined;
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
 * hand-written request) — the generators then read the text itself.
 */
export function promptElementsOf(text: string): PromptElement[] {
  return (parseOrUndefined(text) ?? []).filter(isElement);
}

/** Whether a markup node is an element (not text). */
export const isElement = (node: PromptNode): node is PromptElement => typeof node !== 'string';

/** The text directly inside an element (nothing for a missing one). */
export const textOf = (element: PromptElement | undefined) =>
  (element?.children ?? []).filter((child) => typeof child === 'string').join('');
