import type {
  ActivityDay,
  GapExample,
  GapReason,
  Insights,
  InsightsWindow,
  KnowledgeGap,
  RepliesDay,
  TicketUse,
} from '../contract/insights.js';
import {
  type CounterRow,
  GAP_ALREADY_COUNTED,
  type InsightAggregates,
  MAIL_DRAFT_COUNTERS,
  TICKET_SUBJECT_LABEL,
  TIME_TO_FIRST_TOKEN_BUCKETS_MS,
  ttftBucketName,
} from './aggregates.js';
import { NO_TERM, UNCATEGORIZED } from './inquiry-topic.js';
import type { EvaluationRun } from './ports.js';

/**
 * The page's body from the aggregates (ADR 0022): per-day series with the days without a chat
 * filled with zeros, percentiles from the time-to-first-token histogram, gap topics ranked with
 * their trend and examples, what helped, capture counts and the latest eval. Pure: a store reads
 * the items of the window (`windowOf`) and hands them here, so both stores answer alike.
 */

/** Gap topics on the page at most. */
export const MAX_GAPS = 20;
/** Examples shown per gap topic at most (newest first). */
export const MAX_EXAMPLES_PER_GAP = 5;
export const MAX_MOST_SOLVED = 10;
export const MAX_CITED_BUT_DOWN_RATED = 10;
export const MAX_NEVER_RETRIEVED_SAMPLE = 20;
/** "Never retrieved" looks back this far whatever the window. */
export const NEVER_RETRIEVED_DAYS = 90;
/** How far back a store keeps (and reads) the retrieved-ticket sets: "tickets seen". */
export const RETRIEVED_HORIZON_DAYS = 365;

const GAP_REASONS: readonly GapReason[] = ['weak_retrieval', 'no_ticket_cited', 'rated_down'];

/** The UTC days of a window ending on `now`'s day, oldest first. */
export function windowOf(days: number, now: Date): { first: string; last: string; days: string[] } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const list = Array.from({ length: days }, (_, index) =>
    dayOf(today - (days - 1 - index) * 86_400_000),
  );
  return { first: list[0] as string, last: list[list.length - 1] as string, days: list };
}

/** `YYYY-MM-DD` of an epoch millisecond (UTC). */
export const dayOf = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10);

/** The day part of a counter key (`YYYY-MM-DD` or `YYYY-MM-DD#…`). */
const dayPart = (key: string) => key.slice(0, 10);
const restPart = (key: string) => key.slice(11);

export function buildInsights(
  aggregates: InsightAggregates,
  options: {
    readonly days: InsightsWindow;
    readonly now: Date;
    readonly evaluation?: EvaluationRun;
    /**
     * The canonical issue ids the Knowledge Base holds (`TicketCatalog`): "never retrieved" is
     * then this set less the tickets retrieved in the last 90 days. Absent: the deployment cannot
     * list it, and only tickets seen retrieved before count (`total` absent).
     */
    readonly catalog?: readonly string[];
  },
): Insights {
  const { days, now } = options;
  const window = windowOf(days, now);
  const inWindow = (day: string) => day >= window.first && day <= window.last;

  const dayRows = new Map<string, CounterRow>();
  for (const row of aggregates.days) if (inWindow(row.key)) dayRows.set(row.key, row);
  const perDay = window.days.map((day) => activityOf(day, [dayRows.get(day)?.counters ?? {}]));
  const { day: _day, ...totals } = activityOf(
    window.last,
    [...dayRows.values()].map((row) => row.counters),
  );

  const captures = aggregates.captures.filter((row) => inWindow(row.key));
  const captureSum = (counter: string) => sum(captures.map((row) => row.counters[counter] ?? 0));

  return {
    generatedAt: now.toISOString(),
    days,
    activity: { perDay, totals },
    replies: {
      perDay: window.days.map((day) => repliesOf(day, [dayRows.get(day)?.counters ?? {}])),
      totals: withoutDay(
        repliesOf(
          window.last,
          [...dayRows.values()].map((row) => row.counters),
        ),
      ),
    },
    gaps: gapsOf(aggregates, window),
    helped: {
      ...ticketUseOf(aggregates.tickets.filter((row) => inWindow(dayPart(row.key)))),
      neverRetrieved: neverRetrievedOf(aggregates.retrieved, now, options.catalog),
    },
    capture: {
      drafts: captureSum('drafts'),
      published: captureSum('published'),
      syncsWaited: captureSum('syncsWaited'),
    },
    ...(options.evaluation ? { evaluation: options.evaluation } : {}),
  };
}

