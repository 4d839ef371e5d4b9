import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { type Insights, insightsSchema } from '../../../functions/contract/insights.js';
import type { Caller } from '../../../functions/contract/knowledge.js';
import { createI18n, I18nContext } from '../../../web/src/i18n/i18n-context.js';
import { GapDraftContext } from '../../../web/src/insights/gap-knowledge-draft.js';
import { useInsightsText } from '../../../web/src/insights/insights-messages.js';
import { InsightsSections } from '../../../web/src/insights/insights-sections.js';

const day = (
  date: string,
  chats: number,
  extra: Partial<Insights['activity']['perDay'][number]> = {},
) => ({
  day: date,
  chats,
  answers: chats,
  clarifications: 0,
  truncated: 0,
  failed: 0,
  ratedUp: 0,
  ratedDown: 0,
  inputTokens: chats * 1000,
  outputTokens: chats * 200,
  ...extra,
});

const replyDay = (date: string, answersWithDraft: number, accepted: number) => ({
  day: date,
  answersWithDraft,
  accepted,
  changed: 0,
  acceptedChanged: 0,
  copies: accepted,
  mailOpens: 0,
  edits: 0,
  refinements: 0,
});

const body: Insights = insightsSchema.parse({
  generatedAt: '2026-12-02T09:00:00.000Z',
  days: 30,
  replies: {
    perDay: [
      replyDay('2026-11-30', 0, 0),
      { ...replyDay('2026-12-01', 3, 2), acceptanceRate: 2 / 3, editRate: 0 },
      { ...replyDay('2026-12-02', 1, 1), acceptanceRate: 1, editRate: 1, acceptedChanged: 1 },
    ],
    totals: {
      answersWithDraft: 4,
      accepted: 3,
      changed: 2,
      acceptedChanged: 1,
      copies: 3,
      mailOpens: 1,
      edits: 1,
      refinements: 2,
      acceptanceRate: 0.75,
      editRate: 1 / 3,
    },
  },
  activity: {
    perDay: [
      day('2026-11-30', 0),
      day('2026-12-01', 3, { estimatedCostUsd: 0.03 }),
      day('2026-12-02', 1),
    ],
    totals: {
      chats: 4,
      answers: 3,
      clarifications: 1,
      truncated: 0,
      failed: 1,
      ratedUp: 3,
      ratedDown: 1,
      timeToFirstTokenP50Ms: 500,
      timeToFirstTokenP95Ms: 2000,
      inputTokens: 4000,
      outputTokens: 800,
    },
  },
  gaps: [
    {
      topicKey: 'ネットワーク|vpn',
      category: 'ネットワーク',
      terms: ['vpn', '切断'],
      count: 4,
      byReason: { weak_retrieval: 1, no_ticket_cited: 0, rated_down: 3 },
      trend: { earlier: 1, later: 3 },
      examples: [
        {
          text: '在宅で VPN が 10 分ごとに切れる',
          day: '2026-12-01',
          ownerHash: '9f86d081884c7d65',
          solved: true,
        },
      ],
      draftFrom: { exampleId: '01JZZZZZZZZZZZZZZZZZZZZZZZ-2' },
    },
  ],
  helped: {
    mostSolved: [
      { issueId: '1001', subject: 'VPN 再接続', cited: 5, solved: 2, citedInDownRated: 0 },
    ],
    citedButDownRated: [],
    neverRetrieved: { count: 12, total: 20, sample: ['1007', 'INC0012345'] },
  },
  capture: { drafts: 2, published: 1, syncsWaited: 0 },
});

function Sections({ insights }: { insights: Insights }) {
  return <InsightsSections insights={insights} text={useInsightsText()} />;
}

/** The page's sections; with `caller`, as `GET /api/me` answered that lead. */
const render = (
  insights: Insights,
  locale: 'ja' | 'en' = 'ja',
  caller?: Pick<Caller, 'canPublishKnowledge'>,
) =>
  renderToStaticMarkup(
    <I18nContext.Provider value={createI18n(locale)}>
      <GapDraftContext.Provider
        value={{
          apiBase: '/api',
          apiFetch: fetch,
          ...(caller ? { caller: { userId: 'lead', canViewInsights: true, ...caller } } : {}),
        }}
      >
        <Sections insights={insights} />
      </GapDraftContext.Provider>
    </I18nContext.Provider>,
  );

