// The multi-factor modal (spec §2): an authenticator code (6 digits) or a backup code (8 digits).
// Its frame opens on NEED_TOTP_VERIFY (mfa-host.tsx loads this chunk when a first step starts); the second-step calls arrive with the security centre.
// Focus starts on the code input; a refusal shows inside the dialog (a toast would sit behind
// its backdrop), and the input is cleared and focused again for the next try. Each refusal says
// its own reason: the lock (with its clock, a disabled Verify until it ends and the reset link),
// a sign-in step that expired (and a way back to the first step), a network failure, a wrong code.
import { useEffect, useId, useRef, useState } from 'react';
import { LockReset } from './lock-reset';
import { UnlockIn } from './field';
import { useCountdown } from '../lib/countdown';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { useNavigate } from 'react-router';
import { loginBackupCode } from '../lib/account-api';
import { type ApiError, call, errorText, handleError, lockMinutes, SKIP } from '../lib/api';
import { hasReason } from '../lib/reasons';
import * as accounts from '../lib/accounts';
import * as mfa from '../lib/mfa';
import { afterSignIn } from '../lib/redirect';
import * as session from '../lib/session';
import * as v from '../lib/validate';
import { common } from '../i18n/common';
import { normalize } from '../i18n/locale';
import { usePasskeys } from '../lib/passkey-gate';

const m = defineMessages({
  title: { id: 'mfa.title', defaultMessage: 'Two-factor authentication' },
  totpTab: { id: 'mfa.totp', defaultMessage: 'Authenticator code' },
  backupTab: { id: 'mfa.backup', defaultMessage: 'Backup code' },
  // The lock while its clock runs: the same sentence as the forms' alert (components/field.tsx).
  locked: { id: 'form.locked', defaultMessage: 'Your account has been locked.' },
  totpLabel: { id: 'mfa.totpLabel', defaultMessage: '6-digit code from your authenticator app' },
  backupLabel: { id: 'mfa.backupLabel', defaultMessage: '8-digit backup code' },
  eight: { id: 'mfa.eightDigits', defaultMessage: 'Please enter 8 digits' },
  verify: { id: 'mfa.verify', defaultMessage: 'Verify' },
  cancel: { id: 'mfa.cancel', defaultMessage: 'Cancel' },
  passkey: { id: 'mfa.passkey', defaultMessage: 'Use a passkey' },
  passkeyCancelled: { id: 'mfa.passkeyCancelled', defaultMessage: 'The passkey was not used. Try again or enter a code.' },
  expired: { id: 'mfa.expired', defaultMessage: 'This sign-in has expired. Enter your password again to continue.' },
  restart: { id: 'mfa.restart', defaultMessage: 'Sign in again' },
});

/** The backup-code route's answers for a sign-in step that is gone (expired, used, two-factor off). */
const STEP_GONE = new Set(['UNLOCKCODE_PWD_NOT_FOUND', 'UNLOCKCODE_TOTP_NOT_FOUND']);

