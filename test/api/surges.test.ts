import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insightsSchema } from '../../functions/contract/insights.js';
import { knownIssueListSchema } from '../../functions/contract/surges.js';
import type { SurgeAlert } from '../../functions/surges/ports.js';
import {
  type ChatResponse,
  callApi,
  eventsNamed,
  fetchConversation,
  postChat,
} from '../support/chat-client.js';
import { type InProcessApiOnLocalServices, startInProcessApi } from '../support/in-process-api.js';

/**
 * Surges and known issues through the API (issue #53, ADR 0033), on the local stack's DynamoDB
 * Local and offline responder: the surge notice building across dev users, exact counts under
 * concurrent chats, a lead's known issue reaching the next matching answer and its e-mail draft
 * until it is closed, and the refusals that leave nothing written.
 */

const LEADS = ['lead', 'other-lead'];
const alerts: SurgeAlert[] = [];
let stack: InProcessApiOnLocalServices;
beforeAll(async () => {
  stack = await startInProcessApi({
    store: 'dynamodb',
    functionEnvironment: { SERVICE_DESK_LEADS: LEADS.join(',') },
    overrides: {
      surgeAlerts: { surgeStarted: async (alert) => void alerts.push(alert) },
      // The counts are the subject here: a loaded machine must not turn a notice into a timeout.
      timings: { surgeCheckTimeoutMs: 20_000 },
    },
  });
});
afterAll(() => stack?.stop());

const ask = (user: string, message: string) => postChat(stack.api, { message }, { user });
const surgeOf = (response: ChatResponse) => eventsNamed(response, 'surge')[0];
const knownIssuesOf = (response: ChatResponse) => eventsNamed(response, 'known_issue');
const resultOf = (response: ChatResponse) =>
  eventsNamed(response, 'result')[0] as { general_advice: string; mail_draft?: string };
const names = (response: ChatResponse) => response.events.map((event) => event.event);

const publish = (body: unknown, user = 'lead') =>
  callApi(stack.api, 'POST', '/api/known-issues', body, { user });
const listKnownIssues = async () =>
  knownIssueListSchema.parse(
    (await callApi(stack.api, 'GET', '/api/known-issues', undefined, { user: 'staff' })).json,
  ).knownIssues;

describe('a surge of one topic', () => {
  it('reaches the third asker with the counts of the window, never a printer inquiry', async () => {
    const first = await ask('alice', 'Outlookが起動しない');
    const second = await ask('bob', 'Outlookが開かない');
    expect(surgeOf(first)).toBeUndefined();
    expect(surgeOf(second)).toBeUndefined();
    // The same person again is one more inquiry, not one more staff member.
    const again = await ask('bob', 'Outlookがまだ開かない');
    expect(surgeOf(again)).toBeUndefined();

    // Counts include the current inquiry: the third staff member already sees the surge.
    const [third, printer] = await Promise.all([
      ask('carol', 'Outlook 起動でエラー'),
      ask('dave', 'プリンターで印刷できない'),
    ]);
    expect(surgeOf(third)).toMatchObject({ topic: 'outlook', inquiries: 4, staff: 3 });
    expect(surgeOf(printer)).toBeUndefined();
    // Before the answer's first token.
    const order = names(third);
    expect(order.indexOf('surge')).toBeLessThan(order.indexOf('token'));

    const fourth = await ask('erin', 'Outlookが起動しません');
    const notice = surgeOf(fourth);
    expect(notice).toMatchObject({ topic: 'outlook', inquiries: 5, staff: 4 });
    expect(Date.parse(String(notice?.since))).toBeLessThanOrEqual(Date.now());
    // One alert, when the third staff member made it a surge; never a user id or text.
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ topic: 'outlook', inquiries: 4, staff: 3 });
    expect(JSON.stringify(alerts)).not.toMatch(/alice|bob|carol|起動/);

    const insights = await callApi(stack.api, 'GET', '/api/insights', undefined, { user: 'lead' });
    const surge = insightsSchema.parse(insights.json).surges?.find((s) => s.topic === 'outlook');
    expect(surge).toMatchObject({ inquiries: 5, staff: 4 });
    expect(surge?.slices.reduce((sum, slice) => sum + slice.inquiries, 0)).toBe(5);
    expect(surge?.examples.length).toBeGreaterThan(0);
    expect(insights.text).not.toMatch(/alice|bob|carol|erin/);
  }, 60_000);

  it('counts 20 concurrent chats on one topic exactly', { timeout: 90_000 }, async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) => ask(`vpn-${index}`, 'VPNにつながらない')),
    );
    const counts = responses
      .map((response) => surgeOf(response)?.staff)
      .filter((staff): staff is number => staff !== undefined);
    // Each update saw the state its predecessor left: no two chats saw the same count.
    expect(new Set(counts).size).toBe(counts.length);
    expect(Math.max(...counts)).toBe(20);
    expect(alerts.filter((alert) => alert.topic === 'vpn')).toHaveLength(1);
    const insights = await callApi(stack.api, 'GET', '/api/insights', undefined, { user: 'lead' });
    const vpn = insightsSchema.parse(insights.json).surges?.find((s) => s.topic === 'vpn');
    expect(vpn).toMatchObject({ inquiries: 20, staff: 20 });
  });
});

