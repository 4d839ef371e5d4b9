/** The ConverseStream request body as it travels on the wire (only the fields the endpoint reads). */
export interface ConverseWireRequest {
  readonly messages?: readonly {
    readonly role?: string;
    readonly content?: readonly {
      readonly text?: string;
      /** Text a guardrail evaluates (`GuardrailConverseContentBlock`); the model reads it too. */
      readonly guardContent?: { readonly text?: { readonly text?: string } };
      readonly cachePoint?: CachePoint;
      /** An image block: its bytes base64-encoded, as REST-JSON carries a blob. */
      readonly image?: { readonly format?: string; readonly source?: { readonly bytes?: string } };
    }[];
  }[];
  readonly system?: readonly { readonly text?: string; readonly cachePoint?: CachePoint }[];
  readonly inferenceConfig?: { readonly maxTokens?: number };
  /** Accepted and recorded; the local endpoint applies no guardrail (a script can emulate one). */
  readonly guardrailConfig?: {
    readonly guardrailIdentifier?: string;
    readonly guardrailVersion?: string;
    readonly streamProcessingMode?: string;
    readonly trace?: string;
  };
  readonly toolConfig?: {
    readonly tools?: readonly {
      readonly toolSpec?: {
        readonly name?: string;
        readonly description?: string;
        readonly inputSchema?: { readonly json?: unknown };
      };
      readonly cachePoint?: CachePoint;
    }[];
    readonly toolChoice?: { readonly tool?: { readonly name?: string } };
  };
}

/** A prompt-caching checkpoint (`CachePointBlock`): the prefix up to here may be cached. */
export interface CachePoint {
  readonly type?: string;
}

/** A ConverseStream call as the local endpoint received it, for test assertions. */
export interface RecordedConverseRequest {
  /** URL-decoded model id (inference profile ids and ARNs arrive URL-encoded). */
  readonly modelId: string;
  readonly body: ConverseWireRequest;
}

/** The Agent Runtime Retrieve request body as it travels on the wire. */
export interface RetrieveWireRequest {
  readonly retrievalQuery?: { readonly text?: string };
  readonly retrievalConfiguration?: {
    readonly vectorSearchConfiguration?: {
      readonly numberOfResults?: number;
      readonly overrideSearchType?: string;
      readonly filter?: unknown;
      readonly rerankingConfiguration?: unknown;
    };
  };
  readonly nextToken?: string;
}

/** A Retrieve call as the local endpoint received it, for test assertions. */
export interface RecordedRetrieveRequest {
  readonly knowledgeBaseId: string;
  readonly body: RetrieveWireRequest;
}
