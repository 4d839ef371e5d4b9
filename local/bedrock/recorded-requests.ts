/** The ConverseStream request body as it travels on the wire (only the fields the endpoint reads). */
export interface ConverseWireRequest {
  readonly messages?: readonly {
    readonly role?: string;
    readonly content?: readonly { readonly text?: string }[];
  }[];
  readonly system?: readonly { readonly text?: string }[];
  readonly inferenceConfig?: { readonly maxTokens?: number };
  readonly toolConfig?: {
    readonly tools?: readonly {
      readonly toolSpec?: {
        readonly name?: string;
        readonly description?: string;
        readonly inputSchema?: { readonly json?: unknown };
      };
    }[];
    readonly toolChoice?: { readonly tool?: { readonly name?: string } };
  };
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
    };
  };
  readonly nextToken?: string;
}

/** A Retrieve call as the local endpoint received it, for test assertions. */
export interface RecordedRetrieveRequest {
  readonly knowledgeBaseId: string;
  readonly body: RetrieveWireRequest;
}
