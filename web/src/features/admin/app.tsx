// One partner app (/{lang}/admin/apps/:appId): its registry entry (GET /admin/apps/{appId}). An
// administrator edits it (PATCH, with a reason), rotates its secret with no failed verification
// (the new secret shown once; the old one keeps working until a chosen end), retires the old
// secret early, manages its webhook endpoints (webhooks.tsx), and deletes it after reading what
// deleting ends.
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link, useNavigate } from 'react-router';
import { useTitle } from '../../components/use-title';
import { When } from '../../components/when';
import type { ApiError } from '../../lib/api';
import { Said, useSaid } from '../../components/said';
import { type AppDetail, type AppFields, deleteApp, getApp, type OneApp, patchApp, retirePreviousSecret, rotateSecret } from './api';
import { AppForm, type FieldError } from './app-form';
import { fieldError } from './apps';
import { LoadStatus, Section, useConsole, useLang, useLoad, useMay } from './context';
import { endsName, keepsName, scopeNames } from './labels';
import { Webhooks } from './webhooks';
import { ReasonDialog, SecretOnce, T, usePunct } from './widgets';
import { adminPath } from '../../config/console-paths';

const m = defineMessages({
  heading: { id: 'admin.app.heading', defaultMessage: 'Partner app' },
  back: { id: 'admin.app.back', defaultMessage: 'Back to apps' },
  details: { id: 'admin.app.details', defaultMessage: 'Registry entry' },
  appId: { id: 'admin.apps.col.appId', defaultMessage: 'App id' },
  nameZh: { id: 'admin.appForm.nameZh', defaultMessage: 'Name in Chinese' },
  nameEn: { id: 'admin.appForm.nameEn', defaultMessage: 'Name in English' },
  description: { id: 'admin.appForm.description', defaultMessage: 'Description' },
  logo: { id: 'admin.app.logo', defaultMessage: 'Logo' },
  privacyUrl: { id: 'admin.app.privacyUrl', defaultMessage: 'Privacy policy' },
  serviceUrls: { id: 'admin.app.serviceUrls', defaultMessage: 'Service URLs' },
  frameOrigins: { id: 'admin.app.frameOrigins', defaultMessage: 'Frame origins' },
  postLogoutRedirectUris: { id: 'admin.app.postLogoutRedirectUris', defaultMessage: 'Addresses after sign-out' },
  backchannelLogoutUri: { id: 'admin.app.backchannelLogoutUri', defaultMessage: 'Back-channel logout URI' },
  logoutUrl: { id: 'admin.app.logoutUrl', defaultMessage: 'Logout notice URL' },
  ownerMail: { id: 'admin.app.ownerMail', defaultMessage: "Owner's e-mail" },
  scopes: { id: 'admin.app.scopes', defaultMessage: 'Scopes' },
  recommended: { id: 'admin.apps.col.recommended', defaultMessage: 'Recommended' },
  created: { id: 'admin.apps.col.created', defaultMessage: 'Registered' },
  yes: { id: 'admin.account.yes', defaultMessage: 'Yes' },
  no: { id: 'admin.account.no', defaultMessage: 'No' },
  none: { id: 'admin.app.none', defaultMessage: 'None' },
  edit: { id: 'admin.app.edit', defaultMessage: 'Edit…' },
  editHeading: { id: 'admin.app.editHeading', defaultMessage: 'Edit the app' },
  save: { id: 'admin.app.save', defaultMessage: 'Save' },
  saved: { id: 'admin.app.saved', defaultMessage: 'The app is saved.' },
  saveDialog: { id: 'admin.app.saveDialog', defaultMessage: 'Save the changes to {name}?' },
  secret: { id: 'admin.app.secret', defaultMessage: 'Secret' },
  secretHelp: {
    id: 'admin.app.secretHelp',
    defaultMessage: 'A new secret is shown once. The old one keeps working until the end you choose, so the partner can switch without a failed verification.',
  },
  previous: { id: 'admin.app.previous', defaultMessage: 'The previous secret works until {time}.' },
  noPrevious: { id: 'admin.app.noPrevious', defaultMessage: 'Only the current secret works.' },
  rotate: { id: 'admin.app.rotate', defaultMessage: 'New secret…' },
  rotateConfirm: { id: 'admin.app.rotateConfirm', defaultMessage: 'Make a new secret' },
  rotateTitle: { id: 'admin.app.rotateTitle', defaultMessage: 'A new secret for {name}' },
  oldEnds: { id: 'admin.app.oldEnds', defaultMessage: 'The old secret keeps working for' },
  hour: { id: 'admin.app.end.hour', defaultMessage: '1 hour' },
  day: { id: 'admin.app.end.day', defaultMessage: '24 hours' },
  week: { id: 'admin.app.end.week', defaultMessage: '7 days' },
  date: { id: 'admin.app.end.date', defaultMessage: 'until a date' },
  endDate: { id: 'admin.app.end.dateLabel', defaultMessage: 'End date (the end of that day, UTC; at most 30 days)' },
  rotated: { id: 'admin.app.rotated', defaultMessage: 'New secret for {name}' },
  retire: { id: 'admin.app.retire', defaultMessage: 'Retire the previous secret now…' },
  retireConfirm: { id: 'admin.app.retireConfirm', defaultMessage: 'Retire it' },
  retireHelp: { id: 'admin.app.retireHelp', defaultMessage: 'The previous secret stops working at once; only the current one stays.' },
  retired: { id: 'admin.app.retired', defaultMessage: 'The previous secret no longer works.' },
  deleteHeading: { id: 'admin.app.deleteHeading', defaultMessage: 'Delete the app' },
  deleteButton: { id: 'admin.app.delete', defaultMessage: 'Delete…' },
  deleteConfirm: { id: 'admin.app.deleteConfirm', defaultMessage: 'Delete for good' },
  deleteTitle: { id: 'admin.app.deleteTitle', defaultMessage: 'Delete {name}?' },
  deleteEnds: { id: 'admin.app.deleteEnds', defaultMessage: 'Deleting the app ends:' },
  deleteKeeps: { id: 'admin.app.deleteKeeps', defaultMessage: 'It does not end:' },
  rotatedAt: { id: 'admin.app.rotatedAt', defaultMessage: 'Secret last changed' },
  never: { id: 'admin.app.never', defaultMessage: 'Never' },
  deleted: { id: 'admin.app.deleted', defaultMessage: '{name} is deleted.' },
});

