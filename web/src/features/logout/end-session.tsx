// /{lang}/passport/end-session: OpenID Connect RP-Initiated Logout (docs/partners.md "Sign-out").
// The server's end-session endpoint (GET /oidc/logout) sends the browser here with the
// partner's parameters, because the session is this app's token, which a navigation does not
// carry. The server checks the request (GET /oidc/end-session: the app, the registered redirect);
// holding the session, this page asks the server to end it (POST /oidc/end-session): at once when
// the partner's id_token_hint names this session or its user, else after the user confirms.
// The browser then follows only the redirect the server checked; an unregistered one is an error
// shown here, never followed.
import { useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link, useLocation } from 'react-router';
import { useTitle } from '../../components/use-title';
import { paths } from '../../config/paths';
import { asLocale } from '../../i18n/locale';
import { titles } from '../../i18n/titles';
import { type ApiError, errorText } from '../../lib/api';
import type { OidcEndSessionGetResponse } from '../../lib/api-types.gen';
import { leave } from '../../lib/partner';
import { hasReason } from '../../lib/reasons';
import * as session from '../../lib/session';
import { endSession, endSessionContext, type EndSessionParams } from './api';
import './logout.css';

const m = defineMessages({
  checking: { id: 'signout.endSession.checking', defaultMessage: 'Signing you out…' },
  ask: { id: 'signout.endSession.ask', defaultMessage: 'Sign out of Ciam?' },
  askApp: { id: 'signout.endSession.askApp', defaultMessage: '{app} asks to sign you out of Ciam on this browser.' },
  askNoApp: { id: 'signout.endSession.askNoApp', defaultMessage: 'An application asks to sign you out of Ciam on this browser.' },
  confirm: { id: 'signout.endSession.confirm', defaultMessage: 'Sign out' },
  stay: { id: 'signout.endSession.stay', defaultMessage: 'Stay signed in' },
  failed: { id: 'signout.endSession.failed', defaultMessage: 'This sign-out request cannot be used' },
  leaving: { id: 'signout.endSession.leaving', defaultMessage: 'You have signed out. Taking you back to {app}…' },
});

type State =
  | { at: 'loading' }
  | { at: 'failed'; error: string }
  | { at: 'ask'; ctx: OidcEndSessionGetResponse }
  | { at: 'leaving'; ctx: OidcEndSessionGetResponse }
  | { at: 'done' };

/** The partner's parameters, as the end-session endpoint passed them on. */
function paramsOf(search: string): EndSessionParams {
  const q = new URLSearchParams(search);
  const get = (k: string) => q.get(k) || undefined;
  return {
    idTokenHint: get('id_token_hint'),
    clientId: get('client_id'),
    postLogoutRedirectUri: get('post_logout_redirect_uri'),
    state: get('state'),
  };
}

export default function EndSession() {
  useTitle(titles.signout);
  const intl = useIntl();
  const lang = asLocale(intl.locale) ?? 'zh-CN';
  const { search } = useLocation();
  const [state, setState] = useState<State>({ at: 'loading' });
  const [busy, setBusy] = useState(false);
  const started = useRef(false);
  const params = paramsOf(search);

  const fail = (e: ApiError) => setState({ at: 'failed', error: errorText(e) });

  /** Signed out here too; then back to the partner when it gave a checked redirect. */
  const after = (ctx: OidcEndSessionGetResponse, redirect: string | null | undefined) => {
    session.clear();
    if (redirect && leave(redirect)) setState({ at: 'leaving', ctx });
    else setState({ at: 'done' });
  };

  const end = async (ctx: OidcEndSessionGetResponse, confirmed: boolean) => {
    const res = await endSession({ ...params, confirmed });
    if (res.success) {
      if (res.data.ended) after(ctx, res.data.redirect);
      else setState({ at: 'ask', ctx });
    } else if (hasReason(res.error, 'AUTHORIZATION_FAILED')) {
      // The session ended meanwhile: nothing left to end here.
      after(ctx, ctx.redirect);
    } else {
      fail(res.error);
    }
  };

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void (async () => {
      const res = await endSessionContext(params);
      if (!res.success) return fail(res.error);
      // Signed out already: nothing to end or to ask.
      if (!session.isLoggedIn()) return after(res.data, res.data.redirect);
      await end(res.data, false);
    })();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per visit
  }, []);

  if (state.at === 'failed') {
    return (
      <div className="card" data-testid="end-session-error">
        <h1>
          <FormattedMessage {...m.failed} />
        </h1>
        <p role="alert">{state.error}</p>
        <p>
          <Link to={paths.info(lang)}>
            <FormattedMessage {...titles.info} />
          </Link>
        </p>
      </div>
    );
  }
  if (state.at === 'ask') {
    const app = state.ctx.appName;
    const confirm = () => {
      setBusy(true);
      void end(state.ctx, true).finally(() => setBusy(false));
    };
    return (
      <div className="card" data-testid="end-session-ask">
        <h1>
          <FormattedMessage {...m.ask} />
        </h1>
        <p>{app ? <FormattedMessage {...m.askApp} values={{ app }} /> : <FormattedMessage {...m.askNoApp} />}</p>
        <div className="actions">
          <Link to={paths.info(lang)} data-testid="end-session-stay">
            <FormattedMessage {...m.stay} />
          </Link>
          <button type="button" className="primary" data-testid="end-session-confirm" disabled={busy} onClick={confirm}>
            <FormattedMessage {...m.confirm} />
          </button>
        </div>
      </div>
    );
  }
  if (state.at === 'done') {
    return (
      <div className="card signed-out">
        <h1 data-testid="signed-out">
          <FormattedMessage id="signout.done" defaultMessage="You have signed out" />
        </h1>
        <p>
          <Link to={paths.signin(lang)}>
            <FormattedMessage id="signout.signin" defaultMessage="Sign in again" />
          </Link>
        </p>
      </div>
    );
  }
  return (
    <div className="card signed-out">
      <h1 aria-live="polite" data-testid="end-session-busy">
        {state.at === 'leaving' ? <FormattedMessage {...m.leaving} values={{ app: state.ctx.appName ?? '' }} /> : <FormattedMessage {...m.checking} />}
      </h1>
    </div>
  );
}
