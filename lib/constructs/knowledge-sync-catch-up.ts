import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { SYNC_BACKLOG_KEY } from '../../functions/adapters/dynamodb/counters.js';
import { nodeFunctionBundling } from './api-function.js';
import type { KnowledgeBaseReference } from './knowledge-base.js';

export interface KnowledgeSyncCatchUpProps {
  /** The handler module (`functions/knowledge/sync-catch-up-handler.ts`). */
  readonly entry: string;
  /** Holds the owed-sync marker the API function sets (`knowledge#sync-pending`). */
  readonly turnsTable: dynamodb.ITable;
  readonly knowledgeBase: KnowledgeBaseReference;
  /** The data source published tickets are written to. */
  readonly dataSourceId: string;
  /** How often to look for an owed sync. @default 5 minutes */
  readonly interval?: Duration;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/**
 * The sync catch-up of knowledge capture (ADR 0011): a publish whose sync could not start (one
 * was running) marks a sync as owed; this function, run on a schedule, starts it. It may read
 * and delete that one marker item and start ingestion jobs of the one Knowledge Base, nothing
 * else. An idle run is one DynamoDB read: about 8,600 invocations a month, within the free tier.
 */
export class KnowledgeSyncCatchUp extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;
  readonly schedule: events.Rule;

  constructor(scope: Construct, id: string, props: KnowledgeSyncCatchUpProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description:
        'Service-desk knowledge sync catch-up: starts the sync a published ticket is owed',
    });
    this.logGroup.grantWrite(this.role);

    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 256,
      // A read, up to four StartIngestionJob attempts 1, 2 and 4 s apart, a delete.
      timeout: Duration.seconds(30),
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        TURNS_TABLE: props.turnsTable.tableName,
        KNOWLEDGE_BASE_ID: props.knowledgeBase.knowledgeBaseId,
        KNOWLEDGE_DATA_SOURCE_ID: props.dataSourceId,
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: nodeFunctionBundling,
    });

    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'ReadAndClearTheOwedSyncMarker',
        actions: ['dynamodb:GetItem', 'dynamodb:DeleteItem'],
        resources: [props.turnsTable.tableArn],
        conditions: {
          'ForAllValues:StringEquals': {
            'dynamodb:LeadingKeys': [SYNC_BACKLOG_KEY.conversationKey],
          },
        },
      }),
    );
    // As for the API function: StartIngestionJob is authorized on the knowledge-base resource.
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'StartTheOwedSync',
        actions: ['bedrock:StartIngestionJob'],
        resources: [props.knowledgeBase.knowledgeBaseArn],
      }),
    );

    this.schedule = new events.Rule(this, 'Schedule', {
      description: 'Starts the Knowledge Base sync a published ticket is owed, if any',
      schedule: events.Schedule.rate(props.interval ?? Duration.minutes(5)),
      // A failed run needs no retry: the marker stays, and the next run tries again.
      targets: [new targets.LambdaFunction(this.function, { retryAttempts: 0 })],
    });

    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 22 is pinned on purpose, as for the API function: the bundle targets node22 ' +
        'and the tests run the same major version.',
    });
  }
}
