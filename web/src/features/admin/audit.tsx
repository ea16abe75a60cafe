// The audit log (/{lang}/admin/audit): entries of a range of days (at most 31), filtered by who
// acted, what they acted on (a username, mail, phone or id: the server finds the account) and the
// action (a list in the reader's language), with the people and apps named and linked
// (GET /admin/audit's `people` and `apps`), and the same range exported as CSV or JSON Lines
// (`format=csv|json`, downloaded with the session's token: a plain link would not send it).
import { type ChangeEvent, type FormEvent, useId, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link } from 'react-router';
import { ErrorText, type Msg } from '../../components/field';
import { useTitle } from '../../components/use-title';
import { When } from '../../components/when';
import { adminPath } from '../../config/console-paths';
import { errorText } from '../../lib/api';
import { type AuditAction, type AuditEntry, type AuditFilter, type AuditPage, auditQuery, download, getAudit } from './api';
import { LoadStatus, useConsole, useLang, useLoad } from './context';
import { auditActionNames, named, roleNames } from './labels';
import { TableFrame, T } from './widgets';

const m = defineMessages({
  heading: { id: 'admin.audit.heading', defaultMessage: 'Audit log' },
  intro: { id: 'admin.audit.intro', defaultMessage: 'Every console action and role change, newest first. Entries cannot be changed or deleted.' },
  filters: { id: 'admin.audit.filters', defaultMessage: 'Filter' },
  from: { id: 'admin.audit.from', defaultMessage: 'From' },
  to: { id: 'admin.audit.to', defaultMessage: 'To (at most 31 days)' },
  actor: { id: 'admin.audit.actor', defaultMessage: 'Who acted (username, mail, phone or user id)' },
  target: { id: 'admin.audit.target', defaultMessage: 'Acted on (username, mail, phone, user id or app id)' },
  action: { id: 'admin.audit.action', defaultMessage: 'Action' },
  anyAction: { id: 'admin.audit.anyAction', defaultMessage: 'Any action' },
  cli: { id: 'admin.audit.cli', defaultMessage: 'Command line ({user})' },
  gone: { id: 'admin.audit.gone', defaultMessage: 'Deleted account' },
  goneApp: { id: 'admin.audit.goneApp', defaultMessage: 'Deleted app' },
  show: { id: 'admin.audit.show', defaultMessage: 'Show' },
  tooLong: { id: 'admin.audit.tooLong', defaultMessage: 'Choose at most 31 days, the first not after the last.' },
  exportCsv: { id: 'admin.audit.csv', defaultMessage: 'Export CSV' },
  exportJson: { id: 'admin.audit.json', defaultMessage: 'Export JSON' },
  exported: { id: 'admin.audit.exported', defaultMessage: '{file} downloaded.' },
  none: { id: 'admin.audit.none', defaultMessage: 'No entries in this range.' },
  caption: { id: 'admin.audit.caption', defaultMessage: 'Audit entries from {from} to {to}' },
  at: { id: 'admin.audit.col.at', defaultMessage: 'Time' },
  who: { id: 'admin.audit.col.actor', defaultMessage: 'Actor' },
  what: { id: 'admin.audit.col.action', defaultMessage: 'Action' },
  whom: { id: 'admin.audit.col.target', defaultMessage: 'Target' },
  why: { id: 'admin.audit.col.reason', defaultMessage: 'Reason' },
  request: { id: 'admin.audit.col.request', defaultMessage: 'Request and address' },
});

const DAY_MS = 86_400_000;
const iso = (t: number) => new Date(t).toISOString().slice(0, 10);

/** The last 7 days, today included (UTC days, as the log keeps them). */
export function lastWeek(now = Date.now()): AuditFilter {
  return { from: iso(now - 6 * DAY_MS), to: iso(now) };
}

