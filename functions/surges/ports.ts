import type { SurgeMark, SurgeState } from './surge-window.js';

/**
 * What surges and known issues need from storage (ADR 0033). Nothing here imports AWS;
 * `functions/adapters/dynamodb/` implements both on the insights table, one partition per tenant
 * and kind, read by key — never a scan.
 */

/** A tenant's items; every method is scoped to one. */
export interface SurgeScope {
  readonly tenantId: string;
}

export interface SurgeCounter {
  /**
   * Adds the inquiry to its topic's current slice in ONE atomic update and returns the topic's
   * state as it was just before (`withInquiry` gives the state after): updates of concurrent
   * chats are applied one after another, so each sees a distinct before-state and exactly one of
   * them crosses the threshold.
   */
  countInquiry(scope: SurgeScope, mark: SurgeMark, windowMinutes: number): Promise<SurgeState>;
  /** Every topic with an inquiry within the window ending at `now` (one query of the partition). */
  listTopics(scope: SurgeScope, now: Date, windowMinutes: number): Promise<readonly SurgeState[]>;
}

/** A known issue as stored. */
export interface StoredKnownIssue {
  readonly id: string;
  readonly title: string;
  readonly note: string;
  readonly workaround?: string;
  readonly link?: string;
  readonly matches: readonly string[];
  /** The publishing lead's display name. */
  readonly author: string;
  readonly publishedAt: string;
  readonly endsAt: string;
  readonly closedAt?: string;
}

export type CloseOutcome = 'closed' | 'not_found' | 'already_closed';

export interface KnownIssueStore {
  /** Writes a new issue; its id is new (a ULID), so two leads publishing at once both land. */
  publish(scope: SurgeScope, issue: StoredKnownIssue): Promise<void>;
  /** The issues neither closed nor past their end at `now` (one query of the partition). */
  listOpen(scope: SurgeScope, now: Date): Promise<readonly StoredKnownIssue[]>;
  /** Closes an open issue once: a second close, or one past its end, is `already_closed`. */
  close(scope: SurgeScope, id: string, at: Date): Promise<CloseOutcome>;
}

/** Where the start of a surge is announced (the stack's alarm topic; locally a log line). */
export interface SurgeAlerts {
  surgeStarted(alert: SurgeAlert): Promise<void>;
}

/** What an alert says: the topic and counts, never who asked or what they wrote. */
export interface SurgeAlert {
  readonly tenantId: string;
  readonly topic: string;
  readonly topicKey: string;
  readonly inquiries: number;
  readonly staff: number;
  readonly since: string;
}
