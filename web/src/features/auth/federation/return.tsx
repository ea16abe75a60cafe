// The way back from a provider to the sign-in screen (routes/federation.rs): `<name>Code` is
// redeemed once with this tab's bind (POST /auth/login/federation: a session, or the second step
// exactly as after a password), `<name>Error=<REASON>` is said in words naming the provider (never
// words from the address), `<name>Pending` opens the phone proof (pending.tsx, its own chunk:
// it is told what it needs, so that this chunk shares nothing with it). Each parameter
// is removed from the address first (replace), so a reload or Back does not repeat it.
import { lazy, useEffect, useRef, useState } from 'react';
import { FormattedMessage, useIntl } from 'react-intl';
import { useLocation, useNavigate } from 'react-router';
import { call, errorText, handleError, SKIP } from '../../../lib/api';
import * as mfa from '../../../lib/mfa';
import { hasReason } from '../../../lib/reasons';
import { keepQuery } from '../../../lib/redirect';
import { type Back, dropBind, fm, providerName, readBack, readBind, readBrand, readOrg, returnParams } from './shared';

const Pending = lazy(() => import('./pending'));

/** The reasons of the way back that have words of their own here (each names the provider). */
const WORDS = {
  FEDERATION_CANCELLED: fm.cancelled,
  FEDERATION_NOT_PERMITTED: fm.notPermitted,
  AUTHORIZATION_FAILED: fm.failed,
  SERVICE_UNAVAILABLE: fm.down,
  UNAVAILABLE: fm.unavailable,
} as const;

type View =
  | { kind: 'busy' }
  | { kind: 'error'; reason: string }
  | { kind: 'pending'; pending: string; bind: string }
  | { kind: 'none' };

