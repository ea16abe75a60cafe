// Staff sign-in through the company's identity provider (spec §6): the button of the staff mode
// leaves for GET /auth/staff/start with the current query; the server sends the browser back
// to sign-in with a one-time `staffCode` (redeemed here, once, then removed from the address) or
// a `staffError` (shown here). Redeeming answers like a password sign-in, so the second step
// (NEED_TOTP_VERIFY) and the way on (`onSignedIn`) are the password form's.
// Against login CSRF the sign-in is bound to this tab: the button keeps a random `bind` in
// sessionStorage and sends only its SHA-256 to the server; the code is redeemed with the `bind`, so
// a `staffCode` (or callback) URL someone else started never signs this browser in.
import { useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { useLocation, useNavigate } from 'react-router';
import { call, errorText, handleError, SKIP, url } from '../../lib/api';
import type { Locale } from '../../i18n/locale';
import * as mfa from '../../lib/mfa';
import { keepQuery } from '../../lib/redirect';
import { hasReason } from '../../lib/reasons';

const m = defineMessages({
  company: { id: 'signin.staffCompany', defaultMessage: 'Sign in with the company account' },
  or: { id: 'signin.staffOr', defaultMessage: 'Or sign in with your company e-mail and your Ciam password:' },
  redeeming: { id: 'signin.staffRedeeming', defaultMessage: 'Signing you in with your company account…' },
  unavailable: { id: 'signin.staffUnavailable', defaultMessage: 'Sign-in with the company account is not available. Use your company e-mail and password.' },
  failed: { id: 'signin.staffFailed', defaultMessage: 'Sign-in with the company account failed. Please try again.' },
});

/** The one-time parameters the server's return adds: handled here, never carried over. */
export const STAFF_PARAMS = ['staffCode', 'staffError'] as const;

/** The callback's own `staffError` values, beside the reason catalogue (routes/staff.rs). */
const STAFF_ONLY = { UNAVAILABLE: m.unavailable } as const;

/**
 * Where the company button goes: the server's start, with the language, the hash of this tab's
 * bind and the query to return to.
 */
export function staffStartUrl(lang: Locale, search: string, bindHash: string): string {
  const q = keepQuery(search, { drop: STAFF_PARAMS }).replace(/^\?/, '');
  return url('GET /auth/staff/start', { query: { lang, bindHash, query: q } });
}

/** Where this tab keeps its bind while it is at the identity provider. */
export const BIND_KEY = 'ciam_staff_bind';

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/=+$/, '')
    .replace(/[+/]/g, (c) => (c === '+' ? '-' : '_'));

/** base64url(SHA-256(bind)): what the server gets to see of the bind. */
export async function bindHash(bind: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(bind))));
}

/** A new random bind (256 bits) kept in this tab's sessionStorage; answers its hash. */
export async function newBind(): Promise<string> {
  const bind = base64url(crypto.getRandomValues(new Uint8Array(32)));
  sessionStorage.setItem(BIND_KEY, bind);
  return bindHash(bind);
}

/** This tab's bind, removed (it serves once); null when there is none. */
export function takeBind(): string | null {
  try {
    const bind = sessionStorage.getItem(BIND_KEY);
    sessionStorage.removeItem(BIND_KEY);
    return bind;
  } catch {
    return null;
  }
}

/**
 * Whether a company identity provider is configured, asked of the existing start route: without
 * a `bindHash` it sends the browser back at once, with `staffError=UNAVAILABLE` when staff
 * sign-in is not configured (else `INVALID_PARAMETER`; nothing is stored, the provider is not
 * asked). Null when the answer says neither (the button is then offered, as before).
 */
export async function companyConfigured(lang: Locale): Promise<boolean | null> {
  try {
    // A navigation's redirect, not a JSON answer: the address is the client's, the fetch its own.
    const res = await fetch(url('GET /auth/staff/start', { query: { lang, bindHash: '' } }), { credentials: 'omit' });
    const error = res.url ? new URL(res.url).searchParams.get('staffError') : null;
    return error === 'UNAVAILABLE' ? false : error ? true : null;
  } catch {
    return null;
  }
}

/**
 * The staff mode's first choice: sign in through the company identity provider, offered only
 * when one is configured (`onOffered` tells the screen, which then leaves out its own note).
 */
