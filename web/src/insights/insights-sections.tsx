import type { ReactNode } from 'react';
import type {
  Insights,
  KnowledgeGap,
  SourceFreshness,
  TicketUse,
} from '../../../functions/contract/insights.js';
import { formatIssueId } from '../../../functions/contract/ticket-references.js';
import { GapDraftAction } from './gap-knowledge-draft.js';
import { DailyBarChart, DailyShareChart, ShareBar, TrendMark } from './insights-charts.js';
import type { InsightsText } from './insights-messages.js';

/**
 * The sections of the leads' page (issue #28) for one window's `GET /api/insights` body:
 * activity, knowledge gaps, what helped, knowledge capture, the e-mail drafts' replies and the
 * latest evaluation — charts where a lead would rather look than read, each with its table.
 * `insights-app.tsx` loads the body and frames the page.
 */

/** The sections of one window's body. */
export function InsightsSections({
  insights,
  text,
}: {
  readonly insights: Insights;
  readonly text: InsightsText;
}) {
  return (
    <>
      <ActivitySection activity={insights.activity} text={text} />
      <GapsSection
        gaps={insights.gaps}
        examplesKept={insights.examplesKept !== false}
        text={text}
      />
      <HelpedSection helped={insights.helped} text={text} />
      <CaptureSection capture={insights.capture} text={text} />
      <RepliesSection replies={insights.replies} text={text} />
      <EvaluationSection evaluation={insights.evaluation} text={text} />
      {insights.knowledgeFreshness && insights.knowledgeFreshness.length > 0 && (
        <FreshnessSection sources={insights.knowledgeFreshness} text={text} />
      )}
    </>
  );
}

function Section({
  id,
  title,
  children,
}: {
  readonly id: string;
  readonly title: string;
  readonly children: ReactNode;
}) {
  return (
    <section className="insights-section" aria-labelledby={id}>
      <h2 id={id} className="insights-section__title">
        {title}
      </h2>
      {children}
    </section>
  );
}

function Figure({ label, children }: { readonly label: string; readonly children: ReactNode }) {
  return (
    <div className="insights-figure">
      <dt className="insights-figure__label">{label}</dt>
      <dd className="insights-figure__value">{children}</dd>
    </div>
  );
}

function ActivitySection({
  activity,
  text,
}: {
  readonly activity: Insights['activity'];
  readonly text: InsightsText;
}) {
  const { totals, perDay } = activity;
  const anyCost = perDay.some((day) => day.estimatedCostUsd !== undefined);
  return (
    <Section id="insights-activity" title={text.t('activity')}>
      <dl className="insights-figures">
        <Figure label={text.t('chats')}>{text.integer(totals.chats)}</Figure>
        <Figure label={text.t('answers')}>{text.integer(totals.answers)}</Figure>
        <Figure label={text.t('clarifications')}>{text.integer(totals.clarifications)}</Figure>
        <Figure label={text.t('truncated')}>{text.integer(totals.truncated)}</Figure>
        <Figure label={text.t('failed')}>{text.integer(totals.failed)}</Figure>
        <Figure label={text.t('upShare')}>
          <ShareBar up={totals.ratedUp} down={totals.ratedDown} />
          <span className="insights-figure__detail">
            {text.t('ratings', { up: totals.ratedUp, down: totals.ratedDown })}
          </span>
        </Figure>
        <Figure label={text.t('ttft')}>
          {text.t('ttftValue', {
            p50: text.milliseconds(totals.timeToFirstTokenP50Ms),
            p95: text.milliseconds(totals.timeToFirstTokenP95Ms),
          })}
        </Figure>
        <Figure label={text.t('tokens')}>
          {text.t('tokensValue', {
            input: text.integer(totals.inputTokens),
            output: text.integer(totals.outputTokens),
          })}
        </Figure>
        <Figure label={text.t('cost')}>
          {totals.estimatedCostUsd === undefined
            ? `– (${text.t('costUnknown')})`
            : text.usd(totals.estimatedCostUsd)}
        </Figure>
      </dl>
      <div className="insights-charts">
        <DailyBarChart
          label={text.t('chatsPerDay')}
          values={perDay.map((day) => ({ day: day.day, value: day.chats }))}
          format={text.integer}
        />
        <DailyBarChart
          label={text.t('tokensPerDay')}
          values={perDay.map((day) => ({
            day: day.day,
            value: day.inputTokens + day.outputTokens,
          }))}
          format={text.integer}
        />
        {anyCost && (
          <DailyBarChart
            label={text.t('costPerDay')}
            values={perDay.map((day) => ({ day: day.day, value: day.estimatedCostUsd ?? 0 }))}
            format={text.usd}
          />
        )}
      </div>
    </Section>
  );
}

