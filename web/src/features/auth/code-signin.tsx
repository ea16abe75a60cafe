// Sign-in with a verification code: the account, the captcha, the code with its send button.
import { useContext, useEffect, useState } from 'react';
import { LockReset } from '../../components/lock-reset';
import { Cell } from '../../components/cells-lazy';
import { FormattedMessage } from 'react-intl';
import { Field, FormAlert } from '../../components/field';
import { call, SKIP } from '../../lib/api';
import { AccountRefused } from '../../lib/account-picker';
import { code, identity } from '../../lib/validate';
import { CodeField } from '../../components/code-field';
import { labels } from './messages';
import { type Done, signinMessages } from './password-form';
import { useForm } from '../../components/use-form';

export default function CodeForm({ account, onSignedIn, onAccount, blocked }: {
  account: string;
  onSignedIn: Done;
  onAccount?: (a: string) => void;
  /** The browser keeps nothing (cookies blocked): the form is not sent. */
  blocked?: boolean;
}) {
  const f = useForm({ account, code: '' });
  const typed = f.values.account;
  useEffect(() => onAccount?.(typed), [typed, onAccount]);
  const [busy, setBusy] = useState(false);
  // A refusal that says the account is gone (deactivated or unknown) drops it from the picker.
  const refused = useContext(AccountRefused);
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const { account, code: c } = f.values;
    if (!f.check({ account: identity(account), code: code(c) })) return;
    setBusy(true);
    const res = await call('POST /auth/login/code', { body: { account: account.trim(), code: c.trim() } }, SKIP);
    setBusy(false);
    if (res.success) onSignedIn(account.trim(), res.data.token);
    else {
      refused(account.trim(), res.error);
      f.refuse(res.error);
    }
  };
  return (
    <form ref={f.ref} data-testid="signin-code" noValidate onSubmit={submit}>
      <FormAlert {...f.alert} lockAction={<LockReset account={f.values.account} />} />
      <Field {...f.bind('account')} label={labels.account} autoComplete="username webauthn" />
      {/* An unknown account (after its code checked out) may be the other cell's. */}
      <Cell reason={f.refusal} />
      <CodeField {...f.bind('code')} onRefused={f.refuse} purpose="login"
        account={() => (f.flag('account', identity(f.values.account)) ? f.values.account.trim() : null)} />
      <button type="submit" className="primary" disabled={busy || f.locked || blocked}>
        <FormattedMessage {...signinMessages.submit} />
      </button>
    </form>
  );
}