export function StaffSignIn({ onOffered }: { onOffered?: (offered: boolean) => void }) {
  const lang = useIntl().locale as Locale;
  const { search } = useLocation();
  const [offered, setOffered] = useState<boolean | null>(null);
  useEffect(() => {
    let alive = true;
    void companyConfigured(lang).then((c) => {
      if (!alive) return;
      setOffered(c !== false);
      onOffered?.(c !== false);
    });
    return () => {
      alive = false;
    };
  }, [lang, onOffered]);
  const go = () => void newBind().then((hash) => window.location.assign(staffStartUrl(lang, search, hash)));
  if (!offered) return null;
  return (
    <div className="staff-company">
      <button type="button" className="primary" data-testid="staff-company" onClick={go}>
        <FormattedMessage {...m.company} />
      </button>
      <p className="muted">
        <FormattedMessage {...m.or} />
      </p>
    </div>
  );
}

/**
 * On the sign-in screen: redeems a `staffCode` from the address once, or shows a `staffError`.
 * Either is removed from the address first (replace), so a reload or Back does not repeat it.
 */
export function StaffReturn({ onSignedIn }: { onSignedIn: (account: string, token: string) => void }) {
  const intl = useIntl();
  const navigate = useNavigate();
  const { search } = useLocation();
  const handled = useRef(false);
  // The latest continuation: it reads the address as it is after the code left it.
  const signedIn = useRef(onSignedIn);
  useEffect(() => {
    signedIn.current = onSignedIn;
  });
  const [state, setState] = useState<{ busy: boolean; error: string | null; token?: string }>({ busy: false, error: null });
  // Goes on once the address no longer holds the code (the continuation keeps the query).
  const cleaned = new URLSearchParams(search).get('staffCode') === null;
  useEffect(() => {
    if (state.token && cleaned) signedIn.current('', state.token);
  }, [state.token, cleaned]);
  useEffect(() => {
    if (handled.current) return;
    const params = new URLSearchParams(search);
    const code = params.get('staffCode');
    const error = params.get('staffError');
    if (code === null && error === null) return;
    handled.current = true;
    navigate({ search: keepQuery(search, { drop: STAFF_PARAMS }) }, { replace: true });
    const bind = takeBind();
    if (code === null) {
      setState({ busy: false, error: staffErrorText(error ?? '') });
      return;
    }
    if (!bind) {
      // Not started in this tab (e.g. a link someone sent): never redeemed here.
      setState({ busy: false, error: intl.formatMessage(m.failed) });
      return;
    }
    setState({ busy: true, error: null });
    // No account name to remember: the company identity is not typed here.
    mfa.signingIn('');
    void call('POST /auth/login/staff', { body: { code, bind } }, SKIP).then((res) => {
      if (res.success) {
        setState({ busy: false, error: null, token: res.data.token });
      } else if (hasReason(res.error, 'NEED_TOTP_VERIFY')) {
        // The second step, exactly as after a password.
        setState({ busy: false, error: null });
        handleError(res.error);
      } else {
        // Shown here: the default handling of AUTHORIZATION_FAILED would leave the screen.
        setState({ busy: false, error: errorText(res.error) });
      }
    });
    // Runs once per screen: the address is cleaned right away.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per screen, on the first address
  }, []);

  function staffErrorText(reason: string): string {
    // staffError=UNAVAILABLE (not a catalogue reason): staff sign-in is not configured.
    if (Object.hasOwn(STAFF_ONLY, reason)) return intl.formatMessage(STAFF_ONLY[reason as keyof typeof STAFF_ONLY]);
    // Only the catalogue's texts: never words taken from the address.
    if (/^[A-Z_]{1,64}$/.test(reason)) {
      const text = errorText({ reason, message: '', code: 0 });
      if (text && text !== reason) return text;
    }
    return intl.formatMessage(m.failed);
  }

  if (state.busy) {
    return (
      <p className="muted" role="status" data-testid="staff-redeeming">
        <FormattedMessage {...m.redeeming} />
      </p>
    );
  }
  return state.error ? (
    <p className="field-error" role="alert" data-testid="staff-error">
      {state.error}
    </p>
  ) : null;
}
