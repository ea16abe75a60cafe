// The operator console (/{lang}/admin/...): the gate, the navigation and the screens.
// The gate asks GET /admin/me first: no session goes to sign-in and back here (the router's
// RequireSession, and a session the server no longer knows); PERMISSION_DENIED says there is no
// console role; CONSOLE_MFA_REQUIRED says to turn on two-factor sign-in first; REAUTH_REQUIRED
// (15 minutes idle, or a change that needs a proof at most 5 minutes old) asks for a fresh proof
// and tries again. The navigation shows only what the role may do.
import { lazy, type ReactNode, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { createIntl, defineMessages, FormattedMessage, type IntlShape, RawIntlProvider, useIntl } from 'react-intl';
import { Link, matchPath, Navigate, NavLink, useLocation } from 'react-router';
import { useReauth } from '../../components/reauth';
import { WithMessages } from '../../components/with-messages';
import type { Messages } from '../../i18n/load';
import type { Locale } from '../../i18n/locale';
import { adminPath, type ConsoleScreen, consoleScreens } from '../../config/console-paths';
import { paths } from '../../config/paths';
import { getInfo } from '../../lib/account-api';
import { type ApiError, handleError, type Result } from '../../lib/api';
import { hasReason } from '../../lib/reasons';
import { keepQuery, rememberOrigin } from '../../lib/redirect';
import * as session from '../../lib/session';
import { common } from '../../i18n/common';
import { useTitle } from '../../components/use-title';
import { getMe, type Me, may } from './api';
import { type Console, ConsoleContext, ErrorMessage, useLang } from './context';
import { roleNames } from './labels';
import { Overview } from './overview';
import { Accounts } from './accounts';
import { Account } from './account';
import { Apps } from './apps';
import { AppPage } from './app';
import { Audit } from './audit';
import { Roles } from './roles';
import './admin.css';

// The organizations' screens: chunks of their own, loaded when opened.
const Organizations = lazy(() => import('./orgs'));
const OrgPage = lazy(() => import('./org'));

const m = defineMessages({
  name: { id: 'admin.name', defaultMessage: 'Operator console' },
  nav: { id: 'admin.nav', defaultMessage: 'Console sections' },
  overview: { id: 'admin.nav.overview', defaultMessage: 'Overview' },
  accounts: { id: 'admin.nav.accounts', defaultMessage: 'Accounts' },
  apps: { id: 'admin.nav.apps', defaultMessage: 'Apps' },
  audit: { id: 'admin.nav.audit', defaultMessage: 'Audit log' },
  roles: { id: 'admin.nav.roles', defaultMessage: 'Roles' },
  organizations: { id: 'admin.nav.organizations', defaultMessage: 'Organizations' },
  signedIn: { id: 'admin.signedInAs', defaultMessage: 'Signed in as {who} · {role}' },
  myAccount: { id: 'admin.myAccount', defaultMessage: 'My account' },
  checking: { id: 'admin.checking', defaultMessage: 'Checking your console access…' },
  noRoleHeading: { id: 'admin.noRole.heading', defaultMessage: 'No console access' },
  noRole: {
    id: 'admin.noRole.text',
    defaultMessage: 'Your account has no console role. An administrator of the console can grant you one.',
  },
  mfaHeading: { id: 'admin.mfa.heading', defaultMessage: 'Turn on two-factor sign-in first' },
  mfa: {
    id: 'admin.mfa.text',
    defaultMessage:
      'The console needs a sign-in with two-factor authentication (an authenticator app’s code, a backup code or a passkey). Turn it on in your security settings, then sign in again.',
  },
  mfaLink: { id: 'admin.mfa.link', defaultMessage: 'Go to the security settings' },
  proofHeading: { id: 'admin.proof.heading', defaultMessage: 'Confirm it is you' },
  proof: { id: 'admin.proof.text', defaultMessage: 'The console was idle, so it needs a fresh proof that it is you.' },
  failedHeading: { id: 'admin.failed.heading', defaultMessage: 'The console could not be opened' },
  offHeading: { id: 'admin.off.heading', defaultMessage: 'The console is turned off' },
  off: {
    id: 'admin.off.text',
    defaultMessage: 'This server does not offer the operator console. Its operator turned it off (ciam serve --no-console, or Console=false in the template).',
  },
  retry: { id: 'admin.retryGate', defaultMessage: 'Try again' },
});

type Gate =
  | { state: 'checking' }
  | { state: 'open'; me: Me }
  | { state: 'noRole' }
  | { state: 'mfa' }
  | { state: 'proof' }
  | { state: 'off' }
  | { state: 'failed'; error: ApiError };

/** What each screen of config/paths.ts's `consoleScreens` shows, given its one parameter. */
const SCREENS: Record<ConsoleScreen, (id: string) => ReactNode> = {
  overview: () => <Overview />,
  accounts: () => <Accounts />,
  account: (id) => <Account key={id} userId={id} />,
  apps: () => <Apps />,
  app: (id) => <AppPage key={id} appId={id} />,
  audit: () => <Audit />,
  roles: () => <Roles />,
  organizations: () => <Organizations />,
  organization: (id) => <OrgPage key={id} orgId={id} />,
};

/**
 * The screen of a console address (the part after /{lang}/admin), matched against the patterns of
 * config/paths.ts, or null for an unknown one (it goes to the overview). The app's router only
 * knows `/{lang}/admin/*`, so the entry chunk routes none of this.
 */
export function screenOf(rest: string): ReactNode | null {
  for (const [screen, pattern] of Object.entries(consoleScreens) as [ConsoleScreen, string][]) {
    const hit = matchPath({ path: pattern, end: true }, `/${rest.replace(/^\/+/, '')}`);
    if (hit) return SCREENS[screen](decodeURIComponent(Object.values(hit.params)[0] ?? ''));
  }
  return null;
}

/** The console's catalogue (src/i18n/compiled/<locale>.admin.json, made by scripts/i18n.mjs). */
const MESSAGES: Record<Locale, () => Promise<{ default: unknown }>> = {
  'en-US': () => import('../../i18n/compiled/en-US.admin.json'),
  'zh-CN': () => import('../../i18n/compiled/zh-CN.admin.json'),
};

/**
 * The console's messages, added to the app's: loaded with the chunk, so the app's entry carries
 * no loader of its own for them (the sign-in budget).
 */
function AdminMessages({ children }: { children: ReactNode }) {
  const outer = useIntl();
  const lang = useLang();
  const [intl, setIntl] = useState<IntlShape | null>(null);
  const [failed, setFailed] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    MESSAGES[lang]().then(
      (m) => {
        if (!live) return;
        const messages = { ...(outer.messages as Messages), ...(m.default as Messages) };
        setIntl(createIntl({ locale: outer.locale, defaultLocale: outer.defaultLocale, messages, onError: () => {} }));
      },
      (e: unknown) => live && setFailed(e ?? new Error('admin messages')),
    );
    return () => {
      live = false;
    };
  }, [outer, lang]);
  // A catalogue that cannot load is the screen's error (the router's error screen, with a retry).
  if (failed) throw failed;
  if (!intl)
    return (
      <p className="loading" aria-live="polite">
        {outer.formatMessage(common.loading)}
      </p>
    );
  return <RawIntlProvider value={intl}>{children}</RawIntlProvider>;
}

