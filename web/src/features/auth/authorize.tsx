// The OAuth consent screen's frame (spec §2): what the app asks for, Cancel and Allow. The grant
// itself arrives with the partner-apps issue; until then Allow says so.
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { useLocation, useNavigate } from 'react-router';
import { useTitle } from '../../components/use-title';
import { paths } from '../../config/paths';
import type { Locale } from '../../i18n/locale';
import { titles } from '../../i18n/titles';
import { keepQuery } from '../../lib/redirect';
import * as session from '../../lib/session';
import * as toast from '../../lib/toast';

const m = defineMessages({
  someApp: { id: 'authorize.someApp', defaultMessage: 'An application' },
  asks: { id: 'authorize.asks', defaultMessage: '{app} would like to use your Ciam account and access:' },
  avatar: { id: 'authorize.avatar', defaultMessage: 'Your avatar' },
  nickname: { id: 'authorize.nickname', defaultMessage: 'Your nickname' },
  company: { id: 'authorize.company', defaultMessage: 'Your company name' },
  contact: { id: 'authorize.contact', defaultMessage: 'Your phone number and/or e-mail' },
  cancel: { id: 'authorize.cancel', defaultMessage: 'Cancel' },
  allow: { id: 'authorize.allow', defaultMessage: 'Allow' },
  notAvailable: { id: 'authorize.notAvailable', defaultMessage: 'Authorization is not available yet' },
});

export default function Authorize() {
  useTitle(titles.authorize);
  const intl = useIntl();
  const navigate = useNavigate();
  const { search } = useLocation();
  const app = new URLSearchParams(search).get('appName')?.trim().slice(0, 64) || intl.formatMessage(m.someApp);
  const toSignin = () => navigate(paths.signin(intl.locale as Locale) + keepQuery(search));
  const allow = () => (session.isLoggedIn() ? toast.show('info', intl.formatMessage(m.notAvailable)) : toSignin());
  return (
    <div className="card">
      <h1>
        <FormattedMessage {...titles.authorize} />
      </h1>
      <p>
        <FormattedMessage {...m.asks} values={{ app: <strong>{app}</strong> }} />
      </p>
      <ul>
        {[m.avatar, m.nickname, m.company, m.contact].map((d) => (
          <li key={d.id}>
            <FormattedMessage {...d} />
          </li>
        ))}
      </ul>
      <div className="actions">
        <button type="button" onClick={toSignin}>
          <FormattedMessage {...m.cancel} />
        </button>
        <button type="button" className="primary" onClick={allow}>
          <FormattedMessage {...m.allow} />
        </button>
      </div>
    </div>
  );
}
