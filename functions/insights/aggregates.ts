import { randomBytes } from 'node:crypto';
import type { AnswerFeedback } from '../contract/conversations.js';
import type { GapReason } from '../contract/insights.js';
import type { ChatInsight, FeedbackInsight, GapExampleSource, MailDraftInsight } from './ports.js';

/**
 * The aggregates of service-desk insights and what each event adds to them (ADR 0022): plain
 * counters per day, per topic and day, per ticket and day, per capture day. Both stores (the
 * DynamoDB one and the in-memory one of the in-process tests) apply the same increments — the
 * DynamoDB one as `ADD` updates — and hand the same rows back to `buildInsights`, so the rules
 * live here once and the stores only move numbers.
 */

/** The counter groups, each one item per key (DynamoDB: one partition per tenant and group). */
export type CounterGroup = 'day' | 'gap' | 'ticket-day' | 'capture';

/**
 * One update of one counter item: numbers added (negative for a feedback verdict taken back),
 * labels written only when the item has none yet (a topic's category and terms) and labels
 * written every time (`latestLabels`: a ticket's subject, the newest write's wins).
 */
export interface CounterIncrement {
  readonly group: CounterGroup;
  /** The item's key within its group: `YYYY-MM-DD` or `YYYY-MM-DD#<topicKey|issueId>`. */
  readonly key: string;
  readonly add: Readonly<Record<string, number>>;
  readonly labels?: Readonly<Record<string, string | readonly string[]>>;
  /** Overwritten by each write (DynamoDB: a plain `SET`), so the newest one stands. */
  readonly latestLabels?: Readonly<Record<string, string>>;
}

/**
 * The gap counter of inquiries a 👎 (`rated_down`) counts that their chat had already counted
 * under `weak_retrieval` or `no_ticket_cited` (ADR 0022): a gap's count is its reasons minus
 * this, so one inquiry counts once however many reasons it has. A row written before the
 * counter existed has none and reads as the sum of its reasons (at most the old double count,
 * never fewer inquiries than there were).
 */
export const GAP_ALREADY_COUNTED = 'ratedDownOfChatGap';

/** The label of a ticket's subject on its ticket-day counters (the Knowledge Base's own text). */
export const TICKET_SUBJECT_LABEL = 'subject';

/** A ticket subject kept on the counters at most this many characters (code points). */
export const MAX_TICKET_SUBJECT_LENGTH = 200;

/**
 * A ticket subject as the counters keep it: whitespace runs as one space, trimmed, at most
 * {@link MAX_TICKET_SUBJECT_LENGTH} code points (longer ones end in `…`); undefined when empty.
 * @example
 * ticketSubjectLabelOf('  VPN\n再接続 '); // 'VPN 再接続'
 */
export function ticketSubjectLabelOf(subject: string): string | undefined {
  const collapsed = subject.replace(/\s+/gu, ' ').trim();
  if (!collapsed) return undefined;
  const characters = Array.from(collapsed);
  return characters.length <= MAX_TICKET_SUBJECT_LENGTH
    ? collapsed
    : `${characters.slice(0, MAX_TICKET_SUBJECT_LENGTH - 1).join('')}…`;
}

/**
 * Upper bounds (ms) of the time-to-first-token histogram's buckets; a last, open bucket holds
 * the rest. Fixed, so days add up bucket by bucket; a percentile reads as "at most this".
 */
export const TIME_TO_FIRST_TOKEN_BUCKETS_MS = [
  250, 500, 750, 1000, 1500, 2000, 3000, 4000, 6000, 8000, 12_000, 16_000, 24_000, 32_000, 60_000,
] as const;

/** The counter name of histogram bucket `index` (the last, open one is `ttftOver`). */
export const ttftBucketName = (index: number): string =>
  index < TIME_TO_FIRST_TOKEN_BUCKETS_MS.length ? `ttft${index}` : 'ttftOver';

/** Gap examples kept per topic and day at most (a conditional write bounds it). */
export const MAX_EXAMPLES_PER_TOPIC_DAY = 3;

/** A cost in USD as the integer counter it is added to (micro-USD: ADD stays exact). */
export const toMicroUsd = (usd: number): number => Math.round(usd * 1_000_000);

/** The key of a topic's counters on one day. */
export const gapKey = (day: string, topicKey: string): string => `${day}#${topicKey}`;
/** The key of a ticket's counters on one day. */
export const ticketDayKey = (day: string, issueId: string): string => `${day}#${issueId}`;
/** The key of a gap example or a solved inquiry: the answer it belongs to. */
export const answerKey = (conversationId: string, answerSeq: number): string =>
  `${conversationId}#${answerSeq}`;