/**
 * The console's chunk. Without a session: sign in, then back here (ciam_origin_url). Its messages,
 * and the personal ones for the fresh-proof dialog it shares with the security centre.
 */
export default function ConsoleChunk() {
  const { pathname, search, hash } = useLocation();
  const lang = useLang();
  if (!session.isLoggedIn()) {
    rememberOrigin(`${pathname}${search}${hash}`);
    return <Navigate replace to={`${paths.signin(lang)}${keepQuery(search)}`} state={{ origin: true }} />;
  }
  return (
    <WithMessages bundle="personal">
      <AdminMessages>
        <ConsoleRoot />
      </AdminMessages>
    </WithMessages>
  );
}

export function ConsoleRoot() {
  const lang = useLang();
  const { pathname, search, hash } = useLocation();
  const here = useRef('');
  here.current = `${pathname}${search}${hash}`;
  const [gate, setGate] = useState<Gate>({ state: 'checking' });
  const [attempt, setAttempt] = useState(0);
  // The fresh proof asks for the authenticator code when the operator has one, else the password
  // (a passkey is offered either way).
  const [totp, setTotp] = useState(true);
  const { guard: reauth, dialog } = useReauth(totp);
  const guard = useCallback(
    async <T,>(call: () => Promise<Result<T>>): Promise<Result<T> | null> => {
      const r = await reauth(call);
      if (r && !r.success && hasReason(r.error, 'AUTHORIZATION_FAILED')) signIn(r.error, here.current);
      else if (r && !r.success && hasReason(r.error, 'PERMISSION_DENIED', 'CONSOLE_MFA_REQUIRED')) {
        // A role revoked (or two-factor turned off) while the console is open: the gate says so.
        setGate(hasReason(r.error, 'PERMISSION_DENIED') ? { state: 'noRole' } : { state: 'mfa' });
      }
      return r;
    },
    [reauth],
  );
  useEffect(() => {
    let live = true;
    void getInfo({ skipErrorHandler: true }).then((r) => {
      if (live && r.success) setTotp(r.data.enableTotp);
    });
    void reauth(getMe).then((r) => {
      if (!live) return;
      if (r === null) return setGate({ state: 'proof' });
      if (r.success) return setGate({ state: 'open', me: r.data });
      if (hasReason(r.error, 'AUTHORIZATION_FAILED')) return signIn(r.error, here.current);
      if (hasReason(r.error, 'PERMISSION_DENIED')) return setGate({ state: 'noRole' });
      if (hasReason(r.error, 'CONSOLE_MFA_REQUIRED')) return setGate({ state: 'mfa' });
      // The console's routes are not served (`--no-console`, `Console=false`): 404 NOT_FOUND.
      if (hasReason(r.error, 'NOT_FOUND')) return setGate({ state: 'off' });
      setGate({ state: 'failed', error: r.error });
    });
    return () => {
      live = false;
    };
  }, [reauth, attempt]);
  const retry = () => {
    setGate({ state: 'checking' });
    setAttempt((n) => n + 1);
  };
  const ctx = useMemo<Console | null>(() => (gate.state === 'open' ? { me: gate.me, guard } : null), [gate, guard]);
  return (
    <div className="console">
      {ctx ? (
        <ConsoleContext.Provider value={ctx}>
          <ConsoleBar me={ctx.me} />
          <ConsoleScreens />
        </ConsoleContext.Provider>
      ) : (
        <Closed gate={gate} onRetry={retry} lang={lang} />
      )}
      {dialog}
    </div>
  );
}

