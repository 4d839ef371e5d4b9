import { MalformedRecordError } from '../../ticket-import/imported-ticket.js';
import { normalizeServiceNowRecord } from '../../ticket-import/sources/servicenow.js';
import type { CommentPolicy } from '../../ticket-import/sources/source-options.js';
import type { SourceHttp } from '../source-http.js';
import { type SyncCursor, windowStartOf } from '../sync-cursor.js';
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
 * ServiceNow's Table API, `GET /api/now/table/<table>` for each table (incident and sc_req_item
 * unless told), `sysparm_query=sys_updated_on>=…^ORDERBYsys_updated_on^ORDERBYsys_id`,
 * `sysparm_display_value=all` (values and display values: the normalizer reads both, and the
 * journal fields `comments` and `work_notes` come back as their whole journal text), paged by
 * `sysparm_limit` with a fresh query from the last change read (keyset-position.ts) and
 * `sysparm_offset` only within one second. Basic auth or an OAuth bearer token (source-http.ts).
 */

export const DEFAULT_SERVICENOW_TABLES = ['incident', 'sc_req_item'] as const;

export interface ServiceNowSourceOptions {
  readonly http: SourceHttp;
  readonly tables: readonly string[];
  readonly comments: CommentPolicy;
  /** Records per request (the Table API allows up to 10,000). @default 1000 */
  readonly pageSize?: number;
}

const TABLE_NAME = /^[a-z][a-z0-9_]*$/;

export function createServiceNowSource(options: ServiceNowSourceOptions): TicketSource {
  for (const table of options.tables) {
    if (!TABLE_NAME.test(table)) throw new Error(`--table ${table}: not a ServiceNow table name`);
  }
  const pageSize = options.pageSize ?? 1000;
  const { http, tables } = options;
  return {
    system: 'servicenow',
    async *pullChanged(cursor: SyncCursor, signal: AbortSignal): AsyncIterable<SourcePage> {
      let position: KeysetPosition | undefined = startPosition(cursor);
      while (position && position.part < tables.length) {
        const table = tables[position.part] as string;
        const query = `sys_updated_on>=${serviceNowTime(position.after)}^ORDERBYsys_updated_on^ORDERBYsys_id`;
        const parameters = new URLSearchParams({
          sysparm_query: query,
          sysparm_display_value: 'all',
          sysparm_exclude_reference_link: 'true',
          sysparm_limit: String(pageSize),
          sysparm_offset: String(position.skip),
        });
        const { body } = await http.getJson(`/api/now/table/${table}?${parameters}`, signal);
        const result = (body as { result?: unknown }).result;
        if (!Array.isArray(result)) {
          throw new MalformedRecordError(`the ${table} response has no result list`);
        }
        const records = result.map((value) => pulledServiceNowRecord(value, options.comments));
        const instants = records.map((record) => record.updatedAt ?? position?.after ?? '');
        const next = positionAfter(position, instants, result.length >= pageSize);
        const newest: string | undefined = newestOf(position.newest, instants);
        position =
          next ??
          (position.part + 1 < tables.length
            ? {
                part: position.part + 1,
                after: windowStartOf(cursor).toISOString(),
                skip: 0,
                ...(newest ? { newest } : {}),
              }
            : undefined);
        yield { records, nextCursor: cursorAt(cursor, position, newest) };
      }
    },
    async *listIds(signal: AbortSignal): AsyncIterable<readonly string[]> {
      for (const table of tables) {
        let afterSysId = '';
        for (;;) {
          const parameters = new URLSearchParams({
            sysparm_query: `${afterSysId ? `sys_id>${afterSysId}^` : ''}ORDERBYsys_id`,
            sysparm_fields: 'sys_id,number',
            sysparm_limit: String(Math.max(pageSize, 10_000)),
          });
          const { body } = await http.getJson(`/api/now/table/${table}?${parameters}`, signal);
          const result = (body as { result?: unknown }).result;
          if (!Array.isArray(result)) {
            throw new MalformedRecordError(`the ${table} response has no result list`);
          }
          const rows = result as { sys_id?: unknown; number?: unknown }[];
          yield rows.map((row) => plain(row.number)).filter((number) => number !== '');
          if (rows.length < Math.max(pageSize, 10_000)) break;
          afterSysId = plain(rows[rows.length - 1]?.sys_id);
          if (!afterSysId) break;
        }
      }
    },
  };
}

/** A field's value whether the response gave a string or `{value, display_value}`. */
function plain(field: unknown): string {
  if (typeof field === 'string') return field;
  if (field && typeof field === 'object' && 'value' in field) return String(field.value ?? '');
  return '';
}

function pulledServiceNowRecord(value: unknown, comments: CommentPolicy): PulledRecord {
  const fields = (value ?? {}) as Record<string, unknown>;
  const sourceId = plain(fields.sys_id) || '(no sys_id)';
  const updatedAt = isoOfServiceNowTime(plain(fields.sys_updated_on));
  return pulledRecord(sourceId, updatedAt, () => normalizeServiceNowRecord(value, { comments }));
}

/** `2024-01-09 10:12:33` (the Table API's value, UTC) as ISO 8601. */
export function isoOfServiceNowTime(value: string): string | undefined {
  const match = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/.exec(value.trim());
  return match ? `${match[1]}T${match[2]}.000Z` : undefined;
}

/** An ISO instant as the encoded query writes a date-time (UTC, to the second). */
export function serviceNowTime(iso: string): string {
  return new Date(iso).toISOString().slice(0, 19).replace('T', ' ');
}
