import type { Answer } from '../../../functions/contract/answer.js';
import type { SeededRandom } from './create-seeded-random.js';
import type { InquiryLanguage } from './detect-inquiry-language.js';
import { extractTicketParts } from './extract-ticket-parts.js';
import { OFFLINE_PHRASES } from './offline-phrases.js';
import { rankTickets } from './rank-tickets.js';
import type { OfflinePrompt } from './read-offline-prompt.js';
import { splitSentences } from './split-sentences.js';
import { truncateText } from './truncate-text.js';

const MIN_TODOS = 3;
const MAX_TODOS = 5;

/**
 * A `results` answer built only from the tickets in the request: advice from their resolutions,
 * the best 1–3 as `results`, a mail draft and to-dos about the current inquiry. With no tickets,
 * empty `results` and advice saying nothing similar was found.
 */
export function buildResultsAnswer(
  prompt: OfflinePrompt,
  language: InquiryLanguage,
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

  const ids = cited.map(({ ticket }) => `#${ticket.issueId}`).join(', ');
  const [best] = cited;
  const bestSteps = best?.parts.steps ?? [];
  const advice = [
    random.pick(phrases.adviceHeading),
    '',
    random.pick(phrases.adviceIntro(ids)),
    '',
    ...cited.map(
      ({ ticket, parts }) =>
        `- **#${ticket.issueId} ${ticket.subject}**: ${parts.steps.at(-1) ?? parts.summary}`,
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
