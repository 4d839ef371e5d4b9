import { attachedFileElements, type LoadedAttachments } from '../attachments/read-attachments.js';
import { ANSWER_TOOL_NAME, type Answer, answerSchema } from '../contract/answer.js';
import {
  type AttachmentReading,
  type AttachmentRef,
  isImageType,
} from '../contract/attachments.js';
import type { Language } from '../contract/language.js';
import { PROMPT_ELEMENTS } from '../contract/prompt-data.js';
import {
  answerLanguageElement,
  type PromptElement,
  promptElement,
  renderPromptMarkup,
} from '../contract/prompt-markup.js';
import type { KnownIssueNotice } from '../contract/surges.js';
import { requestBound, tokensAtLeast, tokensAtMost } from '../model-call/daily-budget.js';
import { defineForcedTool } from '../model-call/forced-tool.js';
import type { ArchivedInquiry } from './inquiry-rules.js';
import type {
  CacheCheckpoints,
  ChatConfig,
  ChatMessage,
  ChatModelRequest,
  PromptCachePolicy,
  RetrievedTicket,
  ToolDefinition,
  Turn,
} from './ports.js';
import {
  archiveElement,
  buildSystemPrompt,
  inquiryElement,
  knownIssueElement,
  ticketContextElement,
} from './prompt-text.js';

/**
 * The model request: which history may go to the model and in what shape (ADR 0001), the forced
 * answer tool, and the sections injected into the last user message.
 */

export interface ModelRequestInput {
  /**
   * The open inquiry's turns, ending with the user turn just recorded; a user turn's attachments
   * with their bytes (ADR 0030): its images go with its message every time it is sent (a
   * clarification's reply still shows the screenshot), its text files as elements.
   */
  readonly working: readonly (Pick<Turn, 'role' | 'text' | 'result'> & {
    readonly attached?: LoadedAttachments;
  })[];
  /** What the vision step read from the inquiry's images: an element of the last message. */
  readonly reading?: AttachmentReading;
  readonly archive: readonly ArchivedInquiry[];
  readonly tickets: readonly RetrievedTicket[];
  /** Open known issues the inquiry matches (ADR 0033): a lead's notes, above the tickets. */
  readonly knownIssues?: readonly KnownIssueNotice[];
  readonly language: Language;
  readonly archiveBudget: number;
  readonly maxTokens: number;
  /** Prompt caching for the model; absent = no checkpoints (ADR 0009). */
  readonly promptCache?: PromptCachePolicy;
}

/**
 * Context assembly: the working buffer as alternating messages; the KB context and the archive
 * (as reference text only) injected into the last user message before its inquiry.
 *
 * Every user message is markup (ADR 0015): what staff wrote is the content of an `inquiry`
 * element, the answer language, the tickets and the archive are elements of their own, all text
 * escaped, so nothing a ticket, an earlier answer or staff wrote can add or close a section. An
 * earlier message is wrapped the same way every time it is sent, so the history prefix stays
 * byte-identical from turn to turn (prompt caching, ADR 0009).
 */
export function buildModelRequest(input: ModelRequestInput): Omit<ChatModelRequest, 'signal'> {
  const flat = toAlternatingMessages(input.working.map(toWorkingMessage));
  const last = flat.at(-1);
  if (last?.role !== 'user') throw new Error('The working buffer must end with a user turn');
  const withImages = (message: WorkingMessage) =>
    message.images?.length ? { images: message.images } : {};
  const earlier: ChatMessage[] = flat.slice(0, -1).map((message) =>
    message.role === 'user'
      ? {
          role: 'user' as const,
          text: renderPromptMarkup([...(message.files ?? []), inquiryElement(message.text)]),
          ...withImages(message),
        }
      : { role: 'assistant' as const, text: message.text },
  );
  const archive = archiveElement(input.archive, input.language, input.archiveBudget);
  const sections = [
    answerLanguageElement(input.language),
    ...(input.knownIssues ?? []).map(knownIssueElement),
    ticketContextElement(input.tickets, input.language),
    ...(archive ? [archive] : []),
    ...(last.files ?? []),
    ...(input.reading ? [screenshotReadingElement(input.reading)] : []),
    inquiryElement(last.text),
  ];
  const messages: ChatMessage[] = [
    ...earlier,
    { role: 'user' as const, text: renderPromptMarkup(sections), ...withImages(last) },
  ];
  const system = buildSystemPrompt(input.language);
  const cacheCheckpoints = input.promptCache
    ? placeCacheCheckpoints(system, messages, input.promptCache)
    : undefined;
  return {
    system,
    messages,
    tool: answerTool,
    maxTokens: input.maxTokens,
    ...(cacheCheckpoints ? { cacheCheckpoints } : {}),
  };
}

