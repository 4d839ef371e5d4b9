import type { ConversationSummary } from '../../chat/conversation-store.js';

/** A `Conversations` row as stored. */
export interface ConversationItem {
  readonly ownerId: string;
  readonly conversationId: string;
  readonly title: string;
  readonly createdAt: string;
  /** Last append (the sidebar order); a rename does not move it. */
  readonly updatedAt: string;
  readonly version: number;
  readonly turnCount: number;
  readonly openInquiryId?: string;
  /** ISO time of the last stop request; a control flag, not history, so it never bumps `version`. */
  readonly stopRequestedAt?: string;
  /** TTL, epoch seconds. */
  readonly expiresAt: number;
}

export function toConversationSummary(item: ConversationItem): ConversationSummary {
  return {
    conversationId: item.conversationId,
    title: item.title,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    version: item.version,
    turnCount: item.turnCount,
    ...(item.openInquiryId ? { openInquiryId: item.openInquiryId } : {}),
  };
}
