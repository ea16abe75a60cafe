// /{lang}/logout: what deactivating an account means, and signing out of this browser. The
// deactivation request itself arrives with the security-centre issue.
import { useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link, useNavigate } from 'react-router';
import { useTitle } from '../../components/use-title';
import { paths } from '../../config/paths';
import { titles } from '../../i18n/titles';
import { asLocale } from '../../i18n/locale';
import { api } from '../../lib/api';
import * as session from '../../lib/session';
import './logout.css';

const m = defineMessages({
  intro: { id: 'logout.intro', defaultMessage: 'Deactivating closes your Ciam account and every application you reach with it.' },
  meansHeading: { id: 'logout.means.heading', defaultMessage: 'What deactivation means' },
  sessions: { id: 'logout.means.sessions', defaultMessage: 'You are signed out on every device and can no longer sign in with this account.' },
  data: {
    id: 'logout.means.data',
    defaultMessage: 'Your personal data is deleted or anonymised as the privacy policy describes, except records the law requires us to keep.',
  },
  final: { id: 'logout.means.final', defaultMessage: 'It cannot be undone: to use our services again you need a new account.' },
  staff: { id: 'logout.means.staff', defaultMessage: 'Internal staff accounts cannot be deactivated here; they are closed through the company.' },
  policy: { id: 'logout.policy', defaultMessage: 'Privacy policy' },
  howHeading: { id: 'logout.how.heading', defaultMessage: 'How to deactivate' },
  how: { id: 'logout.how.text', defaultMessage: 'Deactivation will be available in the Security Center, after confirming your identity.' },
  back: { id: 'logout.back', defaultMessage: 'Back to the Personal Center' },
  browserHeading: { id: 'logout.browser.heading', defaultMessage: 'Only leaving this browser?' },
  browserText: { id: 'logout.browser.text', defaultMessage: 'Log out to end your session here; your account stays as it is.' },
  logoutHere: { id: 'logout.browser.button', defaultMessage: 'Log out of this browser' },
  signin: { id: 'logout.signin', defaultMessage: 'Sign in' },
});

export default function Logout() {
  useTitle(titles.logout);
  const intl = useIntl();
  const navigate = useNavigate();
  const lang = asLocale(intl.locale) ?? 'zh-CN';
  const [busy, setBusy] = useState(false);
  const signedIn = session.isLoggedIn();
  const logout = async () => {
    setBusy(true);
    if (session.isLoggedIn()) await api.post('/auth/logout', {}, { skipErrorHandler: true });
    session.clear();
    navigate(paths.signin(lang), { replace: true });
  };
  return (
    <article className="card logout" aria-labelledby="logout-title">
      <h1 id="logout-title">
        <FormattedMessage {...titles.logout} />
      </h1>
      <p>
        <FormattedMessage {...m.intro} />
      </p>
      <h2>
        <FormattedMessage {...m.meansHeading} />
      </h2>
      <ul>
        <li>
          <FormattedMessage {...m.sessions} />
        </li>
        <li>
          <FormattedMessage {...m.data} /> <Link to={paths.privacy(lang)}>{intl.formatMessage(m.policy)}</Link>
        </li>
        <li>
          <FormattedMessage {...m.final} />
        </li>
        <li>
          <FormattedMessage {...m.staff} />
        </li>
      </ul>
      <h2>
        <FormattedMessage {...m.howHeading} />
      </h2>
      <p>
        <FormattedMessage {...m.how} />
      </p>
      <p>
        <Link to={paths.info(lang)}>
          <FormattedMessage {...m.back} />
        </Link>
      </p>
      <h2>
        <FormattedMessage {...m.browserHeading} />
      </h2>
      {signedIn ? (
        <>
          <p>
            <FormattedMessage {...m.browserText} />
          </p>
          <button type="button" className="primary" onClick={() => void logout()} disabled={busy}>
            <FormattedMessage {...m.logoutHere} />
          </button>
        </>
      ) : (
        <p>
          <Link to={paths.signin(lang)}>
            <FormattedMessage {...m.signin} />
          </Link>
        </p>
      )}
    </article>
  );
}