describe('the insights sections', () => {
  it('shows each gap with its topic, count, trend in words and examples with the owner as a short hash', () => {
    const html = render(body);
    expect(html).toContain('ネットワーク · vpn / 切断');
    expect(html).toContain('問い合わせ数: 4');
    expect(html).toContain('増加（前半 1 → 後半 3）');
    expect(html).toContain('在宅で VPN が 10 分ごとに切れる');
    expect(html).toContain('依頼者 9f86d081');
    expect(html).not.toContain('9f86d081884c7d65');
    expect(html).toContain('後で解決');
    expect(html).toContain('検索が弱い 1 · 👎 3');
  });

  it('tells a gap without examples apart from a deployment that keeps none', () => {
    const gapsOf = (html: string) =>
      html.split('id="insights-gaps"')[1]?.split('id="insights-helped"')[0] ?? '';
    const [gap] = body.gaps as [Insights['gaps'][number]];
    const withoutExamples = { ...body, gaps: [{ ...gap, examples: [] }] };
    const kept = gapsOf(render(withoutExamples));
    expect(kept).toContain('例はありません');
    expect(kept).not.toContain('例を表示しない設定');
    const off = gapsOf(render({ ...withoutExamples, examplesKept: false }));
    expect(off).toContain('この環境では例を表示しない設定です。');
    expect(off).not.toContain('例はありません');
  });

  it('shows a gap’s count as inquiries beside its reasons, which may add up to more', () => {
    const [gap] = body.gaps;
    const twoReasons = {
      ...body,
      gaps: [
        {
          ...gap,
          count: 1,
          byReason: { weak_retrieval: 1, no_ticket_cited: 0, rated_down: 1 },
          trend: { earlier: 0, later: 1 },
        },
      ],
    } as Insights;
    const ja = render(twoReasons);
    expect(ja).toContain('問い合わせ数: 1');
    expect(ja).toContain('検索が弱い 1 · 👎 1');
    expect(ja).toContain('理由が二つある問い合わせも 1 件と数えます');
    const en = render(twoReasons, 'en');
    expect(en).toContain('Inquiries: 1');
    expect(en).toContain('An inquiry with two reasons counts once.');
  });

  it('offers an editor a labelled button to draft knowledge from a gap’s solved example, a lead who is not one a note', () => {
    const gapsOf = (html: string) =>
      html.split('id="insights-gaps"')[1]?.split('id="insights-helped"')[0] ?? '';
    const asEditor = gapsOf(render(body, 'ja', { canPublishKnowledge: true }));
    expect(asEditor).toContain(
      '<button type="button" class="button button--small" aria-haspopup="dialog" aria-label="この事例からナレッジを作成: ネットワーク · vpn / 切断">この事例からナレッジを作成</button>',
    );
    expect(gapsOf(render(body, 'en', { canPublishKnowledge: true }))).toContain(
      'aria-label="Draft knowledge from this example: ネットワーク · vpn / 切断">Draft knowledge from this example</button>',
    );
    const notAnEditor = gapsOf(render(body, 'ja', { canPublishKnowledge: false }));
    expect(notAnEditor).not.toContain('<button');
    expect(notAnEditor).toContain('ナレッジの作成はナレッジ編集者だけができます');
    // Without a solved example (`draftFrom`), or before GET /api/me answered: nothing.
    const [gap] = body.gaps;
    const unsolved = { ...body, gaps: [{ ...gap, draftFrom: undefined }] } as Insights;
    expect(gapsOf(render(unsolved, 'ja', { canPublishKnowledge: true }))).not.toContain(
      'ナレッジを作成',
    );
    expect(gapsOf(render(body))).not.toContain('ナレッジを作成');
  });

  it('gives every chart a spoken summary and its figures as a table', () => {
    const html = render(body);
    expect(html).toContain('aria-label="1 日あたりのチャット数: 合計 4、最大 3（2026-12-01）"');
    expect(html).toContain('<td>2026-11-30</td><td>0</td>');
    // A cost chart only when some day has a price; the total says when one is missing.
    expect(html).toContain('1 日あたりの推定コスト (USD)');
    expect(html).toContain('価格未登録のモデルあり');
    expect(html).toContain('aria-label="👍 の割合 75% — 3 件 👍 / 1 件 👎"');
  });

  it('lists what helped, never-retrieved tickets of the set, and capture counts', () => {
    const html = render(body);
    expect(html).toContain('<td>#1001</td><td>VPN 再接続</td>');
    // Candidates to rewrite show their subject too; a ticket the server knows no subject of, a dash.
    const helped = render({
      ...body,
      helped: {
        ...body.helped,
        citedButDownRated: [
          { issueId: '1002', subject: 'プリンター 給紙', cited: 4, solved: 0, citedInDownRated: 3 },
          { issueId: '1003', cited: 2, solved: 0, citedInDownRated: 2 },
        ],
      },
    });
    const rewrite = helped.split('id="insights-helped"')[1] ?? '';
    expect(rewrite).toContain('<td>#1002</td><td>プリンター 給紙</td>');
    expect(rewrite).toContain('<td>#1003</td><td>–</td>');
    expect(html).toContain('12 件 / 全 20 件');
    expect(html).toContain('閲覧制限付きのチケットは検索結果に出ないため、ここに数えられます。');
    expect(html).toContain('<li>INC0012345</li>');
    expect(html).toMatch(/下書き<\/dt><dd class="insights-figure__value">2</);
  });

  it('says plainly that the tickets could not be listed when the body has no total', () => {
    const unlisted = {
      ...body,
      helped: { ...body.helped, neverRetrieved: { count: 0, sample: [] } },
    };
    const html = render(unlisted).split('id="insights-helped"')[1] ?? '';
    expect(html).toContain('ナレッジベースのチケット一覧を今回は取得できなかったため');
    expect(html).toContain('この 90 日間は検索されていないチケット: 0 件');
    expect(html).not.toContain('全 ');
    expect(html).not.toContain('閲覧制限付き');
    expect(render(unlisted, 'en')).toContain(
      'The tickets of the Knowledge Base could not be listed this time',
    );
  });

  it('says how to run the feedback evaluation until there is one, and shows the latest run beside the built-in set', () => {
    expect(render(body)).toContain('npm run eval -- --from-feedback');
    const evaluated = render({
      ...body,
      evaluation: {
        ranAt: '2026-12-01T10:00:00.000Z',
        target: 'local',
        queries: 14,
        recallAt1: 0.5,
        recallAt3: 0.7857,
        recallAt8: 0.9286,
        mrr: 0.6345,
        builtIn: { queries: 170, recallAt1: 0.81, recallAt3: 0.93, recallAt8: 0.98, mrr: 0.87 },
      },
    });
    expect(evaluated).toContain(
      '<th scope="row">解決済みの問い合わせ</th><td class="insights-table__number">14</td><td class="insights-table__number">0.500</td>',
    );
    expect(evaluated).toContain('組み込みの評価セット');
  });

  it('shows the replies’ acceptance and edit rates with the counts they divide, and a chart of drafts used per day', () => {
    const html = render(body);
    const replies =
      html.split('id="insights-replies"')[1]?.split('id="insights-evaluation"')[0] ?? '';
    expect(html).toContain(
      '<h2 id="insights-replies" class="insights-section__title">返信の下書き</h2>',
    );
    expect(replies).toMatch(
      /採用率<\/dt><dd class="insights-figure__value">75%<span class="insights-figure__detail">3 \/ 4 件</,
    );
    expect(replies).toMatch(
      /編集率<\/dt><dd class="insights-figure__value">33%<span class="insights-figure__detail">1 \/ 3 件</,
    );
    expect(replies).toMatch(/書き直し<\/dt><dd class="insights-figure__value">2</);
    expect(replies).toContain(
      'aria-label="1 日あたりの使われた下書き: 下書き付きの回答 4 件のうち 使われた下書き 3 件"',
    );
    expect(replies).toContain('<td>2026-12-01</td><td>3</td><td>2</td>');
  });

  it('shows no rate rather than 0 % when nothing could be divided', () => {
    const quiet = render({
      ...body,
      replies: {
        perDay: body.replies.perDay.map((entry) => replyDay(entry.day, 0, 0)),
        totals: { ...replyDay('x', 0, 0), day: undefined } as never,
      },
    });
    const replies =
      quiet.split('id="insights-replies"')[1]?.split('id="insights-evaluation"')[0] ?? '';
    expect(replies).toMatch(
      /採用率<\/dt><dd class="insights-figure__value">–<span class="insights-figure__detail">対象なし</,
    );
    expect(replies).not.toContain('0%');
  });

  it('shows each live-synced source’s last sync and lag, marking one past its limit or whose last run failed', () => {
    expect(render(body)).not.toContain('id="insights-freshness"');
    const synced = insightsSchema.parse({
      ...body,
      knowledgeFreshness: [
        {
          id: 'servicenow',
          system: 'servicenow',
          lastSuccessAt: '2026-12-02T08:45:00.000Z',
          lastRunAt: '2026-12-02T08:45:00.000Z',
          lastOutcome: 'complete',
          lagMinutes: 15,
          maxLagMinutes: 60,
        },
        {
          id: 'jira-hr',
          system: 'jira',
          lastSuccessAt: '2026-12-02T05:00:00.000Z',
          lastRunAt: '2026-12-02T08:50:00.000Z',
          lastOutcome: 'failed',
          lagMinutes: 240,
          maxLagMinutes: 180,
        },
        { id: 'zendesk', system: 'zendesk', maxLagMinutes: 60 },
      ],
    });
    const section = render(synced, 'en').split('id="insights-freshness"')[1] ?? '';
    const rows = section.split('<tr>').slice(2);
    expect(rows[0]).toContain('ServiceNow</th>');
    expect(rows[0]).toContain('>15 min<');
    expect(rows[0]).not.toContain('insights-warning');
    expect(rows[1]).toContain('Jira (jira-hr)</th>');
    expect(rows[1]).toContain('The last sync failed');
    expect(rows[1]).toContain('insights-warning">240 min (over the 180-minute limit)<');
    expect(rows[2]).toContain('Not synced yet');
    expect(rows[2]).toContain('>–<');
    expect(render(synced, 'ja')).toContain('240 分（上限 180 分を超過）');
  });

  it('speaks English with the app', () => {
    const html = render(body, 'en');
    expect(html).toContain('Knowledge gaps');
    expect(html).toContain('Rising (first half 1 → second half 3)');
    expect(html).toContain('12 of 20');
    expect(html).toContain('Replies');
    expect(html).toMatch(
      /Acceptance rate<\/dt><dd class="insights-figure__value">75%<span class="insights-figure__detail">3 of 4</,
    );
  });
});
