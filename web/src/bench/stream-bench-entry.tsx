import { useSyncExternalStore } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import type { ChatEvent } from '../../../functions/contract/chat-events.js';
import { MessageList } from '../components/message-list.js';
import { type ConversationView, emptyConversationView } from '../state/bubble.js';
import type { ConversationAction } from '../state/conversation-action.js';
import { conversationReducer } from '../state/conversation-reducer.js';
import { benchTickets, buildBenchMarkdown, splitIntoTokens } from './bench-answer.js';
import type { StreamBenchResult } from './stream-bench-result.js';

import '../styles/app.css';

/**
 * Benchmark page (bench/web/run.ts): streams a long answer through the real reducer and the real
 * bubble components at a fixed token rate, timing the main-thread work of every token.
 */

let view: ConversationView = emptyConversationView;
const listeners = new Set<() => void>();
const store = {
  subscribe: (listener: () => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  get: () => view,
  dispatch: (action: ConversationAction) => {
    view = conversationReducer(view, action);
    for (const listener of listeners) listener();
  },
};
const REQUEST = 'bench';
const send = (event: ChatEvent) =>
  flushSync(() => store.dispatch({ type: 'event', requestId: REQUEST, event }));

function Harness() {
  const current = useSyncExternalStore(store.subscribe, store.get);
  return (
    <div className="app">
      <div className="app__body">
        <main className="conversation-pane">
          <MessageList
            bubbles={current.bubbles}
            streaming={current.activeRequestId !== undefined}
            onSend={() => {}}
            onSupersede={() => {}}
            onNewInquiry={() => {}}
            onFeedback={async () => {}}
          />
        </main>
      </div>
    </div>
  );
}

const sleepUntil = (time: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.max(0, time - performance.now())));

async function runStreamBench(options: {
  bytes: number;
  tokensPerSecond: number;
}): Promise<StreamBenchResult> {
  const longTasksMs: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longTasksMs.push(entry.duration);
  });
  observer.observe({ type: 'longtask' });
  // Each run starts from an empty conversation (the runner may warm up first).
  flushSync(() => {
    view = emptyConversationView;
    for (const listener of listeners) listener();
  });
  const text = buildBenchMarkdown(options.bytes);
  const tokens = splitIntoTokens(text);
  const ticketAt = new Map(
    [0.3, 0.6, 0.9].map((at, index) => [Math.floor(tokens.length * at), index]),
  );

  flushSync(() =>
    store.dispatch({
      type: 'send',
      requestId: REQUEST,
      message: 'ログインできない',
      clientMessageId: 'bench-0001',
    }),
  );
  send({
    event: 'meta',
    data: {
      conversationId: 'BENCH',
      inquiryId: 'i1',
      version: 1,
      modelId: 'offline.service-desk-responder',
    },
  });
  for (const step of ['analyzing', 'retrieving', 'generating'] as const)
    send({ event: 'progress', data: { step } });

  const perTokenMs: number[] = [];
  const interval = 1000 / options.tokensPerSecond;
  const start = performance.now();
  for (const [index, content] of tokens.entries()) {
    await sleepUntil(start + index * interval);
    const before = performance.now();
    send({ event: 'token', data: { content } });
    void document.body.offsetHeight; // include the style and layout work this token caused
    perTokenMs.push(performance.now() - before);
    const ticket = ticketAt.get(index);
    if (ticket !== undefined && benchTickets[ticket])
      send({ event: 'ticket', data: benchTickets[ticket] });
  }
  send({
    event: 'result',
    data: {
      response_type: 'results',
      general_advice: text,
      results: benchTickets,
      source_chunks_count: benchTickets.length,
      conversationId: 'BENCH',
      version: 2,
      seq: 2,
      status: 'complete',
    },
  });
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 100)));
  observer.disconnect();
  const rendered = document.querySelector('.bubble__answer')?.textContent?.length ?? 0;
  return {
    tokens: tokens.length,
    bytes: new TextEncoder().encode(text).length,
    perTokenMs,
    longTasksMs,
    renderedTextLength: rendered,
  };
}

const container = document.getElementById('root');
if (container) createRoot(container).render(<Harness />);
(window as unknown as { runStreamBench: typeof runStreamBench }).runStreamBench = runStreamBench;
