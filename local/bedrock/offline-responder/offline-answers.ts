import type { Answer } from '../../../functions/contract/answer.js';
import type { Language } from '../../../functions/contract/language.js';
import { formatIssueId } from '../../../functions/contract/ticket-references.js';
import { segmentContentWords, tokenizeForSearch } from '../ticket-index/tokenize-for-search.js';
import { OFFLINE_PHRASES } from './offline-phrases.js';
import type { KbTicketBlock, KnownIssueBlock, OfflinePrompt } from './read-offline-prompt.js';
import type { SeededRandom } from './seeded-random.js';

/** An inquiry with at most this many content words is "short" (e.g. 「ログインできない」, "VPN"). */
const SHORT_INQUIRY_MAX_WORDS = 1;
const CONSIDERED_TICKETS = 4;
const MAX_TOPIC_OPTIONS = 3;
/** How many tickets a results answer cites at most. */
const MAX_CITED_TICKETS = 3;
const MIN_TODOS = 3;
const MAX_TODOS = 5;

/**
 * The offline answer to a prompt: a `clarification` when the inquiry is short and the tickets
 * disagree (`findClarificationOptions`), otherwise `results` citing only the prompt's tickets.
 * Variants of the wording are picked with `random`.
 */
export function buildOfflineAnswer(
  prompt: OfflinePrompt,
  language: Language,
  random: SeededRandom,
): Answer {
  // A lead's known issue answers the inquiry: never ask back over it.
  const options =
    prompt.knownIssues.length > 0 ? undefined : findClarificationOptions(prompt, language);
  const answer =
    options === undefined
      ? buildResultsAnswer(prompt, language, random)
      : buildClarificationAnswer(prompt, options, language, random);
  return withKnownIssues(answer, prompt.knownIssues, language);
}

/**
 * A results answer with the lead's known issues first (ADR 0033), as the system prompt asks the
 * model: the advice opens with each issue's title and note, the mail draft tells the requester
 * the note's wording (with the workaround and link) before anything from the tickets.
 */
function withKnownIssues(
  answer: Answer,
  issues: readonly KnownIssueBlock[],
  language: Language,
): Answer {
  if (issues.length === 0 || answer.response_type !== 'results') return answer;
  const phrases = OFFLINE_PHRASES[language];
  const details = (issue: KnownIssueBlock) => [
    ...(issue.workaround ? [`${phrases.knownIssueWorkaround}: ${issue.workaround}`] : []),
    ...(issue.link ? [`${phrases.knownIssueLink}: ${issue.link}`] : []),
  ];
  const advice = issues.flatMap((issue) => [
    phrases.knownIssueHeading(issue.title),
    '',
    phrases.knownIssueIntro(issue.author),
    '',
    `> ${issue.note}`,
    ...details(issue).flatMap((line) => ['', line]),
    '',
  ]);
  const mail = issues.flatMap((issue) => [issue.note, ...details(issue), '']);
  const [greeting, ...rest] = (answer.mail_draft ?? '').split('\n');
  return {
    ...answer,
    general_advice: [...advice, answer.general_advice].join('\n'),
    mail_draft: [greeting ?? '', '', phrases.mailKnownIssue, ...mail, ...rest].join('\n'),
  };
}

/**
 * Decides whether to ask back, and with which options: when the inquiry is short, the retrieved
 * tickets disagree (their top entries span two or more categories — or subjects, when tickets
 * carry no category) and no clarification was asked yet in this inquiry. The options are one per
 * topic, best ticket first, plus "something else".
 * @returns the options (3–4), or `undefined` to answer with results
 */
