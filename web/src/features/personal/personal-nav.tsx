// The top of both personal pages: the switch between them and the log-out button.
import { useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { NavLink, useNavigate } from 'react-router';
import { paths } from '../../config/paths';
import { titles } from '../../i18n/titles';
import { asLocale } from '../../i18n/locale';
import { api } from '../../lib/api';
import * as session from '../../lib/session';

const m = defineMessages({
  nav: { id: 'personal.nav', defaultMessage: 'Account pages' },
  logout: { id: 'personal.logout', defaultMessage: 'Log out' },
});

/** Ends the session on the server (best effort: an expired token is already gone) and here. */
export function useLogout() {
  const intl = useIntl();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const logout = async () => {
    setBusy(true);
    await api.post('/auth/logout', {}, { skipErrorHandler: true });
    session.clear();
    navigate(paths.signin(asLocale(intl.locale) ?? 'zh-CN'), { replace: true });
  };
  return { busy, logout };
}

export function PersonalNav() {
  const intl = useIntl();
  const lang = asLocale(intl.locale) ?? 'zh-CN';
  const { busy, logout } = useLogout();
  return (
    <div className="personal-bar">
      <nav aria-label={intl.formatMessage(m.nav)}>
        <ul>
          <li>
            <NavLink to={paths.info(lang)} end>
              <FormattedMessage {...titles.info} />
            </NavLink>
          </li>
          <li>
            <NavLink to={paths.secure(lang)} end>
              <FormattedMessage {...titles.secure} />
            </NavLink>
          </li>
        </ul>
      </nav>
      <button type="button" data-testid="logout" onClick={() => void logout()} disabled={busy}>
        <FormattedMessage {...m.logout} />
      </button>
    </div>
  );
}
