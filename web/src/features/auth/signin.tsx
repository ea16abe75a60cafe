// Sign-in (spec §2): password or verification code, the staff entry, and "choose account" from
// the accounts remembered on this browser.
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link, useLocation, useNavigate } from 'react-router';
import { Lazy } from '../../components/lazy-screen';
import { useTitle } from '../../components/use-title';
import { paths } from '../../config/paths';
import type { Locale } from '../../i18n/locale';
import { titles } from '../../i18n/titles';
import * as accounts from '../../lib/accounts';
import { call, SKIP } from '../../lib/api';
import { AccountRefused, dropIfGone, forgetAccount, maskAccount, nameOf } from '../../lib/account-picker';
import { afterSignIn, forgetOrigin, keepQuery } from '../../lib/redirect';
import * as session from '../../lib/session';
import * as storage from '../../lib/storage';
import { common } from '../../i18n/common';
import { isNotice, notices } from '../../i18n/notices';
import { type Done, PasswordForm } from './password-form';
import { PasskeySignIn } from './passkey-signin';

const m = defineMessages({
  byPassword: { id: 'signin.byPassword', defaultMessage: 'Password' },
  byCode: { id: 'signin.byCode', defaultMessage: 'One-time code' },
  staff: { id: 'signin.staff', defaultMessage: 'Staff' },
  choose: { id: 'signin.choose', defaultMessage: 'Choose an account' },
  another: { id: 'signin.another', defaultMessage: 'Use another account' },
  remove: { id: 'signin.remove', defaultMessage: 'Remove {account}' },
  forgetAsk: { id: 'signin.forgetAsk', defaultMessage: 'Forget {account} on this browser?' },
  forget: { id: 'signin.forget', defaultMessage: 'Forget' },
  keep: { id: 'signin.keep', defaultMessage: 'Keep' },
  forgot: { id: 'signin.forgot', defaultMessage: 'Forgot password?' },
  register: { id: 'signin.register', defaultMessage: 'Sign up' },
});

type Mode = 'password' | 'code' | 'staff';

/** The account a screen handed over in the router state (`{ account }`), else ''. */
function prefilled(state: unknown): string {
  const a = (state as { account?: unknown } | null)?.account;
  return typeof a === 'string' ? a : '';
}

// The code mode (captcha, countdown) loads when chosen: the first screen stays small.
const loadCodeForm = () => import('./code-signin');
const CodeForm = lazy(loadCodeForm);
// Staff sign-in (the company button, and the return from the company's provider) loads only when
// it is used: most visitors are customers.
const loadStaff = () => import('./staff-signin');
const StaffSignIn = lazy(() => loadStaff().then((x) => ({ default: x.StaffSignIn })));
const StaffReturn = lazy(() => loadStaff().then((x) => ({ default: x.StaffReturn })));
const STAFF_RETURN = /[?&]staff(Code|Error)=/;
// The other providers (WeChat, ...: federation/): their row only when GET /auth/federation lists
// one, their return only when the address carries a provider's `<name>Code|Error|Pending`.
// One component for both (the sign-in's first download stays within its budget).
const Fed = lazy(() => import('./federation/federation'));
const FED_RETURN = /[?&](?!staff)[a-z]+(Code|Error|Pending)=/;
// "To continue to <app>" (its logo, its name) when a partner's query names the app: loaded then
// only; a chunk that fails to load shows nothing.
const Partner = lazy(() => import('./partner-banner').catch(() => ({ default: () => null })));
// The company's own sign-in of a typed mail's domain (org-signin.tsx): loaded on the first mail
// typed; it hides the password and code fields itself when the company requires its sign-in.
const Org = lazy(() => import('./org-signin').catch(() => ({ default: () => null })));

