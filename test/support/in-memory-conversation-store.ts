import {
  openInquiryAfterAssistantTurn,
  placeSupersedingTurn,
  placeUserTurn,
  titleFromText,
} from '../../functions/chat/inquiry-rules.js';
import {
  type AppendResult,
  ConversationNotFoundError,
  type ConversationStore,
  type ConversationSummary,
  KnowledgeAlreadyPublishedError,
  type Owner,
  ownerKey,
  type Turn,
  TurnNotFoundError,
} from '../../functions/chat/ports.js';

interface StoredConversation {
  summary: ConversationSummary;
  turns: Turn[];
  /** User turns whose answers were asked to stop. */
  stopped: Set<number>;
}

/**
 * The `ConversationStore` port in memory, for unit tests of the chat core without Java. It keeps
 * the contract's observable rules — owner isolation (another owner's conversation is missing), a
 * version bumped by every change, turn numbers in commit order, idempotent `clientMessageId`s, the
 * inquiry rules of the core, `answering` and the generation lease, stops per answer — but none of DynamoDB's concurrency, which the DynamoDB Local suites
 * cover. Every conversation and turn is copied in and out, so callers cannot mutate stored state.
 */
export function createInMemoryConversationStore(options: { now?: () => Date } = {}) {
  const now = options.now ?? (() => new Date());
  const conversations = new Map<string, StoredConversation>();
  // Generation claims by owner and clientMessageId, as the DynamoDB store keeps them on the marker.
  const claims = new Map<string, { holder: string; until: number }>();
  const claimKeyOf = (owner: Owner, clientMessageId: string) =>
    `${ownerKey(owner)}|${clientMessageId}`;
  let nextId = 0;
  // Sorted like ULIDs: later ids compare greater.
  // 26 characters of Crockford base32, like the ULIDs of the DynamoDB store, so the API's routes
  // (`[0-9A-HJKMNP-TV-Z]{26}`) accept them when a test drives the API in process.
  const newId = () => `01${String(++nextId).padStart(24, '0')}`;
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
      // Search is DynamoDB's filter over stored keys; its tests run against DynamoDB Local.
      if (options.query) throw new Error('the in-memory store does not search');
      const items = [...conversations.entries()]
        .filter(([key]) => key.startsWith(`${ownerKey(owner)}|`))
        .map(([, stored]) => structuredClone(stored.summary))
        .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
      return { items: items.slice(0, options.limit ?? 30) };
    },

    async renameConversation(owner, conversationId, title) {
      const stored = find(owner, conversationId);
      bump(stored, { title });
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