/**
 * A gap example's id on the wire (`draftFrom.exampleId`) and in the leads' draft routes: 128
 * random bits, base64url (22 characters), made when the example is stored. Opaque: unlike the
 * answer's key it was once derived from, it tells nothing of the owner's conversation — not its
 * id, nor the creation time a ULID carries. The store resolves it to its answer.
 */
export const newGapExampleId = (): string => randomBytes(16).toString('base64url');

/** A gap example id as a regular-expression source without anchors (the route table's parameter). */
export const GAP_EXAMPLE_ID_SOURCE = '[A-Za-z0-9_-]{22}';
const GAP_EXAMPLE_ID = new RegExp(`^${GAP_EXAMPLE_ID_SOURCE}$`);

/** The id if it has a gap example id's form, else undefined. */
export function parseGapExampleId(exampleId: string): string | undefined {
  return GAP_EXAMPLE_ID.test(exampleId) ? exampleId : undefined;
}

/** What a finished chat adds to the counters (the gap example and retrieved set aside). */
export function chatIncrements(insight: ChatInsight): CounterIncrement[] {
  const { outcome, day } = insight;
  const priced = insight.estimatedCostUsd !== undefined;
  const usedModel = insight.inputTokens + insight.outputTokens > 0;
  const dayCounters: Record<string, number> = {
    chats: 1,
    answers: outcome === 'complete' || outcome === 'truncated' ? 1 : 0,
    clarifications: outcome === 'clarification' ? 1 : 0,
    truncated: outcome === 'truncated' ? 1 : 0,
    failed: outcome === 'failed' ? 1 : 0,
    inputTokens: insight.inputTokens,
    outputTokens: insight.outputTokens,
    costMicroUsd: priced ? toMicroUsd(insight.estimatedCostUsd ?? 0) : 0,
    // A day with a chat whose model has no price shows no cost rather than too low a one.
    unpricedChats: usedModel && !priced ? 1 : 0,
    [MAIL_DRAFT_COUNTERS.answersWithDraft]: insight.hasMailDraft ? 1 : 0,
  };
  if (insight.timeToFirstTokenMs !== undefined) {
    dayCounters[ttftBucketName(bucketOf(insight.timeToFirstTokenMs))] = 1;
  }
  const increments: CounterIncrement[] = [
    { group: 'day', key: day, add: withoutZeros(dayCounters) },
  ];
  for (const issueId of new Set(insight.citedIssueIds)) {
    const subject = ticketSubjectLabelOf(insight.citedSubjects?.[issueId] ?? '');
    increments.push({
      group: 'ticket-day',
      key: ticketDayKey(day, issueId),
      add: { cited: 1 },
      ...(subject ? { latestLabels: { [TICKET_SUBJECT_LABEL]: subject } } : {}),
    });
  }
  if (insight.gap) {
    const { topicKey, category, terms, reason } = insight.gap;
    increments.push({
      group: 'gap',
      key: gapKey(day, topicKey),
      add: { [reason]: 1 },
      labels: { topicKey, category, terms },
    });
  }
  return increments;
}

/**
 * What the store's answer item said when a feedback's swap replaced its verdict (the same
 * atomic write's old values), beside the verdict itself.
 */
export interface FeedbackAnswerState {
  /**
   * The chat counted the answer as a gap (`recordChat` set it on the answer's item). Absent
   * (an item written before the flag, or none at all) reads as false: its 👎 then counts the
   * inquiry again, as before the flag — never an inquiry less (ADR 0022).
   */
  readonly chatCountedGap?: boolean;
}

/**
 * What a feedback commit changes: the counts of the new verdict minus those of the verdict it
 * replaced, so a replaced verdict is never counted twice. Applied as additions, deltas of
 * commits that raced sum to the last verdict's counts — provided `previous` is the verdict that
 * commit actually replaced (the store's conditional swap of the answer's verdict says which) and
 * `answer` the item as that swap found it. A 👎 with a gap reason adds `rated_down`, and — when
 * the chat had already counted the inquiry — {@link GAP_ALREADY_COUNTED}, so the gap's count of
 * inquiries stays one for it.
 */