/** One day's (or the window's) activity from the day counters it sums. */
function activityOf(
  day: string,
  counters: readonly Readonly<Record<string, number>>[],
): ActivityDay {
  const total = (name: string) => sum(counters.map((entry) => entry[name] ?? 0));
  const histogram = Array.from({ length: TIME_TO_FIRST_TOKEN_BUCKETS_MS.length + 1 }, (_, index) =>
    total(ttftBucketName(index)),
  );
  const p50 = percentileOf(histogram, 0.5);
  const p95 = percentileOf(histogram, 0.95);
  const chats = total('chats');
  const priced = total('unpricedChats') === 0;
  return {
    day,
    chats,
    answers: total('answers'),
    clarifications: total('clarifications'),
    truncated: total('truncated'),
    failed: total('failed'),
    // A verdict taken back on a day whose counter had not seen it yet cannot go below zero.
    ratedUp: Math.max(0, total('ratedUp')),
    ratedDown: Math.max(0, total('ratedDown')),
    ...(p50 !== undefined ? { timeToFirstTokenP50Ms: p50 } : {}),
    ...(p95 !== undefined ? { timeToFirstTokenP95Ms: p95 } : {}),
    inputTokens: total('inputTokens'),
    outputTokens: total('outputTokens'),
    ...(priced ? { estimatedCostUsd: total('costMicroUsd') / 1_000_000 } : {}),
  };
}

/**
 * One day's (or the window's) e-mail draft figures (ADR 0023) and their rates: acceptance =
 * accepted / answers with a draft, edit rate = accepted-and-changed / accepted, each absent when
 * its denominator is 0. The stores count an answer as accepted only if they counted it with a
 * draft, so a share stays within 1; a counter write lost on the way (ADR 0022) could still tip
 * one day over, which the rate caps rather than show more than every answer.
 */
export function repliesOf(
  day: string,
  counters: readonly Readonly<Record<string, number>>[],
): RepliesDay {
  const total = (name: string) => Math.max(0, sum(counters.map((entry) => entry[name] ?? 0)));
  const answersWithDraft = total(MAIL_DRAFT_COUNTERS.answersWithDraft);
  const accepted = total(MAIL_DRAFT_COUNTERS.accepted);
  const acceptedChanged = total(MAIL_DRAFT_COUNTERS.acceptedChanged);
  return {
    day,
    answersWithDraft,
    accepted,
    changed: total(MAIL_DRAFT_COUNTERS.changed),
    acceptedChanged,
    copies: total(MAIL_DRAFT_COUNTERS.copies),
    mailOpens: total(MAIL_DRAFT_COUNTERS.mailOpens),
    edits: total(MAIL_DRAFT_COUNTERS.edits),
    refinements: total(MAIL_DRAFT_COUNTERS.refinements),
    ...(answersWithDraft > 0 ? { acceptanceRate: Math.min(1, accepted / answersWithDraft) } : {}),
    ...(accepted > 0 ? { editRate: Math.min(1, acceptedChanged / accepted) } : {}),
  };
}

function withoutDay({ day: _day, ...figures }: RepliesDay): Omit<RepliesDay, 'day'> {
  return figures;
}

/**
 * The upper bound of the bucket holding the `quantile`'s chat (nearest rank). The open last
 * bucket reports the last bound: "at least this long".
 */
export function percentileOf(histogram: readonly number[], quantile: number): number | undefined {
  const count = sum(histogram);
  if (count === 0) return undefined;
  const rank = Math.max(1, Math.ceil(quantile * count));
  let seen = 0;
  for (const [index, inBucket] of histogram.entries()) {
    seen += inBucket;
    if (seen >= rank) {
      return TIME_TO_FIRST_TOKEN_BUCKETS_MS[
        Math.min(index, TIME_TO_FIRST_TOKEN_BUCKETS_MS.length - 1)
      ] as number;
    }
  }
  return TIME_TO_FIRST_TOKEN_BUCKETS_MS[TIME_TO_FIRST_TOKEN_BUCKETS_MS.length - 1] as number;
}

