import type {
  ActivityDay,
  Insights,
  KnowledgeGap,
  RepliesDay,
  TicketUse,
} from '../../functions/contract/insights.js';

/**
 * `npm run insights` as text: the insights page's figures (the `GET /api/insights` body) as
 * tables a platform team reads in a terminal — activity, the e-mail drafts' acceptance, knowledge
 * gaps, what helped, knowledge capture and the latest retrieval evaluation from use. The tables are markdown with padded
 * columns, so they read aligned in a terminal and paste into an issue as they are.
 *
 * Privacy: a gap's example inquiries are inquiry text, which reaches leads only; the tables give
 * their number, the people who asked and how many were solved, never the text (`--json` prints
 * the page's body whole, examples included, for a lead's own tooling).
 */
export function renderInsights(insights: Insights): string {
  const { perDay } = insights.activity;
  const first = perDay[0]?.day ?? '?';
  const last = perDay.at(-1)?.day ?? '?';
  return [
    `# Service-desk insights, last ${insights.days} days (${first} – ${last}, UTC)`,
    `Generated ${insights.generatedAt}.`,
    '',
    ...renderActivity(insights.activity),
    '',
    ...renderReplies(insights.replies),
    '',
    ...renderGaps(insights.gaps),
    '',
    ...renderHelped(insights.helped),
    '',
    '## Knowledge capture',
    '',
    table(
      ['drafts', 'published', 'syncs that waited'],
      [
        [
          String(insights.capture.drafts),
          String(insights.capture.published),
          String(insights.capture.syncsWaited),
        ],
      ],
    ),
    '',
    ...renderEvaluation(insights.evaluation),
  ].join('\n');
}

function renderActivity(activity: Insights['activity']): string[] {
  const { totals, perDay } = activity;
  const active = perDay.filter((day) => day.chats > 0 || day.ratedUp > 0 || day.ratedDown > 0);
  const lines = [
    '## Activity',
    '',
    table(
      [
        'chats',
        'answers',
        'clarifications',
        'truncated',
        'failed',
        'rated up / down',
        'first token p50 / p95',
        'tokens in / out',
        'est. cost',
      ],
      [activityCells(totals)],
    ),
  ];
  if (active.length === 0) {
    lines.push('', 'No chats in this window.');
    return lines;
  }
  lines.push(
    '',
    table(
      [
        'day',
        'chats',
        'answers',
        'clarifications',
        'truncated',
        'failed',
        'rated up / down',
        'first token p50 / p95',
        'tokens in / out',
        'est. cost',
      ],
      active.map((day) => [day.day, ...activityCells(day)]),
    ),
  );
  const quiet = perDay.length - active.length;
  if (quiet > 0)
    lines.push('', `${quiet} day${quiet === 1 ? '' : 's'} without chats or ratings not shown.`);
  return lines;
}

function activityCells(figures: Omit<ActivityDay, 'day'>): string[] {
  const rated = figures.ratedUp + figures.ratedDown;
  const share = rated === 0 ? '' : ` (${percent(figures.ratedUp / rated)} up)`;
  return [
    String(figures.chats),
    String(figures.answers),
    String(figures.clarifications),
    String(figures.truncated),
    String(figures.failed),
    `${figures.ratedUp} / ${figures.ratedDown}${share}`,
    `${milliseconds(figures.timeToFirstTokenP50Ms)} / ${milliseconds(figures.timeToFirstTokenP95Ms)}`,
    `${figures.inputTokens} / ${figures.outputTokens}`,
    // Absent when a model of the day has no price: no figure rather than a low one.
    figures.estimatedCostUsd === undefined ? 'unpriced' : `$${figures.estimatedCostUsd.toFixed(4)}`,
  ];
}

/** The e-mail drafts (ADR 0023): the page's two rates first, then the counts behind them. */
function renderReplies(replies: Insights['replies']): string[] {
  const { totals, perDay } = replies;
  const headers = [
    'answers with a draft',
    'accepted',
    'acceptance rate',
    'changed',
    'accepted and changed',
    'edit rate',
    'copies',
    'mail opens',
    'edits',
    'refinements',
  ];
  const lines = [
    '## Replies (e-mail drafts)',
    '',
    `Acceptance rate ${rate(totals.acceptanceRate)} · edit rate ${rate(totals.editRate)}`,
    '',
    table(headers, [repliesCells(totals)]),
  ];
  const active = perDay.filter(
    (day) => day.answersWithDraft + day.copies + day.mailOpens + day.edits + day.refinements > 0,
  );
  if (active.length === 0) {
    lines.push('', 'No answer with an e-mail draft in this window.');
    return lines;
  }
  lines.push(
    '',
    table(
      ['day', ...headers],
      active.map((day) => [day.day, ...repliesCells(day)]),
    ),
    '',
    'acceptance rate: accepted (copied or opened in the mail client) / answers with a draft; edit rate: accepted and changed (edited or refined) / accepted — each answer once, counted on its own day.',
  );
  return lines;
}

function repliesCells(figures: Omit<RepliesDay, 'day'>): string[] {
  return [
    String(figures.answersWithDraft),
    String(figures.accepted),
    rate(figures.acceptanceRate),
    String(figures.changed),
    String(figures.acceptedChanged),
    rate(figures.editRate),
    String(figures.copies),
    String(figures.mailOpens),
    String(figures.edits),
    String(figures.refinements),
  ];
}

/** A rate, or a dash where its denominator was 0 (the body leaves it out). */
function rate(share: number | undefined): string {
  return share === undefined ? '—' : percent(share);
}

