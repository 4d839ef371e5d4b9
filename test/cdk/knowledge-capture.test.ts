import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseServiceDeskConfig } from '../../lib/config.js';
import { hashTicketDocuments } from '../../lib/constructs/hash-ticket-documents.js';
import { KnowledgeBase } from '../../lib/constructs/knowledge-base.js';
import { stackOutputNames } from '../../lib/deployed-stack-names.js';
import {
  type CfnJson,
  fixturePaths,
  renderArn,
  type SynthesizedServiceDesk,
  synthesizeServiceDesk,
} from './synthesize.js';
import { logicalIdOf, onlyResource, sdkCallResource } from './template-queries.js';

const knowledgeVariables = [
  'KNOWLEDGE_BUCKET',
  'KNOWLEDGE_DATA_SOURCE_ID',
  'KNOWLEDGE_KEY_PREFIX',
  'KNOWLEDGE_EDITOR_GROUP',
];

/** The API function's environment variables (the one function with AUTH_MODE). */
function apiEnvironment(template: Template): Record<string, unknown> {
  const functions = Object.values(
    template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { AUTH_MODE: 'cognito' } } },
    }),
  );
  expect(functions).toHaveLength(1);
  return functions[0]?.Properties.Environment.Variables;
}

/** Every statement of every policy attached to the API function's role. */
function apiRoleStatements(template: Template): CfnJson[] {
  const roleId = logicalIdOfMatching(template, 'AWS::IAM::Role', /^ApiRole[0-9A-F]{8}$/);
  const policies = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
    (policy.Properties.Roles as CfnJson[]).some((role) => role.Ref === roleId),
  );
  expect(policies.length).toBeGreaterThan(0);
  return policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement as CfnJson[]);
}

function logicalIdOfMatching(template: Template, type: string, pattern: RegExp): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => pattern.test(id));
  expect(ids, `${type} ${pattern}`).toHaveLength(1);
  return ids[0] as string;
}

const actionsOf = (statement: CfnJson): string[] => [statement.Action].flat();

/** The data source's actions the API role may take: the sync, and the catalog's listing (#28). */
const DATA_SOURCE_ACTIONS = ['bedrock:StartIngestionJob', 'bedrock:ListKnowledgeBaseDocuments'];

/**
 * The API role's statements that grant any S3 action or one of {@link DATA_SOURCE_ACTIONS}, but
 * those on the attachments bucket (ADR 0030; api-function.test.ts asserts them).
 */
function knowledgeCaptureGrants(template: Template): CfnJson[] {
  return apiRoleStatements(template).filter(
    (statement) =>
      !JSON.stringify(statement.Resource).includes('Attachments') &&
      actionsOf(statement).some(
        (action) => action.startsWith('s3:') || DATA_SOURCE_ACTIONS.includes(action),
      ),
  );
}

/** The knowledge-capture grants with their resources rendered as readable ARNs. */
function renderedKnowledgeCaptureGrants(template: Template): CfnJson[] {
  return knowledgeCaptureGrants(template).map((statement) => ({
    ...statement,
    Resource: renderArn(statement.Resource),
  }));
}

/** The sync catch-up function (the one with KNOWLEDGE_DATA_SOURCE_ID and no AUTH_MODE). */
function catchUpFunctions(template: Template): [string, CfnJson][] {
  return Object.entries(template.findResources('AWS::Lambda::Function')).filter(
    ([, fn]) =>
      fn.Properties.Environment?.Variables?.KNOWLEDGE_DATA_SOURCE_ID !== undefined &&
      fn.Properties.Environment.Variables.AUTH_MODE === undefined,
  );
}