interface TopicSum {
  topicKey: string;
  category: string;
  termWeights: Map<string, number>;
  byReason: Record<GapReason, number>;
  earlier: number;
  later: number;
}

function gapsOf(
  aggregates: InsightAggregates,
  window: { first: string; last: string; days: string[] },
): KnowledgeGap[] {
  // The second half starts here (for 30 days: the last 15).
  const laterFrom = window.days[Math.floor(window.days.length / 2)] as string;
  const topics = new Map<string, TopicSum>();
  for (const row of aggregates.gaps) {
    const day = dayPart(row.key);
    if (day < window.first || day > window.last) continue;
    const topicKey = restPart(row.key);
    const topic = topics.get(topicKey) ?? newTopic(topicKey, row);
    topics.set(topicKey, topic);
    let reasons = 0;
    for (const reason of GAP_REASONS) {
      const value = Math.max(0, row.counters[reason] ?? 0);
      topic.byReason[reason] += value;
      reasons += value;
    }
    // Inquiries, not reasons: a 👎 on an inquiry its chat had counted adds a reason, not one
    // more inquiry (`GAP_ALREADY_COUNTED`; a row without it predates it and reads as its reasons).
    const count = Math.max(0, reasons - Math.max(0, row.counters[GAP_ALREADY_COUNTED] ?? 0));
    if (day >= laterFrom) topic.later += count;
    else topic.earlier += count;
    const terms = row.labels?.terms;
    for (const term of Array.isArray(terms) ? terms : []) {
      topic.termWeights.set(term, (topic.termWeights.get(term) ?? 0) + Math.max(count, 1));
    }
  }

  const examplesByTopic = new Map<string, GapExample[]>();
  const newestFirst = [...aggregates.examples]
    .filter((row) => row.day >= window.first && row.day <= window.last)
    .sort((a, b) => b.day.localeCompare(a.day) || b.id.localeCompare(a.id));
  for (const row of newestFirst) {
    const list = examplesByTopic.get(row.topicKey) ?? [];
    if (list.length >= MAX_EXAMPLES_PER_GAP) continue;
    list.push({
      text: row.text,
      day: row.day,
      ownerHash: row.ownerHash,
      solved: row.solved === true,
    });
    examplesByTopic.set(row.topicKey, list);
  }
  // A solved example of the group, newest first, to draft knowledge from: one whose source and
  // opaque id the store kept (an older row without them could not be resolved or named).
  const solvedByTopic = new Map<string, string>();
  for (const row of newestFirst) {
    if (row.solved === true && row.source && row.exampleId && !solvedByTopic.has(row.topicKey)) {
      solvedByTopic.set(row.topicKey, row.exampleId);
    }
  }

  return [...topics.values()]
    .map((topic): KnowledgeGap => {
      const draftFrom = solvedByTopic.get(topic.topicKey);
      return {
        topicKey: topic.topicKey,
        category: topic.category,
        terms: termsOf(topic),
        count: topic.earlier + topic.later,
        byReason: { ...topic.byReason },
        trend: { earlier: topic.earlier, later: topic.later },
        examples: examplesByTopic.get(topic.topicKey) ?? [],
        ...(draftFrom ? { draftFrom: { exampleId: draftFrom } } : {}),
      };
    })
    .filter((gap) => gap.count > 0)
    .sort(
      (a, b) =>
        b.count - a.count || b.trend.later - a.trend.later || a.topicKey.localeCompare(b.topicKey),
    )
    .slice(0, MAX_GAPS);
}

function newTopic(topicKey: string, row: CounterRow): TopicSum {
  const label = row.labels?.category;
  const separator = topicKey.indexOf('|');
  return {
    topicKey,
    category:
      typeof label === 'string' && label
        ? label
        : separator > 0
          ? topicKey.slice(0, separator)
          : UNCATEGORIZED,
    termWeights: new Map(),
    byReason: { weak_retrieval: 0, no_ticket_cited: 0, rated_down: 0 },
    earlier: 0,
    later: 0,
  };
}

