import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callApi, eventsNamed, postChat } from '../support/chat-client.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';
import { scriptedAnswer, slowAnswer } from '../support/scripted-answer.js';

// What operators see once it runs (observability issue): the function's stdout carries one JSON
// line per request, one per finished chat, and one EMF metrics document per chat — the same lines
// CloudWatch Logs receives in AWS. The API runs in process (its Powertools Logger and Metrics
// write to this process's stdout), with the DynamoDB store and a local document bucket for the
// knowledge lines.

let chat: InProcessApi;
beforeAll(async () => {
  chat = await startInProcessApi({
    // Heartbeats every 40 ms, so even a quick chat carries some and the count can be checked.
    functionEnvironment: { LOG_LEVEL: 'INFO', METRICS: 'true' },
    overrides: { timings: { heartbeatMs: 40 } },
    store: 'dynamodb',
  });
});
afterAll(() => chat?.stop());

type LogLine = Record<string, unknown>;

/**
 * The JSON lines written to stdout while `action` runs, until `expected` names every line the
 * test reads (by `message`, or `'metrics'` for an EMF document): a chat's lines may follow its
 * response, so the capture waits for them instead of for a fixed time.
 */
async function stdoutLinesOf(
  action: () => Promise<unknown>,
  expected: readonly string[],
): Promise<LogLine[]> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    written.push(String(chunk));
    return true;
  });
  const lines = () =>
    written
      .join('')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as LogLine);
  try {
    await action();
    await vi.waitFor(() => {
      const names = lines().map((line) => (line._aws !== undefined ? 'metrics' : line.message));
      expect(names).toEqual(expect.arrayContaining([...expected]));
    });
  } finally {
    spy.mockRestore();
  }
  return lines();
}