function Picker({ onPick }: { onPick: (account: string) => void }) {
  const intl = useIntl();
  const [saved, setSaved] = useState(accounts.list);
  // The account whose "forget" waits for a confirmation (in its own row).
  const [asking, setAsking] = useState<string | null>(null);
  const list = useRef<HTMLUListElement>(null);
  const another = useRef<HTMLButtonElement>(null);
  const forget = (account: string, at: number) => {
    const rest = forgetAccount(account);
    setSaved(rest);
    setAsking(null);
    if (!rest.length) return onPick('');
    // The focus goes to the account now in that place (or the last), else to "another account".
    requestAnimationFrame(() => {
      const rows = list.current?.querySelectorAll<HTMLButtonElement>('.account-pick');
      (rows?.[Math.min(at, rows.length - 1)] ?? another.current)?.focus();
    });
  };
  const keep = (account: string) => {
    setAsking(null);
    requestAnimationFrame(() =>
      [...(list.current?.querySelectorAll<HTMLElement>('li') ?? [])].find((li) => li.dataset.account === account)?.querySelector<HTMLElement>('.remove')?.focus(),
    );
  };
  return (
    <>
      <h2 className="accounts-title">
        <FormattedMessage {...m.choose} />
      </h2>
      <ul className="accounts" ref={list}>
        {saved.map(({ account }, i) => {
          const shown = maskAccount(account);
          const name = nameOf(account);
          return (
            <li key={account} data-testid="remembered-account" data-account={account}>
              {asking === account ? (
                <div className="forget-ask" role="group" aria-labelledby={`forget-${i}`}>
                  <span id={`forget-${i}`}>{intl.formatMessage(m.forgetAsk, { account: shown })}</span>
                  <button type="button" className="danger" data-testid="forget-confirm" onClick={() => forget(account, i)}>
                    <FormattedMessage {...m.forget} />
                  </button>
                  <button type="button" data-testid="forget-keep" autoFocus onClick={() => keep(account)}>
                    <FormattedMessage {...m.keep} />
                  </button>
                </div>
              ) : (
                <>
                  <button type="button" className="account-pick" onClick={() => onPick(account)}>
                    {name && <span className="account-name">{name}</span>}
                    <span className="account-id">{shown}</span>
                  </button>
                  <button type="button" className="remove" data-testid="forget-account"
                    aria-label={intl.formatMessage(m.remove, { account: shown })} onClick={() => setAsking(account)} />
                </>
              )}
            </li>
          );
        })}
      </ul>
      <button ref={another} type="button" className="link" data-testid="another-account" onClick={() => onPick('')}>
        <FormattedMessage {...m.another} />
      </button>
    </>
  );
}