function renderGaps(gaps: readonly KnowledgeGap[]): string[] {
  const lines = ['## Knowledge gaps', ''];
  if (gaps.length === 0) return [...lines, 'No knowledge gaps in this window.'];
  lines.push(
    table(
      [
        'category',
        'terms',
        'inquiries',
        'weak retrieval',
        'no ticket cited',
        'rated down',
        'trend',
        'examples',
        'draft from',
      ],
      gaps.map((gap) => [
        textCell(gap.category),
        textCell(gap.terms.join(', ')),
        String(gap.count),
        String(gap.byReason.weak_retrieval ?? 0),
        String(gap.byReason.no_ticket_cited ?? 0),
        String(gap.byReason.rated_down ?? 0),
        trendOf(gap.trend),
        examplesOf(gap),
        gap.draftFrom ? 'a solved inquiry' : '',
      ]),
    ),
    '',
    'trend: the window’s first half → second half. Example texts are for leads: on the insights page, or with --json.',
  );
  return lines;
}

function trendOf(trend: KnowledgeGap['trend']): string {
  const arrow = trend.later > trend.earlier ? '↑' : trend.later < trend.earlier ? '↓' : '→';
  return `${trend.earlier} → ${trend.later} ${arrow}`;
}

function examplesOf(gap: KnowledgeGap): string {
  if (gap.examples.length === 0) return '—';
  const people = new Set(gap.examples.map((example) => example.ownerHash)).size;
  const solved = gap.examples.filter((example) => example.solved).length;
  return `${gap.examples.length} (${people} ${people === 1 ? 'person' : 'people'}, ${solved} solved)`;
}

function renderHelped(helped: Insights['helped']): string[] {
  const uses = (title: string, tickets: readonly TicketUse[], none: string) => [
    `### ${title}`,
    '',
    tickets.length === 0
      ? none
      : table(
          ['ticket', 'subject', 'solved', 'cited', 'cited in rated-down'],
          tickets.map((ticket) => [
            textCell(`#${ticket.issueId}`),
            textCell(ticket.subject ?? ''),
            String(ticket.solved),
            String(ticket.cited),
            String(ticket.citedInDownRated),
          ]),
        ),
  ];
  const { neverRetrieved } = helped;
  const sample =
    neverRetrieved.sample.length === 0
      ? ''
      : `: ${neverRetrieved.sample.map((id) => `#${id}`).join(', ')}${neverRetrieved.sample.length < neverRetrieved.count ? ', …' : ''}`;
  return [
    '## What helped',
    '',
    ...uses('Most often the solution', helped.mostSolved, 'No ticket was marked as a solution.'),
    '',
    ...uses(
      'Often cited but rated down (candidates to rewrite)',
      helped.citedButDownRated,
      'None: no ticket cited at least twice with half of its answers rated down.',
    ),
    '',
    '### Never retrieved in 90 days',
    '',
    neverRetrieved.total === undefined
      ? `The tickets of this deployment cannot be listed, so there is no count out of all of them. Retrieved before but not in these 90 days: ${neverRetrieved.count} tickets${sample}`
      : `${neverRetrieved.count} of ${neverRetrieved.total} tickets${sample}`,
    ...(neverRetrieved.total === undefined
      ? []
      : ['(Restricted tickets count here: retrieval never returns them.)']),
  ];
}

function renderEvaluation(evaluation: Insights['evaluation']): string[] {
  const lines = ['## Retrieval evaluation from use', ''];
  if (!evaluation) {
    return [...lines, 'No run yet: npm run eval -- --from-feedback'];
  }
  const row = (name: string, figures: NonNullable<Insights['evaluation']>['builtIn']) =>
    figures
      ? [
          name,
          String(figures.queries),
          percent(figures.recallAt1),
          percent(figures.recallAt3),
          percent(figures.recallAt8),
          figures.mrr.toFixed(3),
        ]
      : [];
  return [
    ...lines,
    `Latest run ${evaluation.ranAt}, against the ${evaluation.target === 'aws' ? 'deployed' : 'local'} Knowledge Base.`,
    '',
    table(
      ['set', 'queries', 'recall@1', 'recall@3', 'recall@8', 'MRR'],
      [row('solved inquiries', evaluation), row('built-in set', evaluation.builtIn)].filter(
        (cells) => cells.length > 0,
      ),
    ),
  ];
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

function milliseconds(value: number | undefined): string {
  return value === undefined ? '—' : `${Math.round(value)} ms`;
}

/**
 * Text that came from tickets or inquiries (a category, a subject) as a cell: one line, a `|`
 * escaped so it stays in its column, and a leading `=`, `+`, `-`, `@` or tab neutralised with
 * `'` (OWASP's CSV-injection rule) — an imported `=HYPERLINK(…)` pasted into a spreadsheet
 * stays text, not a formula.
 */
export function textCell(text: string): string {
  const line = text.replace(/[\r\n]+/g, ' ').replaceAll('|', '\\|');
  return /^[=+\-@\t]/.test(line) ? `'${line}` : line;
}

/** A markdown table whose columns are padded to the widest cell, as a terminal shows it. */
function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) =>
    Math.max(displayWidth(header), ...rows.map((row) => displayWidth(row[column] ?? ''))),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell + ' '.repeat((widths[column] ?? 0) - displayWidth(cell))).join(' | ')} |`;
  return [
    line(headers),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...rows.map((row) => line(headers.map((_, column) => row[column] ?? ''))),
  ].join('\n');
}

/**
 * Columns a terminal gives the text: two for East Asian wide characters (a Japanese subject) and
 * emoji, none for combining marks, one otherwise — so Japanese subjects keep the columns aligned.
 */
function displayWidth(text: string): number {
  let width = 0;
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (/\p{Mn}|\p{Me}|\u200d|\ufe0f/u.test(character)) continue;
    width += isWide(code) ? 2 : 1;
  }
  return width;
}

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) ||
    (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) ||
    (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  );
}
