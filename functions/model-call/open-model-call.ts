import type { Log } from '../chat/log.js';
import type { ChatConfig, ChatModelRequest, ModelUsage, Owner } from '../chat/ports.js';
import {
  type DailyBudget,
  requestBound,
  reserveWithinBudget,
  tokensToCharge,
} from './daily-budget.js';
import type { ModelCallFailure } from './forced-tool.js';

/**
 * What every model call holds from admission to its end (ADR 0012): its deadline, and its
 * reservation of the caller's daily budget — taken before anything is written (a 429 over the
 * budget), resized once the request is built, and settled to what the call cost, or given back
 * when it never called the model. Chat and the three other streams open their call here; no
 * feature reserves, resizes or charges on its own.
 */

/** What opening a model call takes from the function (one per invocation's route context). */
export interface ModelCallContext {
  readonly config: Pick<ChatConfig, 'dailyTokenBudget' | 'remainingTimeReserveMs'>;
  /** The daily token budget; undefined (or a limit of 0): no budget. */
  readonly budget?: DailyBudget;
  readonly now: () => Date;
  /** Where a failed budget write is reported. */
  readonly log: Log;
}

/** What a call's cost is judged from once it ended. */
export interface EndedCall {
  readonly request: Omit<ChatModelRequest, 'signal'>;
  readonly usage?: ModelUsage;
  readonly failure?: Pick<ModelCallFailure, 'code'>;
  /** What the model wrote, as parsed (JSON-serializable); absent: nothing. */
  readonly output?: unknown;
}

/** One admitted model call. */
export interface ModelCall {
  /** Aborts at the invocation's deadline, less the reserve for storing and closing the stream. */
  readonly deadline: AbortSignal;
  /** The request is built: the reservation holds its bound instead of the admission's. */
  requestBuilt(request: Omit<ChatModelRequest, 'signal'>): void;
  /** The call ended: what it is charged (`tokensToCharge`), settled by {@link settle}. */
  ended(call: EndedCall): number;
  /** Ends the reservation at what `ended` charged, or nothing when it never called the model. */
  settle(): Promise<void>;
}

/**
 * A model call's deadline: the invocation's remaining time less the reserve for storing and
 * closing the stream, never less than a second (a call admitted this late still ends with an
 * event, not a hang).
 */
export function modelCallDeadline(
  remainingTimeMs: () => number,
  config: Pick<ChatConfig, 'remainingTimeReserveMs'>,
): AbortSignal {
  return AbortSignal.timeout(Math.max(1000, remainingTimeMs() - config.remainingTimeReserveMs));
}

/**
 * Admits a model call of at most `bound` tokens for `owner` (throws `DailyBudgetExceededError`
 * before any byte), with a deadline from the invocation's remaining time — or `deadline`, when
 * the caller set it already to start work under it while the budget is asked (chat's retrieval).
 */
export async function openModelCall(
  owner: Owner,
  call: {
    readonly bound: number;
    readonly remainingTimeMs: () => number;
    readonly deadline?: AbortSignal;
  },
  context: ModelCallContext,
): Promise<ModelCall> {
  const deadline = call.deadline ?? modelCallDeadline(call.remainingTimeMs, context.config);
  const reservation = await reserveWithinBudget(owner, context.now(), call.bound, context);
  let charged = 0;
  return {
    deadline,
    requestBuilt(request) {
      // Written beside the model call, not before it: the reservation serializes its writes.
      void reservation?.resize(requestBound(request));
    },
    ended(ended) {
      charged = tokensToCharge(ended);
      return charged;
    },
    settle: async () => {
      await reservation?.settle(charged);
    },
  };
}
