// Staff sign-in through the company's identity provider (spec §6): the button of the staff mode
// leaves for /ciam/v1/auth/staff/start with the current query; the server sends the browser back
// to sign-in with a one-time `staffCode` (redeemed here, once, then removed from the address) or
// a `staffError` (shown here). Redeeming answers like a password sign-in, so the second step
// (NEED_TOTP_VERIFY) and the way on (`onSignedIn`) are the password form's.
import { useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { useLocation, useNavigate } from 'react-router';
import { api, BASE, errorText, handleError } from '../../lib/api';
import * as mfa from '../../lib/mfa';
import { keepQuery } from '../../lib/redirect';

const m = defineMessages({
  company: { id: 'signin.staffCompany', defaultMessage: 'Sign in with the company account' },
  or: { id: 'signin.staffOr', defaultMessage: 'Or sign in with your company e-mail and your Ciam password:' },
  redeeming: { id: 'signin.staffRedeeming', defaultMessage: 'Signing you in with your company account…' },
  unavailable: { id: 'signin.staffUnavailable', defaultMessage: 'Sign-in with the company account is not available. Use your company e-mail and password.' },
  failed: { id: 'signin.staffFailed', defaultMessage: 'Sign-in with the company account failed. Please try again.' },
});

const STAFF_PARAMS = new Set(['staffCode', 'staffError']);

/**
 * The query without `staffCode`/`staffError`, kept as it came (still encoded). A serviceUrl is
 * written unencoded and last, so everything from `serviceUrl=` on is kept verbatim.
 */
export function withoutStaffParams(search: string): string {
  const raw = search.replace(/^\?/, '');
  const amp = raw.indexOf('&serviceUrl=');
  const at = raw.startsWith('serviceUrl=') ? 0 : amp < 0 ? raw.length : amp + 1;
  const head = raw.slice(0, at);
  const tail = raw.slice(at);
  const parts = head.split('&').filter((p) => p !== '' && !STAFF_PARAMS.has(p.split('=')[0]));
  if (tail) parts.push(tail);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** Where the company button goes: the server's start, with the language and the query to return to. */
export function staffStartUrl(lang: string, search: string): string {
  const q = keepQuery(withoutStaffParams(search)).replace(/^\?/, '');
  return `${BASE}/auth/staff/start?lang=${encodeURIComponent(lang)}&query=${encodeURIComponent(q)}`;
}

/** The staff mode's first choice: sign in through the company identity provider. */
export function StaffSignIn() {
  const lang = useIntl().locale;
  const { search } = useLocation();
  return (
    <div className="staff-company">
      <button type="button" className="primary" data-testid="staff-company" onClick={() => window.location.assign(staffStartUrl(lang, search))}>
        <FormattedMessage {...m.company} />
      </button>
      <p className="muted">
        <FormattedMessage {...m.or} />
      </p>
    </div>
  );
}

interface SignedIn {
  token: string;
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
    navigate({ search: withoutStaffParams(search) }, { replace: true });
    if (code === null) {
      setState({ busy: false, error: staffErrorText(error ?? '') });
      return;
    }
    setState({ busy: true, error: null });
    // No account name to remember: the company identity is not typed here.
    mfa.signingIn('');
    void api.post<SignedIn>('/auth/login/staff', { code }, { skipErrorHandler: true }).then((res) => {
      if (res.success) {
        setState({ busy: false, error: null, token: res.data.token });
      } else if (res.error.reason === 'NEED_TOTP_VERIFY') {
        // The second step, exactly as after a password.
        setState({ busy: false, error: null });
        handleError(res.error);
      } else {
        // Shown here: the default handling of AUTHORIZATION_FAILED would leave the screen.
        setState({ busy: false, error: errorText(res.error) });
      }
    });
    // Runs once per screen: the address is cleaned right away.
  }, []);

  function staffErrorText(reason: string): string {
    if (reason === 'UNAVAILABLE') return intl.formatMessage(m.unavailable);
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