export function MfaModal({ challenge }: { challenge: string }) {
  const intl = useIntl();
  const navigate = useNavigate();
  const [mode, setMode] = useState<'totp' | 'backup'>('totp');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  // The passkey choice: hidden when the account has none (PASSKEY_NOT_FOUND) or passkeys are off.
  const passkeys = usePasskeys();
  const [noPasskey, setNoPasskey] = useState(false);
  const [busy, setBusy] = useState(false);
  // The first step is gone: only "Sign in again" is left to do.
  const [gone, setGone] = useState(false);
  const lock = useCountdown();
  const locked = lock.left > 0;
  const wasLocked = useRef(false);
  // The lock's message goes when the lock ends, and the code can be entered again.
  useEffect(() => {
    if (locked) wasLocked.current = true;
    else if (wasLocked.current) {
      wasLocked.current = false;
      setError(null);
    }
  }, [locked]);
  const restartRef = useRef<HTMLButtonElement>(null);
  // The step is gone: "Sign in again" is the one thing left to do, so it takes the focus.
  useEffect(() => {
    if (gone) restartRef.current?.focus();
  }, [gone]);
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const inputId = useId();
  const errorId = useId();
  useEffect(() => {
    // Where focus was (the sign-in form): it goes back there when the dialog goes away.
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const d = dialog.current;
    if (d && !d.open) d.showModal?.();
    input.current?.focus();
    return () => {
      if (before?.isConnected) before.focus();
    };
  }, []);
  const digits = mode === 'totp' ? 6 : 8;
  // Opened by the embedded sign-in: it takes the session on from here (never a navigation).
  const [embed] = useState(mfa.host);
  const signedIn = (token: string) => {
    if (embed) {
      mfa.close();
      return embed.done(token);
    }
    session.start(token);
    const account = mfa.pendingAccount();
    if (account) accounts.remember(account);
    mfa.close();
    navigate(afterSignIn(normalize(intl.locale), window.location.search));
  };
  const withPasskey = async () => {
    setError(null);
    setBusy(true);
    const out = await (await import('../lib/passkey')).mfa(challenge, embed?.appId);
    setBusy(false);
    if (out.ok) return signedIn(out.data.token);
    if (!out.cancelled && hasReason(out.error, 'PASSKEY_NOT_FOUND')) setNoPasskey(true);
    if (out.cancelled) setError(intl.formatMessage(m.passkeyCancelled));
    else refused(out.error);
    input.current?.focus();
  };
  /** A refusal, said in the dialog with its own reason. */
  const refused = (e: ApiError) => {
    embed?.refused(e);
    // A lost session still goes to sign-in (spec §8).
    if (hasReason(e, 'AUTHORIZATION_FAILED')) handleError(e);
    const minutes = hasReason(e, 'VERIFICATION_ATTEMPT_CODE_LIMIT') ? lockMinutes(e.message) : null;
    if (minutes !== null) lock.start(Math.ceil((Number(e.message) * 1000 - Date.now()) / 1000));
    if (STEP_GONE.has(e.reason)) {
      setGone(true);
      setError(errorText(e));
      return;
    }
    // A wrong backup code is the spec's UI message "unlock code invalid" (docs/glossary.md).
    setError(hasReason(e, 'UNLOCKCODE_NOT_FOUND') ? intl.formatMessage(common.unlockInvalid) : errorText(e));
  };
  /** Back to the first step: the dialog goes, focus returns to the sign-in form. */
  const restart = () => mfa.close();
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (locked || gone) return;
    const problem = mode === 'totp' ? v.code(code) && v.rules.codeDigits : /^\d{8}$/.test(code) ? null : m.eight;
    if (problem) {
      setError(intl.formatMessage(problem));
      return;
    }
    setError(null);
    const res =
      mode === 'totp'
        ? await call('POST /auth/login/totp', { body: { challenge, code } }, SKIP)
        : await loginBackupCode({ challenge, code });
    if (res.success) signedIn(res.data.token);
    else {
      refused(res.error);
      setCode('');
      if (!STEP_GONE.has(res.error.reason)) input.current?.focus();
    }
  };
  // Tab and Shift+Tab go round the dialog's controls (a native modal dialog lets focus leave to the browser).
  const wrapTab = (e: React.KeyboardEvent<HTMLDialogElement>) => {
    if (e.key !== 'Tab') return;
    const els = [...e.currentTarget.querySelectorAll<HTMLElement>('button:not([disabled]), input:not([disabled])')];
    const edge = e.shiftKey ? els[0] : els[els.length - 1];
    if (document.activeElement !== edge) return;
    e.preventDefault();
    (e.shiftKey ? els[els.length - 1] : els[0])?.focus();
  };
  return (
    <dialog ref={dialog} className="modal" aria-labelledby={`${inputId}-title`} onCancel={() => mfa.close()} onKeyDown={wrapTab}>
      <form onSubmit={submit} noValidate>
        <h2 id={`${inputId}-title`}>
          <FormattedMessage {...m.title} />
        </h2>
        <div role="tablist">
          {(['totp', 'backup'] as const).map((k) => (
            <button key={k} type="button" role="tab" aria-selected={mode === k} onClick={() => { setMode(k); setCode(''); if (!locked && !gone) setError(null); }}>
              <FormattedMessage {...(k === 'totp' ? m.totpTab : m.backupTab)} />
            </button>
          ))}
        </div>
        <label htmlFor={inputId}>
          <FormattedMessage {...(mode === 'totp' ? m.totpLabel : m.backupLabel)} />
        </label>
        <input ref={input} id={inputId} data-testid="mfa-code" inputMode="numeric" autoComplete="one-time-code" maxLength={digits} value={code}
          aria-invalid={error !== null} aria-describedby={errorId} onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))} />
        <p id={errorId} className="field-error" role="alert" data-testid="mfa-error">
          {locked ? intl.formatMessage(m.locked) : (error ?? '')}
          {gone && error && (
            <>
              {' '}
              <FormattedMessage {...m.expired} />
            </>
          )}
        </p>
        {locked && (
          <p className="mfa-lock">
            <UnlockIn left={lock.left} testId="mfa-unlock-in" />{' '}
            <LockReset account={mfa.pendingAccount() ?? ''} top={!!embed} onGo={() => embed || mfa.close()} />
          </p>
        )}
        {gone && (
          <p>
            <button ref={restartRef} type="button" className="link" data-testid="mfa-restart" onClick={restart}>
              <FormattedMessage {...m.restart} />
            </button>
          </p>
        )}
        {passkeys && !noPasskey && embed?.passkey !== false && (
          <button type="button" className="link mfa-passkey" data-testid="mfa-passkey" disabled={busy} onClick={() => void withPasskey()}>
            <FormattedMessage {...m.passkey} />
          </button>
        )}
        <div className="actions">
          <button type="button" onClick={() => mfa.close()}>
            <FormattedMessage {...m.cancel} />
          </button>
          <button type="submit" className="primary" disabled={locked || gone}>
            <FormattedMessage {...m.verify} />
          </button>
        </div>
      </form>
    </dialog>
  );
}
