// The overview (/{lang}/admin): accounts in total, new accounts, active accounts, sign-ins by
// outcome and by method, and lockouts, over the last 30 days (GET /admin/overview).
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { useTitle } from '../../components/use-title';
import { getOverview, type Overview as Numbers } from './api';
import { DayChart, type Row, type Series } from './chart';
import { LoadStatus, useLoad } from './context';
import { methodNames, named, outcomeNames } from './labels';

const m = defineMessages({
  heading: { id: 'admin.overview.heading', defaultMessage: 'Overview' },
  total: { id: 'admin.overview.total', defaultMessage: 'Accounts in total' },
  newIn30: { id: 'admin.overview.new30', defaultMessage: 'New accounts, last 30 days' },
  dau: { id: 'admin.overview.dau', defaultMessage: 'Active today' },
  mau: { id: 'admin.overview.mau', defaultMessage: 'Active this month' },
  lastMonth: { id: 'admin.overview.lastMonth', defaultMessage: 'Active last month: {active}' },
  newPerDay: { id: 'admin.overview.newPerDay', defaultMessage: 'New accounts per day' },
  activePerDay: { id: 'admin.overview.activePerDay', defaultMessage: 'Active accounts per day' },
  byOutcome: { id: 'admin.overview.byOutcome', defaultMessage: 'Sign-ins per day by outcome' },
  byMethod: { id: 'admin.overview.byMethod', defaultMessage: 'Sign-ins per day by method' },
  lockouts: { id: 'admin.overview.lockouts', defaultMessage: 'Lockouts per day' },
  newAccounts: { id: 'admin.overview.newAccounts', defaultMessage: 'New accounts' },
  active: { id: 'admin.overview.active', defaultMessage: 'Active accounts' },
  locks: { id: 'admin.overview.locks', defaultMessage: 'Lockouts' },
  numbers: { id: 'admin.overview.numbers', defaultMessage: 'Key numbers' },
});

const OUTCOMES = ['success', 'wrongSecret', 'locked', 'secondStepFailed', 'other'];
const METHODS = ['password', 'code', 'passkey', 'staff', 'totp'];

/** The keys of `seen` in the order of `known`, then any the server added. */
function keysOf(known: string[], seen: Set<string>): string[] {
  return [...known.filter((k) => seen.has(k)), ...[...seen].filter((k) => !known.includes(k)).sort()];
}

function splitBy(n: Numbers, part: 'byOutcome' | 'byMethod', known: string[], names: Record<string, MessageDescriptor>) {
  const seen = new Set<string>(known);
  for (const d of n.days) for (const k of Object.keys(d.signIns[part])) seen.add(k);
  const series: Series[] = keysOf(known, seen).map((key) => ({ key, name: named(names, key) }));
  const rows: Row[] = n.days.map((d) => ({
    day: d.day,
    values: Object.fromEntries(series.map((s) => [s.key, Number(d.signIns[part][s.key] ?? 0) || 0])),
  }));
  return { series, rows };
}

export function Overview() {
  useTitle(m.heading);
  const intl = useIntl();
  const { loaded, reload } = useLoad(getOverview, []);
  const n = loaded.state === 'ready' ? loaded.data : null;
  const one = (key: 'newAccounts' | 'active' | 'lockouts', name: MessageDescriptor) => ({
    series: [{ key, name }],
    rows: (n?.days ?? []).map((d) => ({ day: d.day, values: { [key]: d[key] } })),
  });
  const today = n?.days[n.days.length - 1];
  return (
    <div className="console-screen">
      <h1>
        <FormattedMessage {...m.heading} />
      </h1>
      <LoadStatus loaded={loaded} onRetry={reload} />
      {n && (
        <>
          <section aria-label={intl.formatMessage(m.numbers)}>
            <dl className="tiles">
              <div>
                <dt>
                  <FormattedMessage {...m.total} />
                </dt>
                <dd data-testid="total-accounts">{intl.formatNumber(n.accounts)}</dd>
              </div>
              <div>
                <dt>
                  <FormattedMessage {...m.newIn30} />
                </dt>
                <dd>{intl.formatNumber(n.days.reduce((s, d) => s + d.newAccounts, 0))}</dd>
              </div>
              <div>
                <dt>
                  <FormattedMessage {...m.dau} />
                </dt>
                <dd>{intl.formatNumber(today?.active ?? 0)}</dd>
              </div>
              <div>
                <dt>
                  <FormattedMessage {...m.mau} />
                </dt>
                <dd>
                  {intl.formatNumber(n.months[0]?.active ?? 0)}
                  {n.months[1] && (
                    <span className="muted tile-note">
                      <FormattedMessage {...m.lastMonth} values={{ active: intl.formatNumber(n.months[1].active) }} />
                    </span>
                  )}
                </dd>
              </div>
            </dl>
          </section>
          <div className="charts">
            <DayChart title={m.newPerDay} testId="chart-new" {...one('newAccounts', m.newAccounts)} />
            <DayChart title={m.activePerDay} testId="chart-active" {...one('active', m.active)} />
            <DayChart title={m.byOutcome} testId="chart-outcome" {...splitBy(n, 'byOutcome', OUTCOMES, outcomeNames)} />
            <DayChart title={m.byMethod} testId="chart-method" {...splitBy(n, 'byMethod', METHODS, methodNames)} />
            <DayChart title={m.lockouts} testId="chart-lockouts" {...one('lockouts', m.locks)} />
          </div>
        </>
      )}
    </div>
  );
}
