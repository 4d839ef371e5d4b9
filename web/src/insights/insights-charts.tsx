import { useInsightsText } from './insights-messages.js';

/**
 * The page's charts: small hand-written SVG, no chart library (a few bars do not earn a
 * dependency). Every chart is an image with a spoken summary (`aria-label`) and keeps its
 * figures one click away as a table, so nothing on it is visible only as a shape.
 */

/** One bar of a daily chart. */
export interface DailyValue {
  readonly day: string;
  readonly value: number;
}

const WIDTH = 600;
const HEIGHT = 120;
const GAP = 1;

/**
 * A bar per day, oldest on the left, scaled to the largest; the table under it lists every day
 * with its figure.
 */
export function DailyBarChart({
  label,
  values,
  format,
}: {
  readonly label: string;
  readonly values: readonly DailyValue[];
  readonly format: (value: number) => string;
}) {
  const text = useInsightsText();
  const max = Math.max(0, ...values.map((entry) => entry.value));
  const total = values.reduce((sum, entry) => sum + entry.value, 0);
  const peak = values.find((entry) => entry.value === max && max > 0);
  const barWidth = values.length === 0 ? 0 : WIDTH / values.length;
  const summary = text.t('chartSummary', {
    label,
    total: format(total),
    max: format(max),
    maxDay: peak?.day ?? '–',
  });
  return (
    <figure className="insights-chart">
      <figcaption className="insights-chart__caption">{label}</figcaption>
      <svg
        className="insights-chart__svg"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={summary}
      >
        <line className="insights-chart__axis" x1={0} y1={HEIGHT} x2={WIDTH} y2={HEIGHT} />
        {values.map((entry, index) => {
          const height = max === 0 ? 0 : (entry.value / max) * (HEIGHT - 4);
          return (
            <rect
              key={entry.day}
              className="insights-chart__bar"
              x={index * barWidth + GAP / 2}
              y={HEIGHT - height}
              width={Math.max(barWidth - GAP, 0.5)}
              height={height}
            >
              <title>{`${entry.day}: ${format(entry.value)}`}</title>
            </rect>
          );
        })}
      </svg>
      <DayRange values={values} />
      <DayTable values={values} columns={[{ label, cell: (entry) => format(entry.value) }]} />
    </figure>
  );
}

/** One day of a part-of-whole chart: `part` of `whole` (accepted drafts of answers with a draft). */
export interface DailyShare {
  readonly day: string;
  readonly whole: number;
  readonly part: number;
}

/**
 * A bar per day for `whole` with its `part` drawn over it from the bottom, oldest on the left,
 * scaled to the largest whole; a legend names both (the two shades are not the only cue: the
 * spoken summary and the table give the figures), and the table lists every day with both.
 */
export function DailyShareChart({
  label,
  wholeLabel,
  partLabel,
  values,
  format,
}: {
  readonly label: string;
  readonly wholeLabel: string;
  readonly partLabel: string;
  readonly values: readonly DailyShare[];
  readonly format: (value: number) => string;
}) {
  const text = useInsightsText();
  const max = Math.max(0, ...values.map((entry) => Math.max(entry.whole, entry.part)));
  const whole = values.reduce((sum, entry) => sum + entry.whole, 0);
  const part = values.reduce((sum, entry) => sum + entry.part, 0);
  const barWidth = values.length === 0 ? 0 : WIDTH / values.length;
  const heightOf = (value: number) => (max === 0 ? 0 : (value / max) * (HEIGHT - 4));
  const summary = text.t('shareChartSummary', {
    label,
    part: format(part),
    partLabel,
    whole: format(whole),
    wholeLabel,
  });
  return (
    <figure className="insights-chart">
      <figcaption className="insights-chart__caption">{label}</figcaption>
      <svg
        className="insights-chart__svg"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={summary}
      >
        <line className="insights-chart__axis" x1={0} y1={HEIGHT} x2={WIDTH} y2={HEIGHT} />
        {values.map((entry, index) => {
          const x = index * barWidth + GAP / 2;
          const width = Math.max(barWidth - GAP, 0.5);
          return (
            <g key={entry.day}>
              <title>{`${entry.day}: ${partLabel} ${format(entry.part)} / ${wholeLabel} ${format(entry.whole)}`}</title>
              <rect
                className="insights-chart__bar insights-chart__bar--whole"
                x={x}
                y={HEIGHT - heightOf(entry.whole)}
                width={width}
                height={heightOf(entry.whole)}
              />
              <rect
                className="insights-chart__bar"
                x={x}
                y={HEIGHT - heightOf(entry.part)}
                width={width}
                height={heightOf(entry.part)}
              />
            </g>
          );
        })}
      </svg>
      <DayRange values={values} />
      <ul className="insights-chart__legend" aria-hidden="true">
        <li>
          <span className="insights-chart__swatch" />
          {partLabel}
        </li>
        <li>
          <span className="insights-chart__swatch insights-chart__swatch--whole" />
          {wholeLabel}
        </li>
      </ul>
      <DayTable
        values={values}
        columns={[
          { label: wholeLabel, cell: (entry) => format(entry.whole) },
          { label: partLabel, cell: (entry) => format(entry.part) },
        ]}
      />
    </figure>
  );
}