const HOUR = 3600;
type End = 'hour' | 'day' | 'week' | 'date';
const SPANS: Record<Exclude<End, 'date'>, number> = { hour: HOUR, day: 24 * HOUR, week: 7 * 24 * HOUR };

/** The old secret's end (unix seconds) for a choice; a date is the end of that day (UTC). */
export function endOf(choice: End, date: string, now = Date.now()): number | null {
  if (choice !== 'date') return Math.floor(now / 1000) + SPANS[choice];
  const t = Date.parse(`${date}T23:59:59Z`);
  return Number.isFinite(t) && t > now ? Math.floor(t / 1000) : null;
}

export function AppPage({ appId }: { appId: string }) {
  const lang = useLang();
  useTitle(m.heading);
  const { loaded, reload, setLoaded } = useLoad(() => getApp(appId), [appId]);
  const one = loaded.state === 'ready' ? loaded.data : null;
  const app = one?.app ?? null;
  return (
    <div className="console-screen">
      <p>
        <Link to={adminPath(lang, 'apps')}>
          <FormattedMessage {...m.back} />
        </Link>
      </p>
      <h1>
        <FormattedMessage {...m.heading} />
        {app && <span className="h1-sub">: {app.name[lang] || app.name['zh-CN']}</span>}
      </h1>
      <LoadStatus loaded={loaded} onRetry={reload} />
      {one && <AppView one={one} onChange={(next) => setLoaded({ state: 'ready', data: { ...one, app: next } })} />}
    </div>
  );
}

