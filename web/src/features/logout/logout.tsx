// /{lang}/logout: what deactivating an account means, the deactivation form (signed in only:
// the current password, or the authenticator code when two-factor is on, and a confirmation),
// and signing out of this browser.
import { type FormEvent, useId, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link, useNavigate } from 'react-router';
import { ErrorText, Field, type Msg, OtpField } from '../../components/field';
import { useTitle } from '../../components/use-title';
import { paths } from '../../config/paths';
import { titles } from '../../i18n/titles';
import { asLocale } from '../../i18n/locale';
import { type ApiError, errorText, handleError } from '../../lib/api';
import { deactivate } from './api';
import * as session from '../../lib/session';
import * as v from '../../lib/validate';
import { useLogout } from '../../components/use-logout';
import { atField, withoutEmpty } from '../../lib/proof';
import { useUserInfo } from '../../components/use-user-info';
import './logout.css';
import { hasReason } from '../../lib/reasons';
import { forgetSelf } from '../../lib/account-picker';
import { rememberOrigin } from '../../lib/redirect';
import { FormError } from '../../components/form-error';

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
  how: { id: 'logout.how.text', defaultMessage: 'Confirm it is you and that you understand the consequences, then deactivate.' },
  howSignedOut: { id: 'logout.how.signedOut', defaultMessage: 'Sign in first: only a signed-in account can be deactivated.' },
  back: { id: 'logout.back', defaultMessage: 'Back to the Personal Center' },
  browserHeading: { id: 'logout.browser.heading', defaultMessage: 'Only leaving this browser?' },
  browserText: { id: 'logout.browser.text', defaultMessage: 'Log out to end your session here; your account stays as it is.' },
  logoutHere: { id: 'logout.browser.button', defaultMessage: 'Log out of this browser' },
  signin: { id: 'logout.signin', defaultMessage: 'Sign in' },
});

export default function Logout() {
  useTitle(titles.logout);
  const intl = useIntl();
  const lang = asLocale(intl.locale) ?? 'zh-CN';
  const signedIn = session.isLoggedIn();
  const { busy, logout } = useLogout();
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
      {signedIn ? (
        <>
          <p>
            <FormattedMessage {...m.how} />
          </p>
          <SignedInDeactivate />
        </>
      ) : (
        <p>
          <FormattedMessage {...m.howSignedOut} />
        </p>
      )}
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
          <Link to={paths.signin(lang)} state={{ origin: true }} onClick={() => rememberOrigin(paths.logout(lang))}>
            <FormattedMessage {...m.signin} />
          </Link>
        </p>
      )}
    </article>
  );
}

const dm = defineMessages({
  password: { id: 'logout.deactivate.password', defaultMessage: 'Current password' },
  code: { id: 'logout.deactivate.code', defaultMessage: 'Code from your authenticator app' },
  passwordRequired: { id: 'logout.deactivate.passwordRequired', defaultMessage: 'Enter your current password' },
  wrongPassword: { id: 'logout.deactivate.wrongPassword', defaultMessage: 'The password is not correct' },
  confirm: { id: 'logout.deactivate.confirm', defaultMessage: 'I understand that my account and its data will be removed and that this cannot be undone' },
  confirmRequired: { id: 'logout.deactivate.confirmRequired', defaultMessage: 'Please confirm that you understand' },
  submit: { id: 'logout.deactivate.submit', defaultMessage: 'Deactivate my account' },
  staff: { id: 'logout.deactivate.staff', defaultMessage: 'This is an internal staff account: it cannot be deactivated here. Please contact your administrator.' },
});

/** The parts of GET /auth/info the form needs. */
export interface Account {
  enableTotp: boolean;
  isEiamUser: boolean;
  userName?: string | null;
  mail?: string | null;
  phone?: string | null;
}

/** The deactivation form once GET /auth/info has answered (rendered for a signed-in person only). */
function SignedInDeactivate() {
  const { info } = useUserInfo();
  return info && <Deactivate account={info} />;
}

function Deactivate({ account }: { account: Account }) {
  const intl = useIntl();
  const navigate = useNavigate();
  const form = useRef<HTMLFormElement>(null);
  const confirmId = useId();
  const twoFactor = account.enableTotp;
  const name = twoFactor ? 'code' : 'password';
  const [value, setValue] = useState('');
  const [agreed, setAgreed] = useState(false);
  const [errors, setErrors] = useState<{ proof?: Msg; confirm?: Msg; form?: Msg }>({});
  const [busy, setBusy] = useState(false);
  if (account.isEiamUser) {
    return (
      <p className="notice" data-testid="deactivate-staff">
        <FormattedMessage {...dm.staff} />
      </p>
    );
  }
  const focus = (n: string) => (form.current?.elements.namedItem(n) as HTMLElement | null)?.focus();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const proof: Msg = twoFactor ? v.code(value) && v.rules.codeDigits : value ? null : dm.passwordRequired;
    const confirm: Msg = agreed ? null : dm.confirmRequired;
    setErrors({ proof, confirm });
    if (proof) return focus(name);
    if (confirm) return focus('confirm');
    setBusy(true);
    const res = await deactivate(withoutEmpty(twoFactor ? { code: value } : { password: value }));
    setBusy(false);
    if (res.success) {
      session.clear();
      // A deactivated account is no longer offered by "choose account" on this browser.
      forgetSelf({ userName: account.userName ?? '', mail: account.mail ?? null, phone: account.phone ?? null });
      navigate(paths.signin(asLocale(intl.locale) ?? 'zh-CN'), { replace: true, state: { notice: 'deactivated' } });
      return;
    }
    const err: ApiError = res.error;
    if (atField(err) || err.field === name) {
      setErrors({ proof: hasReason(err, 'PASSWORD_ERROR') ? dm.wrongPassword : errorText(err) });
      focus(name);
    } else if (hasReason(err, 'EIAM_DEACTIVATE_ERROR')) {
      setErrors({ form: errorText(err) });
    } else handleError(err);
  };
  return (
    <form ref={form} data-testid="deactivate" onSubmit={(e) => void submit(e)} noValidate>
      <FormError />
      {twoFactor ? (
        <OtpField
          label={dm.code}
          value={value}
          onChange={(x) => {
            setValue(x);
            setErrors((er) => ({ ...er, proof: null }));
          }}
          error={errors.proof}
        />
      ) : (
        <Field
          name="password"
          type="password"
          label={dm.password}
          value={value}
          onChange={(x) => {
            setValue(x);
            setErrors((er) => ({ ...er, proof: null }));
          }}
          error={errors.proof}
          autoComplete="current-password"
          required
        />
      )}
      <div className="check">
        <input
          id={confirmId}
          type="checkbox"
          name="confirm"
          checked={agreed}
          onChange={(x) => {
            setAgreed(x.target.checked);
            setErrors((er) => ({ ...er, confirm: null }));
          }}
          aria-invalid={!!errors.confirm}
          aria-describedby={`${confirmId}-e`}
          required
        />
        <label htmlFor={confirmId}>
          <FormattedMessage {...dm.confirm} />
        </label>
      </div>
      <ErrorText id={`${confirmId}-e`} error={errors.confirm} />
      {errors.form && <ErrorText id={`${confirmId}-f`} error={errors.form} />}
      <button type="submit" className="primary danger" disabled={busy}>
        <FormattedMessage {...dm.submit} />
      </button>
    </form>
  );
}