/** What the sync catch-up is, may do and when it runs, rendered readably. */
function catchUpShape(template: Template) {
  const [[functionId, fn] = []] = catchUpFunctions(template);
  expect(functionId).toBeDefined();
  const roleId = (fn as CfnJson).Properties.Role['Fn::GetAtt'][0];
  const statements = Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as CfnJson[]).some((role) => role.Ref === roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as CfnJson[])
    .filter((statement) => !actionsOf(statement).some((action) => action.startsWith('logs:')))
    .map((statement) => ({ ...statement, Resource: renderArn(statement.Resource) }));
  const rules = Object.values(template.findResources('AWS::Events::Rule')).filter((rule) =>
    (rule.Properties.Targets as CfnJson[]).some(
      (target) => target.Arn?.['Fn::GetAtt']?.[0] === functionId,
    ),
  );
  const variables = (fn as CfnJson).Properties.Environment.Variables;
  return {
    environment: {
      TURNS_TABLE: variables.TURNS_TABLE,
      KNOWLEDGE_BASE_ID: renderArn(variables.KNOWLEDGE_BASE_ID),
      KNOWLEDGE_DATA_SOURCE_ID: renderArn(variables.KNOWLEDGE_DATA_SOURCE_ID),
    },
    statements,
    schedules: rules.map((rule) => ({
      ScheduleExpression: rule.Properties.ScheduleExpression,
      State: rule.Properties.State,
      RetryAttempts: (rule.Properties.Targets as CfnJson[])[0]?.RetryPolicy?.MaximumRetryAttempts,
    })),
  };
}

