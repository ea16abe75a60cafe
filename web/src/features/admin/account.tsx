// One account (/{lang}/admin/accounts/:userId), in the order the support desk needs it (issue 34
// item 3): its status and the actions for it first (Unlock on a locked account, in view on a phone
// too), the failed sign-in attempts, the desk's notes, then the profile, two-factor, passkeys,
// sessions, recent apps, consents, security activity and linked accounts (GET
// /admin/accounts/{userId}); mail and phone masked, revealed on request (operator, audited).
// Operators act on the account, each action with a reason in a dialog; an administrator can
// replace the bound mail or phone.
import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link } from 'react-router';
import { ErrorText, type Msg } from '../../components/field';
import { useTitle } from '../../components/use-title';
import { When } from '../../components/when';
import { errorText } from '../../lib/api';
import { hasReason } from '../../lib/reasons';
import { Said, useSaid } from '../../components/said';
import { type AccountPage, act, type Action, getAccount, replaceIdentity, reveal } from './api';
import { LoadStatus, Section, useConsole, useLang, useLoad, useMay } from './context';
import { actionDone, actionHelp, actionNames, activityName, named, roleNames, scopeNames } from './labels';
import { Place, ReasonDialog, T, usePunct } from './widgets';
import { AccountIdentities } from './account-identities';
import { AccountNotes } from './account-notes';
import { FailedAttempts, StatusCard } from './account-status';
import { adminPath } from '../../config/console-paths';
import { countryOptions } from '../../lib/countries';

const m = defineMessages({
  heading: { id: 'admin.account.heading', defaultMessage: 'Account' },
  back: { id: 'admin.account.back', defaultMessage: 'Back to accounts' },
  profile: { id: 'admin.account.profile', defaultMessage: 'Profile' },
  userId: { id: 'admin.field.userId', defaultMessage: 'User id' },
  userName: { id: 'admin.field.userName', defaultMessage: 'Username' },
  displayName: { id: 'admin.account.displayName', defaultMessage: 'Display name' },
  mail: { id: 'admin.field.mail', defaultMessage: 'Mail' },
  phone: { id: 'admin.field.phone', defaultMessage: 'Phone' },
  company: { id: 'admin.account.company', defaultMessage: 'Company' },
  duty: { id: 'admin.account.duty', defaultMessage: 'Job title' },
  country: { id: 'admin.account.country', defaultMessage: 'Country' },
  created: { id: 'admin.account.created', defaultMessage: 'Created' },
  lastSignIn: { id: 'admin.account.lastSignIn', defaultMessage: 'Last sign-in' },
  twoFactor: { id: 'admin.account.twoFactor', defaultMessage: 'Two-factor authentication' },
  on: { id: 'admin.account.on', defaultMessage: 'On' },
  off: { id: 'admin.account.off', defaultMessage: 'Off' },
  passkeys: { id: 'admin.account.passkeys', defaultMessage: 'Passkeys' },
  role: { id: 'admin.account.role', defaultMessage: 'Console role' },
  noRole: { id: 'admin.account.noRole', defaultMessage: 'None' },
  staff: { id: 'admin.account.staff', defaultMessage: 'Staff account' },
  yes: { id: 'admin.account.yes', defaultMessage: 'Yes' },
  no: { id: 'admin.account.no', defaultMessage: 'No' },
  revealButton: { id: 'admin.account.reveal', defaultMessage: 'Reveal mail and phone' },
  revealHelp: { id: 'admin.account.revealHelp', defaultMessage: 'Shows the full mail address and phone number. This is recorded in the audit log.' },
  revealed: { id: 'admin.account.revealed', defaultMessage: 'Mail and phone revealed (recorded in the audit log).' },
  actions: { id: 'admin.account.actions', defaultMessage: 'Help the customer' },
  actionsNone: { id: 'admin.account.actionsNone', defaultMessage: 'A deactivated account cannot be changed.' },
  sessions: { id: 'admin.account.sessions', defaultMessage: 'Signed-in devices' },
  noSessions: { id: 'admin.account.noSessions', defaultMessage: 'Not signed in on any device.' },
  sessionLine: { id: 'admin.account.sessionLine', defaultMessage: '{device} · {country}' },
  since: { id: 'admin.account.since', defaultMessage: 'Signed in {created}, last seen {seen}' },
  unknownDevice: { id: 'admin.account.unknownDevice', defaultMessage: 'Unknown device' },
  apps: { id: 'admin.account.apps', defaultMessage: 'Recently used apps' },
  noApps: { id: 'admin.account.noApps', defaultMessage: 'No apps used recently.' },
  consents: { id: 'admin.account.consents', defaultMessage: 'Apps allowed to see the profile' },
  noConsents: { id: 'admin.account.noConsents', defaultMessage: 'No consents.' },
  activity: { id: 'admin.account.activity', defaultMessage: 'Security activity' },
  noActivity: { id: 'admin.account.noActivity', defaultMessage: 'No security activity.' },
  identity: { id: 'admin.identity.heading', defaultMessage: 'Replace the bound mail or phone' },
  identityHelp: {
    id: 'admin.identity.help',
    defaultMessage: 'For a customer who lost both their mail and their phone: after checking who they are, bind a new one. The old address is told.',
  },
  identityKind: { id: 'admin.identity.kind', defaultMessage: 'Replace' },
  newMail: { id: 'admin.identity.mail', defaultMessage: 'New mail address' },
  newPhone: { id: 'admin.identity.phone', defaultMessage: 'New phone number' },
  phoneCountry: { id: 'admin.identity.country', defaultMessage: 'Country or region of the phone' },
  identityRequired: { id: 'admin.identity.required', defaultMessage: 'Enter the new value' },
  identityButton: { id: 'admin.identity.button', defaultMessage: 'Replace…' },
  identityConfirm: { id: 'admin.identity.confirm', defaultMessage: 'Replace' },
  identityDialog: { id: 'admin.identity.dialog', defaultMessage: 'Bind {value} to {name}?' },
  identityDone: { id: 'admin.identity.done', defaultMessage: 'The new value is bound.' },
  actionTitle: { id: 'admin.account.actionTitle', defaultMessage: '{action}: {name}' },
});

