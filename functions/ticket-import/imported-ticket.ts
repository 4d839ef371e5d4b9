import { sourceTicketId } from '../contract/ticket-references.js';
import type { Person } from '../knowledge/personal-data-scrub.js';

/**
 * What every source reader yields: one record of the export, normalized — the ticket's number
 * as the source writes it, its texts as staff read them (still unscrubbed: the import scrubs
 * them with the record's `people`), whether the source counts it resolved, and its flat fields
 * for the `--restricted-when` rules.
 */

export const SOURCE_NAMES = ['servicenow', 'jira', 'zendesk', 'csv', 'jsonl'] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

/** Display names of the sources, for the document's notes. */
export const SOURCE_LABELS: Readonly<Record<SourceName, string>> = {
  servicenow: 'ServiceNow',
  jira: 'Jira',
  zendesk: 'Zendesk',
  csv: 'CSV',
  jsonl: 'JSON Lines',
};

export interface ImportedRecord {
  /** The number as the source writes it: `INC0012345`, `RITM0012345`, `ITSD-123`, `35436`. */
  readonly number: string;
  readonly subject: string;
  readonly inquiry: string;
  /** The resolution as steps (close-notes paragraphs, agents' comments in order). */
  readonly resolution: readonly string[];
  readonly category: string;
  /** Whether the source counts the record resolved or closed. */
  readonly resolved: boolean;
  /** Merged into another record or closed as a duplicate of one. */
  readonly duplicate: boolean;
  /** `YYYY-MM-DD` when known. */
  readonly openedOn?: string;
  readonly resolvedOn?: string;
  /** The people of the record's person fields (caller, requester, assignee, commenters…). */
  readonly people: readonly Person[];
  /** Flat field values for restriction rules (`labels`, `tags`, `category`, raw field names). */
  readonly fields: Readonly<Record<string, readonly string[]>>;
}

/** Why a record did not become a ticket (counted per reason in the report). */
export const SKIP_REASONS = {
  notResolved: 'not resolved or closed',
  noResolutionText: 'no resolution text',
  duplicate: 'merged or duplicate',
  repeatedNumber: 'number already imported in this run',
  malformed: 'malformed record',
} as const;
export type SkipReason = keyof typeof SKIP_REASONS;

/** What a source reader yields for one record of its files. */
export type SourceItem =
  | { readonly file: string; readonly recordNumber: number; readonly record: ImportedRecord }
  | { readonly file: string; readonly recordNumber: number; readonly malformed: string };

/** A record that does not have the shape its source needs: reported with file and record number. */
export class MalformedRecordError extends Error {
  override readonly name = 'MalformedRecordError';
}

/**
 * The ticket id the import writes (the sidecar's `issue_id`, from which the document's name is
 * made) for a record's number: the source's canonical id (`sourceTicketId`, ADR 0020) —
 * ServiceNow and Jira numbers as written, a Zendesk `35436` as `ZD#35436` so it never collides
 * with the app's own numbers. CSV and JSON Lines numbers follow the CSV rule.
 */
export function ticketIdOf(source: SourceName, number: string): string {
  try {
    return sourceTicketId(source === 'jsonl' ? 'csv' : source, number);
  } catch {
    // The value is not echoed: a mis-mapped number column may hold anything, names included.
    throw new MalformedRecordError(
      `its number (${number.trim().length} characters) is not a ${SOURCE_LABELS[source]} ticket number`,
    );
  }
}

/** `YYYY-MM-DD` of a source date (`2024-01-09 10:12:33`, ISO 8601, `2024/01/09`), or undefined. */
export function dayOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})/.exec(value.trim());
  if (!match) return undefined;
  return `${match[1]}-${match[2]?.padStart(2, '0')}-${match[3]?.padStart(2, '0')}`;
}

/** Splits a resolution text into steps: one per paragraph (blank-line separated). */
export function stepsOf(text: string): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((step) => step.trim())
    .filter((step) => step !== '');
}

/** A person from whatever the source has; empty parts dropped, undefined when nothing is left. */
export function personOf(parts: {
  readonly names?: readonly (string | undefined | null)[];
  readonly userIds?: readonly (string | undefined | null)[];
  readonly emails?: readonly (string | undefined | null)[];
}): Person | undefined {
  const names = clean(parts.names);
  const userIds = clean(parts.userIds);
  const emails = clean(parts.emails);
  if (names.length + userIds.length + emails.length === 0) return undefined;
  return { names, userIds, emails };
}

/**
 * Trimmed, non-empty, each once. A function of the module, not a closure of personOf: the
 * import's command runs through tsx, whose kept names cost a property definition for every
 * closure created, and personOf runs several times per record.
 */
function clean(values?: readonly (string | undefined | null)[]): string[] {
  return [...new Set((values ?? []).map((value) => value?.trim() ?? '').filter((value) => value))];
}
