import { monotonicFactory } from 'ulid';
import {
  questionTextAfter,
  searchKeyOf,
} from '../../functions/adapters/dynamodb/conversation-items.js';
import {
  ConversationNotFoundError,
  InvalidCursorError,
  TurnNotFoundError,
} from '../../functions/chat/errors.js';
import {
  openInquiryAfterAssistantTurn,
  placeSupersedingTurn,
  placeUserTurn,
  titleFromText,
} from '../../functions/chat/inquiry-rules.js';
import {
  type AppendResult,
  type ConversationStore,
  type ConversationSummary,
  type Owner,
  ownerKey,
  type Turn,
} from '../../functions/chat/ports.js';
import { KnowledgeAlreadyPublishedError } from '../../functions/knowledge/errors.js';
import { MailDraftFullError } from '../../functions/mail-draft/errors.js';

interface StoredConversation {
  summary: ConversationSummary;
  turns: Turn[];
  /** User turns whose answers were asked to stop. */
  stopped: Set<number>;
}

/**
 * The `ConversationStore` port in memory, for unit tests of the chat core without Java. The
 * conformance suite (test/support/conversation-store-conformance.ts) runs the same cases on it and
 * on the DynamoDB store, so it cannot drift. It keeps
 * the contract's observable rules — owner isolation (another owner's conversation is missing), a
 * version bumped by every change, turn numbers in commit order, idempotent `clientMessageId`s, the
 * inquiry rules of the core, `answering` and the generation lease, stops per answer, list paging and
 * search by the same search keys — but none of DynamoDB's concurrency, which the DynamoDB Local suites
 * cover. Every conversation and turn is copied in and out, so callers cannot mutate stored state.
 */
