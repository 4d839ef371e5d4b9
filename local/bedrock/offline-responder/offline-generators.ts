import { ANSWER_TOOL_NAME } from '../../../functions/contract/answer.js';
import { ATTACHMENT_READING_TOOL_NAME } from '../../../functions/contract/attachments.js';
import { HANDOFF_TOOL_NAME } from '../../../functions/contract/handoff.js';
import { DRAFT_TOOL_NAME } from '../../../functions/contract/knowledge.js';
import { MAIL_DRAFT_TOOL_NAME } from '../../../functions/contract/mail-draft.js';
import { buildOfflineAnswer } from './offline-answers.js';
import { buildOfflineHandoffSummary, readHandoffTranscript } from './offline-handoff-summary.js';
import { buildOfflineMailDraft, readRefineRequest } from './offline-mail-draft.js';
import { answerLanguageOr, lastUserText, type OfflineRequest } from './offline-request.js';
import { buildOfflineTicketDraft, readDraftTranscript } from './offline-ticket-draft.js';
import { readOfflinePrompt } from './read-offline-prompt.js';
import { readScreenshotsOffline } from './screenshots/screenshot-registry.js';
import type { SeededRandom } from './seeded-random.js';

/**
 * Makes the forced tool's input from the request's tool and data (never its instructions);
 * `random` picks among wordings, so the same request gets the same answer.
 */
export type OfflineGenerator = (
  request: OfflineRequest,
  random: SeededRandom,
) => Readonly<Record<string, unknown>>;

/**
 * What the offline model answers, per forced tool. A new model-backed feature adds one entry:
 * a generator reading its prompt's data elements, or a fixture (`() => ({ … })`). A tool with
 * no entry gets an input shaped by its schema (`schemaShapedInput`).
 */
export const OFFLINE_GENERATORS: ReadonlyMap<string, OfflineGenerator> = new Map<
  string,
  OfflineGenerator
>([
  // The vision step before retrieval: a fixture screenshot's known reading, else its size.
  [ATTACHMENT_READING_TOOL_NAME, (request) => ({ ...readScreenshotsOffline(request) })],
  // Chat: a clarification or results citing only the request's tickets.
  [
    ANSWER_TOOL_NAME,
    (request, random) => {
      const prompt = readOfflinePrompt(request);
      return buildOfflineAnswer(
        prompt,
        answerLanguageOr(request, prompt.inquiries.join('\n')),
        random,
      );
    },
  ],
  // Knowledge capture: a ticket drafted from the inquiry's transcript.
  [
    DRAFT_TOOL_NAME,
    (request) =>
      buildOfflineTicketDraft(
        readDraftTranscript(lastUserText(request)),
        allowedCategories(request.inputSchema),
        request.answerLanguage,
      ),
  ],
  // Mail draft: the draft rewritten in the requested style.
  [
    MAIL_DRAFT_TOOL_NAME,
    (request) => buildOfflineMailDraft(readRefineRequest(lastUserText(request))),
  ],
  // Hand-off: the inquiry's summary for second line.
  [
    HANDOFF_TOOL_NAME,
    (request) => {
      const transcript = readHandoffTranscript(lastUserText(request));
      return buildOfflineHandoffSummary(
        transcript,
        answerLanguageOr(request, transcript.staff.join('\n')),
      );
    },
  ],
]);

/** The `category` enum of the draft tool's input schema, if it has one. */
function allowedCategories(inputSchema: unknown): string[] | undefined {
  const category = (inputSchema as { properties?: { category?: { enum?: unknown } } } | null)
    ?.properties?.category?.enum;
  return Array.isArray(category) && category.every((value) => typeof value === 'string')
    ? category
    : undefined;
}
