// The consent screen (spec §2): a partner sends the user here with appId + serviceUrl (or an
// OpenID Connect request). Signed out, the user signs in first (the query travels along);
// signed in, the server says what the app is, what it asks for and whether the user already
// allowed it. Allow asks for a ticket (or code) and follows the server's redirect; Cancel goes to
// the server-made cancelUrl; an unknown app or an unregistered serviceUrl shows the error here and
// never leaves Ciam. A request that asks for an organization may first show the organization step
// (org-step.tsx: the picker, or the refusal of a person without the organization the app needs),
// and the organization's policy (org-policy.tsx: a step-up, or why this sign-in does not do).
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link, Navigate, useLocation, useNavigate } from 'react-router';
import { getInfo, logout } from '../../lib/account-api';
import { useTitle } from '../../components/use-title';
import { paths } from '../../config/paths';
import type { Locale } from '../../i18n/locale';
import { titles } from '../../i18n/titles';
import { type ApiError, errorText, handleError } from '../../lib/api';
import { type ConsentContext, consentFlow, consentMessages, leave, type PartnerRequest, partnerRequest } from '../../lib/partner';
import { keepQuery } from '../../lib/redirect';
import * as session from '../../lib/session';
import { ConsentCard, consentTitle } from './consent-card';
import { hasReason } from '../../lib/reasons';

// The organization step (picker, refusal): its own chunk, loaded only when a request asks for an
// organization and the person must see it.
const loadOrgStep = () => import('./org-step');
const OrgPicker = lazy(() => loadOrgStep().then((x) => ({ default: x.OrgPicker })));
const OrgRefused = lazy(() => loadOrgStep().then((x) => ({ default: x.OrgRefused })));
// The organization's policy (a second factor to prove or turn on, a sign-in method it does not
// allow): its own chunk too, loaded only when the organization the app will see asks it.
const OrgPolicy = lazy(() => import('./org-policy').then((x) => ({ default: x.OrgPolicy })));

const m = defineMessages({
  continuing: { id: 'authorize.continuing', defaultMessage: 'Taking you to {app}…' },
  incomplete: { id: 'authorize.incomplete', defaultMessage: 'This link does not say which application is asking. Please go back to the application and try again.' },
  toPersonal: { id: 'authorize.toPersonal', defaultMessage: 'Go to your Personal Center' },
  sharedOrg: { id: 'authorize.org.shared', defaultMessage: '{app} will also see your organization, {org}, and your role in it.' },
});

type State =
  | { at: 'loading' }
  | { at: 'failed'; error: string }
  | { at: 'ask'; ctx: ConsentContext }
  | { at: 'leaving'; ctx: ConsentContext };

export default function Authorize() {
  const lang = useIntl().locale as Locale;
  const { search } = useLocation();
  const req = partnerRequest(search);
  if (!req) return <Failed lang={lang} />;
  if (!session.isLoggedIn()) return <Navigate replace to={paths.signin(lang) + keepQuery(search)} />;
  return <Consent key={search} lang={lang} req={req} search={search} />;
}

function Failed({ lang, error }: { lang: Locale; error?: string }) {
  useTitle(titles.authorize);
  return (
    <div className="card" data-testid="authorize-error">
      <h1>
        <FormattedMessage {...titles.authorize} />
      </h1>
      <div role="alert">
        <p>
          <strong>
            <FormattedMessage {...consentMessages.failed} />
          </strong>
        </p>
        <p>{error ?? <FormattedMessage {...m.incomplete} />}</p>
      </div>
      <div className="links">
        <Link to={paths.info(lang)} data-testid="authorize-personal">
          <FormattedMessage {...m.toPersonal} />
        </Link>
      </div>
    </div>
  );
}