describe('a known issue', () => {
  const outlookIssue = {
    title: 'Outlook が起動しない障害',
    note: 'Microsoft 365 の障害でOutlookが起動しません。復旧まで Outlook on the web をお使いください。',
    matches: ['Outlook'],
    workaround: 'ブラウザで https://outlook.office.com を開く',
    link: 'https://status.office.com',
  };

  it('reaches the next matching answer and its mail draft until closed, not a printer answer', async () => {
    const published = await publish(outlookIssue);
    expect(published.status).toBe(201);
    const { id } = published.json as { id: string };

    const outlookMessage = { message: 'Outlookが開かない', clientMessageId: 'frank-outlook-1' };
    const outlook = await postChat(stack.api, outlookMessage, { user: 'frank' });
    const [notice] = knownIssuesOf(outlook);
    expect(notice).toMatchObject({
      id,
      title: outlookIssue.title,
      note: outlookIssue.note,
      author: 'lead',
    });
    const order = names(outlook);
    expect(order.indexOf('known_issue')).toBeLessThan(order.indexOf('token'));
    const answer = resultOf(outlook);
    // The answer says so first; the draft uses the lead's wording.
    expect(answer.general_advice.split('\n')[0]).toContain(outlookIssue.title);
    expect(answer.mail_draft).toContain(outlookIssue.note);

    const printer = await ask('grace', 'プリンターで印刷できない');
    expect(knownIssuesOf(printer)).toEqual([]);
    expect(resultOf(printer).mail_draft).not.toContain(outlookIssue.note);

    expect((await listKnownIssues()).map((issue) => issue.id)).toContain(id);
    const closed = await callApi(stack.api, 'POST', `/api/known-issues/${id}/close`, undefined, {
      user: 'other-lead',
    });
    expect(closed.status).toBe(200);
    const twice = await callApi(stack.api, 'POST', `/api/known-issues/${id}/close`, undefined, {
      user: 'lead',
    });
    expect(twice.status).toBe(409);

    const after = await ask('frank', 'Outlookが起動しない');
    expect(knownIssuesOf(after)).toEqual([]);
    expect(resultOf(after).mail_draft).not.toContain(outlookIssue.note);
    expect((await listKnownIssues()).map((issue) => issue.id)).not.toContain(id);

    // The answer keeps the notices its stream showed: a reload gets both, the known issue as it
    // was then although it is closed now. The surge is the one the first case built, still
    // within its window.
    const surge = surgeOf(outlook);
    expect(surge).toMatchObject({ topic: 'outlook' });
    const { conversationId, userSeq } = eventsNamed(outlook, 'meta')[0] as {
      conversationId: string;
      userSeq: number;
    };
    const answerSeq = (eventsNamed(outlook, 'result')[0] as { seq: number }).seq;
    const stored = await fetchConversation(stack.api, conversationId, 'frank');
    expect(stored.turns.find((turn) => turn.seq === answerSeq)?.notices).toEqual({
      surge,
      knownIssues: [notice],
    });
    // A retry of the same message replays the stored answer with its notices, before its text.
    const retried = await postChat(stack.api, outlookMessage, { user: 'frank' });
    expect(surgeOf(retried)).toEqual(surge);
    expect(knownIssuesOf(retried)).toEqual([notice]);
    expect(names(retried).indexOf('known_issue')).toBeLessThan(names(retried).indexOf('token'));
    // A regenerate is a new answer with the notices of now: the closed issue is not among them.
    const regenerated = await postChat(
      stack.api,
      { conversationId, message: 'Outlookが開かない', supersedes: userSeq },
      { user: 'frank' },
    );
    expect(knownIssuesOf(regenerated)).toEqual([]);
    const newSeq = (eventsNamed(regenerated, 'result')[0] as { seq: number }).seq;
    const turns = (await fetchConversation(stack.api, conversationId, 'frank')).turns;
    const newNotices = turns.find((turn) => turn.seq === newSeq)?.notices;
    expect(newNotices?.knownIssues).toBeUndefined();
    expect(newNotices?.surge).toEqual(surgeOf(regenerated));
    expect(turns.find((turn) => turn.seq === answerSeq)?.notices?.knownIssues).toEqual([notice]);
  }, 60_000);

  it('lets two leads publish at once, each with an id of its own', async () => {
    const [a, b] = await Promise.all([
      publish({ title: 'VPN 障害', note: 'VPN が不安定です。', matches: ['VPN'] }, 'lead'),
      publish(
        { title: 'Teams 障害', note: 'Teams に入れません。', matches: ['Teams'] },
        'other-lead',
      ),
    ]);
    expect([a.status, b.status]).toEqual([201, 201]);
    const ids = [(a.json as { id: string }).id, (b.json as { id: string }).id];
    expect(new Set(ids).size).toBe(2);
    const listed = await listKnownIssues();
    expect(listed.filter((issue) => ids.includes(issue.id))).toHaveLength(2);
    for (const id of ids) {
      await callApi(stack.api, 'POST', `/api/known-issues/${id}/close`, undefined, {
        user: 'lead',
      });
    }
  });

  it.each([
    ['a non-lead', { title: 't', note: 'n', matches: ['x'] }, 'staff', 403, undefined],
    [
      'an end in the past',
      { title: 't', note: 'n', matches: ['x'], endsAt: '2020-01-01T00:00:00Z' },
      'lead',
      400,
      'endsAt',
    ],
    [
      'an end past seven days',
      {
        title: 't',
        note: 'n',
        matches: ['x'],
        endsAt: new Date(Date.now() + 8 * 86_400_000).toISOString(),
      },
      'lead',
      400,
      'endsAt',
    ],
    [
      'an over-long note',
      { title: 't', note: 'あ'.repeat(1001), matches: ['x'] },
      'lead',
      413,
      'note',
    ],
    [
      'a link outside the allowed domains',
      { title: 't', note: 'n', matches: ['x'], link: 'https://evil.example/x' },
      'lead',
      400,
      'link',
    ],
    [
      'a note linking outside them',
      { title: 't', note: '詳細は https://evil.example/x', matches: ['x'] },
      'lead',
      400,
      'note',
    ],
    [
      'an http link',
      { title: 't', note: 'n', matches: ['x'], link: 'http://status.office.com' },
      'lead',
      400,
      'link',
    ],
    ['no words to match', { title: 't', note: 'n', matches: [] }, 'lead', 400, 'matches'],
    [
      'an unknown field',
      { title: 't', note: 'n', matches: ['x'], severity: 'high' },
      'lead',
      400,
      undefined,
    ],
  ])('refuses %s with a clear 4xx and writes nothing', async (_name, body, user, status, field) => {
    const before = await listKnownIssues();
    const response = await publish(body, user);
    expect(response.status).toBe(status);
    const error = (response.json as { error: { field?: string; message: string } }).error;
    expect(error.message).not.toBe('');
    if (field) expect(error.field).toBe(field);
    expect(await listKnownIssues()).toEqual(before);
  });

  it('answers 404 to closing an issue that does not exist, and 403 to a non-lead', async () => {
    const missing = '01JZZZZZZZZZZZZZZZZZZZZZZZ';
    const notFound = await callApi(
      stack.api,
      'POST',
      `/api/known-issues/${missing}/close`,
      undefined,
      {
        user: 'lead',
      },
    );
    expect(notFound.status).toBe(404);
    const refused = await callApi(
      stack.api,
      'POST',
      `/api/known-issues/${missing}/close`,
      undefined,
      {
        user: 'staff',
      },
    );
    expect(refused.status).toBe(403);
  });
});