describe('observability of the API', () => {
  it('logs the request and the chat as JSON without text or user id, and publishes the chat metrics', async () => {
    const user = 'observed-user';
    let conversationId = '';
    // Over a second of streaming, many heartbeat intervals: the offline responder alone can
    // finish on an idle machine before the first heartbeat, and the count below would be 0.
    chat.bedrock.enqueueScript(slowAnswer());
    const lines = await stdoutLinesOf(async () => {
      const response = await postChat(chat.api, { message: 'VPNにつながらない' }, { user });
      expect(eventsNamed(response, 'result')).toHaveLength(1);
      conversationId = eventsNamed(response, 'meta')[0]?.conversationId as string;
    }, ['request', 'chat finished', 'metrics']);

    const request = lines.find((line) => line.message === 'request');
    expect(request).toMatchObject({
      level: 'INFO',
      service: 'service-desk-api',
      method: 'POST',
      route: '/api/chat',
      status: 200,
      request_id: expect.any(String),
      owner_hash: expect.stringMatching(/^[0-9a-f]{16}$/),
      cold_start: expect.any(Boolean),
    });
    const chatLine = lines.find((line) => line.message === 'chat finished');
    expect(chatLine).toMatchObject({
      conversation_id: conversationId,
      outcome: 'complete',
      model_id: 'offline.service-desk-responder',
      owner_hash: request?.owner_hash,
      input_tokens: expect.any(Number),
      output_tokens: expect.any(Number),
      time_to_first_token_ms: expect.any(Number),
      retrieval_ms: expect.any(Number),
      estimated_cost_usd: 0,
      heartbeats_sent: expect.any(Number),
    });
    expect(chatLine?.heartbeats_sent).toBeGreaterThan(0);
    const everything = JSON.stringify(lines);
    expect(everything).not.toContain('VPNにつながらない');
    expect(everything).not.toContain(user);

    const emf = lines.find((line) => line._aws !== undefined) as
      | { _aws: { CloudWatchMetrics: { Namespace: string; Metrics: { Name: string }[] }[] } }
      | undefined;
    const directive = emf?._aws.CloudWatchMetrics[0];
    expect(directive?.Namespace).toBe('ServiceDeskAssistant');
    expect(directive?.Metrics.map((metric) => metric.Name)).toEqual(
      expect.arrayContaining([
        'ChatComplete',
        'TimeToFirstToken',
        'RetrievalLatency',
        'ModelLatency',
        'InputTokens',
        'OutputTokens',
        'EstimatedCostUSD',
        'TicketsCited',
        'HeartbeatsSent',
      ]),
    );
    expect(emf).toMatchObject({ service: 'service-desk-api', conversationId, ChatComplete: 1 });
  });

  it('counts the links outside the allow-list in the chat line and the metrics, never naming them', async () => {
    chat.bedrock.enqueueScript(
      scriptedAnswer({
        response_type: 'results',
        general_advice: 'A ticket says: reset at http://evil.example/reset-token-4711.',
        mail_draft: 'Reset at http://evil.example/reset-token-4711 or ask phish@evil.example.',
        results: [],
      }),
    );
    const lines = await stdoutLinesOf(async () => {
      const response = await postChat(
        chat.api,
        { message: 'パスワードをリセットしたい' },
        { user: 'observed-links' },
      );
      expect(eventsNamed(response, 'result')[0]?.unverified_links).toEqual([
        'http://evil.example/reset-token-4711',
        'phish@evil.example',
      ]);
    }, ['chat finished', 'metrics']);
    const chatLine = lines.find((line) => line.message === 'chat finished');
    expect(chatLine).toMatchObject({ outcome: 'complete', unverified_links: 2 });
    const emf = lines.find((line) => line._aws !== undefined);
    expect(emf).toMatchObject({ UnverifiedLinks: 2 });
    expect(JSON.stringify(lines)).not.toContain('evil.example');
  });

  it("stores the answer's tokens and timings with the turn (turns[].usage)", async () => {
    const response = await postChat(
      chat.api,
      { message: 'プリンターが動かない' },
      { user: 'usage' },
    );
    const conversationId = eventsNamed(response, 'meta')[0]?.conversationId as string;
    const stored = await callApi(
      chat.api,
      'GET',
      `/api/conversations/${conversationId}`,
      undefined,
      {
        user: 'usage',
      },
    );
    const turns = (stored.json as { turns: { role: string; usage?: Record<string, number> }[] })
      .turns;
    expect(turns[0]?.usage).toBeUndefined();
    expect(turns[1]?.usage).toEqual({
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
      timeToFirstTokenMs: expect.any(Number),
      retrievalMs: expect.any(Number),
      modelMs: expect.any(Number),
    });
    expect(turns[1]?.usage?.inputTokens).toBeGreaterThan(100);
  });

  it('logs a refused request with its status and code', async () => {
    const lines = await stdoutLinesOf(
      () =>
        callApi(chat.api, 'GET', '/api/conversations/01ARZ3NDEKTSV4RRFFQ69G5FAV', undefined, {
          user: 'nobody',
        }),
      ['request'],
    );
    expect(lines.find((line) => line.message === 'request')).toMatchObject({
      route: '/api/conversations/{id}',
      status: 404,
      error_code: 'not_found',
      conversation_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV',
    });
  });

  it('logs feedback with the tickets that solved the inquiry and counts the verdicts standing', async () => {
    const user = 'rater';
    const response = await postChat(
      chat.api,
      { message: 'プリンターの紙詰まりが直らない' },
      { user },
    );
    const conversationId = eventsNamed(response, 'meta')[0]?.conversationId as string;
    const result = eventsNamed(response, 'result')[0] as { results?: { issue_id: string }[] };
    const helpful = result.results?.[0]?.issue_id as string;
    const path = `/api/conversations/${conversationId}/turns/2/feedback`;
    const emfOf = (lines: Record<string, unknown>[]) =>
      lines.find((line) => line._aws !== undefined && 'FeedbackUp' in line);

    const up = await stdoutLinesOf(
      () =>
        callApi(chat.api, 'POST', path, { rating: 'up', helpfulTicketIds: [helpful] }, { user }),
      ['feedback', 'request', 'metrics'],
    );
    expect(up.find((line) => line.message === 'feedback')).toMatchObject({
      conversation_id: conversationId,
      owner_hash: expect.stringMatching(/^[0-9a-f]{16}$/),
      rating: 'up',
      helpful_ticket_ids: [helpful],
      has_comment: false,
    });
    expect(up.find((line) => line.message === 'request')).toMatchObject({
      route: '/api/conversations/{id}/turns/{seq}/feedback',
      status: 200,
    });
    expect(emfOf(up)).toMatchObject({ FeedbackUp: 1, FeedbackDown: 0, HelpfulTicketsMarked: 1 });

    // Changing the verdict moves it: the sums over both posts are one 👎 and no 👍.
    const down = await stdoutLinesOf(
      () =>
        callApi(
          chat.api,
          'POST',
          path,
          { rating: 'down', reason: 'wrong', comment: '秘密のメモ' },
          { user },
        ),
      ['feedback', 'metrics'],
    );
    expect(down.find((line) => line.message === 'feedback')).toMatchObject({
      rating: 'down',
      reason: 'wrong',
      previous_rating: 'up',
      has_comment: true,
    });
    expect(emfOf(down)).toMatchObject({ FeedbackUp: -1, FeedbackDown: 1, HelpfulTicketsMarked: 0 });
    expect(JSON.stringify(down)).not.toContain('秘密のメモ');
  });

  it('logs what staff did with a mail draft as counts, never its text, and counts each answer once', async () => {
    const user = 'mail-sender';
    const response = await postChat(chat.api, { message: 'Outlookでメールが送れない' }, { user });
    const conversationId = eventsNamed(response, 'meta')[0]?.conversationId as string;
    const path = `/api/conversations/${conversationId}/turns/2/mail-draft`;
    const emfOf = (lines: Record<string, unknown>[]) =>
      lines.find((line) => line._aws !== undefined && 'MailDraftEdits' in line);

    const edited = await stdoutLinesOf(
      () => callApi(chat.api, 'PUT', path, { text: '秘密の下書きです。' }, { user }),
      ['mail draft', 'metrics'],
    );
    expect(edited.find((line) => line.message === 'mail draft')).toMatchObject({
      conversation_id: conversationId,
      owner_hash: expect.stringMatching(/^[0-9a-f]{16}$/),
      seq: 2,
      action: 'edit',
      edits: 1,
      copies: 0,
    });
    expect(emfOf(edited)).toMatchObject({
      MailDraftEdits: 1,
      MailDraftCopies: 0,
      MailDraftAnswersChanged: 1,
      MailDraftAnswersAccepted: 0,
    });
    expect(JSON.stringify(edited)).not.toContain('秘密の下書き');

    const copied = await stdoutLinesOf(
      () => callApi(chat.api, 'POST', `${path}/actions`, { action: 'copy' }, { user }),
      ['mail draft', 'metrics'],
    );
    expect(emfOf(copied)).toMatchObject({ MailDraftCopies: 1, MailDraftAnswersAccepted: 1 });
    const again = await stdoutLinesOf(
      () => callApi(chat.api, 'POST', `${path}/actions`, { action: 'open_in_mail' }, { user }),
      ['mail draft', 'metrics'],
    );
    // The answer was accepted already: a second use is no second accepted answer.
    expect(emfOf(again)).toMatchObject({ MailDraftMailOpens: 1, MailDraftAnswersAccepted: 0 });

    const refined = await stdoutLinesOf(
      () => callApi(chat.api, 'POST', `${path}/refine`, { style: 'polite' }, { user }),
      ['mail draft', 'metrics'],
    );
    expect(refined.find((line) => line.message === 'mail draft')).toMatchObject({
      action: 'refine',
      style: 'polite',
      refinements: 1,
      input_tokens: expect.any(Number),
    });
    expect(emfOf(refined)).toMatchObject({
      MailDraftRefinements: 1,
      MailDraftRefineFailures: 0,
      MailDraftAnswersChanged: 0,
    });
    expect(JSON.stringify(refined)).not.toContain('秘密の下書き');
  });

  it('logs knowledge drafts and publications by id, never their text, and counts them', async () => {
    const user = 'knowledge-observer';
    const response = await postChat(chat.api, { message: 'VPNに接続できません' }, { user });
    const [meta] = eventsNamed(response, 'meta');
    const conversationId = meta?.conversationId as string;
    const inquiryId = meta?.inquiryId as string;
    const emfWith = (lines: Record<string, unknown>[], metric: string) =>
      lines.find((line) => line._aws !== undefined && metric in line);

    const drafted = await stdoutLinesOf(
      () =>
        callApi(
          chat.api,
          'POST',
          `/api/conversations/${conversationId}/inquiries/${inquiryId}/knowledge-draft`,
          {},
          { user },
        ),
      ['knowledge draft', 'metrics'],
    );
    expect(drafted.find((line) => line.message === 'knowledge draft')).toMatchObject({
      conversation_id: conversationId,
      inquiry_id: inquiryId,
      complete: true,
      output_tokens: expect.any(Number),
    });
    expect(emfWith(drafted, 'KnowledgeDraftsComplete')).toMatchObject({
      KnowledgeDraftsComplete: 1,
      KnowledgeDraftsIncomplete: 0,
    });

    const published = await stdoutLinesOf(
      () =>
        callApi(
          chat.api,
          'POST',
          '/api/knowledge',
          {
            conversationId,
            inquiryId,
            subject: '秘密の件名 VPN',
            category: 'VPN',
            inquiry: '秘密の問い合わせ',
            resolution: ['秘密の手順'],
            restricted: true,
          },
          { user },
        ),
      ['knowledge published', 'request', 'metrics'],
    );
    const line = published.find((entry) => entry.message === 'knowledge published');
    expect(line).toMatchObject({
      conversation_id: conversationId,
      issue_id: expect.stringMatching(/^\d+$/),
      category: 'VPN',
      restricted: true,
      ingestion: 'started',
    });
    expect(emfWith(published, 'KnowledgeTicketsPublished')).toMatchObject({
      KnowledgeTicketsPublished: 1,
      KnowledgeSyncPending: 0,
      issueId: line?.issue_id,
    });
    expect(published.find((entry) => entry.message === 'request')).toMatchObject({
      route: '/api/knowledge',
      status: 201,
    });
    expect(JSON.stringify([...drafted, ...published])).not.toContain('秘密');
  });
});
