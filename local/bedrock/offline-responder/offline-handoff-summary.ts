import {
  type HandoffLanguage,
  type HandoffOutcome,
  type HandoffSummary,
  handoffOutcomeSchema,
  MAX_HANDOFF_ITEM_LENGTH,
  MAX_HANDOFF_ITEMS,
} from '../../../functions/contract/handoff.js';
import { detectLanguage } from '../../../functions/contract/language.js';
import { HANDOFF_ELEMENTS } from '../../../functions/contract/prompt-data.js';
import { isElement, promptElementsOf, textOf } from './offline-request.js';

/**
 * The offline model's answer to the forced `submit_handoff_summary` tool: the hand-off summary
 * of one inquiry, by rules instead of a model, deterministically, from the transcript the request
 * carries (`handoffTranscript` in `functions/handoff/handoff-summary.ts`, ADR 0024) — so
 * `npm start` and the tests get a summary made of the inquiry's own content.
 */

/** The transcript's parts as the offline summary reads them. */
export interface HandoffTranscriptParts {
  readonly outcome: HandoffOutcome;
  readonly staff: readonly string[];
  readonly answers: readonly {
    readonly kind: 'answer' | 'clarification';
    readonly status: string;
    readonly text: string;
  }[];
  readonly toldRequester?: string;
  readonly citedTickets: readonly { readonly issueId: string; readonly resolution: string }[];
}

const PHRASES: Record<
  HandoffLanguage,
  {
    readonly noEnvironment: string;
    readonly nothingTold: string;
    readonly open: Record<HandoffOutcome, string>;
  }
> = {
  ja: {
    noEnvironment: '問い合わせに環境の記載はありません。',
    nothingTold: '依頼者にはまだ何も案内していません。',
    open: {
      solved: '案内した手順で依頼者の問題が解消したか確認が必要です。',
      no_results: '類似の過去チケットが見つかりませんでした。原因の切り分けが必要です。',
      clarification_open: '確認の質問に依頼者からまだ回答がありません。',
      answer_failed: 'アシスタントの回答が失敗したため、原因は未調査です。',
      unanswered: 'まだ回答がありません。原因の切り分けが必要です。',
    },
  },
  en: {
    noEnvironment: 'The inquiry states no environment.',
    nothingTold: 'Nothing has been sent to the requester yet.',
    open: {
      solved: 'Confirm with the requester that the advised steps solved the problem.',
      no_results: 'No similar past ticket was found; the cause still has to be diagnosed.',
      clarification_open: 'The requester has not answered the clarification question yet.',
      answer_failed: "The assistant's answer failed; the cause has not been investigated.",
      unanswered: 'There is no answer yet; the cause still has to be diagnosed.',
    },
  },
};

/** Words and forms that name an environment: OS, device, browser, app, network, version. */
const ENVIRONMENT =
  /windows|mac ?os|iphone|ipad|android|ios\b|linux|chrome|edge|safari|firefox|outlook|teams|office|vpn|wi-?fi|lan\b|proxy|version|\bv?\d+\.\d+|自宅|社内|在宅|ノートpc|パソコン|スマホ|ブラウザ|バージョン|無線|有線/i;