function AppView({ one, onChange }: { one: OneApp; onChange: (app: AppDetail) => void }) {
  const punct = usePunct();
  const { app } = one;
  const intl = useIntl();
  const lang = useLang();
  const navigate = useNavigate();
  const admin = useMay('admin');
  const { guard } = useConsole();
  const name = app.name[lang] || app.name['zh-CN'];
  const [editing, setEditing] = useState(false);
  const [fields, setFields] = useState<AppFields | null>(null);
  const [error, setError] = useState<FieldError | null>(null);
  const [dialog, setDialog] = useState<'rotate' | 'retire' | 'delete' | null>(null);
  const [end, setEnd] = useState<End>('day');
  const [endDate, setEndDate] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  // Said where the admin acted (issue 34 item 5): the new secret in the Secret section, with the
  // focus on it once the dialog has closed; the saved details in the details section.
  const secretBox = useRef<HTMLDivElement>(null);
  const rotateButton = useRef<HTMLButtonElement>(null);
  const saved = useSaid();
  const retired = useSaid();
  useEffect(() => {
    if (!secret || dialog) return;
    const input = secretBox.current?.querySelector('input');
    input?.focus({ preventScroll: true });
    secretBox.current?.scrollIntoView?.({ block: 'nearest' });
  }, [secret, dialog]);
  const list = (xs: string[]) =>
    xs.length === 0 ? (
      intl.formatMessage(m.none)
    ) : (
      <ul className="plain">
        {xs.map((x) => (
          <li key={x}>
            <code>{x}</code>
          </li>
        ))}
      </ul>
    );
  const fact = (label: Parameters<typeof intl.formatMessage>[0], value: ReactNode) => (
    <div>
      <dt>{intl.formatMessage(label)}</dt>
      <dd>{value}</dd>
    </div>
  );
  const previousLive = app.previousSecretUntil !== null && app.previousSecretUntil * 1000 > Date.now();
  return (
    <>
      <Section title={<FormattedMessage {...m.details} />}>
        <Said said={saved.said} testId="app-saved" focus />
        {editing ? (
          <AppForm app={app} submitLabel={m.save} error={error} onSubmit={setFields} onCancel={() => setEditing(false)} />
        ) : (
          <>
            <dl className="facts">
              {fact(m.appId, <code data-testid="app-id">{app.appId}</code>)}
              {fact(m.nameZh, app.name['zh-CN'])}
              {fact(m.nameEn, app.name['en-US'])}
              {fact(m.description, app.description || intl.formatMessage(m.none))}
              {fact(m.logo, app.logo ? <code>{app.logo}</code> : intl.formatMessage(m.none))}
              {fact(m.privacyUrl, app.privacyUrl ? <code>{app.privacyUrl}</code> : intl.formatMessage(m.none))}
              {fact(m.serviceUrls, list(app.serviceUrls))}
              {fact(m.frameOrigins, list(app.frameOrigins))}
              {fact(m.postLogoutRedirectUris, list(app.postLogoutRedirectUris))}
              {fact(m.backchannelLogoutUri, app.backchannelLogoutUri ? <code>{app.backchannelLogoutUri}</code> : intl.formatMessage(m.none))}
              {fact(m.logoutUrl, app.logoutUrl ? <code>{app.logoutUrl}</code> : intl.formatMessage(m.none))}
              {fact(m.ownerMail, app.ownerMail || intl.formatMessage(m.none))}
              {fact(m.scopes, app.scopes.length ? app.scopes.map((s) => intl.formatMessage(scopeNames[s])).join(punct.list) : intl.formatMessage(m.none))}
              {fact(m.recommended, intl.formatMessage(app.recommended ? m.yes : m.no))}
              {fact(m.created, <When at={app.createdAt} />)}
              {fact(m.rotatedAt, app.secretRotatedAt ? <When at={app.secretRotatedAt} /> : intl.formatMessage(m.never))}
            </dl>
            {admin && (
              <p>
                <button type="button" onClick={() => setEditing(true)} data-testid="edit-app">
                  <FormattedMessage {...m.edit} />
                </button>
              </p>
            )}
          </>
        )}
      </Section>
      <Section title={<FormattedMessage {...m.secret} />} id="secret">
        <p className="muted">
          <FormattedMessage {...m.secretHelp} />
        </p>
        {secret && (
          <div ref={secretBox}>
            <SecretOnce
              secret={secret}
              label={<FormattedMessage {...m.rotated} values={{ name }} />}
              onDismiss={() => {
                setSecret(null);
                rotateButton.current?.focus();
              }}
            />
          </div>
        )}
        <Said said={retired.said} testId="secret-retired" focus />
        <p data-testid="previous-secret">
          {previousLive ? <FormattedMessage {...m.previous} values={{ time: <When at={app.previousSecretUntil} /> }} /> : <FormattedMessage {...m.noPrevious} />}
        </p>
        {admin && (
          <div className="buttons">
            <button type="button" ref={rotateButton} onClick={() => setDialog('rotate')} data-testid="rotate-secret">
              <FormattedMessage {...m.rotate} />
            </button>
            {previousLive && (
              <button type="button" className="danger" onClick={() => setDialog('retire')} data-testid="retire-secret">
                <FormattedMessage {...m.retire} />
              </button>
            )}
          </div>
        )}
      </Section>
      <Webhooks appId={app.appId} ownerMail={app.ownerMail} />
      {admin && (
        <Section title={<FormattedMessage {...m.deleteHeading} />} className="danger-zone">
          <p>
            <button type="button" className="danger" onClick={() => setDialog('delete')} data-testid="delete-app">
              <FormattedMessage {...m.deleteButton} />
            </button>
          </p>
        </Section>
      )}
      {fields && (
        <ReasonDialog
          testId="save-app-dialog"
          title={<FormattedMessage {...m.editHeading} />}
          description={<FormattedMessage {...m.saveDialog} values={{ name }} />}
          confirm={m.save}
          run={async (reason) => {
            const r = await guard(() => patchApp(app.appId, fields, reason));
            if (r && !r.success && r.error.field && r.error.field !== 'reason') {
              setError(fieldError(r.error));
              setFields(null);
              return null;
            }
            if (r?.success) onChange(r.data.app);
            return r;
          }}
          onDone={(ok) => {
            setFields(null);
            if (!ok) return;
            setError(null);
            setEditing(false);
            saved.say(intl.formatMessage(m.saved));
          }}
        />
      )}
      {dialog === 'rotate' && (
        <ReasonDialog
          testId="rotate-dialog"
          title={<FormattedMessage {...m.rotateTitle} values={{ name }} />}
          description={<FormattedMessage {...m.secretHelp} />}
          confirm={m.rotateConfirm}
          run={async (reason) => {
            const until = endOf(end, endDate);
            if (until === null) {
              const error: ApiError = { reason: 'INVALID_PARAMETER', message: intl.formatMessage(m.endDate), code: 400 };
              return { success: false, error };
            }
            const r = await guard(() => rotateSecret(app.appId, reason, until));
            if (r?.success) {
              onChange(r.data.app);
              setSecret(r.data.appSecret);
            }
            return r;
          }}
          onDone={() => setDialog(null)}
        >
          <fieldset className="choice">
            <legend>
              <FormattedMessage {...m.oldEnds} />
            </legend>
            {(['hour', 'day', 'week', 'date'] as const).map((k) => (
              <label key={k} className="radio">
                <input type="radio" name="oldEnds" value={k} checked={end === k} data-autofocus={end === k ? true : undefined} onChange={() => setEnd(k)} />
                <FormattedMessage {...m[k]} />
              </label>
            ))}
          </fieldset>
          {end === 'date' && (
            <>
              <label htmlFor="old-secret-end">
                <FormattedMessage {...m.endDate} />
              </label>
              <input
                id="old-secret-end"
                type="date"
                min={new Date().toISOString().slice(0, 10)}
                max={new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10)}
                value={endDate}
                onChange={(e) => setEndDate(e.target.value)}
              />
            </>
          )}
        </ReasonDialog>
      )}
      {dialog === 'retire' && (
        <ReasonDialog
          testId="retire-dialog"
          title={<FormattedMessage {...m.retire} />}
          description={<FormattedMessage {...m.retireHelp} />}
          confirm={m.retireConfirm}
          danger
          run={async (reason) => {
            const r = await guard(() => retirePreviousSecret(app.appId, reason));
            if (r?.success) onChange(r.data.app);
            return r;
          }}
          onDone={(ok) => {
            setDialog(null);
            if (ok) retired.say(intl.formatMessage(m.retired));
          }}
        />
      )}
      {dialog === 'delete' && (
        <ReasonDialog
          testId="delete-dialog"
          title={<FormattedMessage {...m.deleteTitle} values={{ name }} />}
          description={
            <>
              <FormattedMessage {...m.deleteEnds} />
            </>
          }
          confirm={m.deleteConfirm}
          danger
          run={(reason) => guard(() => deleteApp(app.appId, reason))}
          onDone={(ok) => {
            setDialog(null);
            if (!ok) return;
            // The apps screen says it (a toast would go with this screen).
            navigate(adminPath(lang, 'apps'), { state: { deleted: intl.formatMessage(m.deleted, { name }) } });
          }}
        >
          <ul className="ends" data-testid="delete-ends">
            {one.deleteEnds.map((x) => (
              <li key={x}>
                <T msg={endsName(x)} />
              </li>
            ))}
          </ul>
          {one.deleteKeeps.length > 0 && (
            <>
              <p className="muted">
                <FormattedMessage {...m.deleteKeeps} />
              </p>
              <ul className="ends" data-testid="delete-keeps">
                {one.deleteKeeps.map((x) => (
                  <li key={x}>
                    <T msg={keepsName(x)} />
                  </li>
                ))}
              </ul>
            </>
          )}
        </ReasonDialog>
      )}
    </>
  );
}