function findClarificationOptions(prompt: OfflinePrompt, language: Language): string[] | undefined {
  if (prompt.answeredClarification) return undefined;
  const inquiry = prompt.inquiries.at(-1) ?? '';
  if (segmentContentWords(inquiry).length > SHORT_INQUIRY_MAX_WORDS) return undefined;

  const considered = prompt.tickets.slice(0, CONSIDERED_TICKETS);
  const useCategories = considered.some((ticket) => ticket.category);
  const topics = new Map<string, string>();
  for (const ticket of considered) {
    const topic = (useCategories ? ticket.category : ticket.subject) ?? '';
    if (topic !== '' && !topics.has(topic)) topics.set(topic, ticket.subject);
  }
  if (topics.size < 2) return undefined;

  const separator = language === 'ja' ? '：' : ': ';
  const options = [...topics]
    .slice(0, MAX_TOPIC_OPTIONS)
    .map(([topic, subject]) =>
      truncateText(useCategories ? `${topic}${separator}${subject}` : subject, 120),
    );
  return [...options, language === 'ja' ? '上記以外' : 'Something else'];
}

/** A `clarification` answer: short advice, the question and the options to choose from. */
function buildClarificationAnswer(
  prompt: OfflinePrompt,
  options: readonly string[],
  language: Language,
  random: SeededRandom,
): Answer {
  const phrases = OFFLINE_PHRASES[language];
  const topics = options.slice(0, -1).map((option) => option.split(/[：:]/)[0]?.trim() ?? option);
  const topicList = topics.join(language === 'ja' ? '・' : ', ');
  const words = segmentContentWords(prompt.inquiries.at(-1) ?? '').length;
  return {
    response_type: 'clarification',
    general_advice: phrases.clarifyAdvice(topicList),
    question: random.pick(phrases.clarifyQuestion),
    options: [...options],
    reasoning: phrases.reasoningClarify(words, topicList),
  };
}

/**
 * A `results` answer built only from the tickets in the request: advice from their resolutions,
 * the best 1–3 as `results`, a mail draft and to-dos about the current inquiry. With no tickets,
 * empty `results` and advice saying nothing similar was found.
 */
function buildResultsAnswer(
  prompt: OfflinePrompt,
  language: Language,
  random: SeededRandom,
): Answer {
  const phrases = OFFLINE_PHRASES[language];
  const inquiry = truncateText(prompt.inquiries.join(language === 'ja' ? '／' : ' / '), 160);
  const archiveNote = prompt.archive ? `\n${phrases.reasoningArchive}` : '';
  const cited = rankTickets(prompt.tickets, prompt.inquiries).map((ticket) => ({
    ticket,
    parts: extractTicketParts(ticket.text),
  }));
  const mailHead = `${phrases.mailGreeting}\n${phrases.mailAbout(inquiry)}`;

  if (cited.length === 0) {
    return {
      response_type: 'results',
      general_advice: `${phrases.noMatchHeading}\n\n${phrases.noMatchAdvice}`,
      results: [],
      mail_draft: `${mailHead}\n\n${phrases.mailNoMatch}\n\n${phrases.mailClosing}`,
      todo_actions: [phrases.todoAsk, phrases.todoScope, phrases.todoEscalate],
      reasoning: phrases.reasoningNone + archiveNote,
    };
  }

  const ids = cited.map(({ ticket }) => formatIssueId(ticket.issueId)).join(', ');
  const [best] = cited;
  const bestSteps = best?.parts.steps ?? [];
  const advice = [
    random.pick(phrases.adviceHeading),
    '',
    random.pick(phrases.adviceIntro(ids)),
    '',
    ...cited.map(
      ({ ticket, parts }) =>
        `- **${formatIssueId(ticket.issueId)} ${ticket.subject}**: ${parts.steps.at(-1) ?? parts.summary}`,
    ),
    '',
    phrases.checkHeading,
    ...bestSteps.slice(0, 3).map((step, index) => `${index + 1}. ${step}`),
    ...(best?.parts.note ? ['', phrases.pointHeading, `> ${best.parts.note}`] : []),
  ].join('\n');

  const todos = [...bestSteps.slice(0, MAX_TODOS - 2), phrases.todoReply, phrases.todoRecord];
  const fillers = [phrases.todoAsk, phrases.todoScope];
  while (todos.length < MIN_TODOS) todos.unshift(fillers.shift() as string);

  return {
    response_type: 'results',
    general_advice: advice,
    results: cited.map(({ ticket, parts }) => ({
      issue_id: ticket.issueId,
      subject: truncateText(ticket.subject, 300),
      summary: truncateText(parts.summary || ticket.subject, 2000),
      resolution: truncateText(parts.resolution || parts.summary, 4000),
    })),
    mail_draft: [
      mailHead,
      '',
      phrases.mailSteps,
      ...bestSteps.slice(0, 3).map((step, index) => `${index + 1}. ${step}`),
      '',
      phrases.mailClosing,
    ].join('\n'),
    // A to-do is one action: the first sentence of a resolution step, kept short.
    todo_actions: todos.map((todo) => truncateText(splitSentences(todo)[0] ?? todo, 120)),
    reasoning: phrases.reasoningResults(ids) + archiveNote,
  };
}

