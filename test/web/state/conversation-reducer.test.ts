import { describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../../functions/contract/chat-events.js';
import type { AssistantBubble, ConversationView } from '../../../web/src/state/bubble.js';
import { emptyConversationView } from '../../../web/src/state/bubble.js';
import type { ConversationAction } from '../../../web/src/state/conversation-action.js';
import { conversationReducer } from '../../../web/src/state/conversation-reducer.js';
import { answer, meta, result, ticket, ticket1, ticket2, token } from '../support/test-events.js';

type SendAction = Extract<ConversationAction, { type: 'send' }>;
const send = (requestId = 'r1', message = 'プリンターの設置依頼をしたい'): SendAction => ({
  type: 'send',
  requestId,
  message,
  clientMessageId: `cm-${requestId}`,
});
const event = (e: ChatEvent, requestId = 'r1'): ConversationAction => ({
  type: 'event',
  requestId,
  event: e,
});
const run = (actions: ConversationAction[], start: ConversationView = emptyConversationView) =>
  actions.reduce(conversationReducer, start);
const assistantOf = (view: ConversationView, index = -1) =>
  view.bubbles.at(index) as AssistantBubble;

describe('conversationReducer', () => {
  it('adds the user message and a waiting answer on send', () => {
    const view = run([send()]);
    expect(view.bubbles.map((b) => b.kind)).toEqual(['user', 'assistant']);
    expect(assistantOf(view)).toMatchObject({ status: 'streaming', text: '', steps: [] });
    expect(view.activeRequestId).toBe('r1');
  });

  it('shows the files sent with a question and keeps them for a retry', () => {
    const attachments = [
      { id: 'A1', type: 'image/png' as const, size: 1000, width: 800, height: 600 },
    ];
    const view = run([{ ...send('r1', ''), attachments }]);
    expect(view.bubbles[0]).toMatchObject({ kind: 'user', text: '', attachments });
    expect(assistantOf(view).request).toMatchObject({ message: '', attachments });
    // Without files the bubble carries none.
    expect(run([send()]).bubbles[0]).not.toHaveProperty('attachments');
  });

  it('records progress, the search query and the retrieved tickets', () => {
    const view = run([
      send(),
      event(meta()),
      event({ event: 'progress', data: { step: 'analyzing' } }),
      event({ event: 'progress', data: { step: 'retrieving' } }),
      event({ event: 'kb_query', data: { query: 'プリンター 設置' } }),
      event({
        event: 'kb_chunks',
        data: { chunks: [{ issue_id: '1001', subject: 's', score: 0.9, preview: 'p' }] },
      }),
    ]);
    expect(assistantOf(view)).toMatchObject({
      steps: ['analyzing', 'retrieving'],
      kbQuery: 'プリンター 設置',
      modelId: 'offline.service-desk-responder',
      inquiryId: 'inq-1',
    });
    expect(view.conversationId).toBe('C1');
    expect(view.bubbles[0]?.inquiryId).toBe('inq-1');
  });

  it('appends tokens and keeps a ticket that arrives mid-stream', () => {
    const view = run([
      send(),
      event(meta()),
      event(token('まず')),
      event(ticket()),
      event(token('再起動')),
    ]);
    expect(assistantOf(view)).toMatchObject({
      text: 'まず再起動',
      tickets: [ticket1],
      status: 'streaming',
    });
  });

  it('turns the streaming bubble into the result without losing its text', () => {
    const streamed = run([
      send(),
      event(meta()),
      event(token('まず再起動してください。')),
      event(ticket()),
    ]);
    const bubbleId = assistantOf(streamed).id;
    const done = conversationReducer(streamed, event(result({ general_advice: '' })));
    expect(assistantOf(done)).toMatchObject({
      id: bubbleId,
      status: 'complete',
      text: 'まず再起動してください。',
      tickets: [ticket1, ticket2],
      result: { mail_draft: answer.mail_draft },
    });
    expect(done.bubbles).toHaveLength(2);
    expect(done.activeRequestId).toBeUndefined();
    expect(done.version).toBe(3);
  });

  it('marks an error event as failed with the server error', () => {
    const error = { code: 'model_stream_failed', message: 'x', retryable: true } as const;
    const view = run([send(), event(token('途中')), event({ event: 'error', data: error })]);
    expect(assistantOf(view)).toMatchObject({ status: 'failed', error, text: '途中' });
    expect(view.activeRequestId).toBeUndefined();
  });

  it('shows a result stored as stopped or truncated plainly', () => {
    expect(assistantOf(run([send(), event(result({}, 'stopped'))])).status).toBe('stopped');
    expect(assistantOf(run([send(), event(result({}, 'truncated'))])).status).toBe('truncated');
  });

  it('marks an aborted stream as stopped and a cut one as failed', () => {
    expect(
      assistantOf(run([send(), { type: 'stream_ended', requestId: 'r1', stopped: true }])).status,
    ).toBe('stopped');
    const cut = assistantOf(
      run([send(), { type: 'stream_ended', requestId: 'r1', stopped: false }]),
    );
    expect(cut).toMatchObject({ status: 'failed', error: { code: 'stream_cut' } });
  });

  it('ignores late events of another request', () => {
    const view = run([send('r1'), event(result()), send('r2'), event(token('old'), 'r1')]);
    expect(assistantOf(view).text).toBe('');
    expect(assistantOf(view, 1).text).toBe(answer.general_advice);
  });

  it('retries with the same clientMessageId without a second user bubble', () => {
    const failed = run([
      send('r1'),
      {
        type: 'request_failed',
        requestId: 'r1',
        error: { code: 'internal', message: '', retryable: true, httpStatus: 500 },
      },
    ]);
    const retried = conversationReducer(failed, { ...send('r2'), clientMessageId: 'cm-r1' });
    expect(retried.bubbles.map((b) => b.kind)).toEqual(['user', 'assistant']);
    expect(assistantOf(retried)).toMatchObject({
      id: 'r2',
      status: 'streaming',
      request: { clientMessageId: 'cm-r1' },
    });
  });

  it('tags the retried user bubble with the inquiry from meta', () => {
    const failed = run([send('r1'), { type: 'stream_ended', requestId: 'r1', stopped: false }]);
    const view = run(
      [{ ...send('r2'), clientMessageId: 'cm-r1' }, event(meta('inq-9'), 'r2')],
      failed,
    );
    expect(view.bubbles[0]?.inquiryId).toBe('inq-9');
  });

  it('keeps unchanged bubbles identical so memoised views skip them', () => {
    const before = run([send('r1'), event(result()), send('r2')]);
    const after = conversationReducer(before, event(token('x'), 'r2'));
    expect(after.bubbles[0]).toBe(before.bubbles[0]);
    expect(after.bubbles[1]).toBe(before.bubbles[1]);
  });

  it('does not let a history snapshot overwrite a live stream', () => {
    const live = run([send(), event(token('live'))]);
    const detail = { conversationId: 'C1', title: 't', version: 9, turns: [] };
    expect(conversationReducer(live, { type: 'history', detail })).toBe(live);
  });

  it('learns the stored answer turn from result, and stores feedback on that answer only', () => {
    const answered = run([send('r1'), event(result()), send('r2'), event(result(), 'r2')]);
    expect(assistantOf(answered, 1).seq).toBe(2);
    // Both answers carry seq 2 in the test events; give the first its own number, as the server would.
    const first = { ...assistantOf(answered, 1), seq: 2 };
    const second = { ...assistantOf(answered, 3), seq: 4 };
    const view: ConversationView = {
      ...answered,
      bubbles: [
        answered.bubbles[0],
        first,
        answered.bubbles[2],
        second,
      ] as ConversationView['bubbles'],
    };
    const feedback = { rating: 'up' as const, helpfulTicketIds: ['1001'], updatedAt: 'T' };
    const rated = conversationReducer(view, { type: 'feedback', seq: 4, feedback, version: 7 });
    expect(assistantOf(rated, 3).feedback).toEqual(feedback);
    expect(rated.bubbles[1]).toBe(view.bubbles[1]);
    expect(rated.version).toBe(7);
    // A late reply to an older post cannot move the version back.
    const later = { ...rated, version: 9 };
    expect(
      conversationReducer(later, { type: 'feedback', seq: 2, feedback, version: 8 }).version,
    ).toBe(9);
    // Feedback for a turn this view does not show changes nothing.
    expect(conversationReducer(rated, { type: 'feedback', seq: 99, feedback, version: 10 })).toBe(
      rated,
    );
  });

  it('shows a published inquiry at once, once, until the reloaded conversation replaces it', () => {
    const published = {
      inquiryId: 'inq-1',
      issueId: '900001',
      subject: 'プリンター',
      restricted: false,
      publishedAt: '2026-12-01T10:00:00Z',
    };
    const view = conversationReducer(emptyConversationView, {
      type: 'published',
      knowledge: published,
    });
    expect(view.knowledge).toEqual([published]);
    // A second report of the same inquiry (a 201 racing a reload) adds nothing.
    expect(
      conversationReducer(view, {
        type: 'published',
        knowledge: { ...published, issueId: '900002' },
      }),
    ).toBe(view);
    const reloaded = conversationReducer(view, {
      type: 'history',
      detail: {
        conversationId: 'C1',
        title: 't',
        version: 5,
        turns: [],
        knowledge: [{ ...published, publishedAt: '2026-12-01T10:00:01Z' }],
      },
    });
    expect(reloaded.knowledge?.[0]?.publishedAt).toBe('2026-12-01T10:00:01Z');
  });
});
