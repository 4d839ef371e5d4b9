import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../functions/contract/chat-events.js';
import { encodeChatEvent } from '../../../functions/sse/sse-encoding.js';
import { ApiError } from '../../../web/src/api/api-error.js';
import { createKnowledgeApi } from '../../../web/src/api/create-knowledge-api.js';
import { encodeUtf8, fakeFetch } from '../../support/fake-fetch.js';

const CONVERSATION = '01JDZQ7X5V3T6R8N2M4K9H1G0F';
const INQUIRY = '01JDZQ7X5V3T6R8N2M4K9H1G0G';

const json = (status: number, body: unknown) =>
  (async () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json' },
    })) as unknown as typeof fetch;

describe('createKnowledgeApi', () => {
  it('streams the draft of one inquiry from its knowledge-draft route', async () => {
    const events: StreamEvent[] = [
      { event: 'progress', data: { step: 'generating' } },
      { event: 'draft_text', data: { field: 'subject', content: 'VPN' } },
      { event: 'draft_step', data: { index: 0, text: '再起動' } },
    ];
    const { fetch, requests } = fakeFetch(
      events.map((event) => encodeUtf8(encodeChatEvent(event))),
    );
    const seen: StreamEvent[] = [];
    await createKnowledgeApi('/api', fetch).draft(CONVERSATION, INQUIRY, {
      signal: new AbortController().signal,
      onEvent: (event) => seen.push(event),
    });
    expect(seen).toEqual(events);
    expect(requests[0]?.url).toBe(
      `/api/conversations/${CONVERSATION}/inquiries/${INQUIRY}/knowledge-draft`,
    );
    expect(requests[0]?.init).toMatchObject({ method: 'POST', body: '{}' });
  });

  it('rejects a refused draft with the API error code, as every other route does', async () => {
    const fetch = json(409, { error: { code: 'inquiry_not_solved', message: 'not solved' } });
    const draft = createKnowledgeApi('/api', fetch).draft(CONVERSATION, INQUIRY, {
      signal: new AbortController().signal,
      onEvent: () => {},
    });
    await expect(draft).rejects.toBeInstanceOf(ApiError);
    await expect(draft).rejects.toMatchObject({ status: 409, code: 'inquiry_not_solved' });
  });

  it('carries the existing ticket number of a 409 already_published, from either route', async () => {
    const fetch = json(409, {
      error: { code: 'already_published', message: 'published as #900007', issueId: '900007' },
    });
    const api = createKnowledgeApi('/api', fetch);
    const draft = api.draft(CONVERSATION, INQUIRY, {
      signal: new AbortController().signal,
      onEvent: () => {},
    });
    await expect(draft).rejects.toMatchObject({ code: 'already_published', issueId: '900007' });
    const publish = api.publish({
      conversationId: CONVERSATION,
      inquiryId: INQUIRY,
      subject: 's',
      category: 'VPN',
      inquiry: 'i',
      resolution: ['r'],
      restricted: false,
      desk: 'all',
    });
    await expect(publish).rejects.toMatchObject({ code: 'already_published', issueId: '900007' });
  });

  it('rejects with the abort reason, not an API error, when staff cancel the draft', async () => {
    const { fetch } = fakeFetch([], { hold: true });
    const controller = new AbortController();
    const draft = createKnowledgeApi('/api', fetch).draft(CONVERSATION, INQUIRY, {
      signal: controller.signal,
      onEvent: () => {},
    });
    const reason = new Error('cancelled');
    controller.abort(reason);
    await expect(draft).rejects.toBe(reason);
  });

  it('publishes the ticket as JSON and reads the ticket number', async () => {
    const requests: { url: string; init?: RequestInit }[] = [];
    const fetchDouble = (async (url: string, init?: RequestInit) => {
      requests.push({ url, init });
      return new Response(
        JSON.stringify({
          issueId: '900001',
          ingestion: 'pending',
          unverifiedLinks: ['http://evil.example/reset'],
        }),
        { status: 201 },
      );
    }) as unknown as typeof fetch;
    const body = {
      conversationId: CONVERSATION,
      inquiryId: INQUIRY,
      subject: 'Quokka Badge Printer',
      category: 'Printer' as const,
      inquiry: 'カードが詰まる',
      resolution: ['電源を切る'],
      restricted: false,
      desk: 'all',
    };
    await expect(createKnowledgeApi('/api', fetchDouble).publish(body)).resolves.toEqual({
      issueId: '900001',
      ingestion: 'pending',
      unverifiedLinks: ['http://evil.example/reset'],
    });
    expect(requests[0]?.url).toBe('/api/knowledge');
    expect(requests[0]?.init?.method).toBe('POST');
    expect(JSON.parse(String(requests[0]?.init?.body))).toEqual(body);
  });

  it("keeps the server's field message of a refused publish", async () => {
    const fetch = json(400, {
      error: { code: 'bad_request', message: 'subject: must be one line', field: 'subject' },
    });
    const publish = createKnowledgeApi('/api', fetch).publish({
      conversationId: CONVERSATION,
      inquiryId: INQUIRY,
      subject: 'a\nb',
      category: 'VPN',
      inquiry: 'x',
      resolution: ['y'],
      restricted: false,
      desk: 'all',
    });
    await expect(publish).rejects.toMatchObject({
      status: 400,
      code: 'bad_request',
      message: 'subject: must be one line',
      field: 'subject',
    });
  });

  it('asks /me once for every caller of one client, and again after a failure', async () => {
    let calls = 0;
    const answers = [503, 200, 200];
    const countingFetch = (async () => {
      const status = answers[calls++] ?? 200;
      return new Response(
        JSON.stringify(
          status === 200
            ? { userId: 'lead', canPublishKnowledge: false, canViewInsights: true }
            : { error: { code: 'store_unavailable', message: 'down' } },
        ),
        { status, headers: { 'content-type': 'application/json' } },
      );
    }) as unknown as typeof globalThis.fetch;
    const api = createKnowledgeApi('/api', countingFetch);
    await expect(api.caller()).rejects.toMatchObject({ status: 503 });
    const [first, second] = await Promise.all([api.caller(), api.caller()]);
    expect(first).toEqual({ userId: 'lead', canPublishKnowledge: false, canViewInsights: true });
    expect(second).toBe(first);
    expect(calls).toBe(2);
  });

  it('reads whether the caller may publish from /me', async () => {
    const fetch = json(200, { userId: 'tanaka', canPublishKnowledge: true });
    await expect(createKnowledgeApi('/api', fetch).caller()).resolves.toEqual({
      userId: 'tanaka',
      canPublishKnowledge: true,
    });
  });
});
