import type { TextEncodingName } from '../export-files.js';

/**
 * What a source reader is told besides its files: which comments make the resolution, how its
 * CSV and JSON Lines files are encoded and, for CSV and JSON Lines, the mapping from the export's
 * columns to ticket fields.
 */

/**
 * Which comments become resolution steps: `public` — the agents' public replies (Zendesk
 * `public`, Jira Service Management comments not marked internal, ServiceNow additional
 * comments); `all` — internal notes and work notes too; `none` — none (ServiceNow then uses the
 * close notes alone; a Jira or Zendesk record without comments has no resolution and is skipped).
 * The requester's own comments never count.
 */
export const COMMENT_POLICIES = ['public', 'all', 'none'] as const;
export type CommentPolicy = (typeof COMMENT_POLICIES)[number];

export interface SourceOptions {
  readonly comments: CommentPolicy;
  /**
   * The encoding of its CSV and JSON Lines files (`--encoding`); absent: each file's is detected
   * (`encodingOfTextFile`). JSON pages are always UTF-8.
   */
  readonly encoding?: TextEncodingName;
}