/** The first and last day under a chart (what its left and right edges are). */
function DayRange({ values }: { readonly values: readonly { readonly day: string }[] }) {
  return (
    <div className="insights-chart__range" aria-hidden="true">
      <span>{values[0]?.day}</span>
      <span>{values.at(-1)?.day}</span>
    </div>
  );
}

/** A chart's figures one click away: a row per day, a column per series. */
function DayTable<Entry extends { readonly day: string }>({
  values,
  columns,
}: {
  readonly values: readonly Entry[];
  readonly columns: readonly { readonly label: string; readonly cell: (entry: Entry) => string }[];
}) {
  const text = useInsightsText();
  return (
    <details className="insights-chart__table">
      <summary>{text.t('showTable')}</summary>
      <table>
        <thead>
          <tr>
            <th scope="col">{text.t('day')}</th>
            {columns.map((column) => (
              <th key={column.label} scope="col">
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {values.map((entry) => (
            <tr key={entry.day}>
              <td>{entry.day}</td>
              {columns.map((column) => (
                <td key={column.label}>{column.cell(entry)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

/**
 * The 👍/👎 split as one horizontal bar; its label says the figures. Nothing rated: an empty
 * track and "no ratings".
 */
export function ShareBar({ up, down }: { readonly up: number; readonly down: number }) {
  const text = useInsightsText();
  const rated = up + down;
  const upShare = rated === 0 ? 0 : up / rated;
  const label =
    rated === 0
      ? text.t('noRatings')
      : `${text.t('upShare')} ${text.percent(upShare)} — ${text.t('ratings', { up, down })}`;
  return (
    <svg className="insights-share" viewBox="0 0 100 8" role="img" aria-label={label}>
      <rect className="insights-share__track" x={0} y={0} width={100} height={8} rx={2} />
      {rated > 0 && (
        <>
          <rect className="insights-share__up" x={0} y={0} width={upShare * 100} height={8} />
          <rect
            className="insights-share__down"
            x={upShare * 100}
            y={0}
            width={(1 - upShare) * 100}
            height={8}
          />
        </>
      )}
    </svg>
  );
}

/** A gap's trend, as an arrow with its words (the arrow alone would be colour and shape). */
export function TrendMark({
  earlier,
  later,
}: {
  readonly earlier: number;
  readonly later: number;
}) {
  const text = useInsightsText();
  const key = later > earlier ? 'trendUp' : later < earlier ? 'trendDown' : 'trendFlat';
  const arrow = later > earlier ? '↑' : later < earlier ? '↓' : '→';
  const words = text.t(key, { earlier, later });
  return (
    <span className={`insights-trend insights-trend--${key}`} title={words}>
      <span aria-hidden="true">{arrow}</span>
      <span className="visually-hidden">{words}</span>
    </span>
  );
}
