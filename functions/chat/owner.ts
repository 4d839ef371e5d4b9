/**
 * Who a conversation belongs to. Always derived from the verified identity (Cognito token, or the
 * dev header in local mode) — never from a request body.
 */
export interface Owner {
  readonly tenantId: string;
  readonly userId: string;
}

/** The partition key of an owner's conversations: `tenantId#userId`. */
export function ownerKey(owner: Owner): string {
  return `${owner.tenantId}#${owner.userId}`;
}