/** The session is gone: sign in again, then come back to `here` (ciam_origin_url). */
function signIn(e: ApiError, here: string) {
  rememberOrigin(here);
  handleError(e);
}

function ConsoleScreens() {
  const lang = useLang();
  const { pathname } = useLocation();
  const el = screenOf(pathname.replace(/^\/[^/]+\/admin/, ''));
  const intl = useIntl();
  const loading = (
    <p className="loading" aria-live="polite">
      {intl.formatMessage(common.loading)}
    </p>
  );
  return (
    <div className="console-main">
      <Suspense fallback={loading}>{el ?? <Navigate replace to={adminPath(lang, 'overview')} />}</Suspense>
    </div>
  );
}

function ConsoleBar({ me }: { me: Me }) {
  const intl = useIntl();
  const lang = useLang();
  const items = [
    { to: adminPath(lang, 'overview'), label: m.overview, end: true, show: true },
    { to: adminPath(lang, 'accounts'), label: m.accounts, end: false, show: true },
    { to: adminPath(lang, 'apps'), label: m.apps, end: false, show: true },
    { to: adminPath(lang, 'organizations'), label: m.organizations, end: false, show: true },
    { to: adminPath(lang, 'audit'), label: m.audit, end: false, show: true },
    { to: adminPath(lang, 'roles'), label: m.roles, end: false, show: may(me.role, 'admin') },
  ];
  return (
    <div className="console-bar">
      <p className="console-name">
        <FormattedMessage {...m.name} />
      </p>
      <nav aria-label={intl.formatMessage(m.nav)}>
        <ul>
          {items
            .filter((i) => i.show)
            .map((i) => (
              <li key={i.to}>
                <NavLink to={i.to} end={i.end}>
                  <FormattedMessage {...i.label} />
                </NavLink>
              </li>
            ))}
        </ul>
      </nav>
      <p className="console-who muted" data-testid="console-role">
        <FormattedMessage {...m.signedIn} values={{ who: me.mail ?? me.userId, role: intl.formatMessage(roleNames[me.role]) }} />{' '}
        <Link to={paths.info(lang)}>
          <FormattedMessage {...m.myAccount} />
        </Link>
      </p>
    </div>
  );
}

function Closed({ gate, onRetry, lang }: { gate: Gate; onRetry: () => void; lang: ReturnType<typeof useLang> }) {
  useTitle(m.name);
  if (gate.state === 'checking' || gate.state === 'open')
    return (
      <p className="loading" aria-live="polite">
        <FormattedMessage {...m.checking} />
      </p>
    );
  const [heading, body] =
    gate.state === 'noRole'
      ? [m.noRoleHeading, <FormattedMessage key="b" {...m.noRole} />]
      : gate.state === 'mfa'
        ? [m.mfaHeading, <FormattedMessage key="b" {...m.mfa} />]
        : gate.state === 'proof'
          ? [m.proofHeading, <FormattedMessage key="b" {...m.proof} />]
          : gate.state === 'off'
            ? [m.offHeading, <FormattedMessage key="b" {...m.off} />]
            : [m.failedHeading, <ErrorMessage key="b" error={gate.error} />];
  return (
    <div className="card console-closed" data-testid={`console-${gate.state}`}>
      <h1>
        <FormattedMessage {...heading} />
      </h1>
      <p>{body}</p>
      {gate.state === 'mfa' && (
        <p>
          <Link to={`${paths.secure(lang)}#two-factor`}>
            <FormattedMessage {...m.mfaLink} />
          </Link>
        </p>
      )}
      {(gate.state === 'proof' || gate.state === 'failed') && (
        <button type="button" onClick={onRetry}>
          <FormattedMessage {...m.retry} />
        </button>
      )}
      {(gate.state === 'noRole' || gate.state === 'off') && (
        <p>
          <Link to={paths.info(lang)}>
            <FormattedMessage {...m.myAccount} />
          </Link>
        </p>
      )}
    </div>
  );
}