/**
 * Orders the retrieved tickets for citing: the retrieval score blended with how many of the
 * inquiry's terms the ticket contains — those of all user turns and, again, those of the latest
 * one, so a chosen clarification option steers the answer. Keeps the best 1–3: those within
 * 75 % of the best.
 */
function rankTickets(
  tickets: readonly KbTicketBlock[],
  inquiries: readonly string[],
): KbTicketBlock[] {
  const allTerms = new Set(tokenizeForSearch(inquiries.join('\n')));
  const latestTerms = new Set(tokenizeForSearch(inquiries.at(-1) ?? ''));
  const ranked = tickets
    .map((ticket, position) => {
      const ticketTerms = new Set(tokenizeForSearch(`${ticket.subject}\n${ticket.text}`));
      const overlap = (terms: Set<string>) =>
        terms.size === 0
          ? 0
          : [...terms].filter((term) => ticketTerms.has(term)).length / terms.size;
      const rank =
        0.5 * (ticket.score ?? 0) + 0.25 * overlap(allTerms) + 0.25 * overlap(latestTerms);
      return { ticket, position, rank };
    })
    .sort((a, b) => b.rank - a.rank || a.position - b.position);
  const best = ranked[0]?.rank ?? 0;
  return ranked
    .filter((entry, index) => index === 0 || entry.rank >= best * 0.75)
    .slice(0, MAX_CITED_TICKETS)
    .map((entry) => entry.ticket);
}

/** The parts of a ticket text the offline responder quotes. */
interface TicketParts {
  /** What the ticket was about, one or two sentences. */
  readonly summary: string;
  /** How it was resolved. */
  readonly resolution: string;
  /** The resolution's steps (its list items, else its sentences), at most five. */
  readonly steps: readonly string[];
  /** The first sentence of a notes section, when there is one. */
  readonly note?: string;
}

// The sample tickets use 問い合わせ内容 / 対応内容 / 備考 and Inquiry / Resolution / Notes;
// resolution is tested first because 対応内容 also contains 内容.
const RESOLUTION = /対応|解決|回答|処置|手順|resolution|solution|fix|workaround|answer/i;
const SUMMARY = /問い合わせ|内容|症状|概要|事象|inquiry|summary|description|problem|symptom|issue/i;
const NOTE = /備考|補足|メモ|notes?|remarks?|tips?/i;
const MARKDOWN_HEADING = /^#{1,6}\s+(.*)$/;
const LIST_ITEM = /^\s*(?:[-*•]|\d+[.)．])\s+(.*)$/;

const markdownSections = (text: string) => {
  const found: { heading: string; body: string[] }[] = [{ heading: '', body: [] }];
  for (const line of text.split('\n')) {
    const heading = MARKDOWN_HEADING.exec(line);
    if (heading) found.push({ heading: heading[1] ?? '', body: [] });
    else found.at(-1)?.body.push(line);
  }
  return found.map(({ heading, body }) => ({ heading, body: body.join('\n').trim() }));
};

/**
 * Pulls summary, resolution, steps and note out of a ticket's markdown by its section headings,
 * falling back to the first paragraph (summary) and the last section (resolution).
 */