/**
 * Where the prompt prefix is worth caching (ADR 0009), in the model's prefix order: after the
 * tool definitions (the same for every request), after the system prompt (one per language), and
 * after the last message before the new one — never after the new user message, which carries
 * this turn's tickets and archive and is not repeated: the next turn of the inquiry sends the
 * same history plus this turn, so it reads what this turn wrote.
 *
 * Each checkpoint needs `minimumTokens` since the previous one (the Bedrock guide: a first
 * checkpoint after 1,024 tokens, a second after 2,048); a shorter one would be accepted but cache
 * nothing, so it is left out and its tokens count toward the next. The token count is a lower
 * bound (`tokensAtLeast`), so a checkpoint is placed only where the prefix surely is long enough.
 * At most three checkpoints, within Bedrock's four.
 */
function placeCacheCheckpoints(
  system: string,
  messages: readonly ChatMessage[],
  policy: PromptCachePolicy,
): CacheCheckpoints | undefined {
  let sinceCheckpoint = answerToolTokens();
  const afterTool = policy.cacheTools && sinceCheckpoint >= policy.minimumTokens;
  if (afterTool) sinceCheckpoint = 0;
  sinceCheckpoint += tokensAtLeast(system);
  const afterSystem = sinceCheckpoint >= policy.minimumTokens;
  if (afterSystem) sinceCheckpoint = 0;
  const lastPrior = messages.length - 2;
  for (const message of messages.slice(0, Math.max(0, lastPrior + 1))) {
    sinceCheckpoint += tokensAtLeast(message.text);
  }
  const afterHistory = lastPrior >= 0 && sinceCheckpoint >= policy.minimumTokens;
  if (!afterTool && !afterSystem && !afterHistory) return undefined;
  return { afterTool, afterSystem, ...(afterHistory ? { afterMessage: lastPrior } : {}) };
}

/** A message of the working buffer before it is rendered: its text, images and text files. */
interface WorkingMessage extends ChatMessage {
  readonly files?: readonly PromptElement[];
}

/**
 * What history may carry into a model request: flat `(role, text)` pairs with roles user and
 * assistant only, a user turn's attachments beside its text. Anything else becomes `user`, so a
 * stored turn can never smuggle a system prompt or a tool result into the request.
 */
function toWorkingMessage(turn: ModelRequestInput['working'][number]): WorkingMessage {
  if (turn.role !== 'assistant') {
    const images = turn.attached?.images ?? [];
    const files = attachedFileElements(turn.attached?.texts ?? []);
    return {
      role: 'user',
      text: turn.text,
      ...(images.length ? { images } : {}),
      ...(files.length ? { files } : {}),
    };
  }
  return { role: 'assistant', text: compactAnswerText(turn.result, turn.text) };
}

/** The vision step's reading as an element: model-written text, escaped like any data. */
function screenshotReadingElement(reading: AttachmentReading): PromptElement {
  const lines = [
    reading.visibleErrorText && `error text: ${reading.visibleErrorText}`,
    reading.application && `application: ${reading.application}`,
    reading.errorCodes.length > 0 && `codes: ${reading.errorCodes.join(', ')}`,
    reading.description && `description: ${reading.description}`,
  ].filter(Boolean);
  return promptElement(PROMPT_ELEMENTS.screenshotReading, {}, [lines.join('\n')]);
}

/**
 * An assistant turn as the model sees it in the working buffer: compact JSON of what it decided
 * (never a tool call, so the model doesn't pattern-match its own past tool input).
 *
 * The text is the model's own, but it can echo anything a ticket or staff wrote, tag-like text
 * included, and the system prompt tells the model every tag in the conversation is the system's
 * (ADR 0015). So `<`, `>` and `&` are written as JSON's own escapes (`\u003c`, `\u003e`,
 * `\u0026`): the same JSON value, read back to the character, with no tag in it. (Entities would
 * change the value; the model writes its answer as JSON tool input, where these escapes are
 * ordinary.)
 */
export function compactAnswerText(result: Answer | undefined, fallbackText: string): string {
  return jsonWithoutMarkup(compactAnswer(result, fallbackText));
}

