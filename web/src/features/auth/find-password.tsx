// Password recovery (spec §2): a code sent to the account, then a new password. Also the first
// password of a staff account (EIAM_PASSWORD_UNSET leads here).
import { useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link, useLocation, useNavigate } from 'react-router';
import { Field, FormAlert } from '../../components/field';
import { useTitle } from '../../components/use-title';
import { paths } from '../../config/paths';
import type { Locale } from '../../i18n/locale';
import { titles } from '../../i18n/titles';
import { call, SKIP } from '../../lib/api';
import { keepQuery } from '../../lib/redirect';
import * as v from '../../lib/validate';
import { CodeField } from '../../components/code-field';
import { labels } from './messages';
import { useForm } from '../../components/use-form';

const m = defineMessages({
  newPassword: { id: 'find.newPassword', defaultMessage: 'New password' },
  submit: { id: 'find.submit', defaultMessage: 'Reset password' },
});

export default function FindPassword() {
  useTitle(titles.find);
  const intl = useIntl();
  const lang = intl.locale as Locale;
  const navigate = useNavigate();
  const { search, state } = useLocation();
  const q = keepQuery(search);
  // Sign-in hands over the account typed or picked there (router state, never storage).
  const handed = (state as { account?: unknown } | null)?.account;
  const f = useForm({ account: typeof handed === 'string' ? handed : '', code: '', password: '', confirmPassword: '' });
  const [busy, setBusy] = useState(false);
  const x = f.values;
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const ok = f.check({
      account: v.identity(x.account),
      code: v.code(x.code),
      password: v.password(x.password),
      confirmPassword: v.confirm(x.password, x.confirmPassword),
    });
    if (!ok) return;
    setBusy(true);
    const res = await call('PATCH /auth/pwd', { body: { ...x, account: x.account.trim(), code: x.code.trim() } }, SKIP);
    setBusy(false);
    if (!res.success) return f.refuse(res.error);
    navigate(paths.signin(lang) + q, { state: { account: x.account.trim(), notice: 'reset' } });
  };
  return (
    <div className="card">
      <h1>
        <FormattedMessage {...titles.find} />
      </h1>
      <form ref={f.ref} data-testid="find-password" noValidate onSubmit={submit}>
        <FormAlert {...f.alert} />
        <Field {...f.bind('account')} label={labels.account} autoComplete="username" />
        <CodeField {...f.bind('code')} onRefused={f.refuse} purpose="resetPassword"
          account={() => (f.flag('account', v.identity(x.account)) ? x.account.trim() : null)} />
        <Field {...f.bind('password')} label={m.newPassword} type="password" autoComplete="new-password" />
        <Field {...f.bind('confirmPassword')} label={labels.confirmPassword} type="password" autoComplete="new-password" />
        <button type="submit" className="primary" disabled={busy || f.locked}>
          <FormattedMessage {...m.submit} />
        </button>
      </form>
      <div className="links">
        <Link to={paths.signin(lang) + q}>
          <FormattedMessage {...labels.backToSignin} />
        </Link>
      </div>
    </div>
  );
}
