import * as z from 'zod';
import { COMMENT_POLICIES, type CommentPolicy } from '../ticket-import/sources/source-options.js';
import type { SyncSystem } from './ticket-source.js';

/**
 * One entry of the `ticketSync` deploy setting (cdk.json context): a ticket system the deployed
 * stack pulls from on a schedule (ADR 0032). The stack validates the list at synth (a bad field
 * fails `cdk synth` with its path, `ticketSync.1.secret`) and hands each entry, parsed, to its
 * function as `TICKET_SYNC_SOURCE`, which parses it again with the same schema at cold start.
 * No AWS imports: lib/config.ts and the function both load it.
 */

/**
 * The import's default comment policy per system (`DEFAULT_COMMENTS` of run-import.ts, which
 * this module does not load: it brings the whole import): ServiceNow's close notes alone,
 * public replies elsewhere.
 */
export const DEFAULT_SYNC_COMMENTS = {
  servicenow: 'none',
  jira: 'public',
  zendesk: 'public',
} as const satisfies Record<SyncSystem, CommentPolicy>;

/**
 * EventBridge schedule expressions: `rate(15 minutes)` (a value of 1 takes the singular unit) or
 * `cron(…)` with its six fields.
 */
const rateExpression = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/;
const cronExpression = /^cron\(\S+( \S+){5}\)$/;

const scheduleSchema = z.string().refine(
  (expression) => {
    const rate = rateExpression.exec(expression);
    if (rate) {
      const value = Number(rate[1]);
      // EventBridge refuses `rate(1 minutes)` and `rate(5 minute)`.
      return value >= 1 && (value === 1) === !rate[2]?.endsWith('s');
    }
    return cronExpression.test(expression);
  },
  { message: "must be an EventBridge schedule: 'rate(15 minutes)', 'rate(1 day)' or 'cron(…)'" },
);

/** Minutes between runs of a `rate(…)` schedule; `undefined` for a cron expression. */
export function rateMinutes(expression: string): number | undefined {
  const rate = rateExpression.exec(expression);
  if (!rate) return undefined;
  const unit = rate[2]?.replace(/s$/, '');
  return Number(rate[1]) * (unit === 'day' ? 1440 : unit === 'hour' ? 60 : 1);
}

/** `field=value`, as `--restricted-when` takes it. */
const restrictionRule = z
  .string()
  .regex(/^[^=\s][^=]*=.*$/, 'write a restriction rule as field=value (e.g. labels=hr)');

/**
 * A Secrets Manager secret by name (`service-desk/servicenow`) or ARN; the function reads it at
 * run time and may read no other.
 */
const secretReference = z
  .string()
  .regex(
    /^(arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+|[A-Za-z0-9/_+=.@-]{1,512})$/,
    'must be a Secrets Manager secret name or ARN',
  );

/** An `https://` base URL of the ticket system (credentials never in it). */
const systemUrl = z
  .url({ protocol: /^https$/, error: 'must be an https:// URL' })
  .refine((url) => !/^https:\/\/[^/]*@/.test(url), {
    message: 'must not carry credentials (they go in the secret)',
  });

const commonFields = {
  /**
   * The source's name: its metrics' `source` dimension, its cursor's key and its folder in the
   * document bucket (`tickets/imported/<id>/`, where `npm run import -- --upload` puts the same
   * system's tickets, so an import and a sync of one system never hold a ticket twice).
   * Unique in the list. @default the system
   */
  id: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,31}$/, 'must be 1-32 of a-z, 0-9, - starting with a letter')
    .optional(),
  url: systemUrl,
  secret: secretReference,
  /** How often it pulls what changed. */
  schedule: scheduleSchema.default('rate(15 minutes)'),
  /**
   * How often it compares the system's ids with the synced tickets, removing those the system
   * no longer has. @default daily for ServiceNow and Jira (their searches never report a
   * deleted record), none for Zendesk (its export reports deletions)
   */
  reconcileSchedule: scheduleSchema.optional(),
  /** Mark tickets whose field has this value restricted (nobody retrieves them). */
  restrictedWhen: z.array(restrictionRule).default([]),
  comments: z.enum(COMMENT_POLICIES).optional(),
  /** Alarm when this source lags more than this many minutes. @default ticketSyncMaxLagMinutes */
  maxLagMinutes: z.number().int().min(5).max(10_080).optional(),
};