export default function SignIn() {
  useTitle(titles.signin);
  const lang = useIntl().locale as Locale;
  const navigate = useNavigate();
  const { search, state } = useLocation();
  const q = keepQuery(search);
  const appId = new URLSearchParams(search).get('appId');
  // Sign-up and password recovery come back here with the account (router state): prefilled,
  // the password field focused.
  const [account, setAccount] = useState(() => prefilled(state));
  // The account as typed or picked: the password reset starts with it.
  const [typed, setTyped] = useState(account);
  const [picking, setPicking] = useState(() => !account && accounts.list().length > 0);
  const [mode, setMode] = useState<Mode>('password');
  // What the screen before said (account created, password reset, deactivated, session expired):
  // in the card, gone with this screen.
  const notice = (state as { notice?: unknown } | null)?.notice;
  // Cookies and site data blocked: a sign-in could not last beyond this page (it would bounce back
  // here), so the screen says so before anything is typed and the forms are not sent.
  const [blocked] = useState(() => !storage.available());
  // Decided once: the return cleans staffCode/staffError from the address before it goes on.
  const [staffReturn] = useState(() => STAFF_RETURN.test(search));
  // The popup of a company sign-in that a partner's frame opened, back from the company
  // (`orgFrame=1`): the company's chunk hands the way back to the frame; nothing is redeemed here.
  const [frameBack] = useState(() => /[?&]orgFrame=1/.test(search));
  const [fedReturn] = useState(() => FED_RETURN.test(search));
  // The providers offered, asked after the first paint (nothing of them loads before an answer).
  const [offered, setOffered] = useState<{ name: string; brand?: string | null }[]>();
  useEffect(() => {
    void call('GET /auth/federation', {}, SKIP).then((r) => r.success && setOffered(r.data.providers));
  }, []);
  // The page to return to (ciam_origin_url) holds only for a sign-in that a protected page asked
  // for (or the return from a provider); any other visit forgets it.
  const [fromProtected] = useState(() => (state as { origin?: unknown } | null)?.origin === true || staffReturn || fedReturn);
  useEffect(() => {
    if (!fromProtected) forgetOrigin();
  }, [fromProtected]);
  // A sign-in refused because the account is gone (deactivated, unknown) forgets it here.
  const refused = (acc: string, e: { reason: string }) => void dropIfGone(acc, e);
  const done: Done = (acc, token) => {
    session.start(token);
    accounts.remember(acc);
    // Back to the partner's consent screen when one sent the user here, else the personal centre.
    navigate(afterSignIn(lang, search));
  };
  const switchTo = (to: Mode) => {
    setMode(to);
    setPicking(false);
  };
  // The staff mode's company button, when a company identity provider is configured: then the
  // password form's own staff note would say the same again.
  const [company, setCompany] = useState(false);
  const tab = (to: Mode, label: typeof m.byCode) => (
    <button type="button" data-testid={to === 'staff' ? 'signin-staff' : `signin-mode-${to}`} aria-pressed={mode === to} onClick={() => switchTo(to)}
      onPointerEnter={to === 'code' ? loadCodeForm : to === 'staff' ? loadStaff : undefined}>
      <FormattedMessage {...label} />
    </button>
  );
  if (frameBack)
    return (
      <Suspense>
        <Org account="" />
      </Suspense>
    );
  return (
    <div className="card">
      <h1>
        <FormattedMessage {...titles.signin} />
      </h1>
      {appId && (
        <Suspense fallback={null}>
          <Partner appId={appId} />
        </Suspense>
      )}
      {blocked && (
        <p className="form-alert on" role="alert" data-testid="cookies-disabled">
          <FormattedMessage {...common.cookiesDisabled} />
        </p>
      )}
      {!blocked && isNotice(notice) && (
        <p className="notice" role="status" data-testid="signin-notice">
          <FormattedMessage {...notices[notice]} />
        </p>
      )}
      {staffReturn && (
        <Lazy>
          <StaffReturn onSignedIn={done} />
        </Lazy>
      )}
      {fedReturn && (
        <Lazy>
          <Fed onSignedIn={done} />
        </Lazy>
      )}
      <AccountRefused.Provider value={refused}>
        {picking ? (
          <Picker onPick={(a) => { setAccount(a); setPicking(false); }} />
        ) : (
          <>
            {/* The three ways in, the current one pressed; staff is one of them (not a second
                line that repeats it). */}
            <div className="modes">
              {tab('password', m.byPassword)}
              {tab('code', m.byCode)}
              {tab('staff', m.staff)}
            </div>
            {/@/.test(typed) && (
              <Suspense>
                <Org account={typed} />
              </Suspense>
            )}
            {mode === 'code' ? (
              <Lazy>
                <CodeForm key={account} account={account} onSignedIn={done} onAccount={setTyped} blocked={blocked} />
              </Lazy>
            ) : (
              <>
                {mode === 'staff' && (
                  <Lazy>
                    <StaffSignIn onOffered={setCompany} />
                  </Lazy>
                )}
                <PasswordForm key={mode + account} account={account} staff={mode === 'staff'} staffNote={!company}
                  onSignedIn={done} onAccount={setTyped} blocked={blocked} />
              </>
            )}
          </>
        )}
      </AccountRefused.Provider>
      {/* A passkey signs in like a password, without an account to remember: the server never
          answers the unmasked mail or phone (docs/web-experience.md). */}
      {mode !== 'staff' && !blocked && <PasskeySignIn conditional onSignedIn={(token) => done('', token)} />}
      {offered?.[0] && (
        <Lazy>
          <Fed offered={offered} />
        </Lazy>
      )}
      <div className="links">
        <Link to={paths.findPassword(lang) + q} state={{ account: picking ? '' : typed.trim() }} data-testid="link-find-password">
          <FormattedMessage {...m.forgot} />
        </Link>
        <Link to={paths.register(lang) + q} data-testid="link-register">
          <FormattedMessage {...m.register} />
        </Link>
      </div>
    </div>
  );
}
