// The password change of the security centre: the current password, a new one that differs from
// it (the server says PASSWORD_SAME_ERROR too), and its confirmation.
import { type FormEvent, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { api, type ApiError, errorText, handleError } from '../../lib/api';
import * as toast from '../../lib/toast';
import { Field, type Msg } from '../../components/field';
import * as v from '../../lib/validate';

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
type Values = Record<FieldName, string>;
const EMPTY: Values = { oldPassword: '', password: '', confirmPassword: '' };

function isField(f: string | undefined): f is FieldName {
  return f !== undefined && (FIELDS as readonly string[]).includes(f);
}

/** The field a server error belongs to: the one it names, else the one its reason implies. */
function fieldOf(e: ApiError): FieldName | null {
  if (isField(e.field)) return e.field;
  if (e.reason === 'PASSWORD_SAME_ERROR') return 'password';
  if (e.reason === 'PASSWORD_ERROR') return 'oldPassword';
  return null;
}

export function ChangePassword() {
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
      password: !values.password ? m.newRequired : values.password === values.oldPassword ? m.same : v.password(values.password),
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
    } else if (fieldOf(res.error)) {
      const f = fieldOf(res.error) as FieldName;
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
