import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  METRICS_SERVICE,
  ticketSyncMetrics,
} from '../../functions/observability/metric-catalog.js';
import { parseServiceDeskConfig } from '../../lib/config.js';
import { alarmPeriodOf } from '../../lib/constructs/ticket-sync.js';
import { type CfnJson, renderArn, synthesizeServiceDesk } from './synthesize.js';

const account = '123456789012';
/** The TicketSync table's logical id (construct TicketSync/TicketSync). */
const tableId = /^TicketSync[0-9A-F]{8}$/;
const zendeskSecretArn = `arn:aws:secretsmanager:us-east-1:${account}:secret:service-desk/zendesk-AbCdEf`;

/** One source of each kind: the deploy setting as a platform team would write it. */
const ticketSync = [
  {
    system: 'servicenow',
    url: 'https://acme.service-now.com',
    secret: 'service-desk/servicenow',
    filters: { tables: ['incident'] },
    restrictedWhen: ['category=HR'],
  },
  {
    system: 'jira',
    url: 'https://acme.atlassian.net',
    secret: 'service-desk/jira',
    schedule: 'rate(30 minutes)',
    reconcileSchedule: 'cron(0 3 * * ? *)',
    filters: { jql: 'project = ITSD' },
    maxLagMinutes: 180,
  },
  { system: 'zendesk', url: 'https://acme.zendesk.com', secret: zendeskSecretArn },
];

