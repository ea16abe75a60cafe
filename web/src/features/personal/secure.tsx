// The Security Center (/{lang}/personal/secure): password, linked accounts, two-factor authentication and backup
// codes, marketing opt-in, cookies and privacy choices, where the account is signed in, the
// security activity, and the way to deactivation.
import { useEffect } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link } from 'react-router';
import { useTitle } from '../../components/use-title';
import { paths } from '../../config/paths';
import { titles } from '../../i18n/titles';
import { asLocale } from '../../i18n/locale';
import { TOTP_ENABLED_EVENT } from '../../lib/mfa';
import { ChangePassword } from './change-password';
import { signedInAs } from '../../lib/account-picker';
import { Fold } from './fold';
import { LinkedAccounts } from './linked-accounts';
import { LoadState } from './load-state';
import { Marketing } from './marketing';
import { learnName } from '../../lib/account-picker';
import { CentreNav, CentreSection, useSectionFocus } from './centre-nav';
import { Passkeys } from './passkeys';
import { PersonalNav } from './personal-nav';
import { PrivacySettings } from './privacy-settings';
import { useReauth } from '../../components/reauth';
import { Activity, Sessions } from './sessions';
import { TwoFactor } from './two-factor';
import { useUserInfo } from '../../components/use-user-info';
import './personal.css';

const m = defineMessages({
  pwdHeading: { id: 'secure.pwd.title', defaultMessage: 'Password' },
  pwdChange: { id: 'secure.pwd.heading', defaultMessage: 'Change password' },
  pwdIntro: { id: 'secure.pwd.intro', defaultMessage: 'Changing your password signs you out on your other devices; this one stays signed in.' },
  rule: {
    id: 'secure.pwd.rule',
    defaultMessage: 'A new password has at least 8 characters, with upper and lower case letters, digits and special characters.',
  },
  deactivateHeading: { id: 'secure.deactivate.heading', defaultMessage: 'Deactivate account' },
  deactivateText: { id: 'secure.deactivate.text', defaultMessage: 'Close your account for good; this cannot be undone.' },
  deactivateLink: { id: 'secure.deactivate.link', defaultMessage: 'What deactivation means' },
});

export default function Secure() {
  useTitle(titles.secure);
  const intl = useIntl();
  const lang = asLocale(intl.locale) ?? 'zh-CN';
  const { info, setInfo, failed, reload } = useUserInfo();
  const { guard, dialog } = useReauth(info?.enableTotp ?? false);
  useEffect(() => {
    window.addEventListener(TOTP_ENABLED_EVENT, reload);
    return () => window.removeEventListener(TOTP_ENABLED_EVENT, reload);
  }, [reload]);
  useSectionFocus(Boolean(info));
  // The picker on the sign-in screen shows this name over the masked account.
  useEffect(() => {
    if (info) learnName(info);
  }, [info]);
  return (
    <div className="personal centre">
      <PersonalNav />
      <CentreNav page="secure" />
      <div className="centre-main">
        <h1>
          <FormattedMessage {...titles.secure} />
        </h1>
        <CentreSection id="security">
          <section className="card" aria-labelledby="pwd-title">
            <h2 id="pwd-title">
              <FormattedMessage {...m.pwdHeading} />
            </h2>
            <Fold
              name="change-password"
              saidTestId="change-password-status"
              action={m.pwdChange}
              summary={
                <p className="muted">
                  <FormattedMessage {...m.pwdIntro} />
                </p>
              }
            >
              {({ close }) => (
                <>
                  <p className="muted">
                    <FormattedMessage {...m.rule} />
                  </p>
                  <ChangePassword account={info ? signedInAs(info) : null} onDone={close} />
                </>
              )}
            </Fold>
          </section>
          <LinkedAccounts guard={guard} />
        </CentreSection>
        <CentreSection id="passkeys">
          <Passkeys guard={guard} />
        </CentreSection>
        <CentreSection id="two-factor">
          {info ? (
            <TwoFactor info={info} onPatch={(change) => setInfo((u) => (u ? { ...u, ...change } : u))} onStale={reload} guard={guard} />
          ) : (
            <LoadState failed={failed} onRetry={reload} />
          )}
        </CentreSection>
        <CentreSection id="sessions">
          <Sessions />
          <Activity />
        </CentreSection>
        <CentreSection id="privacy">
          {info && <Marketing info={info} onInfo={setInfo} />}
          <PrivacySettings />
          <section className="card danger-zone" aria-labelledby="deactivate-title">
            <h2 id="deactivate-title">
              <FormattedMessage {...m.deactivateHeading} />
            </h2>
            <p className="muted">
              <FormattedMessage {...m.deactivateText} />
            </p>
            <p>
              <Link to={paths.logout(lang)}>
                <FormattedMessage {...m.deactivateLink} />
              </Link>
            </p>
          </section>
        </CentreSection>
      </div>
      {dialog}
    </div>
  );
}
