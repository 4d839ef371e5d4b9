import type { Log } from '../chat/log.js';
import type { ChatReport, Owner, Turn } from '../chat/ports.js';
import type { AnswerFeedback } from '../contract/conversations.js';
import type { GapReason } from '../contract/insights.js';
import {
  languageOf,
  ownerAsPerson,
  peopleNamedIn,
  type ScrubSettings,
  scrubPersonalData,
} from '../knowledge/personal-data-scrub.js';
import type { KnowledgeReport } from '../observability/telemetry.js';
import { topicOfInquiry } from './inquiry-topic.js';
import type { ChatInsight, InsightsStore } from './ports.js';

/**
 * Where the API hands its events to the insights aggregates (ADR 0022): a finished chat, a
 * feedback commit, a knowledge draft or publish, an action on an e-mail draft, a deleted
 * conversation. Never throws and never waits longer than `timeoutMs`: a failed or slow insights
 * write is logged and counted (`InsightsWriteFailed`) and that event's counts are lost — the
 * chat, the feedback, the publish, the draft's action and the delete stand as they are.
 */

/** How long an event may wait for its insights write. @default 1000 */
export const DEFAULT_INSIGHTS_TIMEOUT_MS = 1000;

export interface InsightsRecorderOptions {
  readonly store: InsightsStore;
  /** The chat's estimated cost in USD, from the same price table as the metrics; undefined: no price. */
  readonly estimateCostUsd: (report: ChatReport) => number | undefined;
  /** Best retrieval score under which an inquiry's retrieval counts as weak (`INSIGHTS_GAP_SCORE`). */
  readonly gapScoreThreshold: number;
  /** Keep gap examples (scrubbed inquiry text) for leads (`INSIGHTS_EXAMPLES`). */
  readonly examples: boolean;
  /** The deployment's personal-data settings (ADR 0019). */
  readonly scrubSettings?: ScrubSettings;
  /** The owner as logs name it (a short hash, never the user id). */
  readonly ownerHash: (owner: Owner) => string;
  readonly log: Log;
  /** Counts a failed write (the metric); the log line is written either way. */
  readonly writeFailed?: (operation: string) => void;
  readonly now: () => Date;
  /** @default DEFAULT_INSIGHTS_TIMEOUT_MS */
  readonly timeoutMs?: number;
}

/** One feedback commit as the route saw it: the answer turn, the verdict, the inquiry's text. */
export interface FeedbackEvent {
  readonly owner: Owner;
  readonly conversationId: string;
  readonly answer: Turn;
  readonly next: AnswerFeedback;
  /** The inquiry's own user text (kept, scrubbed, only while a ticket is marked as the solution). */
  readonly inquiryText: string;
}

/** One stored action on an answer's e-mail draft, as the mail-draft routes saw it (ADR 0023). */
export interface MailDraftEvent {
  readonly owner: Owner;
  readonly conversationId: string;
  /** The answer turn whose draft it was (its seq and `createdAt` day). */
  readonly answer: Pick<Turn, 'seq' | 'createdAt'>;
  readonly action: 'copy' | 'open_in_mail' | 'edit' | 'refine';
}

export interface InsightsRecorder {
  /** A chat ended; `inquiryText` is the inquiry's own user text (never the report's). */
  chatFinished(report: ChatReport, inquiry: { readonly text: string }): Promise<void>;
  feedbackRecorded(event: FeedbackEvent): Promise<void>;
  knowledgeRecorded(report: KnowledgeReport): Promise<void>;
  /** Staff copied, opened, edited or refined an answer's draft (only once it was stored). */
  mailDraftRecorded(event: MailDraftEvent): Promise<void>;
  /** The delete route and the retention sweeper: the conversation's examples go with it. */
  conversationDeleted(owner: Pick<Owner, 'tenantId'>, conversationId: string): Promise<void>;
}

/**
 * Why a finished chat is a knowledge gap, if it is: an answer whose best retrieved ticket scored
 * under the threshold (or that retrieved nothing), else one that cited no ticket. A
 * clarification, a failure or a stop is no gap: nothing was answered.
 */
export function gapReasonOf(
  report: Pick<ChatReport, 'outcome' | 'bestScore' | 'citedIssueIds'>,
  threshold: number,
): GapReason | undefined {
  if (report.outcome !== 'complete' && report.outcome !== 'truncated') return undefined;
  if (report.bestScore === undefined || report.bestScore < threshold) return 'weak_retrieval';
  if ((report.citedIssueIds ?? []).length === 0) return 'no_ticket_cited';
  return undefined;
}