/** In WeChat without its own authorization: how to go on in a browser, and this page's link. */
function OpenInBrowser({ provider }: { provider: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  const link = window.location.href;
  const copy = () =>
    navigator.clipboard?.writeText(link).then(
      () => setCopied(true),
      () => setCopied(false),
    ) ?? setCopied(false);
  return (
    <div className="fed-note" role="alert" data-testid="federation-open-in-browser">
      <p>
        <FormattedMessage {...fm.openTitle} values={{ provider }} />
      </p>
      <ol>
        <li>
          <FormattedMessage {...fm.openStep1} />
        </li>
        <li>
          <FormattedMessage {...fm.openStep2} />
        </li>
        <li>
          <FormattedMessage {...fm.openStep3} values={{ provider }} />
        </li>
      </ol>
      <button type="button" data-testid="federation-copy-link" onClick={() => void copy()}>
        <FormattedMessage {...fm.copy} />
      </button>
      <p role="status" className="hint">
        {copied === true && <FormattedMessage {...fm.copied} />}
        {copied === false && <FormattedMessage {...fm.copyFailed} />}
      </p>
      {copied === false && <ReadOnlyLink link={link} />}
    </div>
  );
}

function ReadOnlyLink({ link }: { link: string }) {
  const intl = useIntl();
  return <input className="fed-link" readOnly value={link} aria-label={intl.formatMessage(fm.link)} onFocus={(e) => e.currentTarget.select()} />;
}

/** The words of a refusal on the way back: the provider's own, the catalogue's, else "failed". */
export function backErrorText(intl: ReturnType<typeof useIntl>, reason: string, provider: string): string {
  if (Object.hasOwn(WORDS, reason)) return intl.formatMessage(WORDS[reason as keyof typeof WORDS], { provider });
  // Only the catalogue's texts: never words taken from the address.
  if (/^[A-Z_]{1,64}$/.test(reason)) {
    const text = errorText({ reason, message: '', code: 0 });
    if (text && text !== reason) return text;
  }
  return intl.formatMessage(fm.failed, { provider });
}

export default function Return({ onSignedIn }: { onSignedIn: (account: string, token: string) => void }) {
  const intl = useIntl();
  const navigate = useNavigate();
  const { search } = useLocation();
  const [back] = useState<Back | null>(() => readBack(search));
  const handled = useRef(false);
  // The latest continuation: it reads the address as it is after the parameter left it.
  const signedIn = useRef(onSignedIn);
  useEffect(() => {
    signedIn.current = onSignedIn;
  });
  const [view, setView] = useState<View>(() => (back ? { kind: 'busy' } : { kind: 'none' }));
  const [signed, setSigned] = useState<{ account: string; token: string } | null>(null);
  // Goes on once the address no longer holds the parameter (the continuation keeps the query).
  const cleaned = !back || new URLSearchParams(search).get(`${back.provider}${back.kind}`) === null;
  useEffect(() => {
    if (signed && cleaned) signedIn.current(signed.account, signed.token);
  }, [signed, cleaned]);
  useEffect(() => {
    if (handled.current || !back) return;
    handled.current = true;
    navigate({ search: keepQuery(search, { drop: returnParams(back.provider) }) }, { replace: true });
    const bind = readBind();
    if (back.kind === 'Error') {
      // The sign-in ended there: its bind serves no more.
      dropBind();
      setView({ kind: 'error', reason: back.value });
      return;
    }
    if (!bind) {
      // Not started in this tab (e.g. a link someone sent): never redeemed here.
      setView({ kind: 'error', reason: 'AUTHORIZATION_FAILED' });
      return;
    }
    if (back.kind === 'Pending') {
      setView({ kind: 'pending', pending: back.value, bind });
      return;
    }
    dropBind();
    // No account name to remember: the provider's identity is not typed here.
    mfa.signingIn('');
    void call('POST /auth/login/federation', { body: { provider: back.provider, code: back.value, bind } }, SKIP).then((res) => {
      if (res.success) {
        setView({ kind: 'none' });
        setSigned({ account: '', token: res.data.token });
      } else if (hasReason(res.error, 'NEED_TOTP_VERIFY')) {
        // The second step, exactly as after a password.
        setView({ kind: 'none' });
        handleError(res.error);
      } else {
        setView({ kind: 'error', reason: res.error.reason });
      }
    });
    // Runs once per screen: the address is cleaned right away.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per screen, on the first address
  }, []);

  if (!back) return null;
  const provider = providerName(intl, back.provider, readBrand(back.provider));
  switch (view.kind) {
    case 'busy':
      return (
        <p className="muted" role="status" data-testid="federation-redeeming">
          <FormattedMessage {...fm.redeeming} values={{ provider }} />
        </p>
      );
    case 'pending': {
      // A company's connection vouched for the person without a company mail: its name and
      // platform, as this tab kept them when it left (org-signin.tsx).
      const org = back.provider === 'org' ? readOrg() : null;
      const company = org ? (org.name[intl.locale] || Object.values(org.name).find(Boolean)) : undefined;
      const named = company ?? provider;
      const intro =
        back.provider !== 'org'
          ? undefined
          : company && org
            ? intl.formatMessage(fm.orgPhoneIntro, { company, platform: providerName(intl, org.protocol) })
            : intl.formatMessage(fm.orgPhoneIntroUnnamed);
      return (
        <Pending provider={named} intro={intro} pending={view.pending} bind={view.bind} expired={intl.formatMessage(fm.expired, { provider: named })}
          end={dropBind} onSignedIn={(account, token) => setSigned({ account, token })} />
      );
    }
    case 'error':
      if (view.reason === 'FEDERATION_OPEN_IN_BROWSER') return <OpenInBrowser provider={provider} />;
      if (view.reason === 'FEDERATION_SNAPSHOT_USER') {
        return (
          <p className="fed-note" role="alert" data-testid="federation-snapshot">
            <FormattedMessage {...fm.snapshot} values={{ provider }} />
          </p>
        );
      }
      return (
        <p className="field-error" role="alert" data-testid="federation-error">
          {back.provider === 'org' && view.reason === 'FEDERATION_NOT_PERMITTED'
            ? intl.formatMessage(fm.orgNotPermitted)
            : backErrorText(intl, view.reason, provider)}
        </p>
      );
    default:
      return null;
  }
}
