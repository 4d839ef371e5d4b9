import { describe, expect, it } from 'vitest';
import type { AnswerFeedback } from '../../functions/contract/conversations.js';
import { insightsSchema } from '../../functions/contract/insights.js';
import type {
  ChatInsight,
  FeedbackInsight,
  InsightsScope,
  InsightsStore,
  MailDraftInsight,
} from '../../functions/insights/ports.js';

/**
 * The `InsightsStore` behaviours every implementation must show, as one suite run against each
 * (test/adapters/insights-store-conformance.test.ts): the DynamoDB store on DynamoDB Local and
 * the in-memory store of the in-process tests. Includes feedback racing on one answer: ADD
 * updates commute, so deltas that each name the verdict they replaced sum to the last verdict.
 * @example
 * describeInsightsStore('the in-memory store', async () => createInMemoryInsightsStore());
 */
export function describeInsightsStore(
  name: string,
  createStore: () => Promise<InsightsStore>,
): void {
  // Tenants unique per case: the DynamoDB table is shared by the cases of one file.
  const run = Math.random().toString(36).slice(2, 8);
  let tenants = 0;
  const newScope = (): InsightsScope => ({ tenantId: `${run}-tenant-${++tenants}` });
  const now = new Date('2026-12-02T09:30:00Z');
  const today = '2026-12-02';
  const daysAgo = (days: number) =>
    new Date(Date.parse(`${today}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
  let conversations = 0;
  const conversationId = () =>
    `01JCONV${run.toUpperCase()}${String(++conversations).padStart(6, '0')}`;

  const vpnTopic = {
    topicKey: 'network|vpn',
    category: 'network',
    terms: ['vpn', "can't connect"],
  };

  function chat(overrides: Partial<ChatInsight> = {}): ChatInsight {
    return {
      day: today,
      conversationId: conversationId(),
      answerSeq: 2,
      outcome: 'complete',
      timeToFirstTokenMs: 900,
      inputTokens: 1200,
      outputTokens: 300,
      estimatedCostUsd: 0.0081,
      citedIssueIds: ['INC-1'],
      retrievedIssueIds: ['INC-1', 'INC-2'],
      topic: vpnTopic,
      ...overrides,
    };
  }

  /** Where a gap example came from: kept for a lead's draft, never shown. */
  const exampleSource = { ownerUserId: 'tanaka.taro', inquiryId: '01JINQUIRY0000000000000001' };

  function gapChat(text: string, overrides: Partial<ChatInsight> = {}): ChatInsight {
    return chat({
      citedIssueIds: [],
      gap: {
        ...vpnTopic,
        reason: 'weak_retrieval',
        example: { text, ownerHash: 'owner-a', source: exampleSource },
      },
      ...overrides,
    });
  }

  const verdict = (
    rating: 'up' | 'down',
    at: number,
    extra: Partial<AnswerFeedback> = {},
  ): AnswerFeedback => ({
    rating,
    updatedAt: new Date(now.getTime() + at * 1000).toISOString(),
    ...extra,
  });

  function feedback(
    recorded: ChatInsight,
    next: AnswerFeedback,
    extra: Partial<FeedbackInsight> = {},
  ): FeedbackInsight {
    return {
      answerDay: recorded.day,
      conversationId: recorded.conversationId,
      answerSeq: recorded.answerSeq,
      next,
      citedIssueIds: recorded.citedIssueIds,
      inquiryText: 'VPNにつながらない',
      ownerHash: 'owner-a',
      ...extra,
    };
  }

  function draftAction(
    recorded: ChatInsight,
    action: MailDraftInsight['action'],
    at = 1,
  ): MailDraftInsight {
    return {
      answerDay: recorded.day,
      conversationId: recorded.conversationId,
      answerSeq: recorded.answerSeq,
      action,
      at: new Date(now.getTime() + at * 1000).toISOString(),
    };
  }

  describe(`InsightsStore conformance: ${name}`, () => {
    it('counts chats per day with every day of the window present, the empty ones as zeros', async () => {
      const store = await createStore();
      const scope = newScope();
      await store.recordChat(scope, chat());
      await store.recordChat(scope, chat({ outcome: 'clarification', citedIssueIds: [] }));
      await store.recordChat(scope, chat({ outcome: 'truncated' }));
      await store.recordChat(scope, chat({ outcome: 'failed', inputTokens: 0, outputTokens: 0 }));
      await store.recordChat(scope, chat({ day: daysAgo(3) }));
      await store.recordChat(scope, chat({ day: daysAgo(40) }));

      const body = insightsSchema.parse(await store.readInsights(scope, 30, now));
      expect(body.activity.perDay).toHaveLength(30);
      expect(body.activity.perDay[0]?.day).toBe(daysAgo(29));
      const last = body.activity.perDay.at(-1);
      expect(last).toMatchObject({
        day: today,
        chats: 4,
        answers: 2,
        clarifications: 1,
        truncated: 1,
        failed: 1,
        inputTokens: 3600,
        outputTokens: 900,
      });
      expect(last?.estimatedCostUsd).toBeCloseTo(0.0081 * 4, 6);
      expect(body.activity.perDay.find((day) => day.day === daysAgo(3))?.chats).toBe(1);
      expect(body.activity.perDay.find((day) => day.day === daysAgo(1))).toMatchObject({
        chats: 0,
        inputTokens: 0,
      });
      // The chat of 40 days ago is outside 30 days, inside 90.
      expect(body.activity.totals.chats).toBe(5);
      const ninety = await store.readInsights(scope, 90, now);
      expect(ninety.activity.perDay).toHaveLength(90);
      expect(ninety.activity.totals.chats).toBe(6);
    });

    it('reads time to first token p50/p95 as the upper bounds of the histogram buckets', async () => {
      const store = await createStore();
      const scope = newScope();
      for (const ms of [100, 200, 300, 400, 600, 700, 800, 900, 1400, 70_000]) {
        await store.recordChat(scope, chat({ timeToFirstTokenMs: ms }));
      }
      const { totals } = (await store.readInsights(scope, 30, now)).activity;
      expect(totals.timeToFirstTokenP50Ms).toBe(750);
      expect(totals.timeToFirstTokenP95Ms).toBe(60_000);
    });

    it('shows no cost for a day with a chat whose model has no price', async () => {
      const store = await createStore();
      const scope = newScope();
      await store.recordChat(scope, chat({ day: daysAgo(1) }));
      await store.recordChat(scope, chat({ estimatedCostUsd: undefined }));
      const body = await store.readInsights(scope, 30, now);
      expect(body.activity.perDay.at(-1)?.estimatedCostUsd).toBeUndefined();
      expect(body.activity.perDay.at(-2)?.estimatedCostUsd).toBeCloseTo(0.0081, 6);
      expect(body.activity.totals.estimatedCostUsd).toBeUndefined();
    });

    it('groups gaps by topic with reasons, trend and at most three examples per topic and day', async () => {
      const store = await createStore();
      const scope = newScope();
      for (const text of ['VPN 1', 'VPN 2', 'VPN 3', 'VPN 4'])
        await store.recordChat(scope, gapChat(text));
      await store.recordChat(
        scope,
        gapChat('VPN old', {
          day: daysAgo(20),
          gap: {
            ...vpnTopic,
            reason: 'no_ticket_cited',
            example: { text: 'VPN old', ownerHash: 'owner-b' },
          },
        }),
      );
      await store.recordChat(
        scope,
        chat({
          citedIssueIds: [],
          gap: {
            topicKey: 'mail|outlook',
            category: 'mail',
            terms: ['outlook'],
            reason: 'no_ticket_cited',
          },
        }),
      );
      const { gaps } = insightsSchema.parse(await store.readInsights(scope, 30, now));
      expect(gaps.map((gap) => [gap.topicKey, gap.count])).toEqual([
        ['network|vpn', 5],
        ['mail|outlook', 1],
      ]);
      const vpn = gaps[0];
      expect(vpn).toMatchObject({
        category: 'network',
        terms: ['vpn', "can't connect"],
        byReason: { weak_retrieval: 4, no_ticket_cited: 1, rated_down: 0 },
        trend: { earlier: 1, later: 4 },
      });
      // Three of today's four (the bound), and the older day's one; newest first.
      expect(vpn?.examples).toHaveLength(4);
      expect(vpn?.examples.filter((example) => example.day === today)).toHaveLength(3);
      expect(vpn?.examples.at(-1)).toEqual({
        text: 'VPN old',
        day: daysAgo(20),
        ownerHash: 'owner-b',
        solved: false,
      });
      expect(gaps[1]?.examples).toEqual([]);
    });

    it('applies a replaced verdict as a delta: up, then down with irrelevant_tickets, then up', async () => {
      const store = await createStore();
      const scope = newScope();
      const answer = chat({ citedIssueIds: ['INC-1', 'INC-2'] });
      await store.recordChat(scope, answer);
      const up = verdict('up', 1);
      const down = verdict('down', 2, { reason: 'irrelevant_tickets' });
      await store.recordFeedback(scope, feedback(answer, up));
      await store.recordFeedback(scope, feedback(answer, down));
      let body = await store.readInsights(scope, 30, now);
      expect(body.activity.totals).toMatchObject({ ratedUp: 0, ratedDown: 1 });
      expect(body.gaps).toMatchObject([
        { topicKey: 'network|vpn', count: 1, byReason: { rated_down: 1 } },
      ]);
      expect(body.helped.mostSolved.find((use) => use.issueId === 'INC-1')).toMatchObject({
        cited: 1,
        citedInDownRated: 1,
        solved: 0,
      });

      const solved = verdict('up', 3, { helpfulTicketIds: ['INC-2'] });
      await store.recordFeedback(scope, feedback(answer, solved));
      body = await store.readInsights(scope, 30, now);
      expect(body.activity.totals).toMatchObject({ ratedUp: 1, ratedDown: 0 });
      expect(body.gaps).toEqual([]);
      expect(body.helped.mostSolved[0]).toMatchObject({ issueId: 'INC-2', solved: 1, cited: 1 });
      expect(body.helped.mostSolved[1]).toMatchObject({ issueId: 'INC-1', citedInDownRated: 0 });
    });

    it('sums ten racing feedback posts on one answer to the last verdict', async () => {
      const store = await createStore();
      const scope = newScope();
      const answer = chat({ citedIssueIds: ['INC-7'] });
      await store.recordChat(scope, answer);
      // Ten verdicts posted at once: the store's own swap decides what each replaced, so the sum
      // is the newest one's.
      const verdicts = Array.from({ length: 10 }, (_, index) =>
        index % 3 === 0
          ? verdict('up', index + 1, { helpfulTicketIds: ['INC-7'] })
          : verdict('down', index + 1, { reason: index % 2 ? 'incomplete' : 'wrong' }),
      );
      await Promise.all(
        verdicts.map((next, _index) => store.recordFeedback(scope, feedback(answer, next))),
      );
      const last = verdicts.at(-1) as AnswerFeedback;
      expect(last).toMatchObject({ rating: 'up', helpfulTicketIds: ['INC-7'] });
      const body = await store.readInsights(scope, 30, now);
      expect(body.activity.totals).toMatchObject({ ratedUp: 1, ratedDown: 0 });
      expect(body.gaps).toEqual([]);
      expect(body.helped.mostSolved).toEqual([
        { issueId: 'INC-7', cited: 1, solved: 1, citedInDownRated: 0 },
      ]);
      expect(await store.listSolvedInquiries(scope)).toEqual([
        { text: 'VPNにつながらない', issueIds: ['INC-7'], day: today },
      ]);
    });

    it('counts a verdict sent twice once, and an older verdict arriving late not at all', async () => {
      const store = await createStore();
      const scope = newScope();
      const answer = chat();
      await store.recordChat(scope, answer);
      const older = verdict('up', 1);
      const newer = verdict('down', 2, { reason: 'incomplete' });
      await store.recordFeedback(scope, feedback(answer, newer));
      await store.recordFeedback(scope, feedback(answer, newer));
      await store.recordFeedback(scope, feedback(answer, older));
      const body = await store.readInsights(scope, 30, now);
      expect(body.activity.totals).toMatchObject({ ratedUp: 0, ratedDown: 1 });
      expect(body.gaps[0]).toMatchObject({ topicKey: 'network|vpn', byReason: { rated_down: 1 } });
    });

    it('counts an inquiry weak at chat time and rated 👎 with irrelevant_tickets once, with both reasons', async () => {
      const store = await createStore();
      const scope = newScope();
      const weak = gapChat('VPN weak');
      const answered = chat();
      await store.recordChat(scope, weak);
      await store.recordChat(scope, answered);
      const down = (at: number) => verdict('down', at, { reason: 'irrelevant_tickets' });
      await store.recordFeedback(scope, feedback(weak, down(1)));
      let [gap] = insightsSchema.parse(await store.readInsights(scope, 30, now)).gaps;
      expect(gap).toMatchObject({
        topicKey: 'network|vpn',
        count: 1,
        byReason: { weak_retrieval: 1, no_ticket_cited: 0, rated_down: 1 },
        trend: { earlier: 0, later: 1 },
      });
      // An answer the chat did not count becomes an inquiry of the gap with its 👎 …
      await store.recordFeedback(scope, feedback(answered, down(1)));
      [gap] = (await store.readInsights(scope, 30, now)).gaps;
      expect(gap).toMatchObject({ count: 2, byReason: { weak_retrieval: 1, rated_down: 2 } });
      // … and leaves it when a newer verdict takes the 👎 back; the weak one stays one inquiry.
      await store.recordFeedback(scope, feedback(answered, verdict('up', 2)));
      await store.recordFeedback(scope, feedback(weak, verdict('up', 2)));
      [gap] = (await store.readInsights(scope, 30, now)).gaps;
      expect(gap).toMatchObject({
        count: 1,
        byReason: { weak_retrieval: 1, rated_down: 0 },
        trend: { earlier: 0, later: 1 },
      });
    });

    it('ranks gaps by inquiries: two that cited nothing before one with two reasons', async () => {
      const store = await createStore();
      const scope = newScope();
      const weak = gapChat('VPN weak');
      await store.recordChat(scope, weak);
      await store.recordFeedback(
        scope,
        feedback(weak, verdict('down', 1, { reason: 'incomplete' })),
      );
      const printer = { topicKey: 'printer|toner', category: 'printer', terms: ['toner'] };
      for (let index = 0; index < 2; index += 1) {
        await store.recordChat(
          scope,
          chat({
            citedIssueIds: [],
            topic: printer,
            gap: { ...printer, reason: 'no_ticket_cited' },
          }),
        );
      }
      const { gaps } = insightsSchema.parse(await store.readInsights(scope, 30, now));
      expect(gaps.map((gap) => [gap.topicKey, gap.count])).toEqual([
        ['printer|toner', 2],
        ['network|vpn', 1],
      ]);
    });

    it('counts each inquiry once when ten racing feedback posts rate a weak and a plain answer', async () => {
      const store = await createStore();
      const scope = newScope();
      const weak = gapChat('VPN weak');
      const answered = chat();
      const settled = chat();
      for (const recorded of [weak, answered, settled]) await store.recordChat(scope, recorded);
      // 👎 with a gap reason, 👍, 👎 for another reason, in turn: the last (the tenth) is a gap 👎
      // for `weak` and `answered`, a 👍 for `settled` — which must end as no inquiry of the gap.
      const verdicts = Array.from({ length: 10 }, (_, index) =>
        index % 3 === 0
          ? verdict('down', index + 1, { reason: 'irrelevant_tickets' })
          : index % 3 === 1
            ? verdict('up', index + 1)
            : verdict('down', index + 1, { reason: 'wrong' }),
      );
      const settledVerdicts = verdicts.map((next, index) =>
        index === verdicts.length - 1 ? verdict('up', index + 1) : next,
      );
      await Promise.all([
        ...verdicts.map((next) => store.recordFeedback(scope, feedback(weak, next))),
        ...verdicts.map((next) => store.recordFeedback(scope, feedback(answered, next))),
        ...settledVerdicts.map((next) => store.recordFeedback(scope, feedback(settled, next))),
      ]);
      expect(verdicts.at(-1)).toMatchObject({ rating: 'down', reason: 'irrelevant_tickets' });
      const body = insightsSchema.parse(await store.readInsights(scope, 30, now));
      expect(body.activity.totals).toMatchObject({ ratedUp: 1, ratedDown: 2 });
      expect(body.gaps).toHaveLength(1);
      expect(body.gaps[0]).toMatchObject({
        topicKey: 'network|vpn',
        count: 2,
        byReason: { weak_retrieval: 1, no_ticket_cited: 0, rated_down: 2 },
        trend: { earlier: 0, later: 2 },
      });
    });

    it("shows a cited ticket's Knowledge Base subject in what helped, the newest one winning", async () => {
      const store = await createStore();
      const scope = newScope();
      const subjects = (subject: string) => ({ 'INC-9': subject });
      const older = chat({
        day: daysAgo(3),
        citedIssueIds: ['INC-9', 'INC-8'],
        citedSubjects: subjects('VPN 旧件名'),
      });
      const first = chat({ citedIssueIds: ['INC-9'], citedSubjects: subjects('VPN 接続') });
      const renamed = chat({ citedIssueIds: ['INC-9'], citedSubjects: subjects('VPN 再接続') });
      // Today's two in order, the older day's written last: today's newest still wins.
      await store.recordChat(scope, first);
      await store.recordChat(scope, renamed);
      await store.recordChat(scope, older);
      await store.recordChat(scope, chat({ citedIssueIds: ['INC-9'] }));
      for (const answer of [older, first, renamed]) {
        await store.recordFeedback(
          scope,
          feedback(answer, verdict('down', 1, { reason: 'wrong' })),
        );
      }
      const long = `${'長い件名'.repeat(60)}`;
      await store.recordChat(
        scope,
        chat({ citedIssueIds: ['INC-7'], citedSubjects: { 'INC-7': long } }),
      );
      const { helped } = insightsSchema.parse(await store.readInsights(scope, 30, now));
      expect(helped.citedButDownRated).toEqual([
        { issueId: 'INC-9', subject: 'VPN 再接続', cited: 4, solved: 0, citedInDownRated: 3 },
      ]);
      expect(helped.mostSolved.find((use) => use.issueId === 'INC-8')).toEqual({
        issueId: 'INC-8',
        cited: 1,
        solved: 0,
        citedInDownRated: 1,
      });
      const bounded = helped.mostSolved.find((use) => use.issueId === 'INC-7')?.subject ?? '';
      expect(Array.from(bounded)).toHaveLength(200);
      expect(bounded.endsWith('…')).toBe(true);
      expect(long.startsWith(bounded.slice(0, -1))).toBe(true);
    });

    it('keeps at most three examples of a topic and day when ten gap chats race', async () => {
      const store = await createStore();
      const scope = newScope();
      await Promise.all(
        Array.from({ length: 10 }, (_, index) => store.recordChat(scope, gapChat(`VPN ${index}`))),
      );
      const [gap] = (await store.readInsights(scope, 30, now)).gaps;
      expect(gap?.count).toBe(10);
      expect(gap?.examples).toHaveLength(3);
    });

    it('keeps a solved inquiry while a ticket is marked as the solution, and an older verdict never overwrites a newer one', async () => {
      const store = await createStore();
      const scope = newScope();
      const answer = chat();
      await store.recordChat(scope, answer);
      const solved = verdict('up', 1, { helpfulTicketIds: ['INC-1'] });
      await store.recordFeedback(scope, feedback(answer, solved));
      expect(await store.listSolvedInquiries(scope)).toHaveLength(1);
      const plain = verdict('up', 2);
      await store.recordFeedback(scope, feedback(answer, plain));
      expect(await store.listSolvedInquiries(scope)).toEqual([]);
      // The first write arriving again late (a retry): still not solved.
      await store.recordFeedback(scope, feedback(answer, solved));
      expect(await store.listSolvedInquiries(scope)).toEqual([]);
    });

    it('marks a gap example solved and offers its inquiry to draft from', async () => {
      const store = await createStore();
      const scope = newScope();
      const answer = gapChat('VPNにつながらない');
      await store.recordChat(scope, { ...answer, citedIssueIds: ['INC-1'] });
      await store.recordFeedback(
        scope,
        feedback(answer, verdict('up', 1, { helpfulTicketIds: ['INC-1'] })),
      );
      const [gap] = (await store.readInsights(scope, 30, now)).gaps;
      expect(gap?.examples).toEqual([
        { text: 'VPNにつながらない', day: today, ownerHash: 'owner-a', solved: true },
      ]);
      // An opaque id: nothing of the owner's conversation (its id, the time its ULID carries).
      expect(gap?.draftFrom?.exampleId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(JSON.stringify(gap)).not.toContain(answer.conversationId);

      // A newer verdict without a solution unmarks it; the solved one arriving again late does not
      // mark it again.
      const solved = verdict('up', 1, { helpfulTicketIds: ['INC-1'] });
      await store.recordFeedback(scope, feedback(answer, verdict('up', 2)));
      await store.recordFeedback(scope, feedback(answer, solved));
      const [after] = (await store.readInsights(scope, 30, now)).gaps;
      expect(after?.examples.map((example) => example.solved)).toEqual([false]);
      expect(after?.draftFrom).toBeUndefined();
    });

    it('finds a gap example by its opaque id, solved as its latest verdict says, for a lead’s draft only', async () => {
      const store = await createStore();
      const scope = newScope();
      const answer = gapChat('VPNにつながらない');
      const origin = { conversationId: answer.conversationId, answerSeq: answer.answerSeq };
      await store.recordChat(scope, answer);
      // Not solved: no draft offered, so no id on the page.
      expect((await store.readInsights(scope, 30, now)).gaps[0]?.draftFrom).toBeUndefined();
      await store.recordFeedback(
        scope,
        feedback(answer, verdict('up', 1, { helpfulTicketIds: ['INC-1'] })),
      );
      const exampleId = (await store.readInsights(scope, 30, now)).gaps[0]?.draftFrom?.exampleId;
      expect(exampleId).toMatch(/^[A-Za-z0-9_-]{22}$/);
      const named = exampleId ?? '';
      expect(await store.findGapExample(scope, named)).toEqual({
        ...origin,
        ...exampleSource,
        solved: true,
      });
      // The page's body names the example by id but never its owner, inquiry or conversation.
      const body = JSON.stringify(await store.readInsights(scope, 30, now));
      expect(body).toContain(named);
      expect(body).not.toContain(answer.conversationId);
      expect(body).not.toContain(exampleSource.ownerUserId);
      expect(body).not.toContain(exampleSource.inquiryId);
      // Another tenant, an id of the same form naming nothing: nothing.
      expect(await store.findGapExample(newScope(), named)).toBeUndefined();
      expect(await store.findGapExample(scope, 'A'.repeat(22))).toBeUndefined();
      // Taken back: still found, no longer solved.
      await store.recordFeedback(scope, feedback(answer, verdict('up', 2)));
      expect((await store.findGapExample(scope, named))?.solved).toBe(false);
      // Forgotten with its conversation (the delete route, the retention sweeper): gone.
      await store.forgetConversation(scope, answer.conversationId);
      expect(await store.findGapExample(scope, named)).toBeUndefined();
    });

    it('gives each gap example its own id', async () => {
      const store = await createStore();
      const scope = newScope();
      const answers = [gapChat('VPN 1'), gapChat('VPN 2')];
      const ids: (string | undefined)[] = [];
      for (const answer of answers) {
        await store.recordChat(scope, { ...answer, citedIssueIds: ['INC-1'] });
        await store.recordFeedback(
          scope,
          feedback(answer, verdict('up', 1, { helpfulTicketIds: ['INC-1'] })),
        );
        ids.push((await store.readInsights(scope, 30, now)).gaps[0]?.draftFrom?.exampleId);
      }
      expect(new Set(ids).size).toBe(2);
      const found = await Promise.all(ids.map((id) => store.findGapExample(scope, id ?? '')));
      expect(found.map((origin) => origin?.conversationId)).toEqual(
        answers.map((answer) => answer.conversationId),
      );
    });

    it('offers no draft from a solved example stored without its source', async () => {
      const store = await createStore();
      const scope = newScope();
      const answer = chat({
        citedIssueIds: [],
        gap: {
          ...vpnTopic,
          reason: 'weak_retrieval',
          example: { text: 'VPN older row', ownerHash: 'owner-a' },
        },
      });
      await store.recordChat(scope, answer);
      await store.recordFeedback(
        scope,
        feedback(answer, verdict('up', 1, { helpfulTicketIds: ['INC-1'] })),
      );
      const [gap] = (await store.readInsights(scope, 30, now)).gaps;
      expect(gap?.examples.map((example) => example.solved)).toEqual([true]);
      expect(gap?.draftFrom).toBeUndefined();
    });

    it('forgets a conversation: its examples and solved inquiries go, the counts stay', async () => {
      const store = await createStore();
      const scope = newScope();
      const forgotten = gapChat('forget me');
      const kept = gapChat('keep me');
      await store.recordChat(scope, forgotten);
      await store.recordChat(scope, kept);
      await store.recordFeedback(
        scope,
        feedback(forgotten, verdict('up', 1, { helpfulTicketIds: ['INC-1'] })),
      );
      await store.forgetConversation(scope, forgotten.conversationId);
      const body = await store.readInsights(scope, 30, now);
      expect(body.gaps[0]?.count).toBe(2);
      expect(body.gaps[0]?.examples.map((example) => example.text)).toEqual(['keep me']);
      expect(body.gaps[0]?.draftFrom).toBeUndefined();
      expect(body.activity.totals.ratedUp).toBe(1);
      expect(await store.listSolvedInquiries(scope)).toEqual([]);
    });

    it('lists tickets cited twice or more with a 👎 share of at least half as candidates to rewrite', async () => {
      const store = await createStore();
      const scope = newScope();
      const answers = [
        chat({ citedIssueIds: ['INC-9'] }),
        chat({ citedIssueIds: ['INC-9'] }),
        chat({ citedIssueIds: ['INC-8'] }),
      ];
      for (const answer of answers) await store.recordChat(scope, answer);
      for (const answer of [answers[0], answers[2]] as ChatInsight[]) {
        await store.recordFeedback(
          scope,
          feedback(answer, verdict('down', 1, { reason: 'wrong' })),
        );
      }
      const { citedButDownRated } = (await store.readInsights(scope, 30, now)).helped;
      expect(citedButDownRated).toEqual([
        { issueId: 'INC-9', cited: 2, solved: 0, citedInDownRated: 1 },
      ]);
    });

    it('counts tickets retrieved before but not in the last 90 days, without a total it cannot know', async () => {
      const store = await createStore();
      const scope = newScope();
      await store.recordChat(
        scope,
        chat({
          day: daysAgo(120),
          retrievedIssueIds: ['INC-1', 'INC-3', 'INC-4'],
          citedIssueIds: ['INC-5'],
        }),
      );
      await store.recordChat(
        scope,
        chat({ day: daysAgo(10), retrievedIssueIds: ['INC-1'], citedIssueIds: [] }),
      );
      const { neverRetrieved } = (await store.readInsights(scope, 30, now)).helped;
      expect(neverRetrieved).toEqual({ count: 3, sample: ['INC-3', 'INC-4', 'INC-5'] });
    });

    it('counts the listed catalog less the tickets retrieved in 90 days, out of the catalog', async () => {
      const store = await createStore();
      const scope = newScope();
      await store.recordChat(
        scope,
        chat({ day: daysAgo(120), retrievedIssueIds: ['INC-3'], citedIssueIds: [] }),
      );
      await store.recordChat(
        scope,
        chat({ day: daysAgo(10), retrievedIssueIds: ['INC-1', 'INC-9'], citedIssueIds: [] }),
      );
      const catalog = ['INC-4', 'INC-3', 'INC-2', 'INC-1'];
      const { neverRetrieved } = (await store.readInsights(scope, 30, now, { catalog })).helped;
      expect(neverRetrieved).toEqual({ count: 3, total: 4, sample: ['INC-2', 'INC-3', 'INC-4'] });
    });

    it('sums knowledge capture per window and keeps the latest eval run', async () => {
      const store = await createStore();
      const scope = newScope();
      for (const kind of ['draft', 'draft', 'published', 'sync_waited'] as const) {
        await store.recordCapture(scope, { day: today, kind });
      }
      await store.recordCapture(scope, { day: daysAgo(45), kind: 'draft' });
      const run = {
        ranAt: now.toISOString(),
        target: 'local' as const,
        queries: 12,
        recallAt1: 0.5,
        recallAt3: 0.75,
        recallAt8: 0.9,
        mrr: 0.62,
      };
      await store.recordEvaluationRun(scope, { ...run, queries: 3 });
      await store.recordEvaluationRun(scope, run);
      const body = await store.readInsights(scope, 30, now);
      expect(body.capture).toEqual({ drafts: 2, published: 1, syncsWaited: 1 });
      expect(body.evaluation).toEqual(run);
      expect((await store.readInsights(scope, 90, now)).capture.drafts).toBe(3);
    });

    it("counts an answer's draft accepted at its first copy or open and changed at its first edit or refinement", async () => {
      const store = await createStore();
      const scope = newScope();
      const copied = chat({ hasMailDraft: true });
      const editedThenOpened = chat({ hasMailDraft: true });
      const editedOnly = chat({ hasMailDraft: true });
      const unused = chat({ hasMailDraft: true, day: daysAgo(1) });
      const noDraft = chat({ hasMailDraft: false });
      for (const recorded of [copied, editedThenOpened, editedOnly, unused, noDraft]) {
        await store.recordChat(scope, recorded);
      }
      await store.recordMailDraft(scope, draftAction(copied, 'copy', 1));
      await store.recordMailDraft(scope, draftAction(copied, 'copy', 2));
      await store.recordMailDraft(scope, draftAction(copied, 'open_in_mail', 3));
      await store.recordMailDraft(scope, draftAction(editedThenOpened, 'edit', 1));
      await store.recordMailDraft(scope, draftAction(editedThenOpened, 'refine', 2));
      await store.recordMailDraft(scope, draftAction(editedThenOpened, 'open_in_mail', 3));
      await store.recordMailDraft(scope, draftAction(editedOnly, 'refine', 1));
      // An answer counted without a draft: the action counts, the answer is no accepted one.
      await store.recordMailDraft(scope, draftAction(noDraft, 'copy', 1));

      const { replies } = insightsSchema.parse(await store.readInsights(scope, 30, now));
      expect(replies.perDay).toHaveLength(30);
      expect(replies.perDay.at(-1)).toEqual({
        day: today,
        answersWithDraft: 3,
        accepted: 2,
        changed: 2,
        acceptedChanged: 1,
        copies: 3,
        mailOpens: 2,
        edits: 1,
        refinements: 2,
        acceptanceRate: 2 / 3,
        editRate: 0.5,
      });
      expect(replies.perDay.at(-2)).toMatchObject({ answersWithDraft: 1, accepted: 0 });
      expect(replies.perDay.at(-2)?.acceptanceRate).toBe(0);
      expect(replies.perDay.at(-2)).not.toHaveProperty('editRate');
      expect(replies.totals).toMatchObject({
        answersWithDraft: 4,
        accepted: 2,
        acceptanceRate: 0.5,
      });
    });

    it('counts the actions on an answer to the day the answer was counted on', async () => {
      const store = await createStore();
      const scope = newScope();
      const yesterday = chat({ hasMailDraft: true, day: daysAgo(1) });
      await store.recordChat(scope, yesterday);
      // The turn's createdAt day may differ from the chat's day near midnight: the chat's wins.
      await store.recordMailDraft(scope, { ...draftAction(yesterday, 'copy'), answerDay: today });
      const { replies } = await store.readInsights(scope, 30, now);
      expect(replies.perDay.at(-2)).toMatchObject({ answersWithDraft: 1, accepted: 1, copies: 1 });
      expect(replies.perDay.at(-1)).toMatchObject({ accepted: 0, copies: 0 });
    });

    it('counts one accepted and one changed answer when two tabs copy, open and edit one draft at once', async () => {
      const store = await createStore();
      const scope = newScope();
      const answer = chat({ hasMailDraft: true });
      await store.recordChat(scope, answer);
      const actions: MailDraftInsight['action'][] = [
        'copy',
        'copy',
        'open_in_mail',
        'edit',
        'refine',
        'copy',
        'open_in_mail',
        'edit',
        'copy',
        'refine',
      ];
      await Promise.all(
        actions.map((action, index) =>
          store.recordMailDraft(scope, draftAction(answer, action, index)),
        ),
      );
      const { totals } = (await store.readInsights(scope, 30, now)).replies;
      expect(totals).toMatchObject({
        answersWithDraft: 1,
        accepted: 1,
        changed: 1,
        acceptedChanged: 1,
        copies: 4,
        mailOpens: 2,
        edits: 2,
        refinements: 2,
        acceptanceRate: 1,
        editRate: 1,
      });
    });

    it("keeps tenants apart: one tenant's events never show in another's insights", async () => {
      const store = await createStore();
      const scope = newScope();
      const other = newScope();
      const mine = gapChat('only mine', { hasMailDraft: true });
      await store.recordChat(scope, mine);
      await store.recordMailDraft(scope, draftAction(mine, 'copy'));
      await store.recordCapture(scope, { day: today, kind: 'draft' });
      const body = insightsSchema.parse(await store.readInsights(other, 30, now));
      expect(body.activity.totals.chats).toBe(0);
      expect(body.gaps).toEqual([]);
      expect(body.capture.drafts).toBe(0);
      expect(body.replies.totals.copies).toBe(0);
      expect(body.helped).toEqual({
        mostSolved: [],
        citedButDownRated: [],
        neverRetrieved: { count: 0, sample: [] },
      });
      expect(body.evaluation).toBeUndefined();
    });
  });
}
