// The multi-factor modal (spec §2): an authenticator code (6 digits) or a backup code (8 digits).
// Its frame opens on NEED_TOTP_VERIFY; the second-step calls arrive with the security centre.
// Focus starts on the code input; a refusal shows inside the dialog (a toast would sit behind
// its backdrop), and the input is cleared and focused again for the next try.
import { useEffect, useId, useRef, useState, useSyncExternalStore } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { useNavigate } from 'react-router';
import { loginBackupCode } from '../lib/account-api';
import { api, errorText, handleError, SKIP } from '../lib/api';
import type { LoginTotpResponse } from '../lib/api-types.gen';
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
  title: { id: 'mfa.title', defaultMessage: 'Two-step verification' },
  totpTab: { id: 'mfa.totp', defaultMessage: 'Authenticator code' },
  backupTab: { id: 'mfa.backup', defaultMessage: 'Backup code' },
  totpLabel: { id: 'mfa.totpLabel', defaultMessage: '6-digit code from your authenticator app' },
  backupLabel: { id: 'mfa.backupLabel', defaultMessage: '8-digit backup code' },
  eight: { id: 'mfa.eightDigits', defaultMessage: 'Please enter 8 digits' },
  verify: { id: 'mfa.verify', defaultMessage: 'Verify' },
  cancel: { id: 'mfa.cancel', defaultMessage: 'Cancel' },
  passkey: { id: 'mfa.passkey', defaultMessage: 'Use a passkey' },
  passkeyCancelled: { id: 'mfa.passkeyCancelled', defaultMessage: 'The passkey was not used. Try again or enter a code.' },
});

export function MfaHost() {
  const challenge = useSyncExternalStore(mfa.subscribe, mfa.current, mfa.current);
  return challenge === null ? null : <MfaModal challenge={challenge} />;
}

function MfaModal({ challenge }: { challenge: string }) {
  const intl = useIntl();
  const navigate = useNavigate();
  const [mode, setMode] = useState<'totp' | 'backup'>('totp');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  // The passkey choice: hidden when the account has none (PASSKEY_NOT_FOUND) or passkeys are off.
  const passkeys = usePasskeys();
  const [noPasskey, setNoPasskey] = useState(false);
  const [busy, setBusy] = useState(false);
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
  const signedIn = (token: string) => {
    session.start(token);
    const account = mfa.pendingAccount();
    if (account) accounts.remember(account);
    mfa.close();
    navigate(afterSignIn(normalize(intl.locale), window.location.search));
  };
  const withPasskey = async () => {
    setError(null);
    setBusy(true);
    const out = await (await import('../lib/passkey')).mfa(challenge);
    setBusy(false);
    if (out.ok) return signedIn(out.data.token);
    if (!out.cancelled && hasReason(out.error, 'AUTHORIZATION_FAILED')) handleError(out.error);
    if (!out.cancelled && hasReason(out.error, 'PASSKEY_NOT_FOUND')) setNoPasskey(true);
    setError(out.cancelled ? intl.formatMessage(m.passkeyCancelled) : errorText(out.error));
    input.current?.focus();
  };
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const problem = mode === 'totp' ? v.code(code) && v.rules.codeDigits : /^\d{8}$/.test(code) ? null : m.eight;
    if (problem) {
      setError(intl.formatMessage(problem));
      return;
    }
    setError(null);
    const res =
      mode === 'totp'
        ? await api.post<LoginTotpResponse>('/auth/login/totp', { challenge, code }, SKIP)
        : await loginBackupCode({ challenge, code });
    if (res.success) signedIn(res.data.token);
    else {
      // A lost session still goes to sign-in (spec §8); every other refusal shows here.
      if (hasReason(res.error, 'AUTHORIZATION_FAILED')) handleError(res.error);
      setError(mode === 'backup' ? intl.formatMessage(common.unlockInvalid) : errorText(res.error));
      setCode('');
      input.current?.focus();
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
            <button key={k} type="button" role="tab" aria-selected={mode === k} onClick={() => { setMode(k); setCode(''); setError(null); }}>
              <FormattedMessage {...(k === 'totp' ? m.totpTab : m.backupTab)} />
            </button>
          ))}
        </div>
        <label htmlFor={inputId}>
          <FormattedMessage {...(mode === 'totp' ? m.totpLabel : m.backupLabel)} />
        </label>
        <input ref={input} id={inputId} data-testid="mfa-code" inputMode="numeric" autoComplete="one-time-code" maxLength={digits} value={code}
          aria-invalid={error !== null} aria-describedby={errorId} onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))} />
        <p id={errorId} className="field-error" role="alert" data-testid="mfa-error">{error ?? ''}</p>
        {passkeys && !noPasskey && (
          <button type="button" className="link mfa-passkey" data-testid="mfa-passkey" disabled={busy} onClick={() => void withPasskey()}>
            <FormattedMessage {...m.passkey} />
          </button>
        )}
        <div className="actions">
          <button type="button" onClick={() => mfa.close()}>
            <FormattedMessage {...m.cancel} />
          </button>
          <button type="submit" className="primary">
            <FormattedMessage {...m.verify} />
          </button>
        </div>
      </form>
    </dialog>
  );
}