/** Whether the range is at most 31 days, in order. */
export function validRange(f: AuditFilter): boolean {
  const a = Date.parse(`${f.from}T00:00:00Z`);
  const b = Date.parse(`${f.to}T00:00:00Z`);
  return Number.isFinite(a) && Number.isFinite(b) && a <= b && (b - a) / DAY_MS < 31;
}

export function Audit() {
  useTitle(m.heading);
  const id = useId();
  const intl = useIntl();
  const { guard } = useConsole();
  const [form, setForm] = useState<AuditFilter>(() => ({ ...lastWeek(), actor: '', target: '', action: '' }));
  const [filter, setFilter] = useState<AuditFilter>(form);
  const [error, setError] = useState<Msg>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const key = JSON.stringify(auditQuery(filter));
  const { loaded, reload } = useLoad(() => getAudit(filter), [key]);
  const set = (k: keyof AuditFilter) => (e: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
    setForm((f) => ({ ...f, [k]: e.target.value }));
    setError(null);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!validRange(form)) return setError(m.tooLong);
    setFilter({ ...form });
  };
  const exportAs = async (format: 'csv' | 'json') => {
    if (!validRange(form)) return setError(m.tooLong);
    setBusy(true);
    setStatus(null);
    const fallback = `audit-${form.from}-${form.to}.${format === 'csv' ? 'csv' : 'jsonl'}`;
    const r = await guard(() => download(form, format, fallback));
    setBusy(false);
    if (!r) return;
    if (!r.success) return setError(errorText(r.error));
    const url = URL.createObjectURL(r.data.blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = r.data.filename;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    setStatus(intl.formatMessage(m.exported, { file: r.data.filename }));
  };
  const field = (k: keyof AuditFilter, label: typeof m.from, type = 'text') => (
    <div>
      <label htmlFor={`${id}${k}`}>
        <FormattedMessage {...label} />
      </label>
      <input id={`${id}${k}`} name={k} type={type} value={form[k] ?? ''} autoComplete="off" onChange={set(k)} aria-describedby={`${id}e`} />
    </div>
  );
  const actionField = (
    <div>
      <label htmlFor={`${id}action`}>
        <FormattedMessage {...m.action} />
      </label>
      <select id={`${id}action`} name="action" value={form.action ?? ''} onChange={set('action')} aria-describedby={`${id}e`}>
        <option value="">{intl.formatMessage(m.anyAction)}</option>
        {(Object.keys(auditActionNames) as AuditAction[]).map((a) => (
          <option key={a} value={a}>
            {intl.formatMessage(auditActionNames[a])}
          </option>
        ))}
      </select>
    </div>
  );
  const page = loaded.state === 'ready' ? loaded.data : null;
  const entries = page ? page.entries : null;
  return (
    <div className="console-screen">
      <h1>
        <FormattedMessage {...m.heading} />
      </h1>
      <p className="muted">
        <FormattedMessage {...m.intro} />
      </p>
      <form className="console-form card" onSubmit={submit} noValidate data-testid="audit-form" aria-labelledby={`${id}f`}>
        <h2 id={`${id}f`}>
          <FormattedMessage {...m.filters} />
        </h2>
        <div className="filter-grid">
          {field('from', m.from, 'date')}
          {field('to', m.to, 'date')}
          {field('actor', m.actor)}
          {field('target', m.target)}
          {actionField}
        </div>
        <ErrorText id={`${id}e`} error={error} />
        <div className="buttons">
          <button type="submit" className="primary">
            <FormattedMessage {...m.show} />
          </button>
          <button type="button" onClick={() => void exportAs('csv')} disabled={busy} data-testid="export-csv">
            <FormattedMessage {...m.exportCsv} />
          </button>
          <button type="button" onClick={() => void exportAs('json')} disabled={busy} data-testid="export-json">
            <FormattedMessage {...m.exportJson} />
          </button>
        </div>
        <p role="status" className="muted" data-testid="export-status">
          {status}
        </p>
      </form>
      <LoadStatus loaded={loaded} onRetry={reload} />
      {entries &&
        (entries.length === 0 ? (
          <p className="muted">
            <FormattedMessage {...m.none} />
          </p>
        ) : (
          <TableFrame label={intl.formatMessage(m.caption, { from: filter.from, to: filter.to })} className="card">
            <table data-testid="audit">
              <caption>
                <FormattedMessage {...m.caption} values={{ from: filter.from, to: filter.to }} />
              </caption>
              <thead>
                <tr>
                  <th scope="col">
                    <FormattedMessage {...m.at} />
                  </th>
                  <th scope="col">
                    <FormattedMessage {...m.what} />
                  </th>
                  <th scope="col">
                    <FormattedMessage {...m.who} />
                  </th>
                  <th scope="col">
                    <FormattedMessage {...m.whom} />
                  </th>
                  <th scope="col">
                    <FormattedMessage {...m.why} />
                  </th>
                  <th scope="col">
                    <FormattedMessage {...m.request} />
                  </th>
                </tr>
              </thead>
              <tbody>
                {entries.map((e) => (
                  <tr key={`${e.at}-${e.requestId}`}>
                    <th scope="row">
                      <When at={e.at} />
                    </th>
                    <td>
                      <ActionName action={e.action} />
                      {e.detail ? <span className="muted cell-note">{e.detail}</span> : null}
                    </td>
                    <td>
                      <Actor entry={e} page={page} />
                      <span className="muted cell-note">
                        <T msg={named(roleNames, e.actorRole)} />
                      </span>
                    </td>
                    <td>
                      <Target entry={e} page={page} />
                    </td>
                    <td>{e.reason ?? '–'}</td>
                    <td>
                      <code>{e.requestId}</code>
                      <span className="muted cell-note">{[e.ip, e.device].filter(Boolean).join(' · ') || '–'}</span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        ))}
    </div>
  );
}

/** An action in the reader's language (one this build does not know: as the log says it). */
function ActionName({ action }: { action: string }) {
  const known = Object.prototype.hasOwnProperty.call(auditActionNames, action);
  return known ? <FormattedMessage {...auditActionNames[action as AuditAction]} /> : <code>{action}</code>;
}

/** An account the log names: its username linked to its console page, and its masked mail or phone. */
function Person({ id, page }: { id: string; page: AuditPage | null }) {
  const lang = useLang();
  const p = page?.people[id];
  if (!p) {
    return (
      <>
        <FormattedMessage {...m.gone} />
        <span className="muted cell-note">
          <code>{id}</code>
        </span>
      </>
    );
  }
  return (
    <>
      <Link to={adminPath(lang, 'account', id)}>{p.userName}</Link>
      <span className="muted cell-note">{p.mail ?? p.phone ?? ''}</span>
    </>
  );
}

function Actor({ entry, page }: { entry: AuditEntry; page: AuditPage | null }) {
  if (entry.actor.startsWith('cli:')) return <FormattedMessage {...m.cli} values={{ user: entry.actor.slice(4) }} />;
  return <Person id={entry.actor} page={page} />;
}

/** What the entry acted on: an account, or an app (a webhook's endpoint is in its detail). */
function Target({ entry, page }: { entry: AuditEntry; page: AuditPage | null }) {
  const lang = useLang();
  const onApp = entry.action.startsWith('app.') || entry.action.startsWith('webhook.') && entry.action !== 'webhook.refan';
  if (!onApp) return <Person id={entry.target} page={page} />;
  const names = page?.apps[entry.target];
  if (!names) {
    return (
      <>
        <FormattedMessage {...m.goneApp} />
        <span className="muted cell-note">
          <code>{entry.target}</code>
        </span>
      </>
    );
  }
  return <Link to={adminPath(lang, 'app', entry.target)}>{names[lang] || names['zh-CN']}</Link>;
}
