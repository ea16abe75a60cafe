// A bar chart per day in plain SVG (stacked when it has more than one series), with the same
// numbers as a table: the picture is for the eye (aria-hidden), the table for everyone (a
// caption, a header per column and per row). Colours are the design tokens (admin.css), so
// both themes work; the legend names each series.
import { useId } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { TableFrame, T } from './widgets';

const m = defineMessages({
  day: { id: 'admin.chart.day', defaultMessage: 'Day' },
  total: { id: 'admin.chart.total', defaultMessage: 'Total' },
  summary: { id: 'admin.chart.summary', defaultMessage: '{sumText} over {days, plural, one {# day} other {# days}}; most on {peakDate} ({peakText}).' },
  table: { id: 'admin.chart.table', defaultMessage: 'The numbers as a table' },
});

export interface Series {
  key: string;
  name: MessageDescriptor | string;
}

export interface Row {
  /** yyyy-mm-dd */
  day: string;
  values: Record<string, number>;
}

const W = 600;
const H = 150;
const PAD_TOP = 8;

/** The largest round number at least `n` (1, 2, 5 × 10^k). */
export function niceMax(n: number): number {
  if (n <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  for (const f of [1, 2, 5, 10]) if (f * p >= n) return f * p;
  return 10 * p;
}

const short = (day: string) => day.slice(5);

export function DayChart({ title, series, rows, testId }: { title: MessageDescriptor; series: Series[]; rows: Row[]; testId?: string }) {
  const id = useId();
  const intl = useIntl();
  const totals = rows.map((r) => series.reduce((s, x) => s + (r.values[x.key] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const sum = totals.reduce((a, b) => a + b, 0);
  const peakAt = totals.reduce((best, t, i) => (t > (totals[best] ?? 0) ? i : best), 0);
  const slot = W / Math.max(rows.length, 1);
  const bar = Math.max(2, slot * 0.7);
  const stacked = series.length > 1;
  return (
    <figure className="chart card" aria-labelledby={`${id}t`} data-testid={testId}>
      <figcaption>
        <h2 id={`${id}t`}>
          <FormattedMessage {...title} />
        </h2>
        <p className="muted">
          <FormattedMessage
            {...m.summary}
            values={{ sumText: intl.formatNumber(sum), days: rows.length, peakDate: rows[peakAt]?.day ?? '–', peakText: intl.formatNumber(totals[peakAt] ?? 0) }}
          />
        </p>
      </figcaption>
      {stacked && (
        <ul className="legend">
          {series.map((s, i) => (
            <li key={s.key}>
              <span className={`swatch s${i}`} aria-hidden="true" />
              <T msg={s.name} />
            </li>
          ))}
        </ul>
      )}
      <div className="plot" aria-hidden="true">
        <span className="axis-max">{intl.formatNumber(max)}</span>
        <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" focusable="false">
          <line className="grid" x1={0} x2={W} y1={PAD_TOP} y2={PAD_TOP} />
          <line className="grid" x1={0} x2={W} y1={(H + PAD_TOP) / 2} y2={(H + PAD_TOP) / 2} />
          <line className="base" x1={0} x2={W} y1={H} y2={H} />
          {rows.map((r, i) => {
            let y = H;
            return series.map((s, k) => {
              const v = r.values[s.key] ?? 0;
              const h = (v / max) * (H - PAD_TOP);
              y -= h;
              return v > 0 ? <rect key={`${r.day}-${s.key}`} className={`s${k}`} x={i * slot + (slot - bar) / 2} y={y} width={bar} height={h} /> : null;
            });
          })}
        </svg>
        <span className="axis-days">
          <span>{short(rows[0]?.day ?? '')}</span>
          <span>{short(rows[rows.length - 1]?.day ?? '')}</span>
        </span>
      </div>
      <details>
        <summary>
          <FormattedMessage {...m.table} />
        </summary>
        <TableFrame label={intl.formatMessage(title)}>
          <table>
            <caption>
              <FormattedMessage {...title} />
            </caption>
            <thead>
              <tr>
                <th scope="col">
                  <FormattedMessage {...m.day} />
                </th>
                {series.map((s) => (
                  <th scope="col" key={s.key}>
                    <T msg={s.name} />
                  </th>
                ))}
                {stacked && (
                  <th scope="col">
                    <FormattedMessage {...m.total} />
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <tr key={r.day}>
                  <th scope="row">{r.day}</th>
                  {series.map((s) => (
                    <td key={s.key}>{intl.formatNumber(r.values[s.key] ?? 0)}</td>
                  ))}
                  {stacked && <td>{intl.formatNumber(totals[i] ?? 0)}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      </details>
    </figure>
  );
}
