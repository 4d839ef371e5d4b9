import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type CfnJson,
  renderArn,
  type SynthesizedServiceDesk,
  synthesizeServiceDesk,
} from './synthesize.js';

// One concern of the default stack per file; each file synthesizes it once.
describe('ServiceDeskStack (default config): retention sweeper', () => {
  let synthesized: SynthesizedServiceDesk;
  let template: Template;

  beforeAll(() => {
    synthesized = synthesizeServiceDesk({});
    template = synthesized.template;
  });

  function sweeperFunction(): [string, CfnJson] {
    const functions = Object.entries(
      template.findResources('AWS::Lambda::Function', {
        Properties: {
          Role: { 'Fn::GetAtt': [Match.stringLikeRegexp('^RetentionSweeperRole'), 'Arn'] },
        },
      }),
    );
    expect(functions).toHaveLength(1);
    return functions[0] as [string, CfnJson];
  }

  it('streams the keys of the Conversations table, and nothing of the Turns table', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: Match.arrayWith([{ AttributeName: 'conversationId', KeyType: 'RANGE' }]),
      StreamSpecification: { StreamViewType: 'KEYS_ONLY' },
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: Match.arrayWith([{ AttributeName: 'seq', KeyType: 'RANGE' }]),
      StreamSpecification: Match.absent(),
      // Kept for turns written before retention became per conversation.
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
  });

  it('feeds the sweeper only TTL deletions, bisecting and retrying before giving up to a queue', () => {
    const [functionId] = sweeperFunction();
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionId },
      EventSourceArn: {
        'Fn::GetAtt': [Match.stringLikeRegexp('^ConversationTablesConversations'), 'StreamArn'],
      },
      StartingPosition: 'TRIM_HORIZON',
      FilterCriteria: {
        Filters: [
          {
            Pattern: JSON.stringify({
              eventName: ['REMOVE'],
              userIdentity: { type: ['Service'], principalId: ['dynamodb.amazonaws.com'] },
            }),
          },
        ],
      },
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: {
        OnFailure: {
          Destination: {
            'Fn::GetAtt': [Match.stringLikeRegexp('^RetentionSweeperFailures'), 'Arn'],
          },
        },
      },
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 86_400,
    });
  });

  it('runs Node 22 on arm64 and knows only the Turns and Insights tables', () => {
    const [, sweeper] = sweeperFunction();
    expect(sweeper.Properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
    });
    expect(sweeper.Properties.Environment.Variables).toEqual({
      TURNS_TABLE: { Ref: expect.stringMatching(/^ConversationTablesTurns/) },
      INSIGHTS_TABLE: { Ref: expect.stringMatching(/^ConversationTablesInsights/) },
    });
  });

  it('may query and batch-delete the Turns table, query and delete insights items, read the stream and report failures, nothing else', () => {
    const [, policy] = Object.entries(template.findResources('AWS::IAM::Policy')).find(([id]) =>
      id.startsWith('RetentionSweeperRoleDefaultPolicy'),
    ) as [string, CfnJson];
    const statements = (policy.Properties.PolicyDocument.Statement as CfnJson[]).map(
      (statement) => ({
        actions: [statement.Action].flat(),
        resources: [statement.Resource].flat().map(renderArn),
      }),
    );
    expect(statements).toEqual([
      {
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: ['<RetentionSweeperLogs.Arn>'],
      },
      {
        actions: ['dynamodb:BatchWriteItem', 'dynamodb:Query'],
        resources: ['<ConversationTablesTurns.Arn>'],
      },
      {
        // An expired conversation's gap examples and solved inquiry (ADR 0022).
        actions: ['dynamodb:DeleteItem', 'dynamodb:Query'],
        resources: ['<ConversationTablesInsights.Arn>'],
      },
      {
        actions: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'],
        resources: ['<RetentionSweeperFailures.Arn>'],
      },
      // ListStreams takes no resource; the CDK event source adds it this way.
      { actions: ['dynamodb:ListStreams'], resources: ['*'] },
      {
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        resources: ['<ConversationTablesConversations.StreamArn>'],
      },
    ]);
  });
});
