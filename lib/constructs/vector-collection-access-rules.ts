/** Who may do what inside the vector collection (an OpenSearch Serverless data access policy). */
export interface VectorCollectionPrincipals {
  /** The Knowledge Base service role: reads and writes vectors. */
  readonly knowledgeBaseRole: string;
  /**
   * The stack's index custom resource (`Custom::OpenSearchVectorIndex`): creates, probes and
   * deletes the vector index. Its probe is a `_search` of size 0, hence ReadDocument.
   */
  readonly indexManager: string;
  /** Operators (and a configured deployment role): manage the index, never read documents. */
  readonly administrators: readonly string[];
}

/**
 * The data access policy document of the vector collection: grants on the same collection and
 * its indexes, differing only in principal and permissions (the administrators' only when there
 * are any: a rule needs at least one principal).
 */
export function vectorCollectionAccessRules(
  collectionNames: readonly string[],
  principals: VectorCollectionPrincipals,
) {
  const grant = (
    description: string,
    principal: readonly string[],
    collectionPermissions: readonly string[],
    indexPermissions: readonly string[],
  ) => ({
    Description: description,
    Rules: [
      {
        ResourceType: 'collection',
        Resource: collectionNames.map((name) => `collection/${name}`),
        Permission: collectionPermissions,
      },
      {
        ResourceType: 'index',
        Resource: collectionNames.map((name) => `index/${name}/*`),
        Permission: indexPermissions,
      },
    ],
    Principal: principal,
  });
  return [
    grant(
      'Bedrock Knowledge Base: read and write vectors',
      [principals.knowledgeBaseRole],
      ['aoss:DescribeCollectionItems', 'aoss:CreateCollectionItems', 'aoss:UpdateCollectionItems'],
      // The set the Bedrock guide lists for a Knowledge Base role.
      [
        'aoss:DescribeIndex',
        'aoss:ReadDocument',
        'aoss:WriteDocument',
        'aoss:UpdateIndex',
        'aoss:CreateIndex',
      ],
    ),
    grant(
      'Vector index custom resource: create the index, probe that it answers, delete it',
      [principals.indexManager],
      ['aoss:DescribeCollectionItems'],
      ['aoss:CreateIndex', 'aoss:DescribeIndex', 'aoss:DeleteIndex', 'aoss:ReadDocument'],
    ),
    ...(principals.administrators.length === 0
      ? []
      : [
          grant(
            'Operators: manage the vector index, no document access',
            principals.administrators,
            [
              'aoss:DescribeCollectionItems',
              'aoss:CreateCollectionItems',
              'aoss:UpdateCollectionItems',
              'aoss:DeleteCollectionItems',
            ],
            ['aoss:CreateIndex', 'aoss:DescribeIndex', 'aoss:UpdateIndex', 'aoss:DeleteIndex'],
          ),
        ]),
  ];
}
