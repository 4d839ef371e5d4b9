import type { AttachmentReading } from '../contract/attachments.js';
import type { ChatEvent } from '../contract/chat-events.js';
import type { AnswerNotices } from '../contract/surges.js';
import { ConversationNotFoundError, StoreUnavailableError } from './errors.js';
import type { GenerationOutcome } from './generate.js';
import { leaseFrom } from './generation-lease.js';
import type { Log } from './log.js';
import type {
  AppendResult,
  ChatConfig,
  ConversationStore,
  ConversationWithTurns,
  GenerationClaim,
  Owner,
  Turn,
  TurnUsage,
} from './ports.js';

/**
 * The end of a chat: recording the assistant turn and sending the final event, or — for a retried
 * message — replaying the answer already stored, waiting for the one still being generated, and
 * generating only when no copy of the request holds the message's generation claim.
 */

/**
 * The chat a turn is recorded or replayed for (`run-chat.ts`'s `BegunChat` is one): its owner,
 * the committed user turn and conversation, and the generation lease it asked for. Declared here
 * so this module does not import the pipeline that calls it.
 */
export interface RecordedChat extends Pick<AppendResult, 'conversation' | 'turn'> {
  readonly owner: Owner;
  readonly generation?: GenerationClaim;
}

/**
 * Stores the assistant turn — whatever happened, so a reload shows what staff saw — then ends the
 * stream: `result` on success (carrying the version after the write) or one `error` event.
 * Only a complete clarification keeps the inquiry open (the store applies the inquiry rules).
 * Returns the stored turn's seq, or undefined when it could not be stored.
 */
export async function recordAnswer(
  begun: RecordedChat,
  outcome: GenerationOutcome,
  store: ConversationStore,
  send: (event: ChatEvent) => void,
  modelId: string,
  usage: TurnUsage | undefined,
  log: Log,
  /** What the vision step read from the answered message's images (ADR 0030). */
  attachmentReading?: AttachmentReading,
  /** The surge notice and known issues the stream sent (ADR 0033): stored with the answer. */
  notices?: AnswerNotices,
): Promise<number | undefined> {
  const { answer, status } = outcome;
  const isResults = answer.response_type === 'results';
  try {
    const saved = await store.appendAssistantTurn(begun.owner, {
      conversationId: begun.conversation.conversationId,
      inquiryId: begun.turn.inquiryId,
      answersSeq: begun.turn.seq,
      kind: isResults ? 'answer' : 'clarification',
      text: answer.general_advice || answer.question || '',
      result: answer,
      status,
      modelId,
      ...(usage ? { usage } : {}),
      ...(attachmentReading ? { attachmentReading } : {}),
      ...(notices ? { notices } : {}),
    });
    if (status === 'failed') {
      send({
        event: 'error',
        data: outcome.failure ?? {
          code: 'internal',
          message: 'The answer failed.',
          retryable: true,
        },
      });
      return saved.turn.seq;
    }
    send({
      event: 'result',
      data: {
        ...answer,
        conversationId: begun.conversation.conversationId,
        version: saved.conversation.version,
        seq: saved.turn.seq,
        status,
      },
    });
    return saved.turn.seq;
  } catch (error) {
    log.error('could not record the assistant turn', { error });
    send({
      event: 'error',
      data:
        outcome.failure ??
        (error instanceof StoreUnavailableError
          ? storeUnavailableFailure
          : error instanceof ConversationNotFoundError
            ? {
                code: 'conversation_deleted',
                message: 'The conversation was deleted while this answer was being written.',
                retryable: false,
              }
            : {
                code: 'save_failed',
                message: 'The answer could not be saved. Please try again.',
                retryable: true,
              }),
    });
    return undefined;
  }
}

/** The `error` event of a retry whose question was regenerated or edited before it took over. */
const supersededFailure = {
  code: 'question_superseded',
  message:
    'This question was edited or regenerated meanwhile; its newer version is answered instead.',
  retryable: false,
} as const;

/** The `error` event of a stream whose store became unreachable after the first byte. */
export const storeUnavailableFailure = {
  code: 'store_unavailable',
  message: 'The conversation store is temporarily unavailable. Please try again shortly.',
  retryable: true,
} as const;

export type Attachment =
  /** The earlier copy's answer was replayed, or waiting ran out (an `error` event was sent). */
  | { readonly kind: 'settled'; readonly replayed: boolean }
  /** Nothing to replay and nobody generating: this request generates from `loaded`. */
  | {
      readonly kind: 'generate';
      readonly loaded: ConversationWithTurns;
      /** Until when the claim this request took over runs; absent: it holds no claim. */
      readonly claimedUntil?: Date;
    };

