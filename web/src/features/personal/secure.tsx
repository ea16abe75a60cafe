// The Security Center (/{lang}/personal/secure). Changing the password works now; two-factor
// authentication, marketing opt-in, cookie settings and deactivation are described only until
// their issue brings the controls.
import { type FormEvent, type ReactNode, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { Link } from 'react-router';
import { useTitle } from '../../components/use-title';
import { paths } from '../../config/paths';
import { titles } from '../../i18n/titles';
import { asLocale } from '../../i18n/locale';
import { api, errorText, handleError } from '../../lib/api';
import * as toast from '../../lib/toast';
import { Field, type Msg } from '../../components/field';
import * as v from '../../lib/validate';
import { PersonalNav } from './personal-nav';
import './personal.css';

const m = defineMessages({
  pwdHeading: { id: 'secure.pwd.heading', defaultMessage: 'Change password' },
  pwdIntro: { id: 'secure.pwd.intro', defaultMessage: 'Changing your password signs you out on your other devices; this one stays signed in.' },
  rule: {
    id: 'secure.pwd.rule',
    defaultMessage: 'A new password has at least 8 characters, with upper and lower case letters, digits and special characters.',
  },
  oldPassword: { id: 'secure.pwd.old', defaultMessage: 'Current password' },
  password: { id: 'secure.pwd.new', defaultMessage: 'New password' },
  confirmPassword: { id: 'secure.pwd.confirm', defaultMessage: 'Confirm new password' },
  oldRequired: { id: 'secure.pwd.oldRequired', defaultMessage: 'Enter your current password' },
  newRequired: { id: 'secure.pwd.newRequired', defaultMessage: 'Enter a new password' },
  submit: { id: 'secure.pwd.submit', defaultMessage: 'Change password' },
  changed: { id: 'secure.pwd.changed', defaultMessage: 'Your password has been changed' },
  totpHeading: { id: 'secure.totp.heading', defaultMessage: 'Two-factor authentication' },
  totpText: {
    id: 'secure.totp.text',
    defaultMessage: 'Add a 6-digit code from an authenticator app to your sign-in, with backup codes for when your phone is away. Setup arrives here soon.',
  },
  adHeading: { id: 'secure.ad.heading', defaultMessage: 'Marketing messages' },
  adText: { id: 'secure.ad.text', defaultMessage: 'Choose whether we may send you product news and event invitations; the setting arrives here soon.' },
  cookiesHeading: { id: 'secure.cookies.heading', defaultMessage: 'Cookies and privacy' },
  cookiesText: { id: 'secure.cookies.text', defaultMessage: 'What this portal keeps in your browser, and why, is listed in the privacy policy.' },
  cookiesLink: { id: 'secure.cookies.link', defaultMessage: 'Read the privacy policy' },
  deactivateHeading: { id: 'secure.deactivate.heading', defaultMessage: 'Deactivate account' },
  deactivateText: { id: 'secure.deactivate.text', defaultMessage: 'Close your account for good; this cannot be undone.' },
  deactivateLink: { id: 'secure.deactivate.link', defaultMessage: 'What deactivation means' },
});

const FIELDS = ['oldPassword', 'password', 'confirmPassword'] as const;
type FieldName = (typeof FIELDS)[number];
type Values = Record<FieldName, string>;
const EMPTY: Values = { oldPassword: '', password: '', confirmPassword: '' };

function isField(f: string | undefined): f is FieldName {
  return f !== undefined && (FIELDS as readonly string[]).includes(f);
}

export default function Secure() {
  useTitle(titles.secure);
  const intl = useIntl();
  const lang = asLocale(intl.locale) ?? 'zh-CN';
  return (
    <div className="personal">
      <PersonalNav />
      <h1>
        <FormattedMessage {...titles.secure} />
      </h1>
      <section className="card" aria-labelledby="pwd-title">
        <h2 id="pwd-title">
          <FormattedMessage {...m.pwdHeading} />
        </h2>
        <p className="muted">
          <FormattedMessage {...m.pwdIntro} />
        </p>
        <p className="muted">
          <FormattedMessage {...m.rule} />
        </p>
        <ChangePassword />
      </section>
      <Described id="totp" heading={m.totpHeading} text={m.totpText} />
      <Described id="ad" heading={m.adHeading} text={m.adText} />
      <Described id="cookies" heading={m.cookiesHeading} text={m.cookiesText}>
        <Link to={paths.privacy(lang)}>
          <FormattedMessage {...m.cookiesLink} />
        </Link>
      </Described>
      <Described id="deactivate" heading={m.deactivateHeading} text={m.deactivateText}>
        <Link to={paths.logout(lang)}>
          <FormattedMessage {...m.deactivateLink} />
        </Link>
      </Described>
    </div>
  );
}

function Described({ id, heading, text, children }: { id: string; heading: MessageDescriptor; text: MessageDescriptor; children?: ReactNode }) {
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        <FormattedMessage {...heading} />
      </h2>
      <p className="muted">
        <FormattedMessage {...text} />
      </p>
      {children && <p>{children}</p>}
    </section>
  );
}

function ChangePassword() {
  const intl = useIntl();
  const [values, setValues] = useState<Values>(EMPTY);
  const [errors, setErrors] = useState<Partial<Record<FieldName, Msg>>>({});
  const [busy, setBusy] = useState(false);
  const set = (f: FieldName) => (value: string) => {
    setValues((x) => ({ ...x, [f]: value }));
    setErrors((er) => ({ ...er, [f]: undefined }));
  };
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const focus = (f: FieldName) => (form.elements.namedItem(f) as HTMLElement | null)?.focus();
    const found: Partial<Record<FieldName, Msg>> = {
      oldPassword: values.oldPassword ? null : m.oldRequired,
      password: values.password ? v.password(values.password) : m.newRequired,
      confirmPassword: v.confirm(values.password, values.confirmPassword),
    };
    const first = FIELDS.find((f) => found[f]);
    if (first) {
      setErrors(found);
      focus(first);
      return;
    }
    setBusy(true);
    const res = await api.patch('/auth/pwd', values, { skipErrorHandler: true });
    setBusy(false);
    if (res.success) {
      setValues(EMPTY);
      setErrors({});
      toast.show('success', intl.formatMessage(m.changed));
    } else if (isField(res.error.field)) {
      const f = res.error.field;
      setErrors({ [f]: errorText(res.error) });
      focus(f);
    } else {
      handleError(res.error);
    }
  };
  return (
    <form data-testid="change-password" onSubmit={(e) => void submit(e)} noValidate>
      <Field
        name="oldPassword"
        type="password"
        autoComplete="current-password"
        label={m.oldPassword}
        value={values.oldPassword}
        onChange={set('oldPassword')}
        error={errors.oldPassword}
        required
      />
      <Field
        name="password"
        type="password"
        autoComplete="new-password"
        label={m.password}
        value={values.password}
        onChange={set('password')}
        error={errors.password}
        maxLength={128}
        required
      />
      <Field
        name="confirmPassword"
        type="password"
        autoComplete="new-password"
        label={m.confirmPassword}
        value={values.confirmPassword}
        onChange={set('confirmPassword')}
        error={errors.confirmPassword}
        maxLength={128}
        required
      />
      <button type="submit" className="primary" disabled={busy}>
        <FormattedMessage {...m.submit} />
      </button>
    </form>
  );
}
