// The top of both personal pages: the switch between them and the log-out button.
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { NavLink } from 'react-router';
import { paths } from '../../config/paths';
import { titles } from '../../i18n/titles';
import { asLocale } from '../../i18n/locale';
import { useLogout } from '../../components/use-logout';

const m = defineMessages({
  nav: { id: 'personal.nav', defaultMessage: 'Account pages' },
  logout: { id: 'personal.logout', defaultMessage: 'Log out' },
  company: { id: 'personal.org.nav', defaultMessage: 'My company' },
});

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
          <li>
            {/* config/org-paths.ts's `company`, spelt here: importing that module from this chunk
                would make it a chunk of its own, one more file named in the entry. */}
            <NavLink to={`/${lang}/personal/company`} end>
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
