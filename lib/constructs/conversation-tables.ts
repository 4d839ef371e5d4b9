import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import {
  type ConversationTableNames,
  conversationsTable,
  insightsTable,
  type KeyAttribute,
  type TableDefinition,
  turnsTable,
} from '../../functions/adapters/dynamodb/table-definitions.js';

export interface ConversationTablesProps {
  /**
   * What `cdk destroy` does with the tables (they hold every user's history).
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The Conversations, Turns and Insights tables, built from the same definitions as the local stack
 * (`functions/adapters/dynamodb/table-definitions.ts`), so keys and indexes cannot drift.
 * On-demand billing (a staff tool is idle most of the day), point-in-time recovery, AWS-managed
 * KMS encryption, TTL on `expiresAt`. Conversations has a KEYS_ONLY stream: the retention
 * sweeper deletes the turns of the rows TTL removes (keys are all it needs; no history leaves
 * the table through the stream).
 */
export class ConversationTables extends Construct {
  readonly conversations: dynamodb.Table;
  readonly turns: dynamodb.Table;
  /**
   * Service-desk insights' aggregates (ADR 0022): counters per tenant and day, and the few items
   * with scrubbed inquiry text, which expire with their conversation's retention.
   */
  readonly insights: dynamodb.Table;
  /** `${tableArn}/index/${name}` of every index, for exact IAM grants (no `index/*`). */
  readonly indexArns: string[] = [];

  constructor(scope: Construct, id: string, props: ConversationTablesProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.conversations = this.createTable(
      conversationsTable,
      removalPolicy,
      dynamodb.StreamViewType.KEYS_ONLY,
    );
    this.turns = this.createTable(turnsTable, removalPolicy);
    this.insights = this.createTable(insightsTable, removalPolicy);
  }

  /** Physical names, as the function reads them from its environment. */
  get tableNames(): ConversationTableNames {
    return { conversations: this.conversations.tableName, turns: this.turns.tableName };
  }

  private createTable(
    definition: TableDefinition,
    removalPolicy: RemovalPolicy,
    stream?: dynamodb.StreamViewType,
  ): dynamodb.Table {
    // The construct id is the base name; CloudFormation picks the physical name, so several
    // stacks can live in one account.
    const table = new dynamodb.Table(this, definition.baseName, {
      partitionKey: toAttribute(definition.partitionKey),
      sortKey: toAttribute(definition.sortKey),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      timeToLiveAttribute: definition.timeToLiveAttribute,
      ...(stream ? { stream } : {}),
      removalPolicy,
      // A retained table should also survive a mistaken console delete.
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
    });
    for (const index of definition.localSecondaryIndexes) {
      table.addLocalSecondaryIndex({
        indexName: index.indexName,
        sortKey: toAttribute(index.sortKey),
        projectionType: dynamodb.ProjectionType.ALL,
      });
      this.indexArns.push(`${table.tableArn}/index/${index.indexName}`);
    }
    for (const index of definition.globalSecondaryIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: toAttribute(index.partitionKey),
        sortKey: toAttribute(index.sortKey),
        projectionType: dynamodb.ProjectionType.ALL,
      });
      this.indexArns.push(`${table.tableArn}/index/${index.indexName}`);
    }
    return table;
  }
}

/** A key of a table definition as the CDK's attribute (the ticket sync's table uses it too). */
export function toAttribute(key: KeyAttribute): dynamodb.Attribute {
  return {
    name: key.name,
    type: key.type === 'S' ? dynamodb.AttributeType.STRING : dynamodb.AttributeType.NUMBER,
  };
}
