// Sign-in with an account and a password: the sign-in screen's first mode, its staff mode, and
// the embedded sign-in.
import { useEffect, useState } from 'react';
import { defineMessages, FormattedMessage } from 'react-intl';
import { Field, FormAlert } from '../../components/field';
import * as mfa from '../../lib/mfa';
import { type Answer, type ApiError, call, SKIP } from '../../lib/api';
import { identity, mail, rules } from '../../lib/validate';
import { labels } from './messages';
import { useForm } from '../../components/use-form';
import { LockReset } from '../../components/lock-reset';
import { Cell } from '../../components/cells-lazy';

export const signinMessages = defineMessages({
  submit: { id: 'signin.submit', defaultMessage: 'Sign in' },
  staffMail: { id: 'signin.staffMail', defaultMessage: 'Company e-mail' },
  staffNote: { id: 'signin.staffNote', defaultMessage: 'Staff sign in with their company e-mail and password.' },
});
const m = signinMessages;

/** A sign-in's answer. */
export type SignedIn = Answer<'POST /auth/login/password'>;

/** What a sign-in form calls when it signed in (the screen goes on from there). */
export type Done = (account: string, token: string) => void;

interface Props {
  account?: string;
  staff?: boolean;
  /** Embedded: every refusal is shown in the form (there are no toasts) and told to the host page. */
  inline?: boolean;
  onSignedIn: (account: string, token: string) => void;
  /** Told the account as it is typed (the sign-in screen hands it to the password reset). */
  onAccount?: (account: string) => void;
  /** The browser keeps nothing (cookies blocked): the form is not sent. */
  blocked?: boolean;
  /** Staff mode: say who signs in here (false when the company button above says it already). */
  staffNote?: boolean;
  /** Embedded: sees each refusal first; true when it took it over (the second step in the frame). */
  onRefused?: (e: ApiError) => boolean;
}

export function PasswordForm({ account = '', staff, inline, onSignedIn, onAccount, blocked, staffNote = true, onRefused }: Props) {
  const f = useForm({ account, password: '' });
  const typed = f.values.account;
  useEffect(() => onAccount?.(typed), [typed, onAccount]);
  const [busy, setBusy] = useState(false);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const { account, password } = f.values;
    const ok = f.check({ account: staff && account.trim() ? mail(account) : identity(account), password: password ? null : rules.empty });
    if (!ok) return;
    setBusy(true);
    mfa.signingIn(account.trim());
    const res = await call('POST /auth/login/password', { body: { account: account.trim(), password } }, SKIP);
    setBusy(false);
    if (res.success) onSignedIn(account.trim(), res.data.token);
    else if (!onRefused?.(res.error)) f.refuse(res.error, inline);
  };
  return (
    <form ref={f.ref} data-testid="signin-password" noValidate onSubmit={submit}>
      {staff && staffNote && (
        <p className="muted">
          <FormattedMessage {...m.staffNote} />
        </p>
      )}
      <FormAlert {...f.alert} lockAction={<LockReset account={f.values.account} top={inline} />} />
      {/* Under the refusal: the other cell's sign-in (not in a partner's frame: its app is this cell's). */}
      {!inline && <Cell reason={f.refusal} />}
      <Field {...f.bind('account')} label={staff ? m.staffMail : labels.account}
        autoComplete={staff || inline ? 'username' : 'username webauthn'} />
      <Field {...f.bind('password')} label={labels.password} type="password" autoComplete="current-password" autoFocus={!!account} />
      <button type="submit" className="primary" disabled={busy || f.locked || blocked}>
        <FormattedMessage {...m.submit} />
      </button>
    </form>
  );
}