function topicName(gap: KnowledgeGap, text: InsightsText): string {
  const category = gap.category === 'uncategorized' ? text.t('uncategorized') : gap.category;
  return gap.terms.length === 0 ? category : `${category} · ${gap.terms.join(' / ')}`;
}

const REASON_KEYS = {
  weak_retrieval: 'reasonWeakRetrieval',
  no_ticket_cited: 'reasonNoTicketCited',
  rated_down: 'reasonRatedDown',
} as const;

function GapsSection({
  gaps,
  examplesKept,
  text,
}: {
  readonly gaps: readonly KnowledgeGap[];
  /** False: the deployment keeps no examples, so every gap says so. */
  readonly examplesKept: boolean;
  readonly text: InsightsText;
}) {
  return (
    <Section id="insights-gaps" title={text.t('gaps')}>
      <p className="insights-section__hint">{text.t('gapsHint')}</p>
      {gaps.length === 0 ? (
        <p>{text.t('noGaps')}</p>
      ) : (
        <ol className="insights-gaps">
          {gaps.map((gap) => (
            <li key={gap.topicKey} className="insights-gap">
              <div className="insights-gap__header">
                <h3 className="insights-gap__topic">{topicName(gap, text)}</h3>
                <span className="insights-gap__count">
                  {text.t('count')}: {text.integer(gap.count)}
                </span>
                <TrendMark earlier={gap.trend.earlier} later={gap.trend.later} />
              </div>
              <p className="insights-gap__reasons">
                {text.t('reasons')}:{' '}
                {Object.entries(gap.byReason)
                  .filter(([, count]) => count > 0)
                  .map(
                    ([reason, count]) =>
                      `${text.t(REASON_KEYS[reason as keyof typeof REASON_KEYS])} ${text.integer(count)}`,
                  )
                  .join(' · ')}
              </p>
              {gap.examples.length === 0 ? (
                <p className="insights-gap__no-examples">
                  {text.t(examplesKept ? 'noExamples' : 'examplesOff')}
                </p>
              ) : (
                <ul className="insights-gap__examples" aria-label={text.t('examples')}>
                  {gap.examples.map((example) => (
                    <li key={`${example.day}:${example.ownerHash}:${example.text}`}>
                      <q className="insights-gap__text">{example.text}</q>{' '}
                      <span className="insights-gap__meta">
                        {example.day} · {text.t('askedBy', { hash: example.ownerHash.slice(0, 8) })}
                        {example.solved && (
                          <span className="badge insights-badge">{text.t('solvedLater')}</span>
                        )}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
              {gap.draftFrom && (
                <GapDraftAction
                  exampleId={gap.draftFrom.exampleId}
                  topic={topicName(gap, text)}
                  text={text}
                />
              )}
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}

function TicketTable({
  caption,
  tickets,
  columns,
  text,
}: {
  readonly caption: string;
  readonly tickets: readonly TicketUse[];
  readonly columns: readonly ('solved' | 'cited' | 'citedInDownRated')[];
  readonly text: InsightsText;
}) {
  return (
    <div className="insights-table">
      <h3 className="insights-table__caption">{caption}</h3>
      {tickets.length === 0 ? (
        <p>{text.t('none')}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{text.t('ticket')}</th>
              <th scope="col">{text.t('subject')}</th>
              {columns.map((column) => (
                <th key={column} scope="col" className="insights-table__number">
                  {text.t(column)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {tickets.map((ticket) => (
              <tr key={ticket.issueId}>
                <td>{formatIssueId(ticket.issueId)}</td>
                <td>{ticket.subject ?? '–'}</td>
                {columns.map((column) => (
                  <td key={column} className="insights-table__number">
                    {text.integer(ticket[column])}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function HelpedSection({
  helped,
  text,
}: {
  readonly helped: Insights['helped'];
  readonly text: InsightsText;
}) {
  const { neverRetrieved } = helped;
  return (
    <Section id="insights-helped" title={text.t('helped')}>
      <TicketTable
        caption={text.t('mostSolved')}
        tickets={helped.mostSolved}
        columns={['solved', 'cited']}
        text={text}
      />
      <TicketTable
        caption={text.t('citedButDownRated')}
        tickets={helped.citedButDownRated}
        columns={['cited', 'citedInDownRated']}
        text={text}
      />
      <div className="insights-table">
        <h3 className="insights-table__caption">{text.t('neverRetrieved')}</h3>
        {/* No total: the deployment cannot list its tickets, and the count is only of those seen
            retrieved before — said in words, so it never reads as "0 of all". */}
        <p>
          {neverRetrieved.total === undefined
            ? text.t('neverRetrievedUnlisted', { count: text.integer(neverRetrieved.count) })
            : text.t('neverRetrievedOfTotal', {
                count: text.integer(neverRetrieved.count),
                total: text.integer(neverRetrieved.total),
              })}
        </p>
        {neverRetrieved.total !== undefined && (
          <p className="insights-section__hint">{text.t('neverRetrievedHint')}</p>
        )}
        {neverRetrieved.sample.length > 0 && (
          <ul className="insights-never-retrieved">
            {neverRetrieved.sample.map((issueId) => (
              <li key={issueId}>{formatIssueId(issueId)}</li>
            ))}
          </ul>
        )}
      </div>
    </Section>
  );
}

function CaptureSection({
  capture,
  text,
}: {
  readonly capture: Insights['capture'];
  readonly text: InsightsText;
}) {
  return (
    <Section id="insights-capture" title={text.t('capture')}>
      <dl className="insights-figures">
        <Figure label={text.t('drafts')}>{text.integer(capture.drafts)}</Figure>
        <Figure label={text.t('published')}>{text.integer(capture.published)}</Figure>
        <Figure label={text.t('syncsWaited')}>{text.integer(capture.syncsWaited)}</Figure>
      </dl>
    </Section>
  );
}

/**
 * The answers' e-mail drafts (ADR 0023): the two rates as figures with the counts they divide,
 * the actions, and per day the drafts used against the answers that had one.
 */
function RepliesSection({
  replies,
  text,
}: {
  readonly replies: Insights['replies'];
  readonly text: InsightsText;
}) {
  const { totals, perDay } = replies;
  const rate = (share: number | undefined, part: number, whole: number) =>
    share === undefined ? (
      <>
        –<span className="insights-figure__detail">{text.t('noRate')}</span>
      </>
    ) : (
      <>
        {text.percent(share)}
        <span className="insights-figure__detail">
          {text.t('rateOf', { part: text.integer(part), whole: text.integer(whole) })}
        </span>
      </>
    );
  return (
    <Section id="insights-replies" title={text.t('replies')}>
      <p className="insights-section__hint">{text.t('repliesHint')}</p>
      <dl className="insights-figures">
        <Figure label={text.t('acceptanceRate')}>
          {rate(totals.acceptanceRate, totals.accepted, totals.answersWithDraft)}
        </Figure>
        <Figure label={text.t('editRate')}>
          {rate(totals.editRate, totals.acceptedChanged, totals.accepted)}
        </Figure>
        <Figure label={text.t('answersWithDraft')}>{text.integer(totals.answersWithDraft)}</Figure>
        <Figure label={text.t('draftCopies')}>{text.integer(totals.copies)}</Figure>
        <Figure label={text.t('draftMailOpens')}>{text.integer(totals.mailOpens)}</Figure>
        <Figure label={text.t('draftEdits')}>{text.integer(totals.edits)}</Figure>
        <Figure label={text.t('draftRefinements')}>{text.integer(totals.refinements)}</Figure>
      </dl>
      <div className="insights-charts">
        <DailyShareChart
          label={text.t('acceptedPerDay')}
          wholeLabel={text.t('answersWithDraft')}
          partLabel={text.t('acceptedDrafts')}
          values={perDay.map((day) => ({
            day: day.day,
            whole: day.answersWithDraft,
            part: day.accepted,
          }))}
          format={text.integer}
        />
      </div>
    </Section>
  );
}

function EvaluationSection({
  evaluation,
  text,
}: {
  readonly evaluation: Insights['evaluation'];
  readonly text: InsightsText;
}) {
  if (!evaluation) {
    return (
      <Section id="insights-evaluation" title={text.t('evaluation')}>
        <p>{text.t('noEvaluation')}</p>
      </Section>
    );
  }
  const rows = [
    { name: text.t('fromFeedback'), figures: evaluation },
    ...(evaluation.builtIn ? [{ name: text.t('builtIn'), figures: evaluation.builtIn }] : []),
  ];
  return (
    <Section id="insights-evaluation" title={text.t('evaluation')}>
      <p>
        {text.t('evaluationRun', {
          time: text.formatDateTime(evaluation.ranAt),
          target: evaluation.target,
        })}
      </p>
      <div className="insights-table">
        <table>
          <thead>
            <tr>
              <th scope="col">{text.t('evaluationSet')}</th>
              <th scope="col" className="insights-table__number">
                {text.t('queries')}
              </th>
              <th scope="col" className="insights-table__number">
                recall@1
              </th>
              <th scope="col" className="insights-table__number">
                recall@3
              </th>
              <th scope="col" className="insights-table__number">
                recall@8
              </th>
              <th scope="col" className="insights-table__number">
                MRR
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ name, figures }) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                <td className="insights-table__number">{text.integer(figures.queries)}</td>
                <td className="insights-table__number">{text.ratio(figures.recallAt1)}</td>
                <td className="insights-table__number">{text.ratio(figures.recallAt3)}</td>
                <td className="insights-table__number">{text.ratio(figures.recallAt8)}</td>
                <td className="insights-table__number">{text.ratio(figures.mrr)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Section>
  );
}

/** Names of the ticket systems as staff know them. */
const SYSTEM_NAMES: Readonly<Record<SourceFreshness['system'], string>> = {
  servicenow: 'ServiceNow',
  jira: 'Jira',
  zendesk: 'Zendesk',
};

/**
 * The live-synced ticket systems (ADR 0032): per source, the last successful sync and how far the
 * knowledge is behind, marked when past the lag alarm's limit or when the last run failed.
 */
function FreshnessSection({
  sources,
  text,
}: {
  readonly sources: readonly SourceFreshness[];
  readonly text: InsightsText;
}) {
  return (
    <Section id="insights-freshness" title={text.t('freshness')}>
      <p className="insights-section__hint">{text.t('freshnessHint')}</p>
      <div className="insights-table">
        <table>
          <thead>
            <tr>
              <th scope="col">{text.t('freshnessSource')}</th>
              <th scope="col">{text.t('lastSuccess')}</th>
              <th scope="col" className="insights-table__number">
                {text.t('lag')}
              </th>
            </tr>
          </thead>
          <tbody>
            {sources.map((source) => {
              const behind =
                source.lagMinutes !== undefined && source.lagMinutes > source.maxLagMinutes;
              return (
                <tr key={source.id}>
                  <th scope="row">
                    {SYSTEM_NAMES[source.system]}
                    {source.id === source.system ? '' : ` (${source.id})`}
                  </th>
                  <td>
                    {source.lastSuccessAt
                      ? text.formatDateTime(source.lastSuccessAt)
                      : text.t('neverSynced')}
                    {source.lastOutcome === 'failed' && (
                      <div className="insights-warning">{text.t('lastRunFailed')}</div>
                    )}
                  </td>
                  <td className={`insights-table__number${behind ? ' insights-warning' : ''}`}>
                    {source.lagMinutes === undefined
                      ? '–'
                      : text.t(behind ? 'lagBehind' : 'lagMinutes', {
                          minutes: text.integer(source.lagMinutes),
                          max: text.integer(source.maxLagMinutes),
                        })}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </Section>
  );
}
