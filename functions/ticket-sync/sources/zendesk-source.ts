import { MalformedRecordError } from '../../ticket-import/imported-ticket.js';
import type { CommentPolicy } from '../../ticket-import/sources/source-options.js';
import {
  normalizeZendeskTicket,
  type ZendeskComment,
  type ZendeskUser,
} from '../../ticket-import/sources/zendesk.js';
import type { SourceHttp } from '../source-http.js';
import { laterOf, type SyncCursor, windowStartOf } from '../sync-cursor.js';
import type { PulledRecord, SourcePage, TicketSource } from '../ticket-source.js';

/**
 * Zendesk's cursor-based incremental export, `GET /api/v2/incremental/tickets/cursor.json`
 * with `include=users` (side-loaded users: the names and addresses the scrub needs): the first
 * request by `start_time` (the cursor's window), every later one by the `after_cursor` the last
 * page gave — kept in the cursor's `resume` across runs, as Zendesk intends — until
 * `end_of_stream`. A deleted ticket comes back with status `deleted` and removes its document;
 * every changed ticket's thread is read from `GET /api/v2/tickets/{id}/comments.json` (paged by
 * `next_page`). No reconciliation is needed: the export reports deletions.
 */

export interface ZendeskSourceOptions {
  readonly http: SourceHttp;
  readonly comments: CommentPolicy;
  /** Tickets per export page (Zendesk allows up to 1,000). @default 1000 */
  readonly pageSize?: number;
}

interface ExportPage {
  readonly tickets?: unknown;
  readonly users?: unknown;
  readonly after_cursor?: unknown;
  readonly end_of_stream?: unknown;
}

export function createZendeskSource(options: ZendeskSourceOptions): TicketSource {
  const { http } = options;
  const pageSize = options.pageSize ?? 1000;
  const users = new Map<string, ZendeskUser>();
  const remember = (list: unknown) => {
    for (const user of Array.isArray(list) ? (list as ZendeskUser[]) : []) {
      if (user && user.id !== undefined) users.set(String(user.id), user);
    }
  };

  async function commentsOf(id: string, signal: AbortSignal): Promise<ZendeskComment[]> {
    const comments: ZendeskComment[] = [];
    let next: string | undefined =
      `/api/v2/tickets/${encodeURIComponent(id)}/comments.json?include=users`;
    while (next) {
      const { body } = await http.getJson(next, signal);
      const page = body as { comments?: unknown; users?: unknown; next_page?: unknown };
      if (!Array.isArray(page.comments))
        throw new MalformedRecordError('its comments response has no comments list');
      remember(page.users);
      comments.push(...(page.comments as ZendeskComment[]));
      next = typeof page.next_page === 'string' && page.next_page ? page.next_page : undefined;
    }
    return comments;
  }

  return {
    system: 'zendesk',
    async *pullChanged(cursor: SyncCursor, signal: AbortSignal): AsyncIterable<SourcePage> {
      let path = cursor.resume
        ? `/api/v2/incremental/tickets/cursor.json?${new URLSearchParams({ cursor: cursor.resume, per_page: String(pageSize), include: 'users' })}`
        : `/api/v2/incremental/tickets/cursor.json?${new URLSearchParams({
            start_time: String(Math.floor(windowStartOf(cursor).getTime() / 1000)),
            per_page: String(pageSize),
            include: 'users',
          })}`;
      let newest: string | undefined;
      for (;;) {
        const { body } = await http.getJson(path, signal);
        const page = body as ExportPage;
        if (!Array.isArray(page.tickets))
          throw new MalformedRecordError('the export page has no tickets list');
        remember(page.users);
        const records: PulledRecord[] = [];
        const deletedNumbers: string[] = [];
        for (const ticket of page.tickets as Record<string, unknown>[]) {
          const id = String(ticket?.id ?? '');
          const updated = Date.parse(String(ticket?.updated_at ?? ''));
          const updatedAt = Number.isNaN(updated) ? undefined : new Date(updated).toISOString();
          newest = laterOf(newest, updatedAt);
          if (ticket?.status === 'deleted') {
            if (id) deletedNumbers.push(id);
            continue;
          }
          try {
            const comments = await commentsOf(id, signal);
            records.push({
              sourceId: id,
              updatedAt: updatedAt ?? new Date(0).toISOString(),
              record: normalizeZendeskTicket(ticket, comments, users, {
                comments: options.comments,
              }),
            });
          } catch (error) {
            if (!(error instanceof MalformedRecordError)) throw error;
            records.push({
              sourceId: id || '(no id)',
              ...(updatedAt ? { updatedAt } : {}),
              malformed: error.message,
            });
          }
        }
        const afterCursor = typeof page.after_cursor === 'string' ? page.after_cursor : undefined;
        const done = page.end_of_stream === true || !afterCursor;
        const { resume: _resume, ...rest } = cursor;
        const updatedSince = laterOf(cursor.updatedSince, newest);
        const nextCursor: SyncCursor = {
          ...rest,
          ...(updatedSince ? { updatedSince } : {}),
          ...(afterCursor
            ? { resume: afterCursor }
            : cursor.resume
              ? { resume: cursor.resume }
              : {}),
        };
        yield { records, deletedNumbers, nextCursor };
        if (done || !afterCursor) return;
        path = `/api/v2/incremental/tickets/cursor.json?${new URLSearchParams({ cursor: afterCursor, per_page: String(pageSize), include: 'users' })}`;
      }
    },
  };
}
