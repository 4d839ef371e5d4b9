import { useMemo } from 'react';
import { useI18n } from '../i18n/i18n-context.js';
import type { Locale } from '../i18n/messages.js';

/**
 * The insights page's strings. They live beside the page rather than in web/src/i18n/messages.ts
 * so they travel in the page's lazy chunk: the chat's first load carries none of them. Same rules
 * as the app's dictionary: Japanese first, English key for key (`satisfies` makes a missing
 * translation a type error), `{name}` placeholders.
 */
const ja = {
  title: 'サービスデスク インサイト',
  backToChat: 'チャットに戻る',
  window: '期間',
  lastDays: '直近 {days} 日',
  loading: '集計を読み込んでいます…',
  retry: 'もう一度読み込む',
  generatedAt: '{time} 時点',
  // Activity
  activity: '利用状況',
  chats: 'チャット',
  answers: '回答',
  clarifications: '確認の質問',
  truncated: '途中で途切れた回答',
  failed: '失敗した回答',
  ratedUp: '👍',
  ratedDown: '👎',
  upShare: '👍 の割合',
  noRatings: '評価なし',
  ratings: '{up} 件 👍 / {down} 件 👎',
  ttft: '最初のトークンまで',
  ttftValue: 'p50 {p50} / p95 {p95}',
  tokens: 'トークン',
  tokensValue: '入力 {input} / 出力 {output}',
  cost: '推定コスト',
  costUnknown: '価格未登録のモデルあり',
  chatsPerDay: '1 日あたりのチャット数',
  tokensPerDay: '1 日あたりのトークン数',
  costPerDay: '1 日あたりの推定コスト (USD)',
  day: '日付',
  showTable: '数値を表で見る',
  chartSummary: '{label}: 合計 {total}、最大 {max}（{maxDay}）',
  // Gaps
  gaps: 'ナレッジの不足',
  gapsHint:
    '検索結果が弱かった、チケットが引用されなかった、または「関係ないチケット」「不十分」で 👎 された問い合わせを、近いチケットのカテゴリとキーワードでまとめています。理由が二つある問い合わせも 1 件と数えます。',
  noGaps: 'この期間に不足は見つかっていません。',
  topic: 'トピック',
  count: '問い合わせ数',
  trend: '傾向',
  trendUp: '増加（前半 {earlier} → 後半 {later}）',
  trendDown: '減少（前半 {earlier} → 後半 {later}）',
  trendFlat: '横ばい（前半 {earlier} → 後半 {later}）',
  reasons: '理由',
  reasonWeakRetrieval: '検索が弱い',
  reasonNoTicketCited: '引用なし',
  reasonRatedDown: '👎',
  examples: '問い合わせの例',
  examplesOff: 'この環境では例を表示しない設定です。',
  noExamples:
    '例はありません。問い合わせ文は、検索が弱かった・チケットを引用しなかった回答のときだけ残します（👎 だけのギャップには残りません）。',
  askedBy: '依頼者 {hash}',
  solvedLater: '後で解決',
  uncategorized: '未分類',
  draftFromExample: 'この事例からナレッジを作成',
  draftFromExampleFor: 'この事例からナレッジを作成: {topic}',
  draftEditorsOnly: '解決済みの事例があります。ナレッジの作成はナレッジ編集者だけができます。',
  draftPublishedAs: 'ナレッジ #{id} として公開しました',
  draftIngestionPending: '検索に反映されるまで数分かかります。',
  // What helped
  helped: '役に立ったもの',
  mostSolved: '解決に使われたチケット',
  citedButDownRated: '引用されたが 👎 が多いチケット（書き直し候補）',
  neverRetrieved: '90 日間一度も検索されていないチケット',
  neverRetrievedOfTotal: '{count} 件 / 全 {total} 件',
  neverRetrievedUnlisted:
    'ナレッジベースのチケット一覧を今回は取得できなかったため（一覧を取得できない構成か、チケットが多く取得中です。しばらくして再読み込みしてください）、全チケットのうちの件数は出せません。以前に検索され、この 90 日間は検索されていないチケット: {count} 件',
  neverRetrievedHint:
    '閲覧制限付きのチケットは検索結果に出ないため、ここに数えられます。チケット一覧は最大 15 分前のものです。',
  ticket: 'チケット',
  subject: '件名',
  solved: '解決',
  cited: '引用',
  citedInDownRated: '👎 の回答で引用',
  none: 'なし',
  // Capture
  capture: 'ナレッジ化',
  drafts: '下書き',
  published: '公開したチケット',
  syncsWaited: '同期待ちになった公開',
  // Replies (the answers' e-mail drafts)
  replies: '返信の下書き',
  repliesHint:
    '回答に付いたメール下書きがどれだけ使われたか。採用率は、下書き付きの回答のうちコピーまたはメールで開かれた回答の割合、編集率は、使われた下書きのうち編集か書き直しがされた割合です（どちらも 1 回答 1 件、回答の日付で集計）。',
  acceptanceRate: '採用率',
  editRate: '編集率',
  rateOf: '{part} / {whole} 件',
  noRate: '対象なし',
  answersWithDraft: '下書き付きの回答',
  acceptedDrafts: '使われた下書き',
  draftCopies: 'コピー',
  draftMailOpens: 'メールで開いた',
  draftEdits: '編集',
  draftRefinements: '書き直し',
  acceptedPerDay: '1 日あたりの使われた下書き',
  shareChartSummary: '{label}: {wholeLabel} {whole} 件のうち {partLabel} {part} 件',
  // Evaluation
  evaluation: '検索の評価（解決済みの問い合わせから）',
  noEvaluation:
    'まだ実行されていません。`npm run eval -- --from-feedback` を実行すると、ここに最新の結果が表示されます。',
  evaluationRun: '{time} 実行（{target}）',
  evaluationSet: '対象',
  fromFeedback: '解決済みの問い合わせ',
  builtIn: '組み込みの評価セット',
  queries: 'クエリ数',
  // Surges and known issues (ADR 0033)
  surges: 'いま増えている問い合わせ',
  surgesHint:
    '設定された時間枠（既定 60 分）の中で、同じトピックについて複数のスタッフが問い合わせているものです。誰が何を書いたかは表示しません（例は個人情報を伏せたものです）。',
  noSurges: 'いま増えているトピックはありません。',
  surgeCounts: '{since} から {staff} 人のスタッフが {inquiries} 件',
  surgeOverTime: '時間ごとの件数',
  surgeSlice: '{time}: {count} 件',
  publishForSurge: 'このトピックの既知の問題を公開',
  knownIssues: '既知の問題',
  knownIssuesHint:
    '公開すると、一致する問い合わせへの回答の冒頭とメール下書きに、この内容があなたの名前とともに表示されます。終了時刻を過ぎるか閉じると表示されなくなります。',
  noKnownIssues: '公開中の既知の問題はありません。',
  knownIssueTitle: 'タイトル',
  knownIssueNote: '依頼者に伝えること',
  knownIssueWorkaround: '回避策（任意）',
  knownIssueLink: 'リンク（任意、https）',
  knownIssueMatches: '対象の語句（カンマ区切り）',
  knownIssueEndsAt: '終了時刻（任意、最長 7 日）',
  knownIssuePublish: '公開する',
  knownIssuePublished: '公開しました。',
  knownIssueClose: '閉じる',
  knownIssueCloseFor: '「{title}」を閉じる',
  knownIssueBy: '{author}・{time} 公開・{endsAt} まで',
  knownIssueFailed: '保存できませんでした：{message}',
  // Knowledge freshness (live ticket sync)
  freshness: 'ナレッジの鮮度（チケットシステムとの同期）',
  freshnessHint:
    '各チケットシステムから最後に同期できた時刻と、ナレッジの遅れ（それより前の変更がすべて反映されている時刻から今までの時間）です。',
  freshnessSource: '同期元',
  lastSuccess: '最後に成功した同期',
  lag: '遅れ',
  lagMinutes: '{minutes} 分',
  lagBehind: '{minutes} 分（上限 {max} 分を超過）',
  neverSynced: 'まだ同期していません',
  lastRunFailed: '最後の同期は失敗しました（アラームとログを確認してください）',
} as const;