export function createInsightsRecorder(options: InsightsRecorderOptions): InsightsRecorder {
  const { now, examples, gapScoreThreshold: threshold } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_INSIGHTS_TIMEOUT_MS;
  const dayOf = (date: Date) => date.toISOString().slice(0, 10);
  // The same named-people list as a knowledge draft of the inquiry (ticket-draft.ts): a gap
  // example and the draft made from it show the same placeholders (`[氏名]さん`).
  const scrubbed = (owner: Owner, text: string) =>
    scrubPersonalData(text, {
      ...options.scrubSettings,
      people: [ownerAsPerson(owner), ...peopleNamedIn(text)],
      language: languageOf(text),
    }).text;

  /** Runs one write within the time bound; a failure or timeout is logged, never thrown. */
  async function guarded(operation: string, write: () => Promise<void>): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        write(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`insights ${operation} took over ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]);
    } catch (error) {
      options.log.error('insights write failed', { operation, error });
      options.writeFailed?.(operation);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    chatFinished(report, inquiry) {
      // A replay delivered an answer already counted; a chat that stored no answer has no seq.
      if (report.outcome === 'replayed' || report.answerSeq === undefined) return Promise.resolve();
      const answerSeq = report.answerSeq;
      return guarded('chat', async () => {
        const topic = topicOfInquiry(inquiry.text, report.nearestCategory);
        const reason = gapReasonOf(report, threshold);
        const cost = options.estimateCostUsd(report);
        const insight: ChatInsight = {
          day: dayOf(now()),
          conversationId: report.conversationId,
          answerSeq,
          outcome: report.outcome === 'replayed' ? 'complete' : report.outcome,
          ...(report.timeToFirstTokenMs !== undefined
            ? { timeToFirstTokenMs: report.timeToFirstTokenMs }
            : {}),
          inputTokens:
            (report.inputTokens ?? 0) +
            (report.cacheReadInputTokens ?? 0) +
            (report.cacheWriteInputTokens ?? 0),
          outputTokens: report.outputTokens ?? 0,
          ...(cost !== undefined ? { estimatedCostUsd: cost } : {}),
          citedIssueIds: report.citedIssueIds ?? [],
          ...(report.citedSubjects ? { citedSubjects: report.citedSubjects } : {}),
          hasMailDraft: report.hasMailDraft === true,
          retrievedIssueIds: report.retrievedIssueIds ?? [],
          topic,
          ...(reason
            ? {
                gap: {
                  ...topic,
                  reason,
                  ...(examples
                    ? {
                        example: {
                          text: scrubbed(report.owner, inquiry.text),
                          ownerHash: options.ownerHash(report.owner),
                          // Server-side only: what a lead's knowledge draft of it resolves.
                          source: {
                            ownerUserId: report.owner.userId,
                            inquiryId: report.inquiryId,
                          },
                        },
                      }
                    : {}),
                },
              }
            : {}),
        };
        await options.store.recordChat({ tenantId: report.owner.tenantId }, insight);
      });
    },

    feedbackRecorded(event) {
      return guarded('feedback', async () => {
        const solved = (event.next.helpfulTicketIds?.length ?? 0) > 0;
        await options.store.recordFeedback(
          { tenantId: event.owner.tenantId },
          {
            answerDay: event.answer.createdAt.slice(0, 10),
            conversationId: event.conversationId,
            answerSeq: event.answer.seq,
            next: event.next,
            citedIssueIds: event.answer.result?.results?.map((card) => card.issue_id) ?? [],
            // The labelled query of the feedback eval: only while a ticket solved it.
            ...(solved ? { inquiryText: scrubbed(event.owner, event.inquiryText) } : {}),
            ownerHash: options.ownerHash(event.owner),
          },
        );
      });
    },

    knowledgeRecorded(report) {
      return guarded('capture', async () => {
        const scope = { tenantId: report.owner.tenantId };
        const day = dayOf(now());
        if (report.kind === 'draft') {
          await options.store.recordCapture(scope, { day, kind: 'draft' });
          return;
        }
        await options.store.recordCapture(scope, { day, kind: 'published' });
        if (report.ingestion === 'pending') {
          await options.store.recordCapture(scope, { day, kind: 'sync_waited' });
        }
      });
    },

    mailDraftRecorded(event) {
      return guarded('mail_draft', () =>
        options.store.recordMailDraft(
          { tenantId: event.owner.tenantId },
          {
            answerDay: event.answer.createdAt.slice(0, 10),
            conversationId: event.conversationId,
            answerSeq: event.answer.seq,
            action: event.action,
            at: now().toISOString(),
          },
        ),
      );
    },

    conversationDeleted(owner, conversationId) {
      return guarded('forget', () =>
        options.store.forgetConversation({ tenantId: owner.tenantId }, conversationId),
      );
    },
  };
}
