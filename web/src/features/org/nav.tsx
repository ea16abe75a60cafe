// The top of "My company" and the invitation landing's signed-in pages: the same links and log-out
// button as the personal pages' (features/personal/personal-nav.tsx, the same message ids), drawn
// here so that this chunk imports nothing of features/personal (org-screens.tsx says why).
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { NavLink } from 'react-router';
import { useLogout } from '../../components/use-logout';
import { paths } from '../../config/paths';
import { orgPaths } from '../../config/org-paths';
import { titles } from '../../i18n/titles';
import { asLocale } from '../../i18n/locale';

const m = defineMessages({
  nav: { id: 'personal.nav', defaultMessage: 'Account pages' },
  logout: { id: 'personal.logout', defaultMessage: 'Log out' },
  company: { id: 'personal.org.nav', defaultMessage: 'My company' },
});

export function OrgNav() {
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
          <li>
            <NavLink to={orgPaths.company(lang)} end>
              <FormattedMessage {...m.company} />
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