function Consent({ lang, req, search }: { lang: Locale; req: PartnerRequest; search: string }) {
  const intl = useIntl();
  const navigate = useNavigate();
  // Who is signed in (masked): "not you?" signs out and starts this request's sign-in again.
  const [account, setAccount] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void getInfo({ skipErrorHandler: true }).then((r) => {
      // The server masks the mail and phone (as the personal centre shows them).
      if (live && r.success) setAccount(r.data.mail ?? r.data.phone ?? r.data.userName);
    });
    return () => {
      live = false;
    };
  }, []);
  const switchAccount = async () => {
    setBusy('cancel');
    await logout();
    session.clear();
    navigate(paths.signin(lang) + keepQuery(search), { replace: true });
  };
  const [state, setState] = useState<State>({ at: 'loading' });
  // Titled for what it asks: with the app's name once the server has said it (after useTitle's
  // generic title, which runs once).
  useTitle(titles.authorize);
  const named = state.at === 'ask' ? state.ctx.name : null;
  useEffect(() => {
    if (named !== null) document.title = intl.formatMessage(consentTitle, { app: named });
  }, [intl, named]);
  const [busy, setBusy] = useState<'allow' | 'cancel' | null>(null);
  // The organization the person picked (a request that asks for one, several to choose from).
  const [picked, setPicked] = useState<string | null>(null);
  // One ticket per visit, even when an effect runs twice (React's strict mode in development).
  const started = useRef(false);

  const refuse = (e: ApiError) => {
    // A lost session goes to sign-in (spec §8); anything else stays here, on this screen.
    if (hasReason(e, 'AUTHORIZATION_FAILED')) handleError(e);
    else setState({ at: 'failed', error: errorText(e) });
  };

  // The context from the server: straight on when already allowed, else ask (lib/partner.ts).
  const flow = consentFlow(req, {
    loading: () => {
      setBusy(null);
      setState({ at: 'loading' });
    },
    ask: (ctx) => setState({ at: 'ask', ctx }),
    approving: () => setBusy('allow'),
    approved: (ctx, res) => {
      setState({ at: 'leaving', ctx });
      if (!leave(res.redirect)) {
        setBusy(null);
        setState({ at: 'failed', error: intl.formatMessage(consentMessages.failed) });
      }
    },
    refused: (e) => {
      setBusy(null);
      refuse(e);
    },
  });

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void flow.load();
    // Once per request: a new query remounts this component (its key).
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per request (see above)
  }, []);

  if (state.at === 'failed') return <Failed lang={lang} error={state.error} />;
  const waiting = (
    <div className="card">
      <h1>
        <FormattedMessage {...titles.authorize} />
      </h1>
      <p className="muted" role="status" data-testid="authorize-busy">
        {state.at === 'leaving' ? <FormattedMessage {...m.continuing} values={{ app: state.ctx.name }} /> : <FormattedMessage {...consentMessages.loading} />}
      </p>
    </div>
  );
  if (state.at === 'loading' || (state.at === 'leaving' && state.ctx.granted)) return waiting;
  const { ctx } = state;
  const cancel = () => {
    setBusy('cancel');
    if (!leave(ctx.cancelUrl)) setBusy(null);
  };
  const step = ctx.organization;
  if (step?.refused) {
    return (
      <Suspense fallback={waiting}>
        <OrgRefused ctx={ctx} step={step} busy={busy !== null} onCancel={cancel} onSwitch={() => void switchAccount()} />
      </Suspense>
    );
  }
  // The organization the app will see (the one picked, or the only one), said under the question.
  const chosen = step?.choices.find((c) => c.orgId === picked) ?? (step?.choices.length === 1 ? step.choices[0] : null);
  const sharedOrg = chosen?.name ?? null;
  if (chosen?.need) {
    return (
      <Suspense fallback={waiting}>
        <OrgPolicy ctx={ctx} choice={chosen} lang={lang} busy={busy !== null} onCancel={cancel} onSwitch={() => void switchAccount()} onReload={() => void flow.load()} />
      </Suspense>
    );
  }
  if (step && step.choices.length > 1 && !picked) {
    const pick = (org: string) => {
      setPicked(org);
      if (ctx.granted && !step.choices.find((c) => c.orgId === org)?.need) void flow.allow(ctx, org);
    };
    return (
      <Suspense fallback={waiting}>
        <OrgPicker ctx={ctx} step={step} busy={busy !== null} onCancel={cancel} onPick={pick} />
      </Suspense>
    );
  }
  return (
    <div className="card" data-testid="authorize">
      <h1>
        <FormattedMessage {...consentTitle} values={{ app: ctx.name }} />
      </h1>
      <ConsentCard ctx={ctx} prefix="authorize" busy={busy} onAllow={() => void flow.allow(ctx, picked ?? undefined)} onCancel={cancel}
        account={account} onSwitch={() => void switchAccount()} />
      {sharedOrg && (
        <p className="muted" data-testid="authorize-org">
          <FormattedMessage {...m.sharedOrg} values={{ app: ctx.name, org: <strong>{sharedOrg}</strong> }} />
        </p>
      )}
    </div>
  );
}
