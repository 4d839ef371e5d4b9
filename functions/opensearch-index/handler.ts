import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import {
  type CustomResourceEvent,
  createSignedCollectionRequest,
  createVectorIndexResourceHandler,
} from './vector-index-resource.js';

const logger = new Logger({ serviceName: 'service-desk-opensearch-index' });

/**
 * Lambda entry of `Custom::OpenSearchVectorIndex` (lib/constructs/opensearch-vector-store.ts):
 * wiring only. The runtime provides the role's session credentials and the region as variables.
 */
export const handler = async (event: CustomResourceEvent, context: Context): Promise<void> => {
  const request = createSignedCollectionRequest({
    region: process.env.AWS_REGION ?? 'us-east-1',
    credentials: {
      accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? '',
      secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? '',
      sessionToken: process.env.AWS_SESSION_TOKEN,
    },
  });
  const handle = createVectorIndexResourceHandler({
    request,
    remainingMs: () => context.getRemainingTimeInMillis(),
    log: (message) => logger.info(message),
  });
  logger.info('vector index custom resource', {
    requestType: event.RequestType,
    indexName: event.ResourceProperties.IndexName,
    physicalResourceId: event.PhysicalResourceId,
  });
  await handle(event);
};
