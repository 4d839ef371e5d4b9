import { parseArgs } from 'node:util';
import type { InsightsWindow } from '../../functions/contract/insights.js';

/**
 * The options of `npm run insights`, checked before anything is started or asked of AWS:
 *
 *   --since 30d|90d       the window, ending today (UTC); default 30d, as the page
 *   --json                print the `GET /api/insights` body as JSON instead of tables
 *   --target local|aws    the local stack's DynamoDB (default) or the deployed stack's table
 *   --endpoint URL        locally: a running DynamoDB (the `DynamoDB:` line `npm start` prints)
 *                         instead of opening `.data/dynamodb` (which needs `npm start` stopped)
 *   --table NAME          the insights table (default: the local stack's, or the stack output)
 *   --tenant ID           the deployment's TENANT_ID (default `local` locally, `default` in AWS)
 */
export interface InsightsOptions {
  readonly days: InsightsWindow;
  readonly json: boolean;
  readonly target: 'local' | 'aws';
  readonly endpoint?: string;
  readonly table?: string;
  readonly tenantId: string;
}

/** A wrong option, said in one line (exit code 2), never a stack trace. */
export class InsightsUsageError extends Error {}

const SINCE = { '30d': 30, '90d': 90 } as const satisfies Record<string, InsightsWindow>;

/** The function's TENANT_ID rule: the store refuses anything else on every request. */
const TENANT_ID = /^[A-Za-z0-9._:@-]{1,64}$/;

/**
 * Parses `npm run insights -- …` arguments (without `node` and the script).
 *
 * @example
 * parseInsightsOptions(['--since', '90d', '--json']); // { days: 90, json: true, target: 'local', tenantId: 'local' }
 */
export function parseInsightsOptions(args: readonly string[]): InsightsOptions {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        since: { type: 'string', default: '30d' },
        json: { type: 'boolean', default: false },
        target: { type: 'string', default: 'local' },
        endpoint: { type: 'string' },
        table: { type: 'string' },
        tenant: { type: 'string' },
      },
    }));
  } catch (error) {
    // parseArgs says e.g. "Unknown option '--days'. To specify a positional argument …": the first sentence is the point.
    throw new InsightsUsageError((error as Error).message.split('. ')[0] ?? String(error));
  }
  const since = String(values.since);
  if (!Object.hasOwn(SINCE, since)) {
    throw new InsightsUsageError(`--since must be 30d or 90d (the page's windows), not ${since}`);
  }
  const target = String(values.target);
  if (target !== 'local' && target !== 'aws') {
    throw new InsightsUsageError(`--target must be local or aws, not ${target}`);
  }
  const endpoint = values.endpoint as string | undefined;
  if (endpoint !== undefined) {
    if (target === 'aws') {
      throw new InsightsUsageError('--endpoint is for --target local (a running DynamoDB)');
    }
    if (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol)) {
      throw new InsightsUsageError(`--endpoint must be an http(s) URL, not ${endpoint}`);
    }
  }
  const table = values.table as string | undefined;
  if (table !== undefined && table.trim() === '') {
    throw new InsightsUsageError('--table must name a table');
  }
  const tenantId =
    (values.tenant as string | undefined) ?? (target === 'aws' ? 'default' : 'local');
  if (!TENANT_ID.test(tenantId)) {
    throw new InsightsUsageError(`--tenant must be 1-64 of A-Z a-z 0-9 . _ : @ -, not ${tenantId}`);
  }
  return {
    days: SINCE[since as keyof typeof SINCE],
    json: values.json === true,
    target,
    ...(endpoint !== undefined && { endpoint }),
    ...(table !== undefined && { table }),
    tenantId,
  };
}