/** The key's term first (it is what the group shares), then the others most frequent first. */
function termsOf(topic: TopicSum): string[] {
  const keyTerm = topic.topicKey.slice(topic.topicKey.indexOf('|') + 1);
  const others = [...topic.termWeights.entries()]
    .filter(([term]) => term !== keyTerm)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([term]) => term);
  return [...(keyTerm && keyTerm !== NO_TERM ? [keyTerm] : []), ...others].slice(0, 3);
}

function ticketUseOf(rows: readonly CounterRow[]): {
  mostSolved: TicketUse[];
  citedButDownRated: TicketUse[];
} {
  const uses = new Map<string, TicketUse>();
  // The subject of a ticket's newest day with one: a ticket renamed in the Knowledge Base shows
  // its current subject (within a day, the label's last write already won).
  const subjects = new Map<string, { day: string; subject: string }>();
  for (const row of rows) {
    const issueId = restPart(row.key);
    const use = uses.get(issueId) ?? { issueId, cited: 0, solved: 0, citedInDownRated: 0 };
    uses.set(issueId, {
      ...use,
      cited: use.cited + Math.max(0, row.counters.cited ?? 0),
      solved: use.solved + Math.max(0, row.counters.solved ?? 0),
      citedInDownRated: use.citedInDownRated + Math.max(0, row.counters.citedInDownRated ?? 0),
    });
    const subject = row.labels?.[TICKET_SUBJECT_LABEL];
    const day = dayPart(row.key);
    if (typeof subject === 'string' && subject && !((subjects.get(issueId)?.day ?? '') > day)) {
      subjects.set(issueId, { day, subject });
    }
  }
  const all = [...uses.values()].map((use) => {
    const subject = subjects.get(use.issueId)?.subject;
    return subject ? { ...use, subject } : use;
  });
  return {
    mostSolved: all
      .filter((use) => use.solved > 0 || use.cited > 0)
      .sort(
        (a, b) => b.solved - a.solved || b.cited - a.cited || a.issueId.localeCompare(b.issueId),
      )
      .slice(0, MAX_MOST_SOLVED),
    citedButDownRated: all
      .filter((use) => use.cited >= 2 && use.citedInDownRated * 2 >= use.cited)
      .sort(
        (a, b) =>
          b.citedInDownRated / b.cited - a.citedInDownRated / a.cited ||
          b.citedInDownRated - a.citedInDownRated ||
          a.issueId.localeCompare(b.issueId),
      )
      .slice(0, MAX_CITED_BUT_DOWN_RATED),
  };
}

/**
 * Tickets not retrieved by any chat in the last 90 days. With the catalog (the deployed ticket
 * set): every listed ticket not among them, and `total` the catalog's size — a ticket retrieved
 * in the window but no longer in the Knowledge Base counts nowhere. Without it (a deployment that
 * cannot list its tickets): only the tickets retrieved at some point of the horizon but not in
 * the last 90 days, with `total` absent rather than a guess, so the page can say it cannot list.
 */
function neverRetrievedOf(
  retrieved: InsightAggregates['retrieved'],
  now: Date,
  catalog: readonly string[] | undefined,
): Insights['helped']['neverRetrieved'] {
  const recentFrom = windowOf(NEVER_RETRIEVED_DAYS, now).first;
  const seen = new Set<string>();
  const recent = new Set<string>();
  for (const { day, issueIds } of retrieved) {
    for (const issueId of issueIds) {
      seen.add(issueId);
      if (day >= recentFrom) recent.add(issueId);
    }
  }
  const candidates = catalog === undefined ? seen : new Set(catalog);
  const never = [...candidates].filter((issueId) => !recent.has(issueId)).sort();
  return {
    count: never.length,
    ...(catalog === undefined ? {} : { total: candidates.size }),
    sample: never.slice(0, MAX_NEVER_RETRIEVED_SAMPLE),
  };
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
