import { readFileSync } from 'node:fs';
import type { Person } from '../../knowledge/personal-data-scrub.js';
import {
  type ByteMeter,
  ExportFileError,
  listExportFiles,
  readJsonPageRecords,
} from '../export-files.js';
import {
  dayOf,
  type ImportedRecord,
  MalformedRecordError,
  personOf,
  type SourceItem,
} from '../imported-ticket.js';
import { htmlToText, trimReply } from '../staff-text.js';
import type { SourceOptions } from './source-options.js';

/**
 * Zendesk: pages of the incremental ticket export
 * (`GET /api/v2/incremental/tickets/cursor.json?start_time=0&include=users`,
 * `{tickets, users, after_cursor, end_of_stream}`) and, per ticket, the response of
 * `GET /api/v2/tickets/{id}/comments.json` saved as `comments/<id>.json` (or `<id>.comments.json`)
 * anywhere under the export folder. The first comment is the inquiry; the resolution is the
 * later comments of everyone but the requester (public ones unless `--comments all`). Status
 * `solved` and `closed` count as resolved; a ticket closed by a merge (tag `closed_by_merge`) is
 * skipped. Without a comments file a ticket has no resolution and is skipped.
 */

export interface ZendeskUser {
  readonly id?: number;
  readonly name?: string;
  readonly email?: string;
  readonly role?: string;
  readonly phone?: string | null;
  readonly external_id?: string | null;
}

export interface ZendeskComment {
  readonly author_id?: number;
  readonly body?: string;
  readonly plain_body?: string;
  readonly html_body?: string;
  readonly public?: boolean;
  readonly created_at?: string;
}

const COMMENTS_FILE = /(?:^|[/\\])comments[/\\](\d+)\.json$|(?:^|[/\\])(\d+)[._-]comments\.json$/i;

const asObject = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

function personOfUser(user: ZendeskUser | undefined, id: unknown): Person | undefined {
  return personOf({
    names: [user?.name],
    emails: [user?.email],
    userIds: [
      id === undefined || id === null ? undefined : String(id),
      user?.external_id ?? undefined,
    ],
  });
}

/** A comment's text as its author wrote it: plain body preferred, quoted replies and signature trimmed. */
function commentText(comment: ZendeskComment): string {
  const plain = comment.plain_body ?? comment.body;
  if (typeof plain === 'string' && plain.trim() !== '') return trimReply(plain);
  if (typeof comment.html_body === 'string') return trimReply(htmlToText(comment.html_body));
  return '';
}