function extractTicketParts(text: string): TicketParts {
  const all = markdownSections(text).filter((section) => section.body !== '');
  const resolution = all.find((section) => RESOLUTION.test(section.heading));
  const summary = all.find(
    (section) =>
      section !== resolution && SUMMARY.test(section.heading) && !NOTE.test(section.heading),
  );
  const note = all.find((section) => section !== resolution && NOTE.test(section.heading));
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    // skip headings and the "- key: value" field lists at the top of a ticket
    .filter((paragraph) => paragraph !== '' && !MARKDOWN_HEADING.test(paragraph))
    .filter(
      (paragraph) => !paragraph.split('\n').every((line) => /^\s*[-*]\s*[^:：]+[:：]/.test(line)),
    );
  const summaryText = withoutFences(summary?.body ?? paragraphs[0] ?? '');
  const resolutionText = withoutFences(resolution?.body ?? all.at(-1)?.body ?? '');
  const listed = resolutionText
    .split('\n')
    .map((line) => LIST_ITEM.exec(line)?.[1]?.trim())
    .filter((item): item is string => item !== undefined && item !== '');
  const steps = (listed.length > 0 ? listed : splitSentences(resolutionText)).slice(0, 5);
  const noteSentence = note === undefined ? undefined : splitSentences(note.body)[0];

  return {
    summary: truncateText(joinSentences(splitSentences(summaryText).slice(0, 2)), 300),
    resolution: truncateText(resolutionText.replace(/\n{3,}/g, '\n\n'), 1200),
    steps: steps.map((step) => truncateText(step, 200)),
    note: noteSentence === undefined ? undefined : truncateText(noteSentence, 200),
  };
}

/**
 * The text without its code-fence lines: imported and published tickets keep a requester's own
 * markdown inert inside a fence (ticket-document.ts), which a card's plain-text summary must not show.
 */
function withoutFences(text: string): string {
  return text
    .replace(/^(\s*(?:\d+\.|[-*])\s+)(?:`{3,}|~{3,})[ \t]*\n[ \t]*/gm, '$1') // "1. ~~~" + its first line
    .split('\n')
    .filter((line) => !/^\s*(?:`{3,}|~{3,})\s*$/.test(line))
    .join('\n')
    .trim();
}

const OPENING = new Set(['「', '『', '（', '(', '【', '"']);
const CLOSING = new Set(['」', '』', '）', ')', '】']);

/**
 * Splits Japanese or English prose into sentences: after 。！？ and after . ! ? followed by a
 * space, but never inside 「…」, （…） and similar quotes (a quoted error message often
 * contains its own full stop).
 */
function splitSentences(text: string): string[] {
  const flat = text.replace(/\s+/g, ' ').trim();
  const sentences: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < flat.length; index += 1) {
    const char = flat[index] as string;
    if (char === '"') depth = depth > 0 ? depth - 1 : depth + 1;
    else if (OPENING.has(char)) depth += 1;
    else if (CLOSING.has(char)) depth = Math.max(0, depth - 1);
    const ends =
      depth === 0 && ('。！？'.includes(char) || ('.!?'.includes(char) && flat[index + 1] === ' '));
    if (ends) {
      sentences.push(flat.slice(start, index + 1).trim());
      start = index + 1;
    }
  }
  const rest = flat.slice(start).trim();
  if (rest !== '') sentences.push(rest);
  return sentences;
}

/** Joins sentences back: no space after a Japanese full stop, one space otherwise. */
function joinSentences(sentences: readonly string[]): string {
  return sentences.reduce(
    (joined, sentence) =>
      joined === '' || /[。！？]$/.test(joined) ? joined + sentence : `${joined} ${sentence}`,
    '',
  );
}

/** Shortens text to at most `maxChars` characters, ending with an ellipsis when cut. */
function truncateText(text: string, maxChars: number): string {
  const chars = Array.from(text.trim()); // by code point: never leave half a surrogate pair
  return chars.length <= maxChars ? chars.join('') : `${chars.slice(0, maxChars - 1).join('')}…`;
}
