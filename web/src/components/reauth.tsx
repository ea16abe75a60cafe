// Re-authentication for sensitive changes (the personal centre and the console). The server answers 403 REAUTH_REQUIRED when the last
// proof of identity is older than 5 minutes; then a small dialog asks for the current password
// (or, with two-factor on, the authenticator code), POST /auth/totp/verify records a fresh proof,
// and the action is sent again by itself. Actions are called with skipErrorHandler, so the caller
// decides what the other errors do.
import { type FormEvent, useCallback, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Field, type Msg, OtpField } from './field';
import { type ApiError, type Body, call, errorText, handleError, type Result, SKIP } from '../lib/api';
import { Dialog } from './dialog';
import * as v from '../lib/validate';
import { hasReason } from '../lib/reasons';
import { usePasskeys } from '../lib/passkey-gate';

const m = defineMessages({
  title: { id: 'personal.reauth.heading', defaultMessage: 'Confirm it is you' },
  withPassword: { id: 'personal.reauth.password', defaultMessage: 'For your security, enter your current password to continue.' },
  withCode: { id: 'personal.reauth.code', defaultMessage: 'For your security, enter the 6-digit code from your authenticator app to continue.' },
  password: { id: 'personal.reauth.passwordLabel', defaultMessage: 'Current password' },
  code: { id: 'personal.reauth.codeLabel', defaultMessage: 'Authenticator code' },
  passwordRequired: { id: 'personal.reauth.passwordRequired', defaultMessage: 'Enter your current password' },
  wrongPassword: { id: 'personal.reauth.wrongPassword', defaultMessage: 'The password is not correct' },
  cancel: { id: 'personal.reauth.cancel', defaultMessage: 'Cancel' },
  confirm: { id: 'personal.reauth.confirm', defaultMessage: 'Continue' },
  passkey: { id: 'personal.reauth.passkey', defaultMessage: 'Use a passkey instead' },
  passkeyCancelled: { id: 'personal.reauth.passkeyCancelled', defaultMessage: 'The passkey was not used. Try again, or enter the code or password.' },
});


/** POST /auth/totp/verify: a fresh proof (password or code) before a sensitive change. */
const verifyFresh = (body: Body<'POST /auth/totp/verify'>) => call('POST /auth/totp/verify', { body }, SKIP);

/**
 * Runs `action`; when it answers REAUTH_REQUIRED, asks `prove` for a fresh proof and runs it once
 * more. Null when the person cancelled the proof.
 */
export async function withReauth<T>(action: () => Promise<Result<T>>, prove: () => Promise<boolean>): Promise<Result<T> | null> {
  const first = await action();
  if (first.success || !hasReason(first.error, 'REAUTH_REQUIRED')) return first;
  if (!(await prove())) return null;
  return action();
}

/** `guard(action)` is withReauth with the dialog as the proof; render `dialog` in the page. */
export function useReauth(twoFactor: boolean) {
  const [open, setOpen] = useState(false);
  const pending = useRef<((ok: boolean) => void) | null>(null);
  const prove = useCallback(
    () =>
      new Promise<boolean>((resolve) => {
        pending.current = resolve;
        setOpen(true);
      }),
    [],
  );
  const guard = useCallback(<T,>(action: () => Promise<Result<T>>) => withReauth(action, prove), [prove]);
  const done = (ok: boolean) => {
    setOpen(false);
    pending.current?.(ok);
    pending.current = null;
  };
  const dialog = open ? <ReauthDialog twoFactor={twoFactor} onDone={done} /> : null;
  return { guard, dialog };
}

function fieldText(e: ApiError): Msg {
  return hasReason(e, 'PASSWORD_ERROR') ? m.wrongPassword : errorText(e);
}

export function ReauthDialog({ twoFactor, onDone }: { twoFactor: boolean; onDone: (ok: boolean) => void }) {
  const intl = useIntl();
  const [value, setValue] = useState('');
  const [error, setError] = useState<Msg>(null);
  const [busy, setBusy] = useState(false);
  // "Use a passkey instead": hidden when this account has none (PASSKEY_NOT_FOUND) or passkeys are off.
  const passkeys = usePasskeys();
  const [noPasskey, setNoPasskey] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const withPasskey = async () => {
    setError(null);
    setBusy(true);
    const out = await (await import('../lib/passkey')).reauth();
    setBusy(false);
    if (out.ok) return onDone(true);
    form.current?.querySelector('input')?.focus();
    if (out.cancelled) return setError(m.passkeyCancelled);
    if (hasReason(out.error, 'AUTHORIZATION_FAILED')) {
      handleError(out.error);
      return onDone(false);
    }
    if (hasReason(out.error, 'PASSKEY_NOT_FOUND')) setNoPasskey(true);
    setError(errorText(out.error));
  };
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const input = e.currentTarget.elements.namedItem(twoFactor ? 'code' : 'password') as HTMLInputElement | null;
    const problem = twoFactor ? v.code(value) && v.rules.codeDigits : value.trim() ? null : m.passwordRequired;
    if (problem) {
      setError(problem);
      input?.focus();
      return;
    }
    setBusy(true);
    // The field was checked above: the body is never an empty proof (lib/proof.ts's rule).
    const body = twoFactor ? { code: value.trim() } : { password: value };
    const res = await verifyFresh(body);
    setBusy(false);
    if (res.success) {
      onDone(true);
    } else if (hasReason(res.error, 'PASSWORD_ERROR', 'TOTP_VERIFY_FAILED', 'INVALID_PARAMETER', 'VERIFICATION_ATTEMPT_CODE_LIMIT')) {
      // The proof's own errors (lib/proof.ts atField), shown at the field. Not imported from there:
      // the console shares this dialog, and one more shared chunk would grow every route's preload.
      setError(fieldText(res.error));
      input?.focus();
    } else {
      handleError(res.error);
      if (hasReason(res.error, 'AUTHORIZATION_FAILED')) onDone(false);
    }
  };
  return (
    <Dialog
      testId="reauth-dialog"
      title={<FormattedMessage {...m.title} />}
      description={<FormattedMessage {...(twoFactor ? m.withCode : m.withPassword)} />}
      onCancel={() => onDone(false)}
    >
      <form ref={form} onSubmit={(e) => void submit(e)} noValidate>
        {twoFactor ? (
          <OtpField
            label={m.code}
            value={value}
            onChange={(x) => {
              setValue(x);
              setError(null);
            }}
            error={error}
          />
        ) : (
          <Field
            name="password"
            type="password"
            label={m.password}
            value={value}
            onChange={(x) => {
              setValue(x);
              setError(null);
            }}
            error={error}
            autoComplete="current-password"
            required
          />
        )}
        {passkeys && !noPasskey && (
          <p>
            <button type="button" className="link" data-testid="reauth-passkey" disabled={busy} onClick={() => void withPasskey()}>
              <FormattedMessage {...m.passkey} />
            </button>
          </p>
        )}
        <div className="actions">
          <button type="button" onClick={() => onDone(false)}>
            {intl.formatMessage(m.cancel)}
          </button>
          <button type="submit" className="primary" disabled={busy}>
            <FormattedMessage {...m.confirm} />
          </button>
        </div>
      </form>
    </Dialog>
  );
}