export function feedbackIncrements(
  insight: FeedbackInsight,
  previous: AnswerFeedback | undefined,
  answer: FeedbackAnswerState = {},
): CounterIncrement[] {
  const chatCountedGap = answer.chatCountedGap === true;
  const before = verdictCounts(insight, previous, chatCountedGap);
  const after = verdictCounts(insight, insight.next, chatCountedGap);
  const increments: CounterIncrement[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const [group, itemKey] = splitCounterKey(key);
    const was = before.get(key) ?? {};
    const now = after.get(key) ?? {};
    const add: Record<string, number> = {};
    for (const counter of new Set([...Object.keys(was), ...Object.keys(now)])) {
      add[counter] = (now[counter] ?? 0) - (was[counter] ?? 0);
    }
    const changed = withoutZeros(add);
    if (Object.keys(changed).length === 0) continue;
    const topic = insight.topic;
    increments.push({
      group,
      key: itemKey,
      add: changed,
      ...(group === 'gap' && topic
        ? { labels: { topicKey: topic.topicKey, category: topic.category, terms: topic.terms } }
        : {}),
    });
  }
  return increments;
}

/**
 * The day counters of the answers' e-mail drafts (ADR 0023), beside the activity counters on the
 * same day item, so the page reads them in the same O(days) items.
 */
export const MAIL_DRAFT_COUNTERS = {
  answersWithDraft: 'draftAnswers',
  accepted: 'draftAccepted',
  changed: 'draftChanged',
  acceptedChanged: 'draftAcceptedChanged',
  copies: 'draftCopies',
  mailOpens: 'draftMailOpens',
  edits: 'draftEdits',
  refinements: 'draftRefinements',
} as const;

/**
 * What a store's answer item held before an action's atomic mark (DynamoDB: `ReturnValues:
 * ALL_OLD` of the update that set it), absent when the store had no item for the answer.
 */
export interface MailDraftAnswerState {
  /** The day `recordChat` counted the answer on. */
  readonly day?: string;
  /** `recordChat` counted it among the answers with a draft. */
  readonly hasMailDraft?: boolean;
  /** When its draft was first copied or opened in the mail client. */
  readonly acceptedAt?: string;
  /** When its draft was first edited or refined. */
  readonly changedAt?: string;
}

/** Whether an action accepts the draft (copy, open) or changes it (edit, refinement). */
export const mailDraftMarkOf = (action: MailDraftInsight['action']): 'acceptedAt' | 'changedAt' =>
  action === 'copy' || action === 'open_in_mail' ? 'acceptedAt' : 'changedAt';

/**
 * What one action on a draft adds: its own count always; the answer as accepted (or changed)
 * only if this action set the answer's mark — `before` is the item as the store's atomic write
 * found it, so of racing actions exactly one sees the mark unset. Only an answer `recordChat`
 * counted with a draft is counted as accepted or changed, so a day's accepted answers are among
 * its answers with a draft (and the acceptance rate is a share of them). The one action that
 * finds the other mark already set (a copy of a changed draft, a change of an accepted one) adds
 * the answer to the accepted-and-changed ones: two marks, two updates of one item — exactly one
 * of them sees the other.
 */
export function mailDraftIncrements(
  insight: MailDraftInsight,
  before: MailDraftAnswerState | undefined,
): CounterIncrement[] {
  const actionCounter = {
    copy: MAIL_DRAFT_COUNTERS.copies,
    open_in_mail: MAIL_DRAFT_COUNTERS.mailOpens,
    edit: MAIL_DRAFT_COUNTERS.edits,
    refine: MAIL_DRAFT_COUNTERS.refinements,
  }[insight.action];
  const add: Record<string, number> = { [actionCounter]: 1 };
  const mark = mailDraftMarkOf(insight.action);
  const other = mark === 'acceptedAt' ? 'changedAt' : 'acceptedAt';
  if (before?.hasMailDraft === true && before[mark] === undefined) {
    add[mark === 'acceptedAt' ? MAIL_DRAFT_COUNTERS.accepted : MAIL_DRAFT_COUNTERS.changed] = 1;
    if (before[other] !== undefined) add[MAIL_DRAFT_COUNTERS.acceptedChanged] = 1;
  }
  return [{ group: 'day', key: before?.day ?? insight.answerDay, add }];
}

/** What of a verdict the counts depend on: never its comment (staff's own words stay out). */
export function countedVerdictOf(feedback: AnswerFeedback): AnswerFeedback {
  return {
    rating: feedback.rating,
    ...(feedback.reason ? { reason: feedback.reason } : {}),
    ...(feedback.helpfulTicketIds?.length
      ? { helpfulTicketIds: [...feedback.helpfulTicketIds] }
      : {}),
    updatedAt: feedback.updatedAt,
  };
}