const LIST_ITEM = /^\s*(?:[-*•・]|\d+[.)])\s+(.+)$/;
/** Markdown emphasis and code marks of the advice's list items: a hand-off is plain text. */
const MARKDOWN_EMPHASIS = /\*\*|__|`/g;

/** Reads the transcript by its elements (`HANDOFF_ELEMENTS`); plain text is one staff message. */
export function readHandoffTranscript(text: string): HandoffTranscriptParts {
  const elements = promptElementsOf(text);
  const named = (name: string) => elements.filter((element) => element.name === name);
  if (elements.length === 0) {
    return { outcome: 'unanswered', staff: [text.trim()], answers: [], citedTickets: [] };
  }
  const outcome = handoffOutcomeSchema.safeParse(
    named(HANDOFF_ELEMENTS.outcome)[0]?.attributes.value,
  );
  const told = named(HANDOFF_ELEMENTS.toldRequester)[0];
  return {
    outcome: outcome.success ? outcome.data : 'unanswered',
    staff: named(HANDOFF_ELEMENTS.staff)
      .map((element) => textOf(element).trim())
      .filter((body) => body !== ''),
    answers: named(HANDOFF_ELEMENTS.assistant).map((element) => ({
      kind: element.attributes.kind === 'clarification' ? 'clarification' : 'answer',
      status: element.attributes.status ?? 'complete',
      text: textOf(element).trim(),
    })),
    ...(told ? { toldRequester: textOf(told).trim() } : {}),
    citedTickets: named(HANDOFF_ELEMENTS.citedTickets)
      .flatMap((element) => element.children.filter(isElement))
      .map((ticket) => ({
        issueId: ticket.attributes.issue_id ?? '',
        resolution: textOf(ticket).trim(),
      }))
      .filter((ticket) => ticket.issueId !== ''),
  };
}

const sentencesOf = (text: string) =>
  text
    .split(/(?<=[。．！？!?])|(?<=\.)\s+|\n+/)
    .map((sentence) => sentence.replace(LIST_ITEM, '$1').trim())
    .filter((sentence) => sentence !== '' && !sentence.startsWith('#'));

const clip = (text: string, length: number) => {
  const characters = [...text]; // by code point: never half a surrogate pair
  return characters.length <= length ? text : `${characters.slice(0, length - 1).join('')}…`;
};

/**
 * The summary: `symptom` the first staff message; `environment` the staff sentences that name
 * an OS, device, application, network or version; `tried` each complete answer's to-do items,
 * then each cited ticket's resolution steps marked with its number; `told_requester` the first
 * sentences of the e-mail draft; `open_questions` from the outcome (an open clarification's own
 * question first). Fallback wording is in `language`, the request's answer language.
 */
export function buildOfflineHandoffSummary(
  transcript: HandoffTranscriptParts,
  language: HandoffLanguage = detectLanguage(transcript.staff.join('\n')),
): HandoffSummary {
  const phrases = PHRASES[language];
  const staffSentences = transcript.staff.flatMap(sentencesOf);
  const environment = [...new Set(staffSentences.filter((line) => ENVIRONMENT.test(line)))];
  const todos = transcript.answers
    .filter((answer) => answer.kind === 'answer' && answer.status === 'complete')
    .flatMap((answer) =>
      answer.text
        .split('\n')
        .map((line) => LIST_ITEM.exec(line)?.[1]?.replace(MARKDOWN_EMPHASIS, '').trim())
        .filter((item): item is string => item !== undefined && item !== ''),
    );
  const ticketSteps = transcript.citedTickets.flatMap(({ issueId, resolution }) =>
    sentencesOf(resolution)
      .slice(0, 3)
      .map((step) => `#${issueId.replace(/^#/, '')}: ${step}`),
  );
  const tried = [...new Set([...todos, ...ticketSteps])]
    .slice(0, MAX_HANDOFF_ITEMS)
    .map((item) => clip(item, MAX_HANDOFF_ITEM_LENGTH));
  const clarification = transcript.answers.at(-1);
  const openClarification =
    transcript.outcome === 'clarification_open' && clarification
      ? sentencesOf(clarification.text)[0]
      : undefined;
  return {
    symptom: clip(transcript.staff[0] ?? '', 600),
    environment: environment.length > 0 ? environment.join(' ') : phrases.noEnvironment,
    tried,
    told_requester: transcript.toldRequester
      ? sentencesOf(transcript.toldRequester).slice(0, 4).join(' ')
      : phrases.nothingTold,
    open_questions: [
      ...(openClarification ? [openClarification] : []),
      phrases.open[transcript.outcome],
    ],
  };
}
