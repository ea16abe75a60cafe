// The password change of the security centre: the current password, a new one that differs from
// it (the server says PASSWORD_SAME_ERROR too), and its confirmation.
import { type FormEvent, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { type ApiError, errorText, handleError } from '../../lib/api';
import { changePassword } from './api';
import { Field, FormAlert } from '../../components/field';
import { useForm } from '../../components/use-form';
import * as v from '../../lib/validate';
import { byReason, type ReasonMap } from '../../lib/reasons';

const m = defineMessages({
  oldPassword: { id: 'secure.pwd.old', defaultMessage: 'Current password' },
  password: { id: 'secure.pwd.new', defaultMessage: 'New password' },
  confirmPassword: { id: 'secure.pwd.confirm', defaultMessage: 'Confirm new password' },
  oldRequired: { id: 'secure.pwd.oldRequired', defaultMessage: 'Enter your current password' },
  newRequired: { id: 'secure.pwd.newRequired', defaultMessage: 'Enter a new password' },
  same: { id: 'secure.pwd.same', defaultMessage: 'The new password must differ from your current one' },
  submit: { id: 'secure.pwd.submit', defaultMessage: 'Change password' },
  changed: { id: 'secure.pwd.changed', defaultMessage: 'Your password has been changed' },
});

const FIELDS = ['oldPassword', 'password', 'confirmPassword'] as const;
type FieldName = (typeof FIELDS)[number];
const EMPTY: Record<FieldName, string> = { oldPassword: '', password: '', confirmPassword: '' };

function isField(f: string | undefined): f is FieldName {
  return f !== undefined && (FIELDS as readonly string[]).includes(f);
}

/** The fields that reasons imply. */
const FIELD_OF: ReasonMap<FieldName> = { PASSWORD_SAME_ERROR: 'password', PASSWORD_ERROR: 'oldPassword' };

/** The field a server error belongs to: the one it names, else the one its reason implies. */
function fieldOf(e: ApiError): FieldName | null {
  if (isField(e.field)) return e.field;
  return byReason(FIELD_OF, e.reason) ?? null;
}

/**
 * `onDone`: the change is made (the words that say so).
 * `account`: the account as signed in with on this browser, for password managers to save the new
 * password against; null leaves the field out (a masked value would be saved as a user name).
 */
export function ChangePassword({ account, onDone }: { account: string | null; onDone: (said: string) => void }) {
  const intl = useIntl();
  const { ref, values, set, check, flag, bind, alert } = useForm(EMPTY);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const ok = check({
      oldPassword: values.oldPassword ? null : m.oldRequired,
      password: !values.password ? m.newRequired : values.password === values.oldPassword ? m.same : v.password(values.password),
      confirmPassword: v.confirm(values.password, values.confirmPassword),
    });
    if (!ok) return;
    setBusy(true);
    const res = await changePassword(values);
    setBusy(false);
    if (res.success) {
      FIELDS.forEach((name) => set(name, ''));
      // The form closes behind its row, which says it (fold.tsx).
      onDone(intl.formatMessage(m.changed));
      return;
    }
    const f = fieldOf(res.error);
    if (f) flag(f, errorText(res.error));
    else handleError(res.error);
  };
  return (
    <form ref={ref} data-testid="change-password" onSubmit={(e) => void submit(e)} noValidate>
      {/* What the default handler says while this form is in use (a network failure, ...). */}
      <FormAlert {...alert} />
      {/* Hidden: tells a password manager whose password this is (its autocomplete is username). */}
      {account && <input type="text" name="username" autoComplete="username" value={account} readOnly hidden />}
      <Field
        {...bind('oldPassword')}
        type="password"
        autoComplete="current-password"
        label={m.oldPassword}
        required
      />
      <Field
        {...bind('password')}
        type="password"
        autoComplete="new-password"
        label={m.password}
        maxLength={128}
        required
      />
      <Field
        {...bind('confirmPassword')}
        type="password"
        autoComplete="new-password"
        label={m.confirmPassword}
        maxLength={128}
        required
      />
      <button type="submit" className="primary" disabled={busy}>
        <FormattedMessage {...m.submit} />
      </button>
    </form>
  );
}
