import { LOCAL_KNOWLEDGE_BASE_ID, OFFLINE_MODEL_ID } from './bedrock/local-bedrock-defaults.js';

/** Environment of `npm start`, every piece replaceable by setting its variable. */
export interface LocalStackEnvironment {
  readonly port: number;
  /** Set: use that DynamoDB (tables are still created if missing). Unset: start DynamoDB Local. */
  readonly dynamoDbEndpoint?: string;
  /** `aws` means the real service; a URL any server speaking the protocol; unset the local endpoint. */
  readonly bedrockRuntimeEndpoint?: string;
  readonly bedrockAgentRuntimeEndpoint?: string;
  /**
   * The Knowledge Base's control plane (StartIngestionJob after a publish). Unset: follows
   * `bedrockAgentRuntimeEndpoint` (the local endpoint serves both on one port), so a sync goes
   * to the Knowledge Base retrieval reads.
   */
  readonly bedrockAgentEndpoint?: string;
  /**
   * `aws` or a URL: the document bucket lives there (with `knowledgeBucket`). Unset: a local S3
   * is started when the Knowledge Base is the local one; with a real Knowledge Base, real S3.
   */
  readonly s3Endpoint?: string;
  /** The Knowledge Base's document bucket. @default the local S3's `local-knowledge-documents` */
  readonly knowledgeBucket?: string;
  /** The data source that reads the bucket. @default the local endpoint's, for the local Knowledge Base */
  readonly knowledgeDataSourceId?: string;
  /** Where published tickets go in the bucket. @default 'tickets/published/' (the function's default) */
  readonly knowledgeKeyPrefix?: string;
  readonly modelId: string;
  readonly knowledgeBaseId: string;
  readonly region: string;
}

export function readLocalStackEnvironment(
  environment: Record<string, string | undefined>,
): LocalStackEnvironment {
  const port = Number(environment.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`PORT must be a port number, got ${environment.PORT}`);
  return {
    port,
    dynamoDbEndpoint: environment.DYNAMODB_ENDPOINT || undefined,
    bedrockRuntimeEndpoint: environment.BEDROCK_RUNTIME_ENDPOINT || undefined,
    bedrockAgentRuntimeEndpoint: environment.BEDROCK_AGENT_RUNTIME_ENDPOINT || undefined,
    bedrockAgentEndpoint:
      environment.BEDROCK_AGENT_ENDPOINT || environment.BEDROCK_AGENT_RUNTIME_ENDPOINT || undefined,
    s3Endpoint: environment.S3_ENDPOINT || undefined,
    knowledgeBucket: environment.KNOWLEDGE_BUCKET || undefined,
    knowledgeDataSourceId: environment.KNOWLEDGE_DATA_SOURCE_ID || undefined,
    knowledgeKeyPrefix: environment.KNOWLEDGE_KEY_PREFIX || undefined,
    modelId: environment.MODEL_ID || OFFLINE_MODEL_ID,
    knowledgeBaseId: environment.KNOWLEDGE_BASE_ID || LOCAL_KNOWLEDGE_BASE_ID,
    region: environment.AWS_REGION || environment.AWS_DEFAULT_REGION || 'us-east-1',
  };
}
