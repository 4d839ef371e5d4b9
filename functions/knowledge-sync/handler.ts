import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { BedrockAgentClient } from '@aws-sdk/client-bedrock-agent';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { startKnowledgeBaseSync } from '../adapters/bedrock/knowledge-base-documents.js';
import { createSyncBacklog } from '../adapters/dynamodb/sync-backlog.js';
import { type CatchUpOutcome, catchUpKnowledgeSync } from '../knowledge/owed-sync.js';
import {
  knowledgeMetrics,
  METRICS_NAMESPACE,
  METRICS_SERVICE,
} from '../observability/metric-catalog.js';

/**
 * The sync catch-up, run every few minutes by a schedule (`lib/constructs/knowledge-sync-catch-up.ts`):
 * when a publish could not start its sync (one was running), starts the sync it is owed, so a
 * published ticket becomes searchable without anyone starting one by hand (ADR 0011). An idle
 * run is one consistent read of the Turns table and no Bedrock call.
 */

const environment = z
  .object({
    TURNS_TABLE: z.string().min(1),
    KNOWLEDGE_BASE_ID: z.string().min(1),
    KNOWLEDGE_DATA_SOURCE_ID: z.string().min(1),
    /** Local endpoints (tests); unset in AWS. */
    DYNAMODB_ENDPOINT: z.string().url().optional(),
    BEDROCK_AGENT_ENDPOINT: z.string().url().optional(),
  })
  .parse(process.env);

const logger = new Logger({ serviceName: 'service-desk-knowledge-sync' });
const syncBacklog = createSyncBacklog({
  documents: DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: environment.DYNAMODB_ENDPOINT }),
  ),
  tables: { turns: environment.TURNS_TABLE },
});
const agent = new BedrockAgentClient({ endpoint: environment.BEDROCK_AGENT_ENDPOINT });

export async function handler(): Promise<CatchUpOutcome> {
  const result = await catchUpKnowledgeSync({
    syncBacklog: {
      ...syncBacklog,
      // The wait is measured before the start is tried, so a start that keeps failing (a
      // permission taken away) still shows in the metric and raises the overdue alarm.
      read: async () => {
        const pending = await syncBacklog.read();
        if (pending) publishOwedSeconds(pending.pendingSince);
        return pending;
      },
    },
    documents: {
      startSync: () =>
        startKnowledgeBaseSync({
          agent,
          knowledgeBaseId: environment.KNOWLEDGE_BASE_ID,
          dataSourceId: environment.KNOWLEDGE_DATA_SOURCE_ID,
          syncDescription: 'Knowledge capture: the sync a published ticket was owed',
        }),
    },
  });
  if (result.outcome !== 'idle') logger.info('knowledge sync catch-up', { ...result });
  return result;
}

/**
 * In the app's metric namespace and `service` dimension, beside the knowledge metrics the API
 * function publishes, where the overdue alarm and the dashboard look for it.
 */
function publishOwedSeconds(pendingSince: string): void {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });
  const seconds = Math.max(0, (Date.now() - Date.parse(pendingSince)) / 1000);
  metrics.addMetric(knowledgeMetrics.syncOwedSeconds.name, 'Seconds', Math.round(seconds));
  metrics.publishStoredMetrics();
}
