import type { RetrievalFilter } from '@aws-sdk/client-bedrock-agent-runtime';

/**
 * What each Knowledge Base vector store allows a `Retrieve` call (ADR 0014), shared by the
 * retriever, the deploy settings (lib/config.ts) and the local Bedrock endpoint, which plays
 * the store it is told to.
 *
 * - `opensearch-serverless`: HYBRID or SEMANTIC, every filter operator.
 * - `s3-vectors`: SEMANTIC only; the filter operators S3 Vectors metadata filtering has
 *   ($eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $and, $or — the S3 user guide, "Metadata
 *   filtering"); `startsWith`, `stringContains` and `listContains` have no S3 Vectors form.
 * - `other` (a reused Knowledge Base on Aurora, Pinecone, …): SEMANTIC by default (HYBRID only
 *   where that store has a filterable text field: RDS and MongoDB do, so it may be asked for),
 *   every operator.
 */
export const VECTOR_STORES = ['opensearch-serverless', 's3-vectors', 'other'] as const;
export type VectorStore = (typeof VECTOR_STORES)[number];

/** HYBRID where the store supports it (OpenSearch Serverless), SEMANTIC on every other store. */
export function searchTypeOf(vectorStore: VectorStore): 'HYBRID' | 'SEMANTIC' {
  return vectorStore === 'opensearch-serverless' ? 'HYBRID' : 'SEMANTIC';
}

/** `RetrievalFilter` operators an S3 Vectors Knowledge Base accepts. */
export const S3_VECTORS_FILTER_OPERATORS: ReadonlySet<string> = new Set([
  'equals',
  'notEquals',
  'greaterThan',
  'greaterThanOrEquals',
  'lessThan',
  'lessThanOrEquals',
  'in',
  'notIn',
  'andAll',
  'orAll',
]);

/** The operators of `filter` (nested ones included) that `vectorStore` does not accept. */
export function unsupportedFilterOperators(
  filter: RetrievalFilter | undefined,
  vectorStore: VectorStore,
): string[] {
  if (filter === undefined || vectorStore !== 's3-vectors') return [];
  const unsupported = new Set<string>();
  const visit = (node: RetrievalFilter) => {
    for (const [operator, operand] of Object.entries(node)) {
      if (operand === undefined) continue;
      if (!S3_VECTORS_FILTER_OPERATORS.has(operator)) unsupported.add(operator);
      if (operator === 'andAll' || operator === 'orAll') {
        for (const child of operand as RetrievalFilter[]) visit(child);
      }
    }
  };
  visit(filter);
  return [...unsupported];
}

/** Why `searchType` cannot be used on `vectorStore`, or undefined when it can. */
export function searchTypeProblem(
  searchType: 'HYBRID' | 'SEMANTIC',
  vectorStore: VectorStore,
): string | undefined {
  return searchType === 'HYBRID' && vectorStore === 's3-vectors'
    ? 'HYBRID search needs a vector store with a filterable text field (OpenSearch Serverless); s3-vectors is semantic only (SEARCH_TYPE=SEMANTIC)'
    : undefined;
}