function compactAnswer(result: Answer | undefined, fallbackText: string): object {
  if (!result) return { response_type: 'results', general_advice: fallbackText };
  if (result.response_type === 'clarification') {
    return {
      response_type: 'clarification',
      question: result.question ?? '',
      options: result.options ?? [],
    };
  }
  return { response_type: 'results', general_advice: result.general_advice };
}

const JSON_ESCAPES = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026' } as const;

const jsonWithoutMarkup = (value: object) =>
  JSON.stringify(value).replace(
    /[<>&]/g,
    (character) => JSON_ESCAPES[character as '<' | '>' | '&'],
  );

/**
 * Strictly alternating user/assistant messages starting with a user message: same-role
 * neighbours are merged, leading assistant messages dropped, empty texts ignored.
 */
export function toAlternatingMessages<M extends WorkingMessage>(
  messages: readonly M[],
): WorkingMessage[] {
  const merged: WorkingMessage[] = [];
  for (const message of messages) {
    const attached = (message.images?.length ?? 0) + (message.files?.length ?? 0) > 0;
    if (message.text.trim() === '' && !attached) continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    if (merged.length === 0 && role === 'assistant') continue;
    const last = merged.at(-1);
    if (last && last.role === role) {
      const images = [...(last.images ?? []), ...(message.images ?? [])];
      const files = [...(last.files ?? []), ...(message.files ?? [])];
      merged[merged.length - 1] = {
        role,
        text: [last.text, message.text].filter((text) => text.trim() !== '').join('\n\n'),
        ...(images.length ? { images } : {}),
        ...(files.length ? { files } : {}),
      };
    } else merged.push({ ...message, role });
  }
  return merged;
}

/**
 * The forced tool, its JSON Schema generated from the zod schema so validation and the model's
 * contract cannot drift. Computed once: the same object (and bytes) for every request.
 */
export const answerTool: ToolDefinition = defineForcedTool({
  name: ANSWER_TOOL_NAME,
  description: 'Submit the structured answer for the service-desk staff member.',
  input: answerSchema,
});

let answerToolTokenCount: number | undefined;

/**
 * The tool definitions as the model reads them (name, description, schema), lower bound; counted
 * on first use, since serialising the tool writes its JSON Schema (`defineForcedTool`).
 */
function answerToolTokens(): number {
  answerToolTokenCount ??= tokensAtLeast(JSON.stringify(answerTool));
  return answerToolTokenCount;
}

/**
 * What a chat reserves at admission, before its prompt is known (the user turn is not written
 * yet, nothing is retrieved): the bound of a request of the longest system prompt, the answer
 * tool and the message, plus room for what retrieval and history add — the archive at its
 * character budget (3 UTF-8 bytes per UTF-16 unit at most), a share per retrieved ticket (the
 * sample tickets are under 2.1 KB; Bedrock's default chunk is 300 tokens) and for the inquiry's
 * earlier turns (a clarification and its choice are under 2 KB). Once the request is built the
 * reservation is resized to its bound; only a prompt larger than this leaves a window (retrieval,
 * a second or so) in which concurrent calls see less than it will hold.
 */
export function chatAdmissionBound(
  message: string,
  config: Pick<ChatConfig, 'maxTokens' | 'archiveBudget' | 'numberOfResults'>,
  attachments: readonly AttachmentRef[] = [],
): number {
  // Images cost their tokens (`requestBound`); a text file at most a token per byte.
  const images = attachments
    .filter((ref) => isImageType(ref.type))
    .map((ref) => ({
      format: 'png' as const,
      bytes: new Uint8Array(0),
      width: ref.width ?? 1,
      height: ref.height ?? 1,
    }));
  const textBytes = attachments
    .filter((ref) => !isImageType(ref.type))
    .reduce((sum, ref) => sum + ref.size, 0);
  const bare =
    requestBound({
      system: longestSystemPrompt,
      messages: [{ role: 'user', text: message, images }],
      tool: answerTool,
      maxTokens: config.maxTokens,
    }) + textBytes;
  return (
    bare +
    config.archiveBudget * 3 +
    config.numberOfResults * TICKET_ALLOWANCE_TOKENS +
    HISTORY_ALLOWANCE_TOKENS
  );
}

const TICKET_ALLOWANCE_TOKENS = 2500;
const HISTORY_ALLOWANCE_TOKENS = 4000;
const longestSystemPrompt = [buildSystemPrompt('ja'), buildSystemPrompt('en')].reduce(
  (longest, prompt) => (tokensAtMost(prompt) > tokensAtMost(longest) ? prompt : longest),
);