/** The actions that apply to the account as it is now, the one its status calls for first. */
export function actionsFor(a: AccountPage): Action[] {
  if (a.status === 'deactivated') return [];
  const out: Action[] = [];
  if (a.status === 'locked') out.push('unlock');
  if (a.status === 'suspended') out.push('reactivate');
  out.push('end-sessions');
  if (a.twoFactor) out.push('reset-two-factor');
  if (a.passkeys > 0) out.push('reset-passkeys');
  out.push('send-reset-code');
  if (a.status !== 'suspended') out.push('suspend');
  return out;
}

const DANGER: ReadonlySet<Action> = new Set(['suspend', 'end-sessions', 'reset-two-factor', 'reset-passkeys']);

export function Account({ userId }: { userId: string }) {
  const lang = useLang();
  useTitle(m.heading);
  const { loaded, reload } = useLoad(() => getAccount(userId), [userId]);
  const a = loaded.state === 'ready' ? loaded.data : null;
  return (
    <div className="console-screen">
      <p>
        <Link to={adminPath(lang, 'accounts')}>
          <FormattedMessage {...m.back} />
        </Link>
      </p>
      <h1>
        <FormattedMessage {...m.heading} />
        {a && <span className="h1-sub">: {a.userName}</span>}
      </h1>
      <LoadStatus loaded={loaded} onRetry={reload} />
      {a && <AccountView a={a} reload={reload} />}
    </div>
  );
}

