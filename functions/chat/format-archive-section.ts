import type { Language } from './detect-language.js';
import { promptLabels } from './prompt-labels.js';
import type { ArchivedInquiry } from './split-inquiries.js';

export const ARCHIVE_ADVICE_LIMIT = 400;
const QUESTION_LIMIT = 200;

/**
 * The archive as reference text, newest first, within `budget` characters: entries are shown
 * whole (question, follow-ups, the first 400 characters of the advice) while they fit; older ones
 * shrink to their question line; the oldest are dropped with a count. Empty when there is no
 * archive, so a first turn's request is byte-identical to one built with an empty history.
 */
export function formatArchiveSection(
  archive: readonly ArchivedInquiry[],
  language: Language,
  budget: number,
): string {
  if (archive.length === 0) return '';
  const labels = promptLabels[language];
  const lines: string[] = [labels.archive];
  let used = labels.archive.length;
  let shrink = false;
  for (const [index, inquiry] of archive.entries()) {
    const questionLine = `### ${index + 1}. ${labels.archiveQuestion}: ${truncate(oneLine(inquiry.question), QUESTION_LIMIT)}`;
    const full = [questionLine, ...detailLines(inquiry, labels)].join('\n');
    if (!shrink && used + full.length + 1 <= budget) {
      lines.push(full);
      used += full.length + 1;
      continue;
    }
    shrink = true;
    if (used + questionLine.length + 1 <= budget) {
      lines.push(questionLine);
      used += questionLine.length + 1;
      continue;
    }
    lines.push(labels.archiveOmitted(archive.length - index));
    break;
  }
  return lines.join('\n');
}

function detailLines(inquiry: ArchivedInquiry, labels: (typeof promptLabels)[Language]): string[] {
  const details: string[] = [];
  if (inquiry.followUps.length > 0) {
    details.push(
      `${labels.archiveFollowUp}: ${truncate(inquiry.followUps.map(oneLine).join(' / '), QUESTION_LIMIT)}`,
    );
  }
  // One line: markdown headings or lists in the advice must not read as new entries.
  if (inquiry.advice) {
    details.push(
      `${labels.archiveAnswer}: ${truncate(oneLine(inquiry.advice), ARCHIVE_ADVICE_LIMIT)}`,
    );
  }
  return details;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** Cuts at `limit` code points (never inside a surrogate pair) and marks the cut. */
function truncate(text: string, limit: number): string {
  const codePoints = Array.from(text);
  return codePoints.length <= limit ? text : `${codePoints.slice(0, limit).join('')}…`;
}
