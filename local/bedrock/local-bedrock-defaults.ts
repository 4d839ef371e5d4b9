/** Model ids with this prefix are answered by the offline responder. */
export const OFFLINE_MODEL_PREFIX = 'offline.';

/**
 * True for model ids the offline responder answers. The web app imports this to label such
 * answers: the model id is all the API says about where an answer came from.
 */
export function isOfflineModelId(modelId: string): boolean {
  return modelId.startsWith(OFFLINE_MODEL_PREFIX);
}

/** The model id `npm start` uses when no real Bedrock model is configured. */
export const OFFLINE_MODEL_ID = 'offline.service-desk-responder';

/** The Knowledge Base id the local endpoint serves (real ids are 10 upper-case characters). */
export const LOCAL_KNOWLEDGE_BASE_ID = 'LOCALKB001';

/**
 * The Knowledge Base's one data source on the local endpoint (`StartIngestionJob`,
 * `KNOWLEDGE_DATA_SOURCE_ID`, and `x-amz-bedrock-kb-data-source-id` in retrieval metadata).
 */
export const LOCAL_DATA_SOURCE_ID = 'LOCALDS001';

/** The document bucket of the local S3, as the deployed Knowledge Base has one (`KNOWLEDGE_BUCKET`). */
export const LOCAL_KNOWLEDGE_BUCKET = 'local-knowledge-documents';

/** The local S3's bucket of attachments' bytes (ADR 0030), beside the document bucket. */
export const LOCAL_ATTACHMENTS_BUCKET = 'local-attachments';

/** The bucket name in the `s3://` URIs of local retrieval results. */
export const LOCAL_TICKET_BUCKET = 'local-tickets';

/** Realistic gaps between streamed fragments, in milliseconds. */
export const DEFAULT_PACING = { minMs: 8, maxMs: 40 } as const;

/** The offline responder's prompt caching, modelled on Claude Sonnet 4.5's (ADR 0009). */
export const OFFLINE_PROMPT_CACHE_SUPPORT = { minimumTokens: 1024, cacheTools: true } as const;

/**
 * What production tables do not know about the offline responder, passed to the function as
 * settings by whoever starts it with {@link OFFLINE_MODEL_ID} (`npm start`, the test stacks): it
 * costs nothing (`MODEL_PRICES`), and the local endpoint accounts its prompt cache as for the
 * default model, Claude Sonnet 4.5 (`PROMPT_CACHE_MODELS`; `local/bedrock/prompt-cache.ts`).
 * A caller's own `MODEL_PRICES` or `PROMPT_CACHE_MODELS` replaces these.
 */
export const OFFLINE_MODEL_FUNCTION_SETTINGS: Readonly<Record<string, string>> = {
  MODEL_PRICES: JSON.stringify({
    [OFFLINE_MODEL_ID]: {
      inputPerMillion: 0,
      outputPerMillion: 0,
      cacheWritePerMillion: 0,
      cacheReadPerMillion: 0,
    },
  }),
  PROMPT_CACHE_MODELS: JSON.stringify({ [OFFLINE_MODEL_ID]: OFFLINE_PROMPT_CACHE_SUPPORT }),
};
