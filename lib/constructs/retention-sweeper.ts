import { Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as eventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ttlDeletionIdentity } from '../../functions/adapters/dynamodb/table-definitions.js';
import { createAppFunction } from './app-function.js';

export interface RetentionSweeperProps {
  /** The handler module, e.g. `functions/retention/handler.ts`. */
  readonly entry: string;
  /** The Conversations table; must have a stream (KEYS_ONLY is enough). */
  readonly conversationsTable: dynamodb.ITable;
  readonly turnsTable: dynamodb.ITable;
  /** Service-desk insights: an expired conversation's gap examples and solved inquiry go too. */
  readonly insightsTable: dynamodb.ITable;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/**
 * Retention per conversation (docs/adr/0003-conversation-store-protocol.md): TTL removes a
 * Conversations row `retentionDays` after its last activity; this function, fed only the TTL
 * deletions of that table's stream, deletes the conversation's turns and idempotency markers.
 * It may query and batch-delete the Turns table and nothing else. A batch that still fails after
 * the retries (bisected to isolate the bad record) is reported to `failures`.
 */
export class RetentionSweeper extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  /**
   * Where a stream batch goes when every retry failed: the message names the shard and sequence
   * range (not the keys); its turns stay unreachable, and can be swept by replaying that range
   * within the stream's 24-hour retention.
   */
  readonly failures: sqs.Queue;

  constructor(scope: Construct, id: string, props: RetentionSweeperProps) {
    super(scope, id);
    const created = createAppFunction(this, {
      entry: props.entry,
      description: 'Service-desk retention sweeper: deletes the turns of expired conversations',
      memorySize: 256,
      // A batch of 100 conversations, each a query and a few batch deletes.
      timeout: Duration.minutes(5),
      environment: {
        TURNS_TABLE: props.turnsTable.tableName,
        INSIGHTS_TABLE: props.insightsTable.tableName,
      },
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
    });
    this.function = created.function;
    this.role = created.role;
    this.logGroup = created.logGroup;

    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'DeleteTurnsOfExpiredConversations',
        actions: ['dynamodb:Query', 'dynamodb:BatchWriteItem'],
        resources: [props.turnsTable.tableArn],
      }),
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'ForgetInsightsOfExpiredConversations',
        actions: ['dynamodb:Query', 'dynamodb:DeleteItem'],
        resources: [props.insightsTable.tableArn],
      }),
    );

    this.failures = new sqs.Queue(this, 'Failures', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });

    this.function.addEventSource(
      new eventSources.DynamoEventSource(props.conversationsTable, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(30),
        // Only TTL deletions reach the function; user deletes sweep their own turns.
        filters: [
          lambda.FilterCriteria.filter({
            eventName: lambda.FilterRule.isEqual('REMOVE'),
            userIdentity: {
              type: lambda.FilterRule.isEqual(ttlDeletionIdentity.type),
              principalId: lambda.FilterRule.isEqual(ttlDeletionIdentity.principalId),
            },
          }),
        ],
        // The handler reports the first record it could not sweep; Lambda resumes there.
        reportBatchItemFailures: true,
        bisectBatchOnError: true,
        retryAttempts: 10,
        maxRecordAge: Duration.hours(12),
        onFailure: new eventSources.SqsDlq(this.failures),
      }),
    );

    Validations.of(this.failures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the on-failure destination of the stream event source mapping; ' +
        'nothing consumes it automatically, so it needs no dead-letter queue of its own.',
    });
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'dynamodb:ListStreams takes no resource (added by the stream event source); every other ' +
        'grant of this role names the Turns table, the Conversations stream or the failure queue.',
    });
  }
}
