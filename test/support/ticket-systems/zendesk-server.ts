import {
  type LocalApiServer,
  type LocalCredentials,
  startLocalApiServer,
} from './local-api-server.js';

/**
 * A local Zendesk: the cursor-based incremental ticket export
 * (`GET /api/v2/incremental/tickets/cursor.json`, `start_time` then `cursor`, `per_page`,
 * `after_cursor`, `end_of_stream`, side-loaded `users` with `include=users`, a deleted ticket
 * listed with status `deleted`) and `GET /api/v2/tickets/{id}/comments.json` (`next_page`).
 * Shapes from Zendesk's documented responses as test/fixtures/import/zendesk holds them, and
 * nukosuke/go-zendesk's fixture/GET/ticket_comments.json.
 */

export type ZendeskTicket = Record<string, unknown> & { id: number; updated_at: string };

export interface LocalZendesk extends LocalApiServer {
  readonly tickets: ZendeskTicket[];
  readonly comments: Map<string, unknown[]>;
}

export async function startZendeskServer(options: {
  readonly credentials: LocalCredentials;
  readonly tickets: readonly ZendeskTicket[];
  readonly users: readonly unknown[];
  readonly comments: ReadonlyMap<string, readonly unknown[]>;
  readonly commentsPerPage?: number;
}): Promise<LocalZendesk> {
  const tickets = [...options.tickets];
  const comments = new Map([...options.comments].map(([id, list]) => [id, [...list]]));
  const commentsPerPage = options.commentsPerPage ?? 100;
  const ordered = () =>
    [...tickets].sort((a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at) || a.id - b.id);
  const server = await startLocalApiServer(options.credentials, (url) => {
    const thread = /^\/api\/v2\/tickets\/(\d+)\/comments\.json$/.exec(url.pathname);
    if (thread) {
      const list = comments.get(thread[1] as string) ?? [];
      const page = Number(url.searchParams.get('page') ?? '1');
      const slice = list.slice((page - 1) * commentsPerPage, page * commentsPerPage);
      const more = page * commentsPerPage < list.length;
      return {
        body: {
          comments: slice,
          count: list.length,
          next_page: more ? `${url.origin}${url.pathname}?page=${page + 1}` : null,
          previous_page: null,
        },
      };
    }
    if (url.pathname !== '/api/v2/incremental/tickets/cursor.json')
      return { status: 404, body: { error: 'InvalidEndpoint' } };
    const perPage = Number(url.searchParams.get('per_page') ?? '1000');
    const cursor = url.searchParams.get('cursor');
    // The cursor is the position after the last ticket served: its updated_at and id.
    let after: { at: number; id: number };
    if (cursor) {
      after = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { at: number; id: number };
    } else {
      const startTime = url.searchParams.get('start_time');
      if (startTime === null)
        return { status: 400, body: { error: 'start_time or cursor is required' } };
      after = { at: Number(startTime) * 1000 - 1, id: Number.MAX_SAFE_INTEGER };
    }
    const remaining = ordered().filter((ticket) => {
      const at = Date.parse(ticket.updated_at);
      return at > after.at || (at === after.at && ticket.id > after.id);
    });
    const page = remaining.slice(0, perPage);
    const last = page[page.length - 1];
    const afterCursor = Buffer.from(
      JSON.stringify(last ? { at: Date.parse(last.updated_at), id: last.id } : after),
    ).toString('base64url');
    return {
      body: {
        tickets: page,
        ...(url.searchParams.get('include') === 'users' ? { users: options.users } : {}),
        after_cursor: afterCursor,
        after_url: `${url.origin}${url.pathname}?cursor=${afterCursor}`,
        before_cursor: null,
        end_of_stream: remaining.length <= perPage,
      },
    };
  });
  return { ...server, tickets, comments };
}
