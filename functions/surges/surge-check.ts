import { createHash } from 'node:crypto';
import type { Log } from '../chat/log.js';
import type { Owner, RetrievedTicket } from '../chat/ports.js';
import type { KnownIssueNotice, SurgeNotice } from '../contract/surges.js';
import { knownIssuesMatching } from './known-issue-match.js';
import type { KnownIssueStore, SurgeAlerts, SurgeCounter } from './ports.js';
import { type SurgeTopic, surgeTopicOf, topicNeedsTickets } from './surge-topic.js';
import { isSurging, tallyOf, withInquiry } from './surge-window.js';

/**
 * The chat's side of surges and known issues (ADR 0033): one store request each, both before the
 * answer's first token — the open known issues read at admission (they do not depend on the
 * inquiry), the inquiry counted on its topic as soon as the topic is known: at once for a subject,
 * once the tickets are in for a symptom. Neither ever fails a chat: a slow or failed store call is
 * logged and the answer goes on without its notice.
 */

/** How long the chat waits for either request before answering without it. @default 500 */
export const SURGE_CHECK_TIMEOUT_MS = 500;

export interface SurgeCheckOptions {
  readonly counter: SurgeCounter;
  readonly knownIssues: Pick<KnownIssueStore, 'listOpen'>;
  readonly alerts: SurgeAlerts;
  /** Distinct staff within the window that make a surge, the current one included. */
  readonly minStaff: number;
  readonly windowMinutes: number;
  /** Keeps a scrubbed example per slice for leads; undefined: no examples (`INSIGHTS_EXAMPLES`). */
  readonly scrubExample?: (owner: Owner, text: string) => string;
  /** The owner as an opaque hash (the same as logs use, never the user id). */
  readonly staffHash: (owner: Owner) => string;
  readonly log: Log;
  readonly now: () => Date;
  readonly timeoutMs: number;
}

export interface SurgeCheck {
  /**
   * Starts reading the tenant's open known issues: what leads published does not depend on the
   * inquiry, so the read can leave before its text is known (ADR 0034).
   */
  readKnownIssues(owner: Owner): KnownIssuesRead;
  /**
   * Counts the inquiry on its topic; the notice when the topic surges now, this one included.
   * `retrieved` is awaited only when the topic is a symptom's (its category is the tickets'); a
   * retrieval that fails leaves such an inquiry uncounted. The timeout runs from the count.
   */
  countInquiry(
    owner: Owner,
    inquiry: { readonly conversationId: string; readonly inquiryId: string; readonly text: string },
    retrieved: Promise<readonly RetrievedTicket[]>,
  ): Promise<SurgeNotice | undefined>;
}

/** The open known issues of one chat's tenant, being read. */
export interface KnownIssuesRead {
  /** Those the inquiry is about, oldest first; [] when none or when the read failed. */
  matching(inquiryText: string): Promise<KnownIssueNotice[]>;
}

export function createSurgeCheck(options: SurgeCheckOptions): SurgeCheck {
  const { counter, minStaff, windowMinutes, log } = options;

  /** The value of `work`, or `fallback` when it fails or outlasts the timeout (logged). */
  async function bounded<Value>(
    operation: string,
    work: () => Promise<Value>,
    fallback: Value,
  ): Promise<Value> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await Promise.race([
        work(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`${operation} took over ${options.timeoutMs} ms`)),
            options.timeoutMs,
          );
        }),
      ]);
    } catch (error) {
      log.error('surge check failed', { operation, error });
      return fallback;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    readKnownIssues(owner) {
      const open = bounded(
        'known_issues',
        () => options.knownIssues.listOpen({ tenantId: owner.tenantId }, options.now()),
        [],
      );
      return {
        matching: async (inquiryText) => {
          const issues = await open;
          try {
            return knownIssuesMatching(issues, inquiryText);
          } catch (error) {
            log.error('surge check failed', { operation: 'known_issues', error });
            return [];
          }
        },
      };
    },

    // Never throws nor rejects, whoever calls it: admission starts some counts (ADR 0035), where
    // a throw would fail a chat already admitted. A subject's count leaves before the first await.
    async countInquiry(owner, inquiry, retrieved) {
      try {
        const tickets = topicNeedsTickets(inquiry.text)
          ? await retrieved.catch(() => undefined)
          : [];
        if (!tickets) return undefined;
        return await count(owner, inquiry, surgeTopicOf(inquiry.text, tickets));
      } catch (error) {
        log.error('surge check failed', { operation: 'surge_count', error });
        return undefined;
      }
    },
  };

  function count(
    owner: Owner,
    inquiry: { readonly conversationId: string; readonly inquiryId: string; readonly text: string },
    topic: SurgeTopic | undefined,
  ): Promise<SurgeNotice | undefined> {
    if (!topic) return Promise.resolve(undefined);
    return bounded(
      'surge_count',
      async () => {
        const at = options.now();
        const mark = {
          topicKey: topic.topicKey,
          label: topic.label,
          inquiryHash: opaque(`${inquiry.conversationId}#${inquiry.inquiryId}`),
          staffHash: options.staffHash(owner),
          at,
          ...(options.scrubExample
            ? { example: options.scrubExample(owner, inquiry.text).slice(0, 200) }
            : {}),
        };
        const scope = { tenantId: owner.tenantId };
        const before = await counter.countInquiry(scope, mark, windowMinutes);
        const after = tallyOf(withInquiry(before, mark, windowMinutes), at, windowMinutes);
        if (!isSurging(after, minStaff)) return undefined;
        const notice: SurgeNotice = {
          topic: mark.label,
          inquiries: after.inquiries,
          staff: after.staff,
          since: after.since ?? at.toISOString(),
        };
        // Exactly one update crosses the threshold (the store serialises them): that chat alerts.
        if (!isSurging(tallyOf(before, at, windowMinutes), minStaff)) {
          void options.alerts
            .surgeStarted({ tenantId: owner.tenantId, topicKey: topic.topicKey, ...notice })
            .catch((error: unknown) => log.error('surge alert failed', { error }));
        }
        return notice;
      },
      undefined,
    );
  }
}

/** A short one-way hash: the store never holds an inquiry's id, only that it was counted. */
const opaque = (value: string) =>
  createHash('sha256').update(value).digest('base64url').slice(0, 16);
