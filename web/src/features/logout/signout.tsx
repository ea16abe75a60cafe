// /signout (outside the language prefix): ends the session, here and on the server, and says so.
// The server call is best effort: the token is cleared here whatever it answers. The same chunk
// serves /{lang}/passport/end-session (OpenID Connect RP-Initiated Logout, end-session.tsx): one
// lazy screen fewer in the entry (the sign-in page's size budget).
import { useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link, useLocation } from 'react-router';
import { useTitle } from '../../components/use-title';
import { paths } from '../../config/paths';
import { titles } from '../../i18n/titles';
import { asLocale } from '../../i18n/locale';
import { logout } from '../../lib/account-api';
import * as session from '../../lib/session';
import EndSession from './end-session';
import './logout.css';

const m = defineMessages({
  pending: { id: 'signout.pending', defaultMessage: 'Signing you out…' },
  done: { id: 'signout.done', defaultMessage: 'You have signed out' },
  detail: { id: 'signout.detail', defaultMessage: 'Your session has ended on this browser.' },
  signin: { id: 'signout.signin', defaultMessage: 'Sign in again' },
});

export default function SignOut() {
  return useLocation().pathname.endsWith('/end-session') ? <EndSession /> : <SignedOut />;
}

function SignedOut() {
  useTitle(titles.signout);
  const intl = useIntl();
  const lang = asLocale(intl.locale) ?? 'zh-CN';
  const [done, setDone] = useState(() => !session.isLoggedIn());
  const started = useRef(false);
  useEffect(() => {
    if (started.current || !session.isLoggedIn()) return;
    started.current = true;
    // The request reads the token as it starts, so the session can be cleared straight away.
    const call = logout();
    session.clear();
    void call.finally(() => setDone(true));
  }, []);
  return (
    <div className="card signed-out">
      {done ? (
        <>
          <h1 data-testid="signed-out">
            <FormattedMessage {...m.done} />
          </h1>
          <p className="muted">
            <FormattedMessage {...m.detail} />
          </p>
          <p>
            <Link to={paths.signin(lang)}>
              <FormattedMessage {...m.signin} />
            </Link>
          </p>
        </>
      ) : (
        <h1 aria-live="polite">
          <FormattedMessage {...m.pending} />
        </h1>
      )}
    </div>
  );
}
