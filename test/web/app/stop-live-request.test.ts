import { describe, expect, it } from 'vitest';
import type { ConversationApi } from '../../../web/src/api/create-conversation-api.js';
import type { LiveRequest } from '../../../web/src/app/start-live-request.js';
import { stopLiveRequest } from '../../../web/src/app/stop-live-request.js';

/** A live request whose stream ends once `end()` is called; `meta` already arrived. */
function liveRequest(userSeq: number | undefined) {
  let end!: () => void;
  const done = new Promise<void>((resolve) => {
    end = resolve;
  });
  const controller = new AbortController();
  controller.signal.addEventListener('abort', () => end());
  const live: LiveRequest = {
    controller,
    done,
    started: Promise.resolve(),
    conversationId: () => 'C1',
    userSeq: () => userSeq,
  };
  return { live, end };
}

describe('stopLiveRequest', () => {
  // Issue #24, item 6: a stop names the answer it stops, so it never reaches a later one.
  it('names the user turn of the answer it stops, then waits for the stream to end', async () => {
    const stops: [string, number][] = [];
    const { live, end } = liveRequest(3);
    const api = {
      stop: async (conversationId: string, userSeq: number) => {
        stops.push([conversationId, userSeq]);
        end();
      },
    } as unknown as ConversationApi;
    await stopLiveRequest(live, api);
    expect(stops).toEqual([['C1', 3]]);
    expect(live.controller.signal.aborted).toBe(true);
  });

  it('only aborts when the answer never said which turn it answers', async () => {
    const stops: unknown[] = [];
    const { live } = liveRequest(undefined);
    const api = {
      stop: async (...args: unknown[]) => stops.push(args),
    } as unknown as ConversationApi;
    await stopLiveRequest(live, api);
    expect(stops).toEqual([]);
    expect(live.controller.signal.aborted).toBe(true);
  });
});