/**
 * A retried message (same `clientMessageId`) attaches to what its first copy does: a final answer
 * already stored is replayed; while another request holds the generation claim, it waits (polling
 * like the stop poller, with heartbeats on the stream) and replays that answer once recorded; only
 * when the claim is free — the first copy failed, or died and stopped renewing its lease — does
 * it take the claim and generate (unless a regenerate or edit replaced the question meanwhile).
 * So any number of retries cost one model call.
 */
export async function attachToEarlierCopy(
  begun: RecordedChat,
  send: (event: ChatEvent) => void,
  dependencies: {
    readonly store: ConversationStore;
    readonly config: ChatConfig;
    readonly remainingTimeMs: () => number;
    readonly now: () => Date;
  },
): Promise<Attachment> {
  const { store, config } = dependencies;
  const { owner, turn, generation } = begun;
  const { conversationId } = begun.conversation;
  const { clientMessageId } = turn;
  let waiting = false;
  for (;;) {
    const loaded = await store.loadConversation(owner, conversationId);
    if (replayStoredAnswer(loaded, turn, send)) return { kind: 'settled', replayed: true };
    if (clientMessageId === undefined || generation === undefined) {
      return { kind: 'generate', loaded };
    }
    // A fresh lease from now: the one asked for before the first byte may have lapsed while
    // this request waited.
    const claim = leaseFrom(
      dependencies.now(),
      config,
      dependencies.remainingTimeMs,
      generation.holder,
    );
    if (await store.claimGeneration(owner, clientMessageId, claim)) {
      // The turn is marked answering again at once (the dead holder's mark may have lapsed),
      // before the read below: a regenerate landing after this is refused, one landing before
      // is seen by the read.
      await store.renewGeneration(owner, {
        ...claim,
        conversationId,
        userSeq: turn.seq,
        clientMessageId,
      });
      // The holder records its answer before it releases the claim: read once more, so an answer
      // recorded between the read above and the claim is replayed rather than generated twice.
      const settled = await store.loadConversation(owner, conversationId);
      if (replayStoredAnswer(settled, turn, send)) {
        await store.releaseGeneration(owner, clientMessageId, generation.holder);
        return { kind: 'settled', replayed: true };
      }
      if (settled.turns.some((later) => later.supersedes === turn.seq)) {
        // A regenerate or edit replaced this question meanwhile: an answer to it now would be
        // taken for the new version's.
        await store.releaseGeneration(owner, clientMessageId, generation.holder);
        send({ event: 'error', data: supersededFailure });
        return { kind: 'settled', replayed: false };
      }
      return { kind: 'generate', loaded: settled, claimedUntil: claim.until };
    }
    if (!waiting) {
      send({ event: 'progress', data: { step: 'generating' } });
      waiting = true;
    }
    if (dependencies.remainingTimeMs() - config.remainingTimeReserveMs < config.stopPollMs) {
      send({
        event: 'error',
        data: {
          code: 'answer_in_progress',
          message: 'This message is still being answered. Try again in a moment to see the answer.',
          retryable: true,
        },
      });
      return { kind: 'settled', replayed: false };
    }
    await new Promise((resolve) => setTimeout(resolve, config.stopPollMs));
  }
}

/**
 * A retried POST (same clientMessageId) whose answer was already stored gets that answer again
 * instead of a second generation. Returns false when there is nothing final to replay.
 */
export function replayStoredAnswer(
  loaded: ConversationWithTurns,
  userTurn: Turn,
  send: (event: ChatEvent) => void,
): boolean {
  // The latest final answer of this inquiry after the retried turn: an earlier attempt may have
  // failed before a later one succeeded.
  const answer = loaded.turns
    .filter(
      (turn) =>
        turn.seq > userTurn.seq &&
        turn.role === 'assistant' &&
        turn.inquiryId === userTurn.inquiryId &&
        turn.result !== undefined &&
        FINAL.has(turn.status),
    )
    .at(-1);
  const result = answer?.result;
  if (!answer || !result) return false;
  // The notices the first copy's stream sent, before the text as they were then.
  const { surge, knownIssues = [] } = answer.notices ?? {};
  if (surge) send({ event: 'surge', data: surge });
  for (const issue of knownIssues) send({ event: 'known_issue', data: issue });
  if (result.general_advice) send({ event: 'token', data: { content: result.general_advice } });
  for (const ticket of result.results ?? []) send({ event: 'ticket', data: ticket });
  const { conversationId, version } = loaded.conversation;
  send({
    event: 'result',
    data: {
      ...result,
      conversationId,
      version,
      seq: answer.seq,
      status: answer.status as 'complete' | 'truncated' | 'stopped',
    },
  });
  return true;
}

const FINAL = new Set<Turn['status']>(['complete', 'truncated', 'stopped']);
