import {
  type LocalApiServer,
  type LocalCredentials,
  startLocalApiServer,
} from './local-api-server.js';

/**
 * A local ServiceNow Table API: `GET /api/now/table/<table>` with the encoded queries the sync
 * sends (`sys_updated_on>=YYYY-MM-DD hh:mm:ss`, `sys_id>…`, `ORDERBY…`), `sysparm_limit`,
 * `sysparm_offset`, `sysparm_fields`, and the `X-Total-Count` and `Link` headers the Table API
 * answers with. Records are kept as `sysparm_display_value=all` gives them (`{display_value,
 * value}` per field), the shape of test/fixtures/import/servicenow/table-api-display-all and of
 * demisto/content's ServiceNow v2 test data (Packs/ServiceNow/Integrations/ServiceNowv2/test_data).
 */

export type ServiceNowRecord = Record<string, unknown>;

export interface LocalServiceNow extends LocalApiServer {
  /** The records per table; change them to change what the server lists. */
  readonly tables: Map<string, ServiceNowRecord[]>;
}

export const fieldValueOf = (record: ServiceNowRecord, field: string): string => {
  const raw = record[field];
  if (raw && typeof raw === 'object' && 'value' in raw)
    return String((raw as { value: unknown }).value ?? '');
  return raw === undefined || raw === null ? '' : String(raw);
};

/** A `{display_value, value}` pair as the API writes one. */
export const field = (value: string, display = value) => ({ display_value: display, value });

export async function startServiceNowServer(options: {
  readonly credentials: LocalCredentials;
  readonly tables: Readonly<Record<string, readonly ServiceNowRecord[]>>;
}): Promise<LocalServiceNow> {
  const tables = new Map(
    Object.entries(options.tables).map(([name, records]) => [name, [...records]]),
  );
  const server = await startLocalApiServer(options.credentials, (url) => {
    const match = /^\/api\/now\/table\/([a-z0-9_]+)$/.exec(url.pathname);
    if (!match) return { status: 404, body: { error: { message: 'Invalid table' } } };
    const records = tables.get(match[1] as string);
    if (!records) return { status: 400, body: { error: { message: `Invalid table ${match[1]}` } } };
    const query = url.searchParams.get('sysparm_query') ?? '';
    let selected = records.filter((record) => matchesQuery(record, query));
    const orderBy = [...query.matchAll(/ORDERBY([a-z_]+)/g)].map((m) => m[1] as string);
    selected = selected.sort((a, b) => {
      for (const name of orderBy) {
        const x = fieldValueOf(a, name);
        const y = fieldValueOf(b, name);
        if (x !== y) return x < y ? -1 : 1;
      }
      return 0;
    });
    const limit = Number(url.searchParams.get('sysparm_limit') ?? '10000');
    const offset = Number(url.searchParams.get('sysparm_offset') ?? '0');
    const page = selected.slice(offset, offset + limit);
    const fields = url.searchParams.get('sysparm_fields')?.split(',');
    const result = fields
      ? page.map((record) =>
          Object.fromEntries(fields.map((name) => [name, fieldValueOf(record, name)])),
        )
      : page;
    const headers: Record<string, string> = { 'x-total-count': String(selected.length) };
    if (offset + limit < selected.length) {
      const next = new URL(url);
      next.searchParams.set('sysparm_offset', String(offset + limit));
      headers.link = `<${next.pathname}${next.search}>;rel="next"`;
    }
    return { headers, body: { result } };
  });
  return { ...server, tables };
}

function matchesQuery(record: ServiceNowRecord, query: string): boolean {
  for (const term of query.split('^')) {
    if (term === '' || term.startsWith('ORDERBY')) continue;
    const match = /^([a-z_]+)(>=|>|<=|<|=)(.*)$/.exec(term);
    if (!match) throw new Error(`unsupported query term ${term}`);
    const [, name, operator, operand] = match as unknown as [string, string, string, string];
    const value = fieldValueOf(record, name);
    const ok =
      operator === '>='
        ? value >= operand
        : operator === '>'
          ? value > operand
          : operator === '<='
            ? value <= operand
            : operator === '<'
              ? value < operand
              : value === operand;
    if (!ok) return false;
  }
  return true;
}
