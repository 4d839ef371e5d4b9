import * as z from 'zod';
import { activeSurgeSchema } from './surges.js';

/**
 * The body of `GET /api/insights?days=30|90`: what a service-desk lead sees on `/insights`
 * (issue #28, ADR 0022). Every figure is a count or a time; the only inquiry text in it is a
 * knowledge gap's examples, and their owners appear as a hash. The server builds it from the
 * aggregates kept where events happen (O(days × topics) items), never from the conversations.
 */

/** The windows a lead can pick. */
export const INSIGHTS_WINDOWS = [30, 90] as const;
export const insightsWindowSchema = z.coerce
  .number()
  .pipe(z.union([z.literal(30), z.literal(90)]))
  .default(30);
export type InsightsWindow = (typeof INSIGHTS_WINDOWS)[number];

/** A UTC day, `YYYY-MM-DD`. */
const daySchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

/** One day of chat activity (days without any chat are present, with zeros). */
export const activityDaySchema = z.object({
  day: daySchema,
  /** Chats that ran (one per answered message: complete, clarification, truncated, stopped, failed). */
  chats: z.number().int().min(0),
  /** Of those: answers with results (not a clarification, not failed or stopped). */
  answers: z.number().int().min(0),
  clarifications: z.number().int().min(0),
  truncated: z.number().int().min(0),
  failed: z.number().int().min(0),
  /** Feedback given on that day's answers: the latest verdict per answer counts once. */
  ratedUp: z.number().int().min(0),
  ratedDown: z.number().int().min(0),
  /** Time to first token of that day's chats, from a fixed-bucket histogram (upper bound). */
  timeToFirstTokenP50Ms: z.number().min(0).optional(),
  timeToFirstTokenP95Ms: z.number().min(0).optional(),
  /** Input (cache reads and writes included) and output tokens. */
  inputTokens: z.number().int().min(0),
  outputTokens: z.number().int().min(0),
  /** From the model price table; absent when a model of the day has no price. */
  estimatedCostUsd: z.number().min(0).optional(),
});
export type ActivityDay = z.infer<typeof activityDaySchema>;

/** An inquiry in a knowledge gap, shown to leads only. */
export const gapExampleSchema = z.object({
  /** The inquiry's text as the staff member wrote it, after the personal-data scrub. */
  text: z.string(),
  day: daySchema,
  /** A stable hash of the owner (never the user id or name): "three people asked" is visible. */
  ownerHash: z.string(),
  /** Whether staff marked a ticket as the solution of this inquiry later. */
  solved: z.boolean(),
});
export type GapExample = z.infer<typeof gapExampleSchema>;

/** Why an inquiry counts as a gap. */
export const gapReasonSchema = z.enum(['weak_retrieval', 'no_ticket_cited', 'rated_down']);
export type GapReason = z.infer<typeof gapReasonSchema>;

/**
 * A group of inquiries staff needed and did not find: the category of the nearest ticket and the
 * key terms they share.
 */
export const knowledgeGapSchema = z.object({
  /** Stable across days: `category|term` (what the aggregates are keyed by). */
  topicKey: z.string(),
  /** The nearest retrieved ticket's category, or `uncategorized` when nothing was retrieved. */
  category: z.string(),
  /** The shared key terms, most frequent first (at most 3). */
  terms: z.array(z.string()),
  count: z.number().int().min(1),
  byReason: z.record(gapReasonSchema, z.number().int().min(0)),
  /** Counts in the window's first and second half, for the trend arrow. */
  trend: z.object({ earlier: z.number().int().min(0), later: z.number().int().min(0) }),
  /** Empty when the deployment turned examples off (`insightsExamples: false`). */
  examples: z.array(gapExampleSchema),
  /**
   * A solved inquiry of this group a lead may draft knowledge from (the knowledge-capture draft of
   * that inquiry), when there is one; absent otherwise.
   */
  draftFrom: z.object({ exampleId: z.string() }).optional(),
});
export type KnowledgeGap = z.infer<typeof knowledgeGapSchema>;

/** One ticket's use in the window. */
export const ticketUseSchema = z.object({
  issueId: z.string(),
  subject: z.string().optional(),
  /** Answers that cited it as a card. */
  cited: z.number().int().min(0),
  /** Answers where staff marked it as the solution. */
  solved: z.number().int().min(0),
  /** Answers citing it that were rated 👎. */
  citedInDownRated: z.number().int().min(0),
});
export type TicketUse = z.infer<typeof ticketUseSchema>;

/** A share in [0, 1], absent when its denominator is 0 (no figure rather than a 0 % that means nothing). */
const rateSchema = z.number().min(0).max(1);

/**
 * One day of the answers' e-mail drafts (ADR 0023): what staff did with the drafts of that day's
 * answers — counts, never text. Every count goes to the day of the answer, so a day's rates
 * compare its accepted answers with its own answers that had a draft.
 */