describe('knowledge capture, with the Knowledge Base the stack provisions (default config)', () => {
  let synthesized: SynthesizedServiceDesk;
  let template: Template;

  beforeAll(() => {
    synthesized = synthesizeServiceDesk({});
    template = synthesized.template;
  });

  it('passes cdk-nag AwsSolutions with the published-tickets grant acknowledged', () => {
    expect(synthesized.nagFindings).toEqual([]);
  });

  it('has a described knowledge-editors group in the user pool, named by a stack output', () => {
    // The pool's other group is the service-desk leads' (service-desk-stack.test.ts).
    const editorGroups = template.findResources('AWS::Cognito::UserPoolGroup', {
      Properties: { GroupName: 'knowledge-editors' },
    });
    expect(Object.keys(editorGroups)).toHaveLength(1);
    const [groupId, group] = Object.entries(editorGroups)[0] as [string, CfnJson];
    expect(group.Properties).toEqual({
      UserPoolId: { Ref: logicalIdOf(template, 'AWS::Cognito::UserPool') },
      GroupName: 'knowledge-editors',
      Description: expect.stringMatching(/publish/),
    });
    expect(template.findOutputs(stackOutputNames.knowledgeEditorGroup)).toEqual({
      [stackOutputNames.knowledgeEditorGroup]: { Value: { Ref: groupId } },
    });
  });

  it('tells the API function the bucket, data source, key prefix and editor group', () => {
    const environment = apiEnvironment(template);
    expect(environment).toMatchObject({
      KNOWLEDGE_BUCKET: {
        Ref: logicalIdOfMatching(template, 'AWS::S3::Bucket', /^KnowledgeBaseDocuments/),
      },
      KNOWLEDGE_DATA_SOURCE_ID: {
        'Fn::GetAtt': [logicalIdOf(template, 'AWS::Bedrock::DataSource'), 'DataSourceId'],
      },
      KNOWLEDGE_KEY_PREFIX: 'tickets/published/',
      KNOWLEDGE_EDITOR_GROUP: 'knowledge-editors',
    });
  });

  it('publishes inside the data source inclusion prefix, so the next sync ingests it', () => {
    const [, dataSource] = onlyResource(template, 'AWS::Bedrock::DataSource');
    const s3Configuration = dataSource.Properties.DataSourceConfiguration.S3Configuration;
    expect(s3Configuration.InclusionPrefixes).toEqual(['tickets/']);
    expect(s3Configuration.BucketArn).toEqual(
      documentBucketArn(template, apiEnvironment(template).KNOWLEDGE_BUCKET),
    );
    expect(String(apiEnvironment(template).KNOWLEDGE_KEY_PREFIX).startsWith('tickets/')).toBe(true);
  });

  it('may put and delete objects under tickets/published/ only, read ticket-categories/, and start syncs of this Knowledge Base only', () => {
    expect(renderedKnowledgeCaptureGrants(template)).toEqual([
      {
        Sid: 'PublishTickets',
        Effect: 'Allow',
        Action: ['s3:DeleteObject', 's3:PutObject'],
        Resource: '<KnowledgeBaseDocuments.Arn>/tickets/published/*',
      },
      {
        Sid: 'ReadUploadedCategories',
        Effect: 'Allow',
        Action: 's3:GetObject',
        Resource: '<KnowledgeBaseDocuments.Arn>/ticket-categories/*',
      },
      {
        Sid: 'ListUploadedCategories',
        Effect: 'Allow',
        Action: 's3:ListBucket',
        Resource: '<KnowledgeBaseDocuments.Arn>',
        Condition: { StringLike: { 's3:prefix': 'ticket-categories/*' } },
      },
      {
        Sid: 'SyncPublishedTickets',
        Effect: 'Allow',
        Action: 'bedrock:StartIngestionJob',
        Resource: '<KnowledgeBase.KnowledgeBaseArn>',
      },
      {
        Sid: 'ListTicketCatalog',
        Effect: 'Allow',
        Action: 'bedrock:ListKnowledgeBaseDocuments',
        Resource: '<KnowledgeBase.KnowledgeBaseArn>',
      },
    ]);
    // Nothing else in the role touches S3 or takes a wildcard action.
    for (const statement of apiRoleStatements(template)) {
      for (const action of actionsOf(statement)) expect(action).not.toMatch(/\*/);
    }
  });

  it('runs a sync catch-up every 5 minutes that may read and clear only the owed-sync marker and start syncs of this Knowledge Base', () => {
    const turnsTable = logicalIdOfMatching(
      template,
      'AWS::DynamoDB::Table',
      /^ConversationTablesTurns/,
    );
    expect(catchUpShape(template)).toEqual({
      environment: {
        TURNS_TABLE: { Ref: turnsTable },
        KNOWLEDGE_BASE_ID: '<KnowledgeBase.KnowledgeBaseId>',
        KNOWLEDGE_DATA_SOURCE_ID: '<KnowledgeBaseTicketsDataSource.DataSourceId>',
      },
      statements: [
        {
          Sid: 'ReadAndClearTheOwedSyncMarker',
          Effect: 'Allow',
          Action: ['dynamodb:DeleteItem', 'dynamodb:GetItem'],
          Resource: '<ConversationTablesTurns.Arn>',
          Condition: {
            'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': ['knowledge#sync-pending'] },
          },
        },
        {
          Sid: 'StartTheOwedSync',
          Effect: 'Allow',
          Action: 'bedrock:StartIngestionJob',
          Resource: '<KnowledgeBase.KnowledgeBaseArn>',
        },
      ],
      schedules: [{ ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED', RetryAttempts: 0 }],
    });
    // Nor does Lambda retry a failed run on its own: the next scheduled run does.
    const [[functionId] = []] = catchUpFunctions(template);
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: functionId },
      MaximumRetryAttempts: 0,
    });
  });

  it('alarms when the sync catch-up fails three runs in a row', () => {
    const [[functionId] = []] = catchUpFunctions(template);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
      Statistic: 'Sum',
      Threshold: 1,
      EvaluationPeriods: 3,
    });
  });

  it('alarms when a published ticket has waited over an hour for its sync', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'KnowledgeSyncOwedSeconds',
      Namespace: 'ServiceDeskAssistant',
      Statistic: 'Maximum',
      Threshold: 3600,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('deploys the seed tickets to tickets/ with pruning, except tickets/published/', () => {
    // The other deployment is the web app's, to its own bucket.
    const deployments = Object.values(
      template.findResources('Custom::CDKBucketDeployment', {
        Properties: { DestinationBucketName: apiEnvironment(template).KNOWLEDGE_BUCKET },
      }),
    );
    expect(deployments).toHaveLength(1);
    expect(deployments[0]?.Properties).toMatchObject({
      DestinationBucketName: apiEnvironment(template).KNOWLEDGE_BUCKET,
      DestinationBucketKeyPrefix: 'tickets/',
      Prune: true,
      // `aws s3 sync --delete --exclude 'published/*' --exclude 'imported/*'`: the filters are
      // relative to tickets/, so published and imported tickets are neither overwritten nor pruned.
      Exclude: ['published/*', 'imported/*'],
    });
    expect(deployments[0]?.Properties.Include).toBeUndefined();
  });

  it('starts ingestion when the seed tickets change, as before (published tickets are not hashed)', () => {
    const ingestion = sdkCallResource(template, 'startIngestionJob');
    const create = JSON.parse(renderArn(ingestion.Properties.Create));
    expect(create.physicalResourceId).toEqual({
      id: `tickets-${hashTicketDocuments(fixturePaths.ticketsPath)}`,
    });
  });
});

