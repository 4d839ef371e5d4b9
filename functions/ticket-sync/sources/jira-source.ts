import { MalformedRecordError } from '../../ticket-import/imported-ticket.js';
import { normalizeJiraIssue } from '../../ticket-import/sources/jira.js';
import type { CommentPolicy } from '../../ticket-import/sources/source-options.js';
import type { SourceHttp } from '../source-http.js';
import type { SyncCursor } from '../sync-cursor.js';
import {
  type PulledRecord,
  pulledRecord,
  type SourcePage,
  type TicketSource,
} from '../ticket-source.js';
import {
  cursorAt,
  type KeysetPosition,
  newestOf,
  positionAfter,
  startPosition,
} from './keyset-position.js';

/**
 * Jira: Cloud's `GET /rest/api/3/search/jql` (`nextPageToken`; the old `/search` is being
 * removed) or Data Center's `GET /rest/api/2/search` (`startAt`), with
 * `jql=updated >= "yyyy/MM/dd HH:mm" ORDER BY updated ASC, key ASC` and `fields=*all`. JQL
 * compares by the minute in the account's time zone: the cursor's overlap (default five
 * minutes) covers both. A search returns an issue's first comments only; when `comment.total`
 * says more exist, `GET /rest/api/{3|2}/issue/{key}/comment` pages them in.
 */

export type JiraDeployment = 'cloud' | 'datacenter';

export interface JiraSourceOptions {
  readonly http: SourceHttp;
  readonly deployment: JiraDeployment;
  readonly comments: CommentPolicy;
  /** Extra JQL ANDed in (`project = ITSD`). */
  readonly jql?: string;
  /** Issues per request (Jira caps it; Cloud at 100 with `*all`). @default 100 */
  readonly pageSize?: number;
}

export function createJiraSource(options: JiraSourceOptions): TicketSource {
  const { http, deployment } = options;
  const pageSize = options.pageSize ?? 100;
  const version = deployment === 'cloud' ? '3' : '2';
  const filter = options.jql?.trim() ? `(${options.jql.trim()}) AND ` : '';

  async function search(
    jql: string,
    position: { skip: number; pageToken?: string },
    fields: string,
    signal: AbortSignal,
  ) {
    const parameters = new URLSearchParams({ jql, maxResults: String(pageSize), fields });
    let path: string;
    if (deployment === 'cloud') {
      if (position.pageToken) parameters.set('nextPageToken', position.pageToken);
      path = `/rest/api/3/search/jql?${parameters}`;
    } else {
      parameters.set('startAt', String(position.skip));
      path = `/rest/api/2/search?${parameters}`;
    }
    const { body } = await http.getJson(path, signal);
    const page = body as {
      issues?: unknown;
      nextPageToken?: unknown;
      isLast?: unknown;
      total?: unknown;
      startAt?: unknown;
    };
    if (!Array.isArray(page.issues))
      throw new MalformedRecordError('the search response has no issues list');
    const issues = page.issues as unknown[];
    const more =
      deployment === 'cloud'
        ? typeof page.nextPageToken === 'string' && page.isLast !== true
        : typeof page.total === 'number'
          ? position.skip + issues.length < page.total
          : issues.length >= pageSize;
    return {
      issues,
      more,
      ...(typeof page.nextPageToken === 'string' ? { nextPageToken: page.nextPageToken } : {}),
    };
  }

  /** The issue with all its comments: the search's first ones, the rest paged in. */
  async function withAllComments(issue: unknown, signal: AbortSignal): Promise<unknown> {
    const { key, fields } = (issue ?? {}) as { key?: unknown; fields?: Record<string, unknown> };
    const comment = fields?.comment as
      | { comments?: unknown[]; total?: number; maxResults?: number }
      | undefined;
    if (typeof key !== 'string' || !comment || !Array.isArray(comment.comments)) return issue;
    if (typeof comment.total !== 'number' || comment.total <= comment.comments.length) return issue;
    const comments: unknown[] = [];
    for (let startAt = 0; startAt < comment.total; ) {
      const parameters = new URLSearchParams({ startAt: String(startAt), maxResults: '100' });
      const { body } = await http.getJson(
        `/rest/api/${version}/issue/${encodeURIComponent(key)}/comment?${parameters}`,
        signal,
      );
      const page = body as { comments?: unknown[]; total?: number };
      if (!Array.isArray(page.comments) || page.comments.length === 0) break;
      comments.push(...page.comments);
      startAt += page.comments.length;
    }
    return {
      ...(issue as object),
      fields: { ...fields, comment: { ...comment, comments, maxResults: comments.length } },
    };
  }

  return {
    system: 'jira',
    async *pullChanged(cursor: SyncCursor, signal: AbortSignal): AsyncIterable<SourcePage> {
      let position: KeysetPosition | undefined = startPosition(cursor);
      while (position) {
        const jql = `${filter}updated >= "${jiraMinute(position.after)}" ORDER BY updated ASC, key ASC`;
        const found = await search(jql, position, '*all', signal);
        const records: PulledRecord[] = [];
        for (const issue of found.issues) {
          records.push(pulledIssue(await withAllComments(issue, signal), options.comments));
        }
        const instants = records.map(
          (record) => minuteOf(record.updatedAt) ?? position?.after ?? '',
        );
        const newest = newestOf(
          position.newest,
          records.map((record) => record.updatedAt ?? ''),
        );
        const next = positionAfter(position, instants, found.more, found.nextPageToken);
        position = next ? { ...next, ...(newest ? { newest } : {}) } : undefined;
        yield { records, nextCursor: cursorAt(cursor, position, newest) };
      }
    },
    async *listIds(signal: AbortSignal): AsyncIterable<readonly string[]> {
      let position: { skip: number; pageToken?: string } = { skip: 0 };
      for (;;) {
        const found = await search(
          // Cloud's search/jql refuses an unbounded query: the creation date bounds it.
          `${filter}created >= "1970/01/01 00:00" ORDER BY key ASC`,
          position,
          'key',
          signal,
        );
        yield found.issues
          .map((issue) => (issue as { key?: unknown }).key)
          .filter((key): key is string => typeof key === 'string');
        if (!found.more) break;
        position = {
          skip: position.skip + found.issues.length,
          ...(found.nextPageToken ? { pageToken: found.nextPageToken } : {}),
        };
      }
    },
  };
}

function pulledIssue(issue: unknown, comments: CommentPolicy): PulledRecord {
  const { key, id, fields } = (issue ?? {}) as {
    key?: unknown;
    id?: unknown;
    fields?: { updated?: unknown };
  };
  const sourceId = typeof key === 'string' ? key : String(id ?? '(no key)');
  const updated = typeof fields?.updated === 'string' ? Date.parse(fields.updated) : Number.NaN;
  const updatedAt = Number.isNaN(updated) ? undefined : new Date(updated).toISOString();
  return pulledRecord(sourceId, updatedAt, () => normalizeJiraIssue(issue, { comments }));
}

/** The ISO instant cut to its minute (JQL's precision). */
function minuteOf(iso: string | undefined): string | undefined {
  if (!iso) return undefined;
  return `${new Date(iso).toISOString().slice(0, 16)}:00.000Z`;
}

/** An ISO instant as JQL writes a date-time: `"2024/01/09 10:12"`. */
export function jiraMinute(iso: string): string {
  return new Date(iso).toISOString().slice(0, 16).replace('T', ' ').replaceAll('-', '/');
}