function AccountView({ a, reload }: { a: AccountPage; reload: () => void }) {
  const intl = useIntl();
  const operator = useMay('operator');
  const admin = useMay('admin');
  const { guard } = useConsole();
  const [shown, setShown] = useState<{ mail: string | null; phone: string | null } | null>(null);
  const [revealing, setRevealing] = useState(false);
  const [action, setAction] = useState<Action | null>(null);
  // Each confirmation is said where the agent acted, and takes the focus (issue 34 item 5).
  const done = useSaid();
  const revealed = useSaid();
  const actions = actionsFor(a);
  const fact = (label: Parameters<typeof intl.formatMessage>[0], value: ReactNode, testId?: string) => (
    <div>
      <dt>{intl.formatMessage(label)}</dt>
      <dd data-testid={testId}>{value ?? '–'}</dd>
    </div>
  );
  return (
    <>
      <StatusCard a={a}>
        {operator && (
          <>
            <Said said={done.said} testId="action-done" focus />
            {actions.length === 0 ? (
              <p className="muted">
                <FormattedMessage {...m.actionsNone} />
              </p>
            ) : (
              <ul className="action-list" aria-label={intl.formatMessage(m.actions)}>
                {actions.map((x) => (
                  <li key={x}>
                    <button type="button" className={DANGER.has(x) ? 'danger' : undefined} data-testid={`action-${x}`} onClick={() => setAction(x)}>
                      <FormattedMessage {...actionNames[x]} />
                    </button>
                    <span className="muted">
                      <FormattedMessage {...actionHelp[x]} />
                    </span>
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </StatusCard>
      <FailedAttempts a={a} />
      <AccountNotes a={a} onSaved={reload} />
      <Section title={<FormattedMessage {...m.profile} />}>
        <dl className="facts">
          {fact(m.userId, <code>{a.userId}</code>)}
          {fact(m.userName, a.userName)}
          {fact(m.displayName, a.displayName)}
          {fact(m.mail, shown ? shown.mail : a.mail, 'account-mail')}
          {fact(m.phone, shown ? shown.phone : a.phone, 'account-phone')}
          {fact(m.company, a.company)}
          {fact(m.duty, a.duty)}
          {fact(m.country, a.country ? <Place code={a.country} /> : null)}
          {fact(m.created, <When at={a.createdAt} />)}
          {fact(m.lastSignIn, <When at={a.lastSignIn} />)}
          {fact(m.twoFactor, intl.formatMessage(a.twoFactor ? m.on : m.off), 'account-two-factor')}
          {fact(m.passkeys, intl.formatNumber(a.passkeys))}
          {fact(m.staff, intl.formatMessage(a.staff ? m.yes : m.no))}
          {fact(m.role, a.role ? <T msg={named(roleNames, a.role)} /> : intl.formatMessage(m.noRole))}
        </dl>
        <Said said={revealed.said} testId="revealed" focus />
        {operator && !shown && (a.mail || a.phone) && (
          <p>
            <button type="button" onClick={() => setRevealing(true)} data-testid="reveal">
              <FormattedMessage {...m.revealButton} />
            </button>
          </p>
        )}
      </Section>
      {admin && a.status !== 'deactivated' && (
        <ReplaceIdentity
          a={a}
          onDone={() => {
            // The revealed values were the old ones: masked again until revealed anew.
            setShown(null);
            reload();
          }}
        />
      )}
      <AccountIdentities a={a} onDone={reload} />
      <Lists a={a} />
      {revealing && (
        <ReasonDialog
          testId="reveal-dialog"
          title={<FormattedMessage {...m.revealButton} />}
          description={<FormattedMessage {...m.revealHelp} />}
          confirm={m.revealButton}
          run={async (reason) => {
            const r = await guard(() => reveal(a.userId, reason));
            if (r?.success) setShown({ mail: r.data.mail, phone: r.data.phone });
            return r;
          }}
          onDone={(ok) => {
            setRevealing(false);
            if (ok) revealed.say(intl.formatMessage(m.revealed));
          }}
        />
      )}
      {action && (
        <ReasonDialog
          testId="action-dialog"
          title={<FormattedMessage {...m.actionTitle} values={{ action: intl.formatMessage(actionNames[action]), name: a.userName }} />}
          description={<FormattedMessage {...actionHelp[action]} />}
          confirm={actionNames[action]}
          danger={DANGER.has(action)}
          run={(reason) => guard(() => act(a.userId, action, reason))}
          onDone={(ok) => {
            const which = action;
            setAction(null);
            if (!ok) return;
            done.say(intl.formatMessage(actionDone[which]));
            reload();
          }}
        />
      )}
    </>
  );
}

function ReplaceIdentity({ a, onDone }: { a: AccountPage; onDone: () => void }) {
  const id = useId();
  const intl = useIntl();
  const { guard } = useConsole();
  const [kind, setKind] = useState<'mail' | 'phone'>('mail');
  const [value, setValue] = useState('');
  const [country, setCountry] = useState('CN');
  const [error, setError] = useState<Msg>(null);
  const [asking, setAsking] = useState(false);
  const done = useSaid();
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (!value.trim()) {
      setError(m.identityRequired);
      (e.currentTarget.elements.namedItem('identityValue') as HTMLInputElement | null)?.focus();
      return;
    }
    setAsking(true);
  };
  return (
    <Section title={<FormattedMessage {...m.identity} />} id="identity">
      <p className="muted">
        <FormattedMessage {...m.identityHelp} />
      </p>
      <Said said={done.said} testId="identity-done" focus />
      <form className="console-form" onSubmit={submit} noValidate data-testid="identity-form" onInput={done.clear}>
        <fieldset className="choice">
          <legend>
            <FormattedMessage {...m.identityKind} />
          </legend>
          {(['mail', 'phone'] as const).map((k) => (
            <label key={k} className="radio">
              <input
                type="radio"
                name="identityKind"
                value={k}
                checked={kind === k}
                onChange={() => {
                  setKind(k);
                  setValue('');
                  setError(null);
                }}
              />
              <FormattedMessage {...(k === 'mail' ? m.mail : m.phone)} />
            </label>
          ))}
        </fieldset>
        <label htmlFor={`${id}v`}>
          <FormattedMessage {...(kind === 'mail' ? m.newMail : m.newPhone)} />
        </label>
        <input
          id={`${id}v`}
          name="identityValue"
          type={kind === 'mail' ? 'email' : 'tel'}
          autoComplete="off"
          value={value}
          aria-invalid={!!error}
          aria-describedby={`${id}e`}
          onChange={(e) => {
            setValue(e.target.value);
            setError(null);
          }}
        />
        <ErrorText id={`${id}e`} error={error} />
        {kind === 'phone' && (
          <>
            <label htmlFor={`${id}c`}>
              <FormattedMessage {...m.phoneCountry} />
            </label>
            {/* Countries by name in the page's language, never a code to type (docs/glossary.md). */}
            <select id={`${id}c`} name="country" value={country} onChange={(e) => setCountry(e.target.value)}>
              {countryOptions(intl.locale, country).map((c) => (
                <option key={c.code} value={c.code}>
                  {c.name}
                </option>
              ))}
            </select>
          </>
        )}
        <button type="submit">
          <FormattedMessage {...m.identityButton} />
        </button>
      </form>
      {asking && (
        <ReasonDialog
          testId="identity-dialog"
          title={<FormattedMessage {...m.identity} />}
          description={<FormattedMessage {...m.identityDialog} values={{ value: value.trim(), name: a.userName }} />}
          confirm={m.identityConfirm}
          danger
          run={async (reason) => {
            const change = kind === 'mail' ? { mail: value.trim() } : { phone: value.trim(), country };
            const r = await guard(() => replaceIdentity(a.userId, reason, change));
            // MAIL_EXIST / PHONE_EXIST (and a malformed value) belong to the field, not the dialog.
            if (r && !r.success && (hasReason(r.error, 'MAIL_EXIST', 'PHONE_EXIST') || (r.error.field && r.error.field !== 'reason'))) {
              setError(errorText(r.error));
              setAsking(false);
              return null;
            }
            return r;
          }}
          onDone={(ok) => {
            setAsking(false);
            if (!ok) return;
            setValue('');
            done.say(intl.formatMessage(m.identityDone));
            onDone();
          }}
        />
      )}
    </Section>
  );
}

function Lists({ a }: { a: AccountPage }) {
  const intl = useIntl();
  const punct = usePunct();
  const unknown = intl.formatMessage(m.unknownDevice);
  return (
    <>
      <Section title={<FormattedMessage {...m.sessions} />}>
        {a.sessions.length === 0 ? (
          <p className="muted">
            <FormattedMessage {...m.noSessions} />
          </p>
        ) : (
          <ul className="items">
            {a.sessions.map((s) => (
              <li key={s.id}>
                <div>
                  <strong>
                    <FormattedMessage {...m.sessionLine} values={{ device: s.device ?? unknown, country: s.country ? <Place code={s.country} /> : '–' }} />
                  </strong>
                  <p className="muted">
                    <FormattedMessage {...m.since} values={{ created: <When at={s.createdAt} />, seen: <When at={s.lastSeen} /> }} />
                  </p>
                </div>
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section title={<FormattedMessage {...m.apps} />}>
        {a.recentApps.length === 0 ? (
          <p className="muted">
            <FormattedMessage {...m.noApps} />
          </p>
        ) : (
          <ul className="items">
            {a.recentApps.map((x) => (
              <li key={x.appId}>
                <span>{x.name}</span>
                <When at={x.lastLoginTime} dateOnly />
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section title={<FormattedMessage {...m.consents} />}>
        {a.consents.length === 0 ? (
          <p className="muted">
            <FormattedMessage {...m.noConsents} />
          </p>
        ) : (
          <ul className="items">
            {a.consents.map((c) => (
              <li key={c.appId}>
                <div>
                  <strong>{c.name}</strong>
                  <p className="muted">{c.scopes.map((s) => intl.formatMessage(scopeNames[s])).join(', ')}</p>
                </div>
                <When at={c.grantedAt} />
              </li>
            ))}
          </ul>
        )}
      </Section>
      <Section title={<FormattedMessage {...m.activity} />}>
        {a.activity.length === 0 ? (
          <p className="muted">
            <FormattedMessage {...m.noActivity} />
          </p>
        ) : (
          <ul className="events" data-testid="account-activity">
            {a.activity.map((e, i) => (
              <li key={`${e.at}-${i}`}>
                <strong>
                  <T msg={activityName(e.kind)} />
                  {e.name ? punct.paren(e.name) : ''}
                </strong>
                <span className="muted">
                  <When at={e.at} />
                  {e.device ? ` · ${e.device}` : ''}
                  {e.country ? (
                    <>
                      {' · '}
                      <Place code={e.country} />
                    </>
                  ) : null}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Section>
    </>
  );
}
