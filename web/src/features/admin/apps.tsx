// Partner apps (/{lang}/admin/apps): the registry (GET /admin/apps); an administrator registers a
// new app (POST /admin/apps with a reason), whose first secret is shown once.
import { useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link, useLocation } from 'react-router';
import { useTitle } from '../../components/use-title';
import { When } from '../../components/when';
import { type ApiError, errorText } from '../../lib/api';
import { type AppDetail, type AppFields, createApp, listApps } from './api';
import { AppForm, type FieldError } from './app-form';
import { LoadStatus, Section, useConsole, useLang, useLoad, useMay } from './context';
import { TableFrame, ReasonDialog, SecretOnce } from './widgets';
import { adminPath } from '../../config/console-paths';

const m = defineMessages({
  heading: { id: 'admin.apps.heading', defaultMessage: 'Partner apps' },
  caption: { id: 'admin.apps.caption', defaultMessage: 'Registered apps' },
  none: { id: 'admin.apps.none', defaultMessage: 'No apps are registered yet.' },
  name: { id: 'admin.apps.col.name', defaultMessage: 'Name' },
  appId: { id: 'admin.apps.col.appId', defaultMessage: 'App id' },
  created: { id: 'admin.apps.col.created', defaultMessage: 'Registered' },
  recommended: { id: 'admin.apps.col.recommended', defaultMessage: 'Recommended' },
  yes: { id: 'admin.account.yes', defaultMessage: 'Yes' },
  no: { id: 'admin.account.no', defaultMessage: 'No' },
  newHeading: { id: 'admin.apps.new', defaultMessage: 'Register an app' },
  newButton: { id: 'admin.apps.newButton', defaultMessage: 'Register an app…' },
  create: { id: 'admin.apps.create', defaultMessage: 'Register' },
  createDialog: { id: 'admin.apps.createDialog', defaultMessage: 'Register {name}? Its secret is shown once, next.' },
  created2: { id: 'admin.apps.created', defaultMessage: '{name} is registered.' },
  openNew: { id: 'admin.apps.openNew', defaultMessage: 'Open {name}' },
});

/** A field error from the server, for the form. */
export function fieldError(e: ApiError): FieldError {
  return { field: e.field ?? '', text: errorText(e) };
}

export function Apps() {
  useTitle(m.heading);
  const intl = useIntl();
  const lang = useLang();
  const admin = useMay('admin');
  const { guard } = useConsole();
  const { loaded, reload } = useLoad(listApps, []);
  const [creating, setCreating] = useState(false);
  const [fields, setFields] = useState<AppFields | null>(null);
  const [error, setError] = useState<FieldError | null>(null);
  const [made, setMade] = useState<{ app: AppDetail; secret: string } | null>(null);
  // The new secret takes the focus where the form was, once the dialog has closed (issue 34 item 5).
  const secretBox = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!made || fields) return;
    secretBox.current?.querySelector('input')?.focus({ preventScroll: true });
    secretBox.current?.scrollIntoView?.({ block: 'nearest' });
  }, [made, fields]);
  const nameOf = (a: AppDetail) => a.name[lang] || a.name['zh-CN'];
  const apps = loaded.state === 'ready' ? loaded.data.apps : null;
  const deleted = (useLocation().state as { deleted?: string } | null)?.deleted;
  return (
    <div className="console-screen">
      <h1>
        <FormattedMessage {...m.heading} />
      </h1>
      {deleted && (
        <p className="notice" role="status" data-testid="app-deleted">
          {deleted}
        </p>
      )}
      {made && (
        <Section title={<FormattedMessage {...m.created2} values={{ name: nameOf(made.app) }} />}>
          <div ref={secretBox}>
            <SecretOnce secret={made.secret} onDismiss={() => setMade(null)} />
            <p>
              <Link to={adminPath(lang, 'app', made.app.appId)}>
                <FormattedMessage {...m.openNew} values={{ name: nameOf(made.app) }} />
              </Link>
            </p>
          </div>
        </Section>
      )}
      {admin &&
        (creating ? (
          <Section title={<FormattedMessage {...m.newHeading} />}>
            <AppForm submitLabel={m.create} error={error} onSubmit={setFields} onCancel={() => setCreating(false)} />
          </Section>
        ) : (
          <p>
            <button type="button" onClick={() => setCreating(true)} data-testid="new-app">
              <FormattedMessage {...m.newButton} />
            </button>
          </p>
        ))}
      <LoadStatus loaded={loaded} onRetry={reload} />
      {apps &&
        (apps.length === 0 ? (
          <p className="muted">
            <FormattedMessage {...m.none} />
          </p>
        ) : (
          <TableFrame label={intl.formatMessage(m.caption)} className="card">
            <table data-testid="apps">
              <caption>{intl.formatMessage(m.caption)}</caption>
              <thead>
                <tr>
                  <th scope="col">
                    <FormattedMessage {...m.name} />
                  </th>
                  <th scope="col">
                    <FormattedMessage {...m.appId} />
                  </th>
                  <th scope="col">
                    <FormattedMessage {...m.recommended} />
                  </th>
                  <th scope="col">
                    <FormattedMessage {...m.created} />
                  </th>
                </tr>
              </thead>
              <tbody>
                {apps.map((a) => (
                  <tr key={a.appId}>
                    <th scope="row">
                      <Link to={adminPath(lang, 'app', a.appId)}>{nameOf(a)}</Link>
                    </th>
                    <td>
                      <code>{a.appId}</code>
                    </td>
                    <td>{intl.formatMessage(a.recommended ? m.yes : m.no)}</td>
                    <td>
                      <When at={a.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        ))}
      {fields && (
        <ReasonDialog
          testId="create-app-dialog"
          title={<FormattedMessage {...m.newHeading} />}
          description={<FormattedMessage {...m.createDialog} values={{ name: fields.name[lang] || fields.name['zh-CN'] }} />}
          confirm={m.create}
          run={async (reason) => {
            const r = await guard(() => createApp(fields, reason));
            if (r && !r.success && r.error.field && r.error.field !== 'reason') {
              setError(fieldError(r.error));
              setFields(null);
              return null;
            }
            if (r?.success) {
              setError(null);
              setMade({ app: r.data.app, secret: r.data.appSecret });
            }
            return r;
          }}
          onDone={(ok) => {
            setFields(null);
            if (ok) {
              setCreating(false);
              reload();
            }
          }}
        />
      )}
    </div>
  );
}