export type InsightsMessageKey = keyof typeof ja;

const en = {
  title: 'Service-desk insights',
  backToChat: 'Back to the chat',
  window: 'Period',
  lastDays: 'Last {days} days',
  loading: 'Loading the figures…',
  retry: 'Load again',
  generatedAt: 'As of {time}',
  activity: 'Activity',
  chats: 'Chats',
  answers: 'Answers',
  clarifications: 'Clarifying questions',
  truncated: 'Truncated answers',
  failed: 'Failed answers',
  ratedUp: '👍',
  ratedDown: '👎',
  upShare: '👍 share',
  noRatings: 'No ratings',
  ratings: '{up} 👍 / {down} 👎',
  ttft: 'Time to first token',
  ttftValue: 'p50 {p50} / p95 {p95}',
  tokens: 'Tokens',
  tokensValue: '{input} in / {output} out',
  cost: 'Estimated cost',
  costUnknown: 'a model without a price',
  chatsPerDay: 'Chats per day',
  tokensPerDay: 'Tokens per day',
  costPerDay: 'Estimated cost per day (USD)',
  day: 'Day',
  showTable: 'Show the figures as a table',
  chartSummary: '{label}: {total} in total, at most {max} ({maxDay})',
  gaps: 'Knowledge gaps',
  gapsHint:
    'Inquiries whose retrieval was weak, that cited no ticket, or that were rated 👎 as irrelevant or incomplete, grouped by the nearest ticket’s category and shared key terms. An inquiry with two reasons counts once.',
  noGaps: 'No gaps found in this period.',
  topic: 'Topic',
  count: 'Inquiries',
  trend: 'Trend',
  trendUp: 'Rising (first half {earlier} → second half {later})',
  trendDown: 'Falling (first half {earlier} → second half {later})',
  trendFlat: 'Steady (first half {earlier} → second half {later})',
  reasons: 'Why',
  reasonWeakRetrieval: 'weak retrieval',
  reasonNoTicketCited: 'nothing cited',
  reasonRatedDown: '👎',
  examples: 'Example inquiries',
  examplesOff: 'This deployment does not show examples.',
  noExamples:
    'No example inquiries: the text is kept only when the answer itself had weak retrieval or cited no ticket (not for a gap made by 👎 alone).',
  askedBy: 'asked by {hash}',
  solvedLater: 'solved later',
  uncategorized: 'Uncategorized',
  draftFromExample: 'Draft knowledge from this example',
  draftFromExampleFor: 'Draft knowledge from this example: {topic}',
  draftEditorsOnly: 'A solved example exists; only knowledge editors can draft knowledge from it.',
  draftPublishedAs: 'Published as knowledge #{id}',
  draftIngestionPending: 'It becomes searchable within a few minutes.',
  helped: 'What helped',
  mostSolved: 'Tickets that solved inquiries',
  citedButDownRated: 'Tickets cited but rated 👎 (candidates to rewrite)',
  neverRetrieved: 'Tickets never retrieved in 90 days',
  neverRetrievedOfTotal: '{count} of {total}',
  neverRetrievedUnlisted:
    'The tickets of the Knowledge Base could not be listed this time (this deployment cannot list them, or there are many and the listing is still running: reload in a while), so there is no count out of all of them. Tickets retrieved before but not in these 90 days: {count}',
  neverRetrievedHint:
    'Restricted tickets are never returned by retrieval, so they are counted here. The ticket list may be up to 15 minutes old.',
  ticket: 'Ticket',
  subject: 'Subject',
  solved: 'Solved',
  cited: 'Cited',
  citedInDownRated: 'Cited in 👎 answers',
  none: 'None',
  capture: 'Knowledge capture',
  drafts: 'Drafts',
  published: 'Published tickets',
  syncsWaited: 'Publishes whose sync waited',
  replies: 'Replies',
  repliesHint:
    'How the e-mail drafts of the answers were used. Acceptance rate: of the answers with a draft, the share whose draft was copied or opened in the mail client; edit rate: of those drafts, the share staff edited or refined (each answer once, on the day of the answer).',
  acceptanceRate: 'Acceptance rate',
  editRate: 'Edit rate',
  rateOf: '{part} of {whole}',
  noRate: 'none yet',
  answersWithDraft: 'Answers with a draft',
  acceptedDrafts: 'Drafts used',
  draftCopies: 'Copies',
  draftMailOpens: 'Opened in mail',
  draftEdits: 'Edits',
  draftRefinements: 'Refinements',
  acceptedPerDay: 'Drafts used per day',
  shareChartSummary: '{label}: {partLabel} {part} of {whole} {wholeLabel}',
  evaluation: 'Retrieval evaluation (from solved inquiries)',
  noEvaluation:
    'Not run yet. Run `npm run eval -- --from-feedback` and the latest figures appear here.',
  evaluationRun: 'Run {time} ({target})',
  evaluationSet: 'Set',
  fromFeedback: 'Solved inquiries',
  builtIn: 'Built-in set',
  queries: 'Queries',
  // Surges and known issues (ADR 0033)
  surges: 'Surging now',
  surgesHint:
    'Topics several staff members asked about within the surge window (60 minutes by default). Who asked and what they wrote are never shown (examples are scrubbed of personal data).',
  noSurges: 'No topic is surging now.',
  surgeCounts: '{inquiries} inquiries from {staff} staff since {since}',
  surgeOverTime: 'Inquiries over time',
  surgeSlice: '{time}: {count}',
  publishForSurge: 'Publish a known issue for this topic',
  knownIssues: 'Known issues',
  knownIssuesHint:
    'Once published, answers to matching inquiries open with it, and their e-mail drafts use it, with your name. It disappears when it ends or is closed.',
  noKnownIssues: 'No known issue is open.',
  knownIssueTitle: 'Title',
  knownIssueNote: 'What to tell requesters',
  knownIssueWorkaround: 'Workaround (optional)',
  knownIssueLink: 'Link (optional, https)',
  knownIssueMatches: 'Words it covers (comma-separated)',
  knownIssueEndsAt: 'Ends at (optional, 7 days at most)',
  knownIssuePublish: 'Publish',
  knownIssuePublished: 'Published.',
  knownIssueClose: 'Close',
  knownIssueCloseFor: 'Close “{title}”',
  knownIssueBy: '{author}, published {time}, until {endsAt}',
  knownIssueFailed: 'Could not save: {message}',
  freshness: 'Knowledge freshness (ticket system sync)',
  freshnessHint:
    'When each ticket system was last synced, and how far the knowledge is behind it (from the instant every earlier change was in, to now).',
  freshnessSource: 'Source',
  lastSuccess: 'Last successful sync',
  lag: 'Behind by',
  lagMinutes: '{minutes} min',
  lagBehind: '{minutes} min (over the {max}-minute limit)',
  neverSynced: 'Not synced yet',
  lastRunFailed: 'The last sync failed (see the alarm and the log)',
} satisfies Record<InsightsMessageKey, string>;