// ONE synthesis of the stack with all three sources; every assertion reads it.
describe('ServiceDeskStack with ticketSync (one source of each kind)', () => {
  let template: Template;
  let nagFindings: string[];

  // Three more functions to synthesize and check than the default app; on a busy machine the
  // synthesis and cdk-nag take longer than the hooks' default minute.
  beforeAll(() => {
    const synthesized = synthesizeServiceDesk({ ticketSync });
    template = synthesized.template;
    nagFindings = synthesized.nagFindings;
  }, 180_000);

  /** The sync function of a source: found by the entry in its environment. */
  function syncFunction(id: string): [string, CfnJson] {
    const matches = Object.entries(template.findResources('AWS::Lambda::Function')).filter(
      ([, fn]) => {
        const text = fn.Properties.Environment?.Variables?.TICKET_SYNC_SOURCE;
        return typeof text === 'string' && JSON.parse(text).id === id;
      },
    );
    expect(matches, id).toHaveLength(1);
    return matches[0] as [string, CfnJson];
  }

  /** Every statement of the policies attached to a function's role. */
  function statementsOf(fn: CfnJson): CfnJson[] {
    const roleId = fn.Properties.Role['Fn::GetAtt'][0] as string;
    return Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) =>
        (policy.Properties.Roles as CfnJson[]).some((role) => role.Ref === roleId),
      )
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as CfnJson[]);
  }

  function statement(fn: CfnJson, sid: string): CfnJson {
    const found = statementsOf(fn).filter((candidate) => candidate.Sid === sid);
    expect(found, sid).toHaveLength(1);
    return found[0] as CfnJson;
  }

  it('passes cdk-nag with the sync functions, schedules and table in the stack', () => {
    expect(nagFindings).toEqual([]);
  });

  it('has one function per source, with its entry (defaults filled in) and 15 minutes to run', () => {
    for (const id of ['servicenow', 'jira', 'zendesk']) {
      const [, fn] = syncFunction(id);
      expect(fn.Properties.Timeout).toBe(900);
      expect(fn.Properties.Runtime).toBe('nodejs22.x');
      const variables = fn.Properties.Environment.Variables;
      expect(variables.KNOWLEDGE_KEY_PREFIX).toBe(`tickets/imported/${id}/`);
      expect(variables.TICKET_SYNC_TABLE).toEqual({ Ref: expect.stringMatching(tableId) });
    }
    const servicenow = JSON.parse(
      syncFunction('servicenow')[1].Properties.Environment.Variables.TICKET_SYNC_SOURCE,
    );
    expect(servicenow).toMatchObject({
      schedule: 'rate(15 minutes)',
      reconcileSchedule: 'rate(1 day)',
      comments: 'none',
      filters: { tables: ['incident'] },
      restrictedWhen: ['category=HR'],
    });
  });

  it('runs each source on its schedule, and ServiceNow and Jira also on a slower reconciliation', () => {
    const rules = Object.values(template.findResources('AWS::Events::Rule'));
    const targetsOf = (id: string) => {
      const [logicalId] = syncFunction(id);
      return rules
        .filter((rule) =>
          (rule.Properties.Targets as CfnJson[]).some(
            (target) => target.Arn?.['Fn::GetAtt']?.[0] === logicalId,
          ),
        )
        .map((rule) => ({
          schedule: rule.Properties.ScheduleExpression,
          input: JSON.parse(rule.Properties.Targets[0].Input),
        }))
        .sort((a, b) => a.input.mode.localeCompare(b.input.mode));
    };
    expect(targetsOf('servicenow')).toEqual([
      { schedule: 'rate(15 minutes)', input: { mode: 'pull' } },
      { schedule: 'rate(1 day)', input: { mode: 'reconcile' } },
    ]);
    expect(targetsOf('jira')).toEqual([
      { schedule: 'rate(30 minutes)', input: { mode: 'pull' } },
      { schedule: 'cron(0 3 * * ? *)', input: { mode: 'reconcile' } },
    ]);
    // Zendesk's export reports deletions: no reconciliation.
    expect(targetsOf('zendesk')).toEqual([
      { schedule: 'rate(15 minutes)', input: { mode: 'pull' } },
    ]);
  });

  it('lets each function read its own secret only', () => {
    const secretOf = (id: string) => {
      const found = statement(syncFunction(id)[1], 'ReadTheSourcesCredentials');
      expect(found.Action).toBe('secretsmanager:GetSecretValue');
      return renderArn(found.Resource);
    };
    expect(secretOf('servicenow')).toBe(
      'arn:aws:secretsmanager:us-east-1:123456789012:secret:service-desk/servicenow-??????',
    );
    expect(secretOf('jira')).toBe(
      'arn:aws:secretsmanager:us-east-1:123456789012:secret:service-desk/jira-??????',
    );
    expect(secretOf('zendesk')).toBe(zendeskSecretArn);
    // No other statement of any sync function names Secrets Manager.
    for (const id of ['servicenow', 'jira', 'zendesk']) {
      const secretStatements = statementsOf(syncFunction(id)[1]).filter((candidate) =>
        JSON.stringify(candidate.Action).includes('secretsmanager'),
      );
      expect(secretStatements).toHaveLength(1);
    }
  });

  it('lets each function write its own folder of the document bucket and its own partition of the table', () => {
    for (const id of ['servicenow', 'jira', 'zendesk']) {
      const [, fn] = syncFunction(id);
      const objects = statement(fn, 'WriteTheSourcesTickets');
      expect([...objects.Action].sort()).toEqual(['s3:DeleteObject', 's3:PutObject']);
      expect(renderArn(objects.Resource)).toBe(
        `<KnowledgeBaseDocuments.Arn>/tickets/imported/${id}/*`,
      );
      const state = statement(fn, 'KeepTheSourcesSyncState');
      expect(renderArn(state.Resource)).toBe('<TicketSync.Arn>');
      expect(state.Condition).toEqual({
        'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [id] },
      });
      expect(statement(fn, 'StartOneSyncPerRun').Action).toBe('bedrock:StartIngestionJob');
      expect(statement(fn, 'MarkTheSyncOwed').Condition).toEqual({
        'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['knowledge#sync-pending'] },
      });
    }
  });

  it('keeps the cursors in a TicketSync table named in the outputs, with the sources', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: 'source', KeyType: 'HASH' },
        { AttributeName: 'item', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    template.hasOutput('TicketSyncTableName', {
      Value: { Ref: Match.stringLikeRegexp(tableId.source) },
    });
    template.hasOutput('TicketSyncSources', { Value: 'servicenow,jira,zendesk' });
  });

  it('lets the API function read the sources’ status for the insights page, and nothing else of the table', () => {
    const apiFunctions = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: { AUTH_MODE: 'cognito' } } },
      }),
    );
    expect(apiFunctions).toHaveLength(1);
    const api = apiFunctions[0] as CfnJson;
    const variables = api.Properties.Environment.Variables;
    expect(variables.TICKET_SYNC_TABLE).toEqual({ Ref: expect.stringMatching(tableId) });
    expect(JSON.parse(variables.TICKET_SYNC_SOURCES)).toEqual([
      { id: 'servicenow', system: 'servicenow', maxLagMinutes: 60 },
      { id: 'jira', system: 'jira', maxLagMinutes: 180 },
      { id: 'zendesk', system: 'zendesk', maxLagMinutes: 60 },
    ]);
    const read = statement(api, 'ReadTicketSyncStatus');
    expect(read.Action).toBe('dynamodb:BatchGetItem');
    expect(read.Condition).toEqual({
      'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['servicenow', 'jira', 'zendesk'] },
    });
    const tableStatements = statementsOf(api).filter((candidate) =>
      renderArn(candidate.Resource).includes('<TicketSync.Arn>'),
    );
    expect(tableStatements).toHaveLength(1);
  });

  it('alarms per source on repeated failures, refused credentials and lag, to the stack’s topic', () => {
    const alarms = Object.entries(template.findResources('AWS::CloudWatch::Alarm'))
      .filter(([id]) => id.startsWith('MonitoringTicketSync'))
      .map(([id, alarm]) => [id.replace(/[0-9A-F]{8}$/, ''), alarm.Properties] as const);
    expect(alarms.map(([id]) => id).sort()).toEqual(
      ['Servicenow', 'Jira', 'Zendesk']
        .flatMap((name) =>
          ['AuthFailed', 'Failures', 'Lag'].map((kind) => `MonitoringTicketSync${name}${kind}`),
        )
        .sort(),
    );
    for (const [, alarm] of alarms) {
      expect(alarm.AlarmActions).toEqual([{ Ref: expect.stringMatching(/^MonitoringAlarmTopic/) }]);
    }
    const byId = Object.fromEntries(alarms);
    expect(byId.MonitoringTicketSyncServicenowFailures).toMatchObject({
      MetricName: 'Errors',
      Namespace: 'AWS/Lambda',
      Period: 900,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
    });
    expect(byId.MonitoringTicketSyncJiraAuthFailed).toMatchObject({
      MetricName: ticketSyncMetrics.authFailures.name,
      Dimensions: expect.arrayContaining([
        { Name: 'service', Value: METRICS_SERVICE },
        { Name: 'source', Value: 'jira' },
      ]),
      Threshold: 1,
      Period: 1800,
    });
    // The default lag setting, and Jira's own.
    expect(byId.MonitoringTicketSyncZendeskLag).toMatchObject({
      MetricName: ticketSyncMetrics.lag.name,
      Statistic: 'Maximum',
      Threshold: 3600,
    });
    expect(byId.MonitoringTicketSyncJiraLag).toMatchObject({ Threshold: 180 * 60 });
    expect(byId.MonitoringTicketSyncZendeskAuthFailed.AlarmDescription).toContain(zendeskSecretArn);
  });
});