export function createInMemoryConversationStore(options: { now?: () => Date } = {}) {
  const now = options.now ?? (() => new Date());
  const conversations = new Map<string, StoredConversation>();
  // Generation claims by owner and clientMessageId, as the DynamoDB store keeps them on the marker.
  const claims = new Map<string, { holder: string; until: number }>();
  const claimKeyOf = (owner: Owner, clientMessageId: string) =>
    `${ownerKey(owner)}|${clientMessageId}`;
  // ULIDs like the DynamoDB store's (the routes accept no other id), later ones comparing greater.
  const newUlid = monotonicFactory();
  const newId = () => newUlid(now().getTime());
  const keyOf = (owner: Owner, conversationId: string) => `${ownerKey(owner)}|${conversationId}`;
  const find = (owner: Owner, conversationId: string): StoredConversation => {
    const found = conversations.get(keyOf(owner, conversationId));
    if (!found) throw new ConversationNotFoundError();
    return found;
  };
  const bump = (stored: StoredConversation, changes: Partial<ConversationSummary> = {}) => {
    stored.summary = {
      ...stored.summary,
      ...changes,
      version: stored.summary.version + 1,
      updatedAt: now().toISOString(),
    };
  };
  const append = (stored: StoredConversation, turn: Omit<Turn, 'seq' | 'createdAt'>): Turn => {
    const full: Turn = { ...turn, seq: stored.turns.length + 1, createdAt: now().toISOString() };
    stored.turns.push(full);
    return full;
  };
  const result = (stored: StoredConversation, turn: Turn, duplicate: boolean): AppendResult => ({
    conversation: structuredClone(stored.summary),
    turn: structuredClone(turn),
    duplicate,
  });

  const store: ConversationStore & {
    /** Every stored turn of a conversation, for assertions. */
    turnsOf(owner: Owner, conversationId: string): Turn[];
  } = {
    async appendUserTurn(owner, input) {
      if (input.clientMessageId !== undefined) {
        for (const [key, stored] of conversations) {
          if (!key.startsWith(`${ownerKey(owner)}|`)) continue;
          const earlier = stored.turns.find(
            (turn) => turn.role === 'user' && turn.clientMessageId === input.clientMessageId,
          );
          if (earlier) return result(stored, earlier, true);
        }
      }
      let stored: StoredConversation;
      if (input.conversationId === undefined) {
        const createdAt = now().toISOString();
        stored = {
          summary: {
            conversationId: newId(),
            title: titleFromText(input.text),
            createdAt,
            updatedAt: createdAt,
            version: 0,
            turnCount: 0,
          },
          turns: [],
          stopped: new Set(),
        };
        conversations.set(keyOf(owner, stored.summary.conversationId), stored);
      } else {
        stored = find(owner, input.conversationId);
      }
      const latestUser = stored.turns.findLast((turn) => turn.role === 'user');
      const placement: { kind: 'question' | 'option'; inquiryId: string; supersedes?: number } =
        input.supersedes === undefined
          ? placeUserTurn(stored.summary.openInquiryId, input.inquiry ?? 'continue', newId)
          : placeSupersedingTurn(
              latestUser && {
                seq: latestUser.seq,
                kind: latestUser.kind as 'question' | 'option',
                inquiryId: latestUser.inquiryId,
              },
              input.supersedes,
              stored.summary.answering,
              now(),
            );
      const turn = append(stored, {
        role: 'user',
        kind: placement.kind,
        inquiryId: placement.inquiryId,
        text: input.text,
        status: 'complete',
        ...(input.clientMessageId !== undefined ? { clientMessageId: input.clientMessageId } : {}),
        ...(placement.supersedes !== undefined ? { supersedes: placement.supersedes } : {}),
        ...(input.attachments?.length
          ? { attachments: structuredClone([...input.attachments]) }
          : {}),
      });
      if (input.clientMessageId !== undefined && input.generation) {
        claims.set(claimKeyOf(owner, input.clientMessageId), {
          holder: input.generation.holder,
          until: input.generation.until.getTime(),
        });
      }
      bump(stored, {
        turnCount: stored.turns.length,
        openInquiryId: undefined,
        latestInquiryId: placement.inquiryId,
        // Every turn that will be answered is marked, with or without a clientMessageId.
        ...(input.generation
          ? {
              answering: {
                seq: turn.seq,
                inquiryId: placement.inquiryId,
                until: input.generation.until.toISOString(),
              },
            }
          : {}),
      });
      return result(stored, turn, false);
    },

    async appendAssistantTurn(owner, input) {
      const stored = find(owner, input.conversationId);
      const turn = append(stored, {
        role: 'assistant',
        kind: input.kind,
        inquiryId: input.inquiryId,
        text: input.text,
        status: input.status,
        ...(input.result !== undefined ? { result: structuredClone(input.result) } : {}),
        ...(input.modelId ? { modelId: input.modelId } : {}),
        ...(input.usage ? { usage: structuredClone(input.usage) } : {}),
        ...(input.attachmentReading
          ? { attachmentReading: structuredClone(input.attachmentReading) }
          : {}),
        ...(input.notices ? { notices: structuredClone(input.notices) } : {}),
      });
      const { answering } = stored.summary;
      const answered =
        answering !== undefined &&
        (input.answersSeq === undefined
          ? answering.inquiryId === input.inquiryId
          : answering.seq === input.answersSeq);
      bump(stored, {
        turnCount: stored.turns.length,
        openInquiryId: openInquiryAfterAssistantTurn(stored.summary, input),
        ...(answered ? { answering: undefined } : {}),
      });
      return result(stored, turn, false);
    },

    async getConversation(owner, conversationId) {
      return structuredClone(find(owner, conversationId).summary);
    },

    async loadConversation(owner, conversationId) {
      const stored = find(owner, conversationId);
      return structuredClone({ conversation: stored.summary, turns: stored.turns });
    },

    async listConversations(owner, options = {}) {
      const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
      // The search keys and word rule of the DynamoDB store (searchKeyOf, questionTextAfter).
      const terms = [
        ...new Set(
          searchKeyOf(options.query ?? '')
            .split(' ')
            .filter(Boolean),
        ),
      ];
      const matches = (stored: StoredConversation) => {
        const questions = stored.turns
          .filter((turn) => turn.role === 'user')
          .reduce<string | undefined>(
            (text, turn) => questionTextAfter(text, turn.text),
            undefined,
          );
        const keys = `${searchKeyOf(stored.summary.title)}\n${questions ?? ''}`;
        return terms.every((term) => keys.includes(term));
      };
      // Newest activity first, as the DynamoDB store's index orders them.
      const ordered = [...conversations.entries()]
        .filter(([key, stored]) => key.startsWith(`${ownerKey(owner)}|`) && matches(stored))
        .map(([, stored]) => structuredClone(stored.summary))
        .sort(
          (a, b) =>
            b.updatedAt.localeCompare(a.updatedAt) ||
            b.conversationId.localeCompare(a.conversationId),
        );
      const start = after
        ? ordered.findIndex(
            (item) =>
              item.updatedAt < after[0] ||
              (item.updatedAt === after[0] && item.conversationId < after[1]),
          )
        : 0;
      const rest = start < 0 ? [] : ordered.slice(start);
      const limit = options.limit ?? 30;
      const items = rest.slice(0, limit);
      const last = items.at(-1);
      return {
        items,
        ...(rest.length > limit && last
          ? { nextCursor: encodeCursor([last.updatedAt, last.conversationId]) }
          : {}),
      };
    },

    async renameConversation(owner, conversationId, title) {
      const stored = find(owner, conversationId);
      // A version bump without moving `updatedAt` (the sidebar order), as the DynamoDB store does.
      stored.summary = { ...stored.summary, title, version: stored.summary.version + 1 };
      return structuredClone(stored.summary);
    },

    async recordFeedback(owner, conversationId, seq, feedback) {
      const stored = find(owner, conversationId);
      const turn = stored.turns.find((candidate) => candidate.seq === seq);
      if (turn?.kind !== 'answer') throw new TurnNotFoundError(seq);
      stored.turns[stored.turns.indexOf(turn)] = { ...turn, feedback: structuredClone(feedback) };
      // A version bump without moving `updatedAt`, as the DynamoDB store does.
      stored.summary = { ...stored.summary, version: stored.summary.version + 1 };
      return structuredClone(stored.summary);
    },

    async recordMailDraft(owner, conversationId, seq, change) {
      const stored = find(owner, conversationId);
      const turn = stored.turns.find((candidate) => candidate.seq === seq);
      if (turn?.kind !== 'answer') throw new TurnNotFoundError(seq);
      let changed: Turn;
      let versionNumber: number | undefined;
      if (change.kind === 'version') {
        const versions = turn.mailDraftVersions ?? [];
        if (versions.length >= change.maxVersions) throw new MailDraftFullError(change.maxVersions);
        changed = { ...turn, mailDraftVersions: [...versions, structuredClone(change.version)] };
        versionNumber = versions.length + 2;
      } else if (change.action === 'copy') {
        changed = { ...turn, mailDraftCopies: (turn.mailDraftCopies ?? 0) + 1 };
      } else {
        changed = { ...turn, mailDraftMailOpens: (turn.mailDraftMailOpens ?? 0) + 1 };
      }
      stored.turns[stored.turns.indexOf(turn)] = changed;
      // A version bump without moving `updatedAt`, as the DynamoDB store does.
      stored.summary = { ...stored.summary, version: stored.summary.version + 1 };
      return {
        ...structuredClone(stored.summary),
        ...(versionNumber === undefined ? {} : { versionNumber }),
      };
    },

    async recordPublishedKnowledge(owner, conversationId, published) {
      const stored = find(owner, conversationId);
      const existing = stored.summary.knowledge?.find(
        (candidate) => candidate.inquiryId === published.inquiryId,
      );
      if (existing) throw new KnowledgeAlreadyPublishedError(existing.issueId);
      stored.summary = {
        ...stored.summary,
        version: stored.summary.version + 1,
        knowledge: [...(stored.summary.knowledge ?? []), structuredClone(published)],
      };
      return structuredClone(stored.summary);
    },

    async deleteConversation(owner, conversationId) {
      find(owner, conversationId);
      conversations.delete(keyOf(owner, conversationId));
    },

    async requestStop(owner, conversationId, userSeq) {
      const stored = find(owner, conversationId);
      if (userSeq > stored.summary.turnCount) throw new TurnNotFoundError(userSeq, 'message');
      stored.stopped.add(userSeq);
    },

    async isStopRequested(owner, conversationId, userSeq) {
      return find(owner, conversationId).stopped.has(userSeq);
    },

    async claimGeneration(owner, clientMessageId, claim) {
      const key = claimKeyOf(owner, clientMessageId);
      const held = claims.get(key);
      if (held && held.until >= now().getTime()) return false;
      claims.set(key, { holder: claim.holder, until: claim.until.getTime() });
      return true;
    },

    async renewGeneration(owner, renewal) {
      const stored = find(owner, renewal.conversationId);
      const { answering } = stored.summary;
      // Control state, like the DynamoDB store's: the mark moves on without a version bump, and
      // only while it still names this turn.
      if (answering?.seq === renewal.userSeq && answering.until < renewal.until.toISOString()) {
        stored.summary = {
          ...stored.summary,
          answering: { ...answering, until: renewal.until.toISOString() },
        };
      }
      if (renewal.clientMessageId === undefined) return answering?.seq === renewal.userSeq;
      const key = claimKeyOf(owner, renewal.clientMessageId);
      if (claims.get(key)?.holder !== renewal.holder) return false;
      claims.set(key, { holder: renewal.holder, until: renewal.until.getTime() });
      return true;
    },

    async releaseGeneration(owner, clientMessageId, holder) {
      const key = claimKeyOf(owner, clientMessageId);
      if (claims.get(key)?.holder === holder) claims.delete(key);
    },

    turnsOf(owner, conversationId) {
      return structuredClone(find(owner, conversationId).turns);
    },
  };
  return store;
}

/** The fake's own opaque cursor: the last item's sort key. */
function encodeCursor(key: [updatedAt: string, conversationId: string]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** A cursor this store issued, or `InvalidCursorError` like the DynamoDB store's. */
function decodeCursor(cursor: string): [updatedAt: string, conversationId: string] {
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(key) &&
      key.length === 2 &&
      key.every((part) => typeof part === 'string' && part !== '')
    ) {
      return key as [string, string];
    }
  } catch {
    // Not base64url JSON: refused below, as any other foreign cursor.
  }
  throw new InvalidCursorError();
}
