// Sign-in inside a partner's frame (spec §2, issue 5 §5): `/{lang}/embedded/signin?appId=…&
// serviceUrl=…&validateMsg=notice`. The password form only, no links out of the frame. The
// session lives in memory (a third-party frame may have no storage). After sign-in the server
// confirms the serviceUrl is registered for the app (`GET /auth/consent`); only then is anything
// but a sign-in refusal posted to the host: the consent step shows in the frame when needed, and
// the ticket is posted as `{type:'ciam:ticket', cTicket, serviceUrl}`. The frame never navigates
// to the serviceUrl. Every message goes to the serviceUrl's origin only, and only when the framing
// page is at that origin (lib/api.ts postToHost); refusals only with validateMsg=notice.
//
// The company's own sign-in (org-signin.tsx, its lazy chunk, loaded on the first mail typed) is
// offered as on the full page; framed, it opens in a popup and comes back to this frame, which
// redeems it and goes on as after a password. A password refused with ORG_SIGN_IN_REQUIRED is
// said by that chunk in its own words, with the company's button (docs/partners.md §5).
import { lazy, Suspense, useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { useLocation } from 'react-router';
import { useTitle } from '../../components/use-title';
import { titles } from '../../i18n/titles';
import { type ApiError, errorText, handleError, postToHost } from '../../lib/api';
import { type ConsentContext, consentFlow, consentMessages, type TicketRequest } from '../../lib/partner';
import { embeddedInfo } from '../../lib/redirect';
import * as session from '../../lib/session';
import { ConsentCard, consentTitle } from './consent-card';
import { PasswordForm } from './password-form';
import { PasskeySignIn } from './passkey-signin';
import { hasReason } from '../../lib/reasons';
import * as mfa from '../../lib/mfa';
import { paths } from '../../config/paths';
import { normalize } from '../../i18n/locale';
import { PartnerBanner } from './partner-banner';
import { logout } from '../../lib/account-api';
import { maskAccount } from '../../lib/account-picker';
import type { Framed } from './org-signin';

// The company's own sign-in of a typed mail's domain: loaded on the first mail typed; a chunk
// that fails to load shows nothing (the server still refuses a required domain's password).
const Org = lazy(() => import('./org-signin').catch(() => ({ default: () => null })));

const m = defineMessages({
  done: { id: 'embedded.done', defaultMessage: 'You are signed in.' },
  cancelled: { id: 'embedded.cancelled', defaultMessage: 'You did not allow the application.' },
  incomplete: { id: 'embedded.incomplete', defaultMessage: 'This sign-in does not say which application is asking.' },
  forgot: { id: 'embedded.forgot', defaultMessage: 'Forgot password? (opens a new window)' },
  unset: {
    id: 'embedded.unset',
    defaultMessage: 'Your staff account has no password here yet. Set one first, then sign in again in this frame.',
  },
  setPassword: { id: 'embedded.setPassword', defaultMessage: 'Set your password (opens a new window)' },
});

/** The host page's `theme=light|dark`, else null (then the system's colour scheme). */
export function hostTheme(search: string): 'light' | 'dark' | null {
  const t = new URLSearchParams(search).get('theme');
  return t === 'light' || t === 'dark' ? t : null;
}

/**
 * Whether this frame may ask for a passkey: the framing page's `allow="publickey-credentials-get"`
 * (docs/partners.md §5), read where the browser can tell (Chromium); elsewhere optimistically:
 * the button hides itself when the browser refuses at once (features/auth/passkey-signin.tsx).
 */
export function frameMayAskPasskey(): boolean {
  const policy = (document as { featurePolicy?: { allowsFeature?: (f: string) => boolean } }).featurePolicy;
  return typeof policy?.allowsFeature === 'function' ? policy.allowsFeature('publickey-credentials-get') : true;
}

type Step =
  | { at: 'signin' }
  | { at: 'checking' }
  | { at: 'ask'; ctx: ConsentContext; busy: boolean }
  | { at: 'done' }
  | { at: 'cancelled' }
  | { at: 'failed'; error: string };

export default function EmbeddedSignIn() {
  useTitle(titles.signin);
  const intl = useIntl();
  const { pathname, search } = useLocation();
  const appId = new URLSearchParams(search).get('appId')?.trim() ?? '';
  const { serviceUrl, validateMsg } = embeddedInfo(pathname, search);
  const [step, setStep] = useState<Step>({ at: 'signin' });
  const [mayAskPasskey] = useState(frameMayAskPasskey);
  const lang = normalize(intl.locale);
  // A staff account without a password: it sets one in a new top-level window.
  const [unset, setUnset] = useState(false);
  const theme = hostTheme(search);
  // `brand=show`: the operator's logo and name above the form (docs/partners.md §5).
  const showBrand = new URLSearchParams(search).get('brand') === 'show';
  // The compact frame (no site header or footer: styles.css) in the host's theme.
  useLayoutEffect(() => {
    const root = document.documentElement;
    root.dataset.frame = 'compact';
    if (theme) root.dataset.theme = theme;
    if (showBrand) root.dataset.brand = 'show';
    return () => {
      delete root.dataset.frame;
      delete root.dataset.theme;
      delete root.dataset.brand;
    };
  }, [theme, showBrand]);
  const req: TicketRequest | null = appId && serviceUrl ? { kind: 'ticket', appId, serviceUrl } : null;

  // The session of this screen lives in memory only: storage is neither read nor written (set
  // before any child's call: layout effects run before effects).
  useLayoutEffect(() => {
    session.memoryOnly(true);
    return () => session.memoryOnly(false);
  }, []);

  const refuse = (e: ApiError, confirmed: boolean) => {
    if (hasReason(e, 'AUTHORIZATION_FAILED')) {
      handleError(e); // forgets the in-memory session
      setStep({ at: 'signin' });
      return;
    }
    // Only a serviceUrl the server confirmed may receive a refusal that came after sign-in.
    if (confirmed && validateMsg === 'notice') postToHost({ type: 'ciam:error', reason: e.reason, errMsg: errorText(e) }, serviceUrl);
    setStep({ at: 'failed', error: errorText(e) });
  };

  // The context (the server confirms the serviceUrl): straight on when already allowed, else ask.
  const flow =
    req &&
    consentFlow(req, {
      loading: () => setStep({ at: 'checking' }),
      ask: (ctx) => setStep({ at: 'ask', ctx, busy: false }),
      approving: (ctx) => setStep({ at: 'ask', ctx, busy: true }),
      approved: (_ctx, { cTicket }) => {
        postToHost({ type: 'ciam:ticket', cTicket, serviceUrl: req.serviceUrl }, req.serviceUrl);
        setStep({ at: 'done' });
      },
      refused: refuse,
    });

  // Who signed in, masked, for the consent step ("signed in as …, not you?").
  const [who, setWho] = useState('');
  // The account as typed (the company's sign-in is asked about a mail), and whether its password
  // was refused because the company requires its own sign-in (until another account is typed).
  const [typed, setTyped] = useState('');
  const [orgRefused, setOrgRefused] = useState(false);
  const typedNow = useRef('');
  const onAccount = useCallback((a: string) => {
    if (typedNow.current.trim().toLowerCase() !== a.trim().toLowerCase()) setOrgRefused(false);
    typedNow.current = a;
    setTyped(a);
  }, []);
  const onSignedIn = async (account: string, token: string) => {
    setWho(account ? maskAccount(account) : '');
    session.start(token);
    if (!flow) return setStep({ at: 'failed', error: intl.formatMessage(m.incomplete) });
    await flow.load();
  };

  // The second step (NEED_TOTP_VERIFY) in the frame: the full page's dialog, ending here.
  const onRefused = (e: ApiError) => {
    setUnset(hasReason(e, 'EIAM_PASSWORD_UNSET'));
    // Said by the company's chunk, in its words, with its button; told to the host page there.
    if (hasReason(e, 'ORG_SIGN_IN_REQUIRED')) {
      setOrgRefused(true);
      return true;
    }
    if (!hasReason(e, 'NEED_TOTP_VERIFY') || !e.challenge) return false;
    mfa.open(e.challenge, {
      done: (token) => void onSignedIn(mfa.pendingAccount() ?? '', token),
      // A wrong code, the lock: told to the host page as any refusal (validateMsg=notice).
      refused: (err) => {
        if (validateMsg === 'notice') postToHost({ type: 'ciam:error', reason: err.reason, errMsg: errorText(err) }, serviceUrl);
      },
      // A passkey where the framing page delegates it, bound to this app (as the first step's).
      passkey: mayAskPasskey,
      appId,
    });
    return true;
  };

  // The company's sign-in in its popup, back here: the latest callbacks, through a stable object.
  const latest = useRef({ onSignedIn, onRefused });
  useLayoutEffect(() => {
    latest.current = { onSignedIn, onRefused };
  });
  const framed = useMemo<Framed>(
    () => ({
      onSignedIn: (token) => void latest.current.onSignedIn('', token),
      onRefused: (e) => {
        if (latest.current.onRefused(e)) return true;
        if (validateMsg === 'notice') postToHost({ type: 'ciam:error', reason: e.reason, errMsg: errorText(e) }, serviceUrl);
        return false;
      },
      onSaid: (reason, errMsg) => {
        if (validateMsg === 'notice') postToHost({ type: 'ciam:error', reason, errMsg }, serviceUrl);
      },
    }),
    [validateMsg, serviceUrl],
  );

  // "Not you?": the frame's session ends (on the server too), back to the password form.
  const switchAccount = async () => {
    await logout();
    session.clear();
    setStep({ at: 'signin' });
  };

  const cancel = () => {
    postToHost({ type: 'ciam:cancel' }, serviceUrl);
    setStep({ at: 'cancelled' });
  };

  return (
    <div className="card" data-testid="embedded-signin">
      <h1>
        {step.at === 'ask' ? <FormattedMessage {...consentTitle} values={{ app: step.ctx.name }} /> : <FormattedMessage {...titles.signin} />}
      </h1>
      {step.at === 'signin' && (
        <>
          {appId && <PartnerBanner appId={appId} />}
          {/@/.test(typed) && (
            <Suspense>
              <Org account={typed} framed={framed} refused={orgRefused} />
            </Suspense>
          )}
          <PasswordForm inline onSignedIn={(a, t) => void onSignedIn(a, t)} onRefused={onRefused} onAccount={onAccount} />
          {unset && (
            <p className="notice" data-testid="embedded-unset">
              <FormattedMessage {...m.unset} />{' '}
              <a href={paths.findPassword(lang)} target="_blank" rel="noopener" data-testid="embedded-set-password">
                <FormattedMessage {...m.setPassword} />
              </a>
            </p>
          )}
          {/* No autofill request in a frame; the app's id lets the server check the framing page. */}
          {appId && mayAskPasskey && <PasskeySignIn appId={appId} onSignedIn={(t) => void onSignedIn('', t)} />}
          <div className="links">
            <a href={paths.findPassword(lang)} target="_blank" rel="noopener" data-testid="embedded-forgot">
              <FormattedMessage {...m.forgot} />
            </a>
          </div>
        </>
      )}
      {step.at === 'checking' && (
        <p className="muted" role="status">
          <FormattedMessage {...consentMessages.loading} />
        </p>
      )}
      {step.at === 'ask' && (
        <div data-testid="embedded-consent">
          <ConsentCard ctx={step.ctx} prefix="embedded" busy={step.busy ? 'allow' : null} onAllow={() => void flow?.allow(step.ctx)} onCancel={cancel}
            account={who} onSwitch={() => void switchAccount()} />
        </div>
      )}
      {step.at === 'done' && (
        <p role="status" data-testid="embedded-done">
          <FormattedMessage {...m.done} />
        </p>
      )}
      {step.at === 'cancelled' && (
        <p role="status" data-testid="embedded-cancelled">
          <FormattedMessage {...m.cancelled} />
        </p>
      )}
      {step.at === 'failed' && (
        <div role="alert" data-testid="embedded-error">
          <p>
            <strong>
              <FormattedMessage {...consentMessages.failed} />
            </strong>
          </p>
          <p>{step.error}</p>
        </div>
      )}
    </div>
  );
}