describe('ticketSync settings', () => {
  it('names the bad field of an entry', () => {
    const bad = (entry: Record<string, unknown>) => () =>
      parseServiceDeskConfig({ ticketSync: [ticketSync[0], entry] });
    expect(bad({ system: 'freshservice', url: 'https://a.b', secret: 's' })).toThrow(
      /ticketSync\.1\.system/,
    );
    expect(bad({ system: 'jira', url: 'http://acme.atlassian.net', secret: 's' })).toThrow(
      /ticketSync\.1\.url: must be an https:\/\/ URL/,
    );
    expect(bad({ system: 'jira', url: 'https://me:pw@acme.atlassian.net', secret: 's' })).toThrow(
      /ticketSync\.1\.url: must not carry credentials/,
    );
    expect(bad({ system: 'jira', url: 'https://acme.atlassian.net', secret: 'a secret' })).toThrow(
      /ticketSync\.1\.secret/,
    );
    expect(
      bad({
        system: 'jira',
        url: 'https://a.atlassian.net',
        secret: 's',
        schedule: 'rate(5 minute)',
      }),
    ).toThrow(/ticketSync\.1\.schedule/);
    expect(
      bad({
        system: 'jira',
        url: 'https://a.atlassian.net',
        secret: 's',
        filters: { tables: ['x'] },
      }),
    ).toThrow(/ticketSync\.1\.filters\.tables: not a field here/);
    expect(
      bad({ system: 'jira', url: 'https://a.atlassian.net', secret: 's', restrictedWhen: ['hr'] }),
    ).toThrow(/ticketSync\.1\.restrictedWhen\.0: write a restriction rule as field=value/);
    expect(
      bad({
        system: 'jira',
        url: 'https://a.atlassian.net',
        secret: 's',
        reconcileSchedule: 'rate(5 minutes)',
      }),
    ).toThrow(/ticketSync\.1\.reconcileSchedule: must be slower than schedule/);
    // Two sources of one system need ids of their own.
    expect(bad({ system: 'servicenow', url: 'https://b.service-now.com', secret: 's' })).toThrow(
      /ticketSync\.1\.id: servicenow is already the id/,
    );
    expect(
      parseServiceDeskConfig({
        ticketSync: [ticketSync[0], { ...ticketSync[0], id: 'servicenow-eu' }],
      }).ticketSync.map((source) => source.id),
    ).toEqual(['servicenow', 'servicenow-eu']);
  });

  it('takes the list as JSON text, as `-c ticketSync=…` passes it', () => {
    const config = parseServiceDeskConfig({ ticketSync: JSON.stringify([ticketSync[2]]) });
    expect(config.ticketSync).toEqual([
      expect.objectContaining({ id: 'zendesk', comments: 'public', schedule: 'rate(15 minutes)' }),
    ]);
    expect(config.ticketSync[0]?.reconcileSchedule).toBeUndefined();
    expect(parseServiceDeskConfig({}).ticketSync).toEqual([]);
  });

  it('refuses a reused Knowledge Base without its bucket', () => {
    expect(() =>
      parseServiceDeskConfig({ existingKnowledgeBaseId: 'ABCDEFGHIJ', ticketSync }),
    ).toThrow(/ticketSync: a reused Knowledge Base syncs tickets into its bucket/);
  });

  it('counts alarms over about one run of the schedule', () => {
    expect(alarmPeriodOf('rate(15 minutes)').toMinutes()).toBe(15);
    expect(alarmPeriodOf('rate(1 minute)').toMinutes()).toBe(5);
    expect(alarmPeriodOf('rate(1 day)').toMinutes()).toBe(360);
    expect(alarmPeriodOf('cron(0 3 * * ? *)').toMinutes()).toBe(60);
  });
});
