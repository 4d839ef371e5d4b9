import { LOCAL_KNOWLEDGE_BASE_ID, OFFLINE_MODEL_ID } from './bedrock/local-bedrock-defaults.js';

/** Environment of `npm start`, every piece replaceable by setting its variable. */
export interface LocalStackEnvironment {
  readonly port: number;
  /** Set: use that DynamoDB (tables are still created if missing). Unset: start DynamoDB Local. */
  readonly dynamoDbEndpoint?: string;
  /** `aws` means the real service; a URL any server speaking the protocol; unset the local endpoint. */
  readonly bedrockRuntimeEndpoint?: string;
  readonly bedrockAgentRuntimeEndpoint?: string;
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
    modelId: environment.MODEL_ID || OFFLINE_MODEL_ID,
    knowledgeBaseId: environment.KNOWLEDGE_BASE_ID || LOCAL_KNOWLEDGE_BASE_ID,
    region: environment.AWS_REGION || environment.AWS_DEFAULT_REGION || 'us-east-1',
  };
}
