// The invitation landing, /{lang}/org/invitation?token=... (the link of an organization's mail or
// SMS; docs/web-experience.md "My company"). The token is taken from the address at once, kept in
// this tab's sessionStorage (pending.ts) and the address replaced by the one without it; a meta
// referrer policy of no-referrer holds while the page is shown. The API cannot tell who invites
// without accepting, so a signed-out person sees a neutral page that sends them to sign in or sign
// up and back here (ciam_origin_url); signed in, the invitation is accepted at once and they land
// in "My company" on that organization. Expired, used, withdrawn and other refusals each have a
// page of their own.
import { useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { Link, useLocation, useNavigate } from 'react-router';
import { useTitle } from '../../components/use-title';
import { paths } from '../../config/paths';
import { orgPaths } from '../../config/org-paths';
import { asLocale } from '../../i18n/locale';
import { type ApiError, errorText } from '../../lib/api';
import { rememberOrigin } from '../../lib/redirect';
import * as session from '../../lib/session';
import { acceptInvitation } from './api';
import { forget, keep, pending, tokenOf } from './pending';
import './org.css';

const m = defineMessages({
  pageTitle: { id: 'org.landing.pageTitle', defaultMessage: 'Invitation to an organization' },
  heading: { id: 'org.landing.heading', defaultMessage: 'You are invited to join an organization' },
  intro: {
    id: 'org.landing.intro',
    defaultMessage: 'Sign in, or create an account, with the e-mail address or phone number the invitation was sent to. You join the organization as soon as you are signed in.',
  },
  signIn: { id: 'org.landing.signIn', defaultMessage: 'Sign in to accept' },
  signUp: { id: 'org.landing.signUp', defaultMessage: 'Create an account' },
  joining: { id: 'org.landing.joining', defaultMessage: 'Joining the organization…' },
  noToken: { id: 'org.landing.noToken', defaultMessage: 'This link has no invitation' },
  noTokenText: { id: 'org.landing.noTokenText', defaultMessage: 'Open the link from the invitation message again, whole.' },
  expired: { id: 'org.landing.expired', defaultMessage: 'This invitation has expired' },
  used: { id: 'org.landing.used', defaultMessage: 'This invitation has already been used' },
  revoked: { id: 'org.landing.revoked', defaultMessage: 'This invitation was withdrawn' },
  notYours: { id: 'org.landing.notYours', defaultMessage: 'This invitation is for another account' },
  member: { id: 'org.landing.member', defaultMessage: 'You are already a member' },
  failed: { id: 'org.landing.failed', defaultMessage: 'The invitation could not be accepted' },
  askAgain: { id: 'org.landing.askAgain', defaultMessage: 'Ask the person who invited you for a new invitation.' },
  notYoursText: {
    id: 'org.landing.notYoursText',
    defaultMessage: 'Sign out, then open the link again and sign in with the e-mail address or phone number the invitation was sent to.',
  },
  retry: { id: 'org.landing.retry', defaultMessage: 'Try again' },
  toCompany: { id: 'org.landing.toCompany', defaultMessage: 'Go to My company' },
});

/** The page's heading and advice for a refusal of the accept. */
const REFUSED: Record<string, { heading: MessageDescriptor; advice?: MessageDescriptor }> = {
  ORG_INVITATION_EXPIRED: { heading: m.expired, advice: m.askAgain },
  ORG_INVITATION_USED: { heading: m.used, advice: m.askAgain },
  ORG_INVITATION_REVOKED: { heading: m.revoked, advice: m.askAgain },
  ORG_INVITATION_NOT_YOURS: { heading: m.notYours, advice: m.notYoursText },
  ORG_ALREADY_MEMBER: { heading: m.member },
};
/** Refusals that may pass (the network, the server): the token is kept and the page offers a retry. */
const PASSING = new Set(['NETWORK_ERROR', 'INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE', 'RATE_LIMITED']);

type State = { kind: 'none' } | { kind: 'signedOut' } | { kind: 'joining' } | { kind: 'refused'; error: ApiError };

/** While shown: no Referer at all from this page (its first address carried the token). */
function useNoReferrer() {
  useEffect(() => {
    const meta = document.createElement('meta');
    meta.name = 'referrer';
    meta.content = 'no-referrer';
    document.head.append(meta);
    return () => meta.remove();
  }, []);
}

export default function Invitation() {
  useTitle(m.pageTitle);
  useNoReferrer();
  const intl = useIntl();
  const lang = asLocale(intl.locale) ?? 'zh-CN';
  const navigate = useNavigate();
  const { search } = useLocation();
  // Taken from the address once, then kept in this tab only (the address loses it below).
  const [token] = useState(() => {
    const t = tokenOf(search);
    if (t) keep(t);
    return t ?? pending();
  });
  const [state, setState] = useState<State>(() => (!token ? { kind: 'none' } : session.isLoggedIn() ? { kind: 'joining' } : { kind: 'signedOut' }));
  const [attempt, setAttempt] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (search) navigate(orgPaths.invitation(lang), { replace: true });
  }, [search, navigate, lang]);
  useEffect(() => {
    if (!token || !session.isLoggedIn()) return;
    let alive = true;
    setState({ kind: 'joining' });
    void acceptInvitation(token).then((res) => {
      if (!alive) return;
      if (res.success) {
        forget();
        navigate(orgPaths.company(lang, res.data.orgId), { replace: true, state: { joined: true } });
        return;
      }
      // A session that ended meanwhile: the signed-out page (sign in again, and back here).
      if (res.error.reason === 'AUTHORIZATION_FAILED') {
        session.clear();
        return setState({ kind: 'signedOut' });
      }
      if (!PASSING.has(res.error.reason)) forget();
      setState({ kind: 'refused', error: res.error });
    });
    return () => {
      alive = false;
    };
  }, [token, attempt, navigate, lang]);
  // The new page's heading takes the focus (route-focus.tsx does it for a new address only).
  useEffect(() => {
    if (state.kind === 'refused') heading.current?.focus();
  }, [state]);

  const back = () => rememberOrigin(orgPaths.invitation(lang));
  let title: MessageDescriptor;
  let body: React.ReactNode;
  if (state.kind === 'none') {
    title = m.noToken;
    body = (
      <p className="muted">
        <FormattedMessage {...m.noTokenText} />
      </p>
    );
  } else if (state.kind === 'signedOut') {
    title = m.heading;
    body = (
      <>
        <p>
          <FormattedMessage {...m.intro} />
        </p>
        <p className="actions">
          <Link className="button primary" to={paths.signin(lang)} state={{ origin: true }} onClick={back} data-testid="invitation-signin">
            <FormattedMessage {...m.signIn} />
          </Link>
          <Link className="button" to={paths.register(lang)} state={{ origin: true }} onClick={back} data-testid="invitation-signup">
            <FormattedMessage {...m.signUp} />
          </Link>
        </p>
      </>
    );
  } else if (state.kind === 'joining') {
    title = m.heading;
    body = (
      <p className="muted" role="status">
        <FormattedMessage {...m.joining} />
      </p>
    );
  } else {
    const known = REFUSED[state.error.reason];
    title = known?.heading ?? m.failed;
    body = (
      <>
        <p role="alert" data-testid="invitation-refused" data-reason={state.error.reason}>
          {errorText(state.error)}
        </p>
        {known?.advice && (
          <p className="muted">
            <FormattedMessage {...known.advice} />
          </p>
        )}
        <p className="actions">
          {PASSING.has(state.error.reason) && (
            <button type="button" className="primary" onClick={() => setAttempt((n) => n + 1)}>
              <FormattedMessage {...m.retry} />
            </button>
          )}
          <Link to={orgPaths.company(lang)}>
            <FormattedMessage {...m.toCompany} />
          </Link>
        </p>
      </>
    );
  }
  return (
    <div className="org-page org-landing" data-testid="org-invitation" data-state={state.kind}>
      <section className="card">
        <h1 ref={heading} tabIndex={-1}>
          <FormattedMessage {...title} />
        </h1>
        {body}
      </section>
    </div>
  );
}