/** Normalizes one ticket with its comments and the users known so far. */
export function normalizeZendeskTicket(
  ticket: unknown,
  comments: readonly ZendeskComment[] | undefined,
  users: ReadonlyMap<string, ZendeskUser>,
  options: Pick<SourceOptions, 'comments'>,
): ImportedRecord {
  const fields = asObject(ticket);
  if (typeof fields.id !== 'number' && typeof fields.id !== 'string') {
    throw new MalformedRecordError('has no id');
  }
  const id = String(fields.id);
  const userOf = (userId: unknown) => users.get(String(userId));
  const people: Person[] = [];
  for (const name of ['requester_id', 'submitter_id', 'assignee_id']) {
    if (fields[name] === null || fields[name] === undefined) continue;
    const person = personOfUser(userOf(fields[name]), fields[name]);
    if (person) people.push(person);
  }
  const thread = comments ?? [];
  for (const comment of thread) {
    const person = personOfUser(userOf(comment.author_id), comment.author_id);
    if (person) people.push(person);
  }
  const requester = String(fields.requester_id ?? '');
  const [first, ...replies] = thread;
  const resolution = replies
    .filter(
      (comment) =>
        options.comments === 'all' || (options.comments === 'public' && comment.public !== false),
    )
    .filter((comment) => String(comment.author_id) !== requester)
    .filter((comment) => userOf(comment.author_id)?.role !== 'end-user')
    .map(commentText)
    .filter((text) => text !== '');
  const tags = (Array.isArray(fields.tags) ? fields.tags : []).map(String);
  const status = typeof fields.status === 'string' ? fields.status : '';
  const subject = (typeof fields.subject === 'string' ? fields.subject : fields.raw_subject) as
    | string
    | undefined;
  const description = first
    ? commentText(first)
    : typeof fields.description === 'string'
      ? trimReply(fields.description)
      : '';
  const customFields: Record<string, string[]> = {};
  for (const field of Array.isArray(fields.custom_fields) ? fields.custom_fields : []) {
    const { id: fieldId, value } = asObject(field);
    if (value === null || value === undefined || value === '') continue;
    customFields[`custom_fields.${String(fieldId)}`] = (Array.isArray(value) ? value : [value]).map(
      String,
    );
  }
  return {
    number: id,
    subject: subject?.trim() || `#${id}`,
    inquiry: description || (subject ?? ''),
    resolution,
    category:
      tags[0] ?? (typeof fields.type === 'string' && fields.type ? fields.type : 'uncategorized'),
    resolved: status === 'solved' || status === 'closed',
    duplicate: tags.includes('closed_by_merge'),
    openedOn: dayOf(fields.created_at),
    resolvedOn: dayOf(fields.updated_at),
    people,
    fields: {
      ...customFields,
      tags,
      status: [status],
      type: [String(fields.type ?? '')],
      priority: [String(fields.priority ?? '')],
      group_id: [String(fields.group_id ?? '')],
      organization_id: [String(fields.organization_id ?? '')],
      brand_id: [String(fields.brand_id ?? '')],
      channel: [String(asObject(fields.via).channel ?? '')],
      category: [tags[0] ?? String(fields.type ?? '')],
    },
  };
}

/** The comments response for a ticket, if the export has one (users side-loaded into `users`). */
function readComments(
  file: string | undefined,
  users: Map<string, ZendeskUser>,
): ZendeskComment[] | undefined {
  if (!file) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new MalformedRecordError(
      `its comments file ${file} is not valid JSON (${(error as Error).message})`,
    );
  }
  const { comments, users: sideLoaded } = asObject(body);
  if (!Array.isArray(comments))
    throw new MalformedRecordError(`its comments file ${file} has no comments list`);
  for (const user of Array.isArray(sideLoaded) ? sideLoaded : []) rememberUser(users, user);
  return comments as ZendeskComment[];
}

function rememberUser(users: Map<string, ZendeskUser>, value: unknown): void {
  const user = asObject(value) as ZendeskUser;
  if (user.id !== undefined) users.set(String(user.id), user);
}

/**
 * Reads a Zendesk export folder. Tickets are held per page file (the API returns at most 1,000
 * a page) until the page's side-loaded users, which follow them, are read.
 */
export async function* readZendeskExport(
  paths: readonly string[],
  options: SourceOptions,
  meter?: ByteMeter,
): AsyncGenerator<SourceItem> {
  const files = listExportFiles(paths, ['.json']);
  const commentFiles = new Map<string, string>();
  const pages: string[] = [];
  for (const file of files) {
    const match = COMMENTS_FILE.exec(file);
    if (match) commentFiles.set(match[1] ?? match[2] ?? '', file);
    else pages.push(file);
  }
  if (pages.length === 0) {
    throw new ExportFileError(`${paths.join(', ')}: no ticket export pages (only comment files)`);
  }
  const users = new Map<string, ZendeskUser>();
  for (const page of pages) {
    const tickets: { recordNumber: number; file: string; value: unknown }[] = [];
    for await (const item of readJsonPageRecords(page, ['tickets', 'users'], meter)) {
      if (item.listedUnder === 'users') rememberUser(users, item.value);
      else tickets.push(item);
    }
    for (const item of tickets) {
      try {
        const id = String(asObject(item.value).id ?? '');
        const comments = readComments(commentFiles.get(id), users);
        yield {
          file: item.file,
          recordNumber: item.recordNumber,
          record: normalizeZendeskTicket(item.value, comments, users, options),
        };
      } catch (error) {
        if (!(error instanceof MalformedRecordError)) throw error;
        yield { file: item.file, recordNumber: item.recordNumber, malformed: error.message };
      }
    }
  }
}
