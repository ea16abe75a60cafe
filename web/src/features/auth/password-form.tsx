// Sign-in with an account and a password: the sign-in screen's first mode, its staff mode, and
// the embedded sign-in.
import { useState } from 'react';
import { defineMessages, FormattedMessage } from 'react-intl';
import { Field } from '../../components/field';
import * as mfa from '../../lib/mfa';
import { errorText } from '../../lib/api';
import { loginPassword } from './api';
import { identity, mail, rules } from '../../lib/validate';
import { labels } from './messages';
import { useForm } from '../../components/use-form';

export const signinMessages = defineMessages({
  submit: { id: 'signin.submit', defaultMessage: 'Sign in' },
  staffMail: { id: 'signin.staffMail', defaultMessage: 'Company e-mail' },
  staffNote: { id: 'signin.staffNote', defaultMessage: 'Staff sign in with their company e-mail and password.' },
});
const m = signinMessages;

export type { SignedIn } from './api';

/** What a sign-in form calls when it signed in (the screen goes on from there). */
export type Done = (account: string, token: string) => void;

interface Props {
  account?: string;
  staff?: boolean;
  /** Show the server's refusal in the form (embedded: there are no toasts). */
  inline?: boolean;
  onSignedIn: (account: string, token: string) => void;
}

export function PasswordForm({ account = '', staff, inline, onSignedIn }: Props) {
  const f = useForm({ account, password: '' });
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const { account, password } = f.values;
    const ok = f.check({ account: staff && account.trim() ? mail(account) : identity(account), password: password ? null : rules.empty });
    if (!ok) return;
    setBusy(true);
    setRefusal(null);
    mfa.signingIn(account.trim());
    const res = await loginPassword({ account: account.trim(), password });
    setBusy(false);
    if (res.success) onSignedIn(account.trim(), res.data.token);
    else if (inline) setRefusal(errorText(res.error));
  };
  return (
    <form ref={f.ref} data-testid="signin-password" noValidate onSubmit={submit}>
      {staff && (
        <p className="muted">
          <FormattedMessage {...m.staffNote} />
        </p>
      )}
      <Field {...f.bind('account')} label={staff ? m.staffMail : labels.account} autoComplete="username" />
      <Field {...f.bind('password')} label={labels.password} type="password" autoComplete="current-password" autoFocus={!!account} />
      {inline && <p className="field-error" role="alert">{refusal}</p>}
      <button type="submit" className="primary" disabled={busy}>
        <FormattedMessage {...m.submit} />
      </button>
    </form>
  );
}
