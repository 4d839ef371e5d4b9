import {
  type AnswerNotices,
  KNOWN_ISSUE_LIMITS,
  type KnownIssueNotice,
  type SurgeNotice,
} from '../contract/surges.js';

/**
 * What an answer turn keeps of the notices its stream sent (ADR 0033): the surge notice and the
 * matching known issues, stored in the same commit as the answer, so a reload shows the banners
 * the stream showed. Each text is capped, and so is the number of known issues, so the notices
 * add a bounded amount to the turn (DynamoDB's 400 KB item limit, `turnSizeLimits`): a lead's
 * texts are already within these lengths when published, the caps only make the bound hold
 * whatever reaches here.
 */
export const ANSWER_NOTICE_LIMITS = {
  /**
   * Known issues one answer keeps, the oldest first as the stream sent them; more than a few
   * matching one inquiry is already noise.
   */
  knownIssues: 3,
  title: KNOWN_ISSUE_LIMITS.title,
  note: KNOWN_ISSUE_LIMITS.note,
  workaround: KNOWN_ISSUE_LIMITS.workaround,
  link: KNOWN_ISSUE_LIMITS.link,
  /** A display name, an id, a topic label, an ISO time. */
  short: 120,
} as const;

/**
 * The most the notices can add to a turn: their JSON in UTF-8 with every text at its cap in
 * four-byte characters (a Japanese one is three). `test/surges/answer-notices.test.ts` checks
 * the caps keep to it.
 */
export const ANSWER_NOTICES_MAX_BYTES = 40_000;

/**
 * The notices to store with the answer, or undefined when it had none (the turn then has no
 * `notices`). Only what the events carried: the surge's topic and counts, never who asked.
 *
 * @example
 * answerNoticesOf(undefined, []); // undefined
 * answerNoticesOf({ topic: 'outlook', inquiries: 4, staff: 3, since }, [issue]);
 * // { surge: { topic: 'outlook', … }, knownIssues: [issue] }
 */
export function answerNoticesOf(
  surge: SurgeNotice | undefined,
  knownIssues: readonly KnownIssueNotice[],
): AnswerNotices | undefined {
  if (!surge && knownIssues.length === 0) return undefined;
  return {
    ...(surge ? { surge: storedSurge(surge) } : {}),
    ...(knownIssues.length > 0
      ? {
          knownIssues: knownIssues.slice(0, ANSWER_NOTICE_LIMITS.knownIssues).map(storedKnownIssue),
        }
      : {}),
  };
}

const { short } = ANSWER_NOTICE_LIMITS;

function storedSurge(surge: SurgeNotice): SurgeNotice {
  return {
    topic: clip(surge.topic, short),
    inquiries: surge.inquiries,
    staff: surge.staff,
    since: clip(surge.since, short),
  };
}

function storedKnownIssue(issue: KnownIssueNotice): KnownIssueNotice {
  return {
    id: clip(issue.id, short),
    title: clip(issue.title, ANSWER_NOTICE_LIMITS.title),
    note: clip(issue.note, ANSWER_NOTICE_LIMITS.note),
    author: clip(issue.author, short),
    at: clip(issue.at, short),
    ...(issue.workaround
      ? { workaround: clip(issue.workaround, ANSWER_NOTICE_LIMITS.workaround) }
      : {}),
    // A cut link would lead somewhere else: one over the cap is left out, not shortened.
    ...(issue.link && Array.from(issue.link).length <= ANSWER_NOTICE_LIMITS.link
      ? { link: issue.link }
      : {}),
  };
}

/** At most `max` characters (code points, so a surrogate pair is never split), marked when cut. */
function clip(text: string, max: number): string {
  const characters = Array.from(text);
  return characters.length <= max ? text : `${characters.slice(0, max - 1).join('')}…`;
}