const servicenowFilters = z
  .object({
    /** Tables to pull. @default incident and sc_req_item */
    tables: z
      .array(z.string().regex(/^[a-z][a-z0-9_]{0,79}$/, 'must be a ServiceNow table name'))
      .min(1)
      .default(['incident', 'sc_req_item']),
  })
  .strict();

const jiraFilters = z
  .object({
    /** A JQL clause ANDed to the change window (`project = ITSD`). */
    jql: z.string().min(1).max(2000).optional(),
    /**
     * Jira Cloud (`/rest/api/3/search/jql`) or Data Center (`/rest/api/2/search`).
     * @default cloud for `*.atlassian.net`, else datacenter
     */
    deployment: z.enum(['cloud', 'datacenter']).optional(),
  })
  .strict();

const zendeskFilters = z.object({}).strict();

const entrySchema = z.discriminatedUnion('system', [
  z
    .object({
      system: z.literal('servicenow'),
      ...commonFields,
      filters: servicenowFilters.default({ tables: ['incident', 'sc_req_item'] }),
    })
    .strict(),
  z
    .object({
      system: z.literal('jira'),
      ...commonFields,
      filters: jiraFilters.default({}),
    })
    .strict(),
  z
    .object({ system: z.literal('zendesk'), ...commonFields, filters: zendeskFilters.default({}) })
    .strict(),
]);

/** One source as configured, its defaults filled in (id, comments, reconcile schedule). */
export const ticketSyncSourceSchema = entrySchema
  .transform((entry) => ({
    ...entry,
    id: entry.id ?? entry.system,
    comments: entry.comments ?? DEFAULT_SYNC_COMMENTS[entry.system],
    reconcileSchedule:
      entry.reconcileSchedule ?? (entry.system === 'zendesk' ? undefined : 'rate(1 day)'),
  }))
  .superRefine((entry, context) => {
    const every = rateMinutes(entry.schedule);
    const reconcile =
      entry.reconcileSchedule === undefined ? undefined : rateMinutes(entry.reconcileSchedule);
    if (every !== undefined && reconcile !== undefined && reconcile <= every) {
      context.addIssue({
        code: 'custom',
        path: ['reconcileSchedule'],
        message: `must be slower than schedule (${entry.schedule}): a reconciliation lists every id`,
      });
    }
  });

export type TicketSyncSource = z.output<typeof ticketSyncSourceSchema>;

/** The whole list: ids unique (a second ServiceNow needs its own `id`). */
export const ticketSyncSourcesSchema = z
  .array(ticketSyncSourceSchema)
  .max(20)
  .superRefine((sources, context) => {
    const seen = new Set<string>();
    sources.forEach((source, index) => {
      if (seen.has(source.id)) {
        context.addIssue({
          code: 'custom',
          path: [index, 'id'],
          message: `${source.id} is already the id of another entry: give each source of one system its own id`,
        });
      }
      seen.add(source.id);
    });
  });

/**
 * The entry as its function reads it (`TICKET_SYNC_SOURCE`), with the secret named as the stack
 * resolved it.
 *
 * @example
 * parseTicketSyncSource(process.env.TICKET_SYNC_SOURCE);
 */
export function parseTicketSyncSource(text: string | undefined): TicketSyncSource {
  if (!text) throw new Error('TICKET_SYNC_SOURCE is not set');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('TICKET_SYNC_SOURCE must be JSON');
  }
  const parsed = ticketSyncSourceSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.')}: ${issue.message}`,
    );
    throw new Error(`TICKET_SYNC_SOURCE: ${problems.join('; ')}`);
  }
  return parsed.data;
}