const dictionaries: Record<Locale, Record<InsightsMessageKey, string>> = { ja, en };

/** The page's translator and number formats for the app's chosen language. */
export function useInsightsText() {
  const { locale, formatDateTime } = useI18n();
  return useMemo(() => insightsTextFor(locale, formatDateTime), [locale, formatDateTime]);
}

function insightsTextFor(locale: Locale, formatDateTime: (iso: string) => string) {
  const dictionary = dictionaries[locale];
  const tag = locale === 'ja' ? 'ja-JP' : 'en';
  const integer = new Intl.NumberFormat(tag);
  const usd = new Intl.NumberFormat(tag, {
    style: 'currency',
    currency: 'USD',
    maximumFractionDigits: 2,
  });
  const percent = new Intl.NumberFormat(tag, { style: 'percent', maximumFractionDigits: 0 });
  const ratio = new Intl.NumberFormat(tag, { maximumFractionDigits: 3, minimumFractionDigits: 3 });
  return {
    locale,
    t: (key: InsightsMessageKey, params?: Record<string, string | number>) =>
      dictionary[key].replace(/\{(\w+)\}/g, (match, name: string) =>
        params && name in params ? String(params[name]) : match,
      ),
    formatDateTime,
    integer: (value: number) => integer.format(value),
    usd: (value: number) => usd.format(value),
    percent: (value: number) => percent.format(value),
    ratio: (value: number) => ratio.format(value),
    milliseconds: (value: number | undefined) =>
      value === undefined ? '–' : `${integer.format(Math.round(value))} ms`,
  };
}

export type InsightsText = ReturnType<typeof insightsTextFor>;
