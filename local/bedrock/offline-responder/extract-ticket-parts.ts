import { joinSentences, splitSentences as sentences } from './split-sentences.js';
import { truncateText } from './truncate-text.js';

/** The parts of a ticket text the offline responder quotes. */
export interface TicketParts {
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
const HEADING = /^#{1,6}\s+(.*)$/;
const LIST_ITEM = /^\s*(?:[-*•]|\d+[.)．])\s+(.*)$/;

const sections = (text: string) => {
  const found: { heading: string; body: string[] }[] = [{ heading: '', body: [] }];
  for (const line of text.split('\n')) {
    const heading = HEADING.exec(line);
    if (heading) found.push({ heading: heading[1] ?? '', body: [] });
    else found.at(-1)?.body.push(line);
  }
  return found.map(({ heading, body }) => ({ heading, body: body.join('\n').trim() }));
};

/**
 * Pulls summary, resolution, steps and note out of a ticket's markdown by its section headings,
 * falling back to the first paragraph (summary) and the last section (resolution).
 */
export function extractTicketParts(text: string): TicketParts {
  const all = sections(text).filter((section) => section.body !== '');
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
    .filter((paragraph) => paragraph !== '' && !HEADING.test(paragraph))
    .filter(
      (paragraph) => !paragraph.split('\n').every((line) => /^\s*[-*]\s*[^:：]+[:：]/.test(line)),
    );
  const summaryText = summary?.body ?? paragraphs[0] ?? '';
  const resolutionText = resolution?.body ?? all.at(-1)?.body ?? '';
  const listed = resolutionText
    .split('\n')
    .map((line) => LIST_ITEM.exec(line)?.[1]?.trim())
    .filter((item): item is string => item !== undefined && item !== '');
  const steps = (listed.length > 0 ? listed : sentences(resolutionText)).slice(0, 5);
  const noteSentence = note === undefined ? undefined : sentences(note.body)[0];

  return {
    summary: truncateText(joinSentences(sentences(summaryText).slice(0, 2)), 300),
    resolution: truncateText(resolutionText.replace(/\n{3,}/g, '\n\n'), 1200),
    steps: steps.map((step) => truncateText(step, 200)),
    note: noteSentence === undefined ? undefined : truncateText(noteSentence, 200),
  };
}