export const repliesDaySchema = z.object({
  day: daySchema,
  /** Answers stored with a non-empty `mail_draft` (what staff could copy or send). */
  answersWithDraft: z.number().int().min(0),
  /** Of those, answers whose draft staff copied or opened in the mail client — each answer once. */
  accepted: z.number().int().min(0),
  /** Of those, answers whose draft staff edited or refined — each answer once. */
  changed: z.number().int().min(0),
  /** Accepted answers whose draft was also changed (before or after the first copy), each once. */
  acceptedChanged: z.number().int().min(0),
  /** Every action, however often one answer's draft saw it. */
  copies: z.number().int().min(0),
  mailOpens: z.number().int().min(0),
  edits: z.number().int().min(0),
  refinements: z.number().int().min(0),
  /** `accepted / answersWithDraft`; absent without an answer with a draft. */
  acceptanceRate: rateSchema.optional(),
  /** `acceptedChanged / accepted` — of the drafts staff used, the share they changed; absent without one. */
  editRate: rateSchema.optional(),
});
export type RepliesDay = z.infer<typeof repliesDaySchema>;

/**
 * How current one live-synced ticket system's knowledge is (`ticketSync`, ADR 0032): the last run
 * that ended without an error and how far the knowledge is behind (absent before its first run).
 */
export const sourceFreshnessSchema = z.object({
  /** The `ticketSync` entry's id (`servicenow`, `jira-hr`). */
  id: z.string(),
  system: z.enum(['servicenow', 'jira', 'zendesk']),
  lastSuccessAt: z.string().optional(),
  lastRunAt: z.string().optional(),
  lastOutcome: z.enum(['complete', 'stopped', 'failed']).optional(),
  /** Minutes between now and the instant every earlier change was written. */
  lagMinutes: z.number().int().min(0).optional(),
  /** Above it the lag alarm fires: the page marks the source behind. */
  maxLagMinutes: z.number().int().min(1),
});
export type SourceFreshness = z.infer<typeof sourceFreshnessSchema>;

export const insightsSchema = z.object({
  generatedAt: z.string(),
  days: z.union([z.literal(30), z.literal(90)]),
  /**
   * False when the deployment keeps no gap examples (`insightsExamples: false`): a gap without
   * examples then says so, instead of looking like one that has none (a gap only a 👎 made keeps
   * no inquiry text: examples are kept when the chat itself was a gap). Absent: kept.
   */
  examplesKept: z.boolean().optional(),
  activity: z.object({
    /** Oldest first, one entry per day of the window. */
    perDay: z.array(activityDaySchema),
    /** The window's sums; percentiles over the whole window. */
    totals: activityDaySchema.omit({ day: true }),
  }),
  /**
   * The e-mail drafts of the window's answers (issue #29): acceptance and edit rates, computed by
   * the server from per-day counters kept where staff copy, open, edit and refine a draft.
   */
  replies: z.object({
    /** Oldest first, one entry per day of the window. */
    perDay: z.array(repliesDaySchema),
    /** The window's sums, with the rates over the whole window. */
    totals: repliesDaySchema.omit({ day: true }),
  }),
  /** Largest first; at most 20. */
  gaps: z.array(knowledgeGapSchema),
  helped: z.object({
    /** Tickets most often marked as the solution (then most cited); at most 10. */
    mostSolved: z.array(ticketUseSchema),
    /** Tickets cited at least twice with a 👎 share of at least half: candidates to rewrite. */
    citedButDownRated: z.array(ticketUseSchema),
    /**
     * Tickets of the deployed set not retrieved by any chat in the last 90 days: their number and
     * up to 20 of them; `total` is the size of the set (absent where the deployment cannot list it).
     */
    neverRetrieved: z.object({
      count: z.number().int().min(0),
      total: z.number().int().min(0).optional(),
      sample: z.array(z.string()),
    }),
  }),
  capture: z.object({
    drafts: z.number().int().min(0),
    published: z.number().int().min(0),
    /** Publishes whose Knowledge Base sync had to wait (owed sync, ADR 0011). */
    syncsWaited: z.number().int().min(0),
  }),
  /** The latest `npm run eval -- --from-feedback` run, when there was one. */
  evaluation: z
    .object({
      ranAt: z.string(),
      target: z.enum(['local', 'aws']),
      /** Labelled queries from solved inquiries. */
      queries: z.number().int().min(0),
      recallAt1: z.number().min(0).max(1),
      recallAt3: z.number().min(0).max(1),
      recallAt8: z.number().min(0).max(1),
      mrr: z.number().min(0).max(1),
      /** The built-in set's figures of the same run, for comparison. */
      builtIn: z
        .object({
          queries: z.number().int().min(0),
          recallAt1: z.number().min(0).max(1),
          recallAt3: z.number().min(0).max(1),
          recallAt8: z.number().min(0).max(1),
          mrr: z.number().min(0).max(1),
        })
        .optional(),
    })
    .optional(),
  /** Topics many staff are asking about now (ADR 0033), most staff first; the route always sets it. */
  surges: z.array(activeSurgeSchema).optional(),
  /** The live-synced ticket systems, when the deployment has any (`ticketSync`). */
  knowledgeFreshness: z.array(sourceFreshnessSchema).optional(),
});
export type Insights = z.infer<typeof insightsSchema>;
