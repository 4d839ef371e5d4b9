import type { KnownIssueNotice } from '../contract/surges.js';
import { keyTermsOf } from '../insights/inquiry-topic.js';
import type { StoredKnownIssue } from './ports.js';

/**
 * Which open known issues an inquiry is about (ADR 0033): one of the issue's `matches` appears in
 * the inquiry as written (case and width folded), or names a key term the inquiry has — through
 * the bilingual glossary, so 「メール」 covers "email" and "Outlook" covers 「アウトルック」 where
 * the glossary says so. A match written as an insights topic key (`mail|outlook`) counts by its
 * term. Deterministic: the same inquiry and issues always give the same notices.
 *
 * @example
 * knownIssuesMatching([outlookIssue], 'Outlookが起動しない'); // [outlookIssue as a notice]
 */
export function knownIssuesMatching(
  issues: readonly StoredKnownIssue[],
  inquiryText: string,
): KnownIssueNotice[] {
  const text = fold(inquiryText);
  const terms = new Set(keyTermsOf(inquiryText));
  const matches = (word: string) => {
    const written = fold(word.includes('|') ? (word.split('|').at(-1) ?? word) : word);
    if (written === '') return false;
    return text.includes(written) || keyTermsOf(written).some((term) => terms.has(term));
  };
  return issues
    .filter((issue) => issue.matches.some(matches))
    .sort((a, b) => a.publishedAt.localeCompare(b.publishedAt))
    .map(noticeOf);
}

/** The SSE notice (and the prompt's element) of a stored issue. */
export function noticeOf(issue: StoredKnownIssue): KnownIssueNotice {
  return {
    id: issue.id,
    title: issue.title,
    note: issue.note,
    author: issue.author,
    at: issue.publishedAt,
    ...(issue.workaround ? { workaround: issue.workaround } : {}),
    ...(issue.link ? { link: issue.link } : {}),
  };
}

const fold = (text: string) => text.normalize('NFKC').toLowerCase().trim();
