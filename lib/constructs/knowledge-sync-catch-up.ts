import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { syncBacklogKey } from '../../functions/adapters/dynamodb/table-definitions.js';
import { createAppFunction } from './app-function.js';
import type { KnowledgeBaseReference } from './knowledge-base.js';

export interface KnowledgeSyncCatchUpProps {
  /** The handler module (`functions/knowledge-sync/handler.ts`). */
  readonly entry: string;
  /** Holds the owed-sync marker the API function sets (`knowledge#sync-pending`). */
  readonly turnsTable: dynamodb.ITable;
  readonly knowledgeBase: KnowledgeBaseReference;
  /** The data source published tickets are written to. */
  readonly dataSourceId: string;
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
    const created = createAppFunction(this, {
      entry: props.entry,
      description:
        'Service-desk knowledge sync catch-up: starts the sync a published ticket is owed',
      memorySize: 256,
      // A read, up to four StartIngestionJob attempts 1, 2 and 4 s apart, a delete.
      timeout: Duration.seconds(30),
      environment: {
        TURNS_TABLE: props.turnsTable.tableName,
        KNOWLEDGE_BASE_ID: props.knowledgeBase.knowledgeBaseId,
        KNOWLEDGE_DATA_SOURCE_ID: props.dataSourceId,
      },
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      // A failed run needs no retry, neither by EventBridge nor by Lambda's own async retries:
      // the mark stays, and the next scheduled run tries again.
      functionProps: { retryAttempts: 0 },
    });
    this.function = created.function;
    this.role = created.role;
    this.logGroup = created.logGroup;

    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'ReadAndClearTheOwedSyncMarker',
        actions: ['dynamodb:GetItem', 'dynamodb:DeleteItem'],
        resources: [props.turnsTable.tableArn],
        conditions: {
          'ForAllValues:StringEquals': {
            'dynamodb:LeadingKeys': [syncBacklogKey.conversationKey],
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
      schedule: events.Schedule.rate(Duration.minutes(5)),
      targets: [new targets.LambdaFunction(this.function, { retryAttempts: 0 })],
    });
  }
}