/** The `Fn::GetAtt <bucket>.Arn` of the bucket whose `Ref` is `bucketRef`. */
function documentBucketArn(template: Template, bucketRef: unknown): unknown {
  const bucketId = (bucketRef as { Ref: string }).Ref;
  expect(template.toJSON().Resources[bucketId]?.Type).toBe('AWS::S3::Bucket');
  return { 'Fn::GetAtt': [bucketId, 'Arn'] };
}

describe('KnowledgeBase ticket documents', () => {
  it('refuses a published/ folder among the seed tickets, which the deployment would skip', () => {
    const directory = mkdtempSync(join(tmpdir(), 'tickets-'));
    try {
      cpSync(fixturePaths.ticketsPath, directory, { recursive: true });
      mkdirSync(join(directory, 'published'));
      writeFileSync(join(directory, 'published', '900001.md'), '# a published ticket\n');
      const stack = new Stack(new App(), 'Test', {
        env: { account: '123456789012', region: 'us-east-1' },
      });
      expect(
        () =>
          new KnowledgeBase(stack, 'KnowledgeBase', {
            namePrefix: 'test',
            embeddingModelId: 'amazon.titan-embed-text-v2:0',
            ticketsPath: directory,
          }),
      ).toThrow(/published.*never be uploaded/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('knowledge capture with a reused Knowledge Base', () => {
  const reused = {
    region: 'ap-northeast-1',
    existingKnowledgeBaseId: 'KB12345678',
  };

  describe('with its document bucket and data source configured', () => {
    let synthesized: SynthesizedServiceDesk;
    let template: Template;

    beforeAll(() => {
      synthesized = synthesizeServiceDesk({
        ...reused,
        existingDocumentBucketName: 'team-kb-documents',
        existingDataSourceId: 'DS12345678',
      });
      template = synthesized.template;
    });

    it('passes cdk-nag AwsSolutions with the grant on the named bucket acknowledged', () => {
      expect(synthesized.nagFindings).toEqual([]);
    });

    it('tells the API function that bucket and data source', () => {
      expect(apiEnvironment(template)).toMatchObject({
        KNOWLEDGE_BUCKET: 'team-kb-documents',
        KNOWLEDGE_DATA_SOURCE_ID: 'DS12345678',
        KNOWLEDGE_KEY_PREFIX: 'tickets/published/',
        KNOWLEDGE_EDITOR_GROUP: 'knowledge-editors',
      });
    });

    it('grants the same, on tickets/published/ of that bucket and on that Knowledge Base', () => {
      expect(renderedKnowledgeCaptureGrants(template)).toEqual([
        {
          Sid: 'PublishTickets',
          Effect: 'Allow',
          Action: ['s3:DeleteObject', 's3:PutObject'],
          Resource: 'arn:aws:s3:::team-kb-documents/tickets/published/*',
        },
        {
          Sid: 'ReadUploadedCategories',
          Effect: 'Allow',
          Action: 's3:GetObject',
          Resource: 'arn:aws:s3:::team-kb-documents/ticket-categories/*',
        },
        {
          Sid: 'ListUploadedCategories',
          Effect: 'Allow',
          Action: 's3:ListBucket',
          Resource: 'arn:aws:s3:::team-kb-documents',
          Condition: { StringLike: { 's3:prefix': 'ticket-categories/*' } },
        },
        {
          Sid: 'SyncPublishedTickets',
          Effect: 'Allow',
          Action: 'bedrock:StartIngestionJob',
          Resource: 'arn:aws:bedrock:ap-northeast-1:123456789012:knowledge-base/KB12345678',
        },
        {
          Sid: 'ListTicketCatalog',
          Effect: 'Allow',
          Action: 'bedrock:ListKnowledgeBaseDocuments',
          Resource: 'arn:aws:bedrock:ap-northeast-1:123456789012:knowledge-base/KB12345678',
        },
      ]);
    });

    it('runs the sync catch-up on that data source of that Knowledge Base', () => {
      const { environment, statements } = catchUpShape(template);
      expect(environment).toMatchObject({
        KNOWLEDGE_BASE_ID: 'KB12345678',
        KNOWLEDGE_DATA_SOURCE_ID: 'DS12345678',
      });
      expect(statements.at(-1)).toMatchObject({
        Action: 'bedrock:StartIngestionJob',
        Resource: 'arn:aws:bedrock:ap-northeast-1:123456789012:knowledge-base/KB12345678',
      });
    });

    it('creates no bucket or deployment for it', () => {
      template.resourcePropertiesCountIs(
        'Custom::CDKBucketDeployment',
        { DestinationBucketName: 'team-kb-documents' },
        0,
      );
      expect(JSON.stringify(template.toJSON())).not.toContain('startIngestionJob');
    });
  });

  describe('without them', () => {
    let synthesized: SynthesizedServiceDesk;
    let template: Template;

    beforeAll(() => {
      synthesized = synthesizeServiceDesk(reused);
      template = synthesized.template;
    });

    it('leaves knowledge capture off: no settings, no S3 or ingestion permissions', () => {
      const environment = apiEnvironment(template);
      for (const name of knowledgeVariables) expect(environment).not.toHaveProperty(name);
      expect(knowledgeCaptureGrants(template)).toEqual([]);
      expect(synthesized.nagFindings).toEqual([]);
    });

    it('has no sync catch-up and no alarms of it', () => {
      expect(catchUpFunctions(template)).toEqual([]);
      template.resourcePropertiesCountIs('AWS::CloudWatch::Alarm', { MetricName: 'Errors' }, 1);
      template.resourcePropertiesCountIs(
        'AWS::CloudWatch::Alarm',
        { MetricName: 'KnowledgeSyncOwedSeconds' },
        0,
      );
    });

    it('still has the editors group, so membership can be prepared before capture is on', () => {
      template.hasResourceProperties('AWS::Cognito::UserPoolGroup', {
        GroupName: 'knowledge-editors',
      });
    });

    it('synthesizes without warnings or errors', () => {
      expect(synthesized.messages).toEqual([]);
    });
  });

  it.each([
    ['existingDocumentBucketName', { existingDocumentBucketName: 'team-kb-documents' }],
    ['existingDataSourceId', { existingDataSourceId: 'DS12345678' }],
  ])('refuses %s alone, naming both settings', (_, setting) => {
    expect(() => parseServiceDeskConfig({ ...reused, ...setting })).toThrow(
      /existingDocumentBucketName and existingDataSourceId/,
    );
  });

  it('refuses them without existingKnowledgeBaseId (a provisioned Knowledge Base has its own)', () => {
    expect(() =>
      parseServiceDeskConfig({
        existingDocumentBucketName: 'team-kb-documents',
        existingDataSourceId: 'DS12345678',
      }),
    ).toThrow(/existingKnowledgeBaseId/);
  });

  it('refuses malformed values', () => {
    expect(() =>
      parseServiceDeskConfig({
        ...reused,
        existingDocumentBucketName: 'Team_Bucket',
        existingDataSourceId: 'ds-1',
      }),
    ).toThrow(/existingDocumentBucketName[\s\S]*existingDataSourceId/);
  });
});