/** Feedback reasons that say the Knowledge Base lacked what the inquiry needed. */
export const GAP_FEEDBACK_REASONS: ReadonlySet<string> = new Set([
  'irrelevant_tickets',
  'incomplete',
]);

/** The counts one verdict stands for, per `group|key`. */
function verdictCounts(
  insight: FeedbackInsight,
  verdict: AnswerFeedback | undefined,
  chatCountedGap: boolean,
): Map<string, Record<string, number>> {
  const counts = new Map<string, Record<string, number>>();
  if (!verdict) return counts;
  const bump = (group: CounterGroup, key: string, counter: string) => {
    const entry = counts.get(`${group}|${key}`) ?? {};
    entry[counter] = (entry[counter] ?? 0) + 1;
    counts.set(`${group}|${key}`, entry);
  };
  const day = insight.answerDay;
  const down = verdict.rating === 'down';
  bump('day', day, down ? 'ratedDown' : 'ratedUp');
  const cited = new Set(insight.citedIssueIds);
  if (down)
    for (const issueId of cited) bump('ticket-day', ticketDayKey(day, issueId), 'citedInDownRated');
  for (const issueId of new Set(verdict.helpfulTicketIds ?? [])) {
    bump('ticket-day', ticketDayKey(day, issueId), 'solved');
  }
  if (down && insight.topic && verdict.reason && GAP_FEEDBACK_REASONS.has(verdict.reason)) {
    const reason: GapReason = 'rated_down';
    bump('gap', gapKey(day, insight.topic.topicKey), reason);
    if (chatCountedGap) bump('gap', gapKey(day, insight.topic.topicKey), GAP_ALREADY_COUNTED);
  }
  return counts;
}

function splitCounterKey(key: string): [CounterGroup, string] {
  const at = key.indexOf('|');
  return [key.slice(0, at) as CounterGroup, key.slice(at + 1)];
}

function bucketOf(ms: number): number {
  const index = TIME_TO_FIRST_TOKEN_BUCKETS_MS.findIndex((bound) => ms <= bound);
  return index === -1 ? TIME_TO_FIRST_TOKEN_BUCKETS_MS.length : index;
}

function withoutZeros(counters: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counters).filter(([, value]) => value !== 0));
}

/** A counter item as a store reads it back: its key, its counters (absent = 0) and labels. */
export interface CounterRow {
  readonly key: string;
  readonly counters: Readonly<Record<string, number>>;
  readonly labels?: Readonly<Record<string, string | readonly string[]>>;
}

/** A gap example as stored (leads only): the answer it came from, scrubbed text, owner's hash. */
export interface ExampleRow {
  /** `answerKey(conversationId, answerSeq)`. */
  readonly id: string;
  readonly day: string;
  readonly topicKey: string;
  readonly text: string;
  readonly ownerHash: string;
  /**
   * Staff marked a ticket as this inquiry's solution (kept on the example by the feedback, so the
   * page never reads the solved inquiries, which grow with use).
   */
  readonly solved?: boolean;
  /** Where it came from (server-side only, never in the page's body); absent on older rows. */
  readonly source?: GapExampleSource;
  /** Its opaque id (`newGapExampleId`); absent on rows stored before ids were opaque. */
  readonly exampleId?: string;
}

/** A solved inquiry as stored: the answer it came from and the tickets marked as its solution. */
export interface SolvedRow {
  readonly id: string;
  readonly day: string;
  readonly text: string;
  /** Empty once the verdict no longer names a solution (the row stays as the newest verdict). */
  readonly issueIds: readonly string[];
  /** The answer's topic, so a gap group can offer a solved inquiry to draft knowledge from. */
  readonly topicKey?: string;
}

/** Everything `buildInsights` reads: what a store hands back for a window, nothing more. */
export interface InsightAggregates {
  readonly days: readonly CounterRow[];
  readonly gaps: readonly CounterRow[];
  readonly tickets: readonly CounterRow[];
  readonly captures: readonly CounterRow[];
  /** Per day, the tickets retrieved that day (a set per day, for `neverRetrieved`). */
  readonly retrieved: readonly { readonly day: string; readonly issueIds: readonly string[] }[];
  readonly examples: readonly ExampleRow[];
}
