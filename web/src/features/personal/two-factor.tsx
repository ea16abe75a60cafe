// Two-factor authentication with an authenticator app (spec §4). Off: "Enable" asks for the
// enrolment URI, shows its QR code and the Base32 key, and a 6-digit code turns it on; the backup
// codes are then shown once. On: regenerate the backup codes, or turn it off. Enabling,
// regenerating and turning off need a fresh proof of identity (the re-authentication dialog).
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { type Msg, OtpField } from '../../components/field';
import { errorText, handleError, type Result } from '../../lib/api';
import { disableTotp, enableTotp, getTotpUrl, regenerateBackupCodes } from './api';
import { Said, useSaid } from '../../components/said';
import * as v from '../../lib/validate';
import { BackupCodes } from './backup-codes';
import { Dialog } from '../../components/dialog';
import { groupKey, secretOf } from './otpauth';
import type { UserInfo } from '../../lib/api-types.gen';
import { hasReason } from '../../lib/reasons';
import { FormError } from '../../components/form-error';

const m = defineMessages({
  heading: { id: 'secure.totp.heading', defaultMessage: 'Two-factor authentication' },
  offText: {
    id: 'secure.totp.offText',
    defaultMessage: 'Add a 6-digit code from an authenticator app to your sign-in, with backup codes for when your phone is away.',
  },
  status: { id: 'secure.totp.status', defaultMessage: 'Status: {state}' },
  on: { id: 'secure.totp.on', defaultMessage: 'On' },
  off: { id: 'secure.totp.off', defaultMessage: 'Off' },
  onText: {
    id: 'secure.totp.onText',
    defaultMessage: 'Signing in asks for a code from your authenticator app, or one of your backup codes.',
  },
  enable: { id: 'secure.totp.enable', defaultMessage: 'Enable' },
  preparing: { id: 'secure.totp.preparing', defaultMessage: 'Preparing…' },
  step1: { id: 'secure.totp.step1', defaultMessage: '1. Scan this QR code with your authenticator app.' },
  qrAlt: { id: 'secure.totp.qrAlt', defaultMessage: 'QR code to add your Ciam account to an authenticator app' },
  qrFailed: { id: 'secure.totp.qrFailed', defaultMessage: 'The QR code could not be shown. Enter the key below instead.' },
  openApp: { id: 'secure.totp.openApp', defaultMessage: 'Open in authenticator app' },
  openAppHint: { id: 'secure.totp.openAppHint', defaultMessage: 'On this phone: adds the account to the authenticator app installed here.' },
  manual: { id: 'secure.totp.manual', defaultMessage: 'Cannot scan it? Enter this key in the app (time-based, 6 digits):' },
  keyLabel: { id: 'secure.totp.keyLabel', defaultMessage: 'Setup key' },
  copy: { id: 'secure.totp.copy', defaultMessage: 'Copy key' },
  copied: { id: 'secure.totp.copied', defaultMessage: 'The key has been copied' },
  copyFailed: { id: 'secure.totp.copyFailed', defaultMessage: 'The key could not be copied; select it and copy it by hand' },
  step2: { id: 'secure.totp.step2', defaultMessage: '2. Enter the 6-digit code the app shows.' },
  code: { id: 'secure.totp.code', defaultMessage: 'Authenticator code' },
  confirm: { id: 'secure.totp.confirm', defaultMessage: 'Turn on' },
  cancel: { id: 'secure.totp.cancel', defaultMessage: 'Cancel' },
  badUrl: { id: 'secure.totp.badUrl', defaultMessage: 'The setup key could not be read. Please try again.' },
  enabled: { id: 'secure.totp.enabled', defaultMessage: 'Two-factor authentication is on' },
  regenerate: { id: 'secure.totp.regenerate', defaultMessage: 'Regenerate backup codes' },
  regenerated: { id: 'secure.totp.regenerated', defaultMessage: 'New backup codes have been created; the old ones no longer work' },
  disable: { id: 'secure.totp.disable', defaultMessage: 'Turn off' },
  disableTitle: { id: 'secure.totp.disableTitle', defaultMessage: 'Turn off two-factor authentication?' },
  disableText: {
    id: 'secure.totp.disableText',
    defaultMessage: 'Signing in will need only your password again, and your backup codes will stop working.',
  },
  disableConfirm: { id: 'secure.totp.disableConfirm', defaultMessage: 'Turn off' },
  disabled: { id: 'secure.totp.disabled', defaultMessage: 'Two-factor authentication is off' },
});

type Guard = <T>(action: () => Promise<Result<T>>) => Promise<Result<T> | null>;

interface Props {
  info: UserInfo;
  /** Applies a change to the account as last loaded. */
  onPatch: (change: Partial<UserInfo>) => void;
  /** Reload the account (after an answer that says it changed elsewhere). */
  onStale: () => void;
  guard: Guard;
}

const skip = { skipErrorHandler: true } as const;

export function TwoFactor({ info, onPatch, onStale, guard }: Props) {
  const intl = useIntl();
  const [enrol, setEnrol] = useState<{ url: string; secret: string } | 'loading' | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState(false);
  // Said under the status line, where the person is (not a toast at the top of the page).
  const said = useSaid();
  // When a step ends (codes saved, set-up cancelled, turned off) its controls go away: the focus
  // goes to the section heading rather than to the page body.
  const heading = useRef<HTMLHeadingElement>(null);
  const refocus = () => setTimeout(() => heading.current?.focus(), 0);
  const fail = (e: Parameters<typeof handleError>[0]) => {
    handleError(e);
    if (hasReason(e, 'USER_TOTP_NOT_ENABLED', 'USER_TOTP_ENABLED')) onStale();
  };
  // Spec §4: the QR is requested only when two-factor is off and the account is loaded.
  const start = async () => {
    setEnrol('loading');
    const res = await getTotpUrl();
    const secret = res.success ? secretOf(res.data.url) : null;
    if (res.success && secret) setEnrol({ url: res.data.url, secret });
    else {
      setEnrol(null);
      if (res.success) said.say(intl.formatMessage(m.badUrl));
    }
  };
  const enabled = (backupCodes: string[]) => {
    setEnrol(null);
    setCodes(backupCodes);
    onPatch({ enableTotp: true });
    said.say(intl.formatMessage(m.enabled));
  };
  const regenerate = async () => {
    setBusy(true);
    const res = await guard(() => regenerateBackupCodes(skip));
    setBusy(false);
    if (!res) return;
    if (res.success) {
      setCodes(res.data.backupCodes);
      said.say(intl.formatMessage(m.regenerated));
    } else fail(res.error);
  };
  const disable = async () => {
    setAsking(false);
    setBusy(true);
    const res = await guard(() => disableTotp(skip));
    setBusy(false);
    if (!res) return;
    if (res.success) {
      onPatch({ enableTotp: false });
      refocus();
      said.say(intl.formatMessage(m.disabled));
    } else fail(res.error);
  };
  const state = intl.formatMessage(info.enableTotp ? m.on : m.off);
  return (
    <section className="card" aria-labelledby="totp-title">
      <h2 id="totp-title" ref={heading} tabIndex={-1}>
        <FormattedMessage {...m.heading} />
      </h2>
      <p data-testid="totp-status" data-enabled={info.enableTotp}>
        <strong>
          <FormattedMessage {...m.status} values={{ state }} />
        </strong>
      </p>
      <Said said={said.said} testId="totp-said" />
      {codes ? (
        <BackupCodes
          codes={codes}
          account={info.userName}
          onDone={() => {
            setCodes(null);
            refocus();
          }}
        />
      ) : info.enableTotp ? (
        <>
          <p className="muted">
            <FormattedMessage {...m.onText} />
          </p>
          <div className="buttons">
            <button type="button" data-testid="backup-regenerate" disabled={busy} onClick={() => void regenerate()}>
              <FormattedMessage {...m.regenerate} />
            </button>
            <button type="button" className="danger" data-testid="totp-disable" disabled={busy} onClick={() => setAsking(true)}>
              <FormattedMessage {...m.disable} />
            </button>
          </div>
          {asking && (
            <Dialog
              testId="totp-disable-dialog"
              title={<FormattedMessage {...m.disableTitle} />}
              description={<FormattedMessage {...m.disableText} />}
              onCancel={() => setAsking(false)}
            >
              <div className="actions">
                <button type="button" data-autofocus onClick={() => setAsking(false)}>
                  <FormattedMessage {...m.cancel} />
                </button>
                <button type="button" className="primary danger" data-testid="totp-disable-confirm" onClick={() => void disable()}>
                  <FormattedMessage {...m.disableConfirm} />
                </button>
              </div>
            </Dialog>
          )}
        </>
      ) : enrol && enrol !== 'loading' ? (
        <Enrol
          url={enrol.url}
          secret={enrol.secret}
          guard={guard}
          onEnabled={enabled}
          onCancel={() => {
            setEnrol(null);
            refocus();
          }}
          onError={fail}
        />
      ) : (
        <>
          <p className="muted">
            <FormattedMessage {...m.offText} />
          </p>
          <button type="button" className="primary" data-testid="totp-enable" disabled={enrol === 'loading'} onClick={() => void start()}>
            <FormattedMessage {...(enrol === 'loading' ? m.preparing : m.enable)} />
          </button>
        </>
      )}
    </section>
  );
}

interface EnrolProps {
  url: string;
  secret: string;
  guard: Guard;
  onEnabled: (codes: string[]) => void;
  onCancel: () => void;
  onError: (e: Parameters<typeof handleError>[0]) => void;
}

function Enrol({ url, secret, guard, onEnabled, onCancel, onError }: EnrolProps) {
  const intl = useIntl();
  const [code, setCode] = useState('');
  const [error, setError] = useState<Msg>(null);
  const [busy, setBusy] = useState(false);
  const touch = useTouch();
  const copied = useSaid();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      copied.say(intl.formatMessage(m.copied));
    } catch {
      copied.say(intl.formatMessage(m.copyFailed));
    }
  };
  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const input = e.currentTarget.elements.namedItem('code') as HTMLInputElement | null;
    if (v.code(code)) {
      setError(v.rules.codeDigits);
      input?.focus();
      return;
    }
    setBusy(true);
    const res = await guard(() => enableTotp(code, skip));
    setBusy(false);
    if (!res) return;
    if (res.success) onEnabled(res.data.backupCodes);
    else if (hasReason(res.error, 'TOTP_SECRET_ERROR') || res.error.field === 'code') {
      setError(errorText(res.error));
      input?.focus();
    } else onError(res.error);
  };
  return (
    <div className="enrol">
      <p>
        <FormattedMessage {...m.step1} />
      </p>
      <QrCode url={url} alt={intl.formatMessage(m.qrAlt)} failedText={intl.formatMessage(m.qrFailed)} />
      {touch && (
        <p className="open-app">
          <a href={url} data-testid="totp-open-app" aria-describedby="totp-open-app-hint">
            <FormattedMessage {...m.openApp} />
          </a>
          <span id="totp-open-app-hint" className="muted">
            <FormattedMessage {...m.openAppHint} />
          </span>
        </p>
      )}
      <p>
        <FormattedMessage {...m.manual} />
      </p>
      <div className="key-row">
        <code className="key" data-testid="totp-manual-key" aria-label={intl.formatMessage(m.keyLabel)}>
          {groupKey(secret)}
        </code>
        <button type="button" onClick={() => void copy()}>
          <FormattedMessage {...m.copy} />
        </button>
      </div>
      <Said said={copied.said} testId="totp-copied" />
      <form data-testid="totp-form" onSubmit={(e) => void submit(e)} noValidate>
        <FormError />
        <p>
          <FormattedMessage {...m.step2} />
        </p>
        <OtpField
          data-testid="totp-code"
          label={m.code}
          value={code}
          onChange={(x) => {
            setCode(x);
            setError(null);
          }}
          error={error}
        />
        <div className="actions">
          <button type="button" onClick={onCancel}>
            <FormattedMessage {...m.cancel} />
          </button>
          <button type="submit" className="primary" disabled={busy}>
            <FormattedMessage {...m.confirm} />
          </button>
        </div>
      </form>
    </div>
  );
}

// A phone or tablet: the authenticator app is on this device, so a link can open it with the account.
const TOUCH = '(pointer: coarse), (hover: none)';

function useTouch(): boolean {
  const [touch, setTouch] = useState(() => typeof window.matchMedia === 'function' && window.matchMedia(TOUCH).matches);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return;
    const q = window.matchMedia(TOUCH);
    const on = () => setTouch(q.matches);
    q.addEventListener?.('change', on);
    return () => q.removeEventListener?.('change', on);
  }, []);
  return touch;
}

/** The QR code of `url`, drawn by the QR library, which loads only here (its own chunk). */
function QrCode({ url, alt, failedText }: { url: string; alt: string; failedText: string }) {
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let alive = true;
    setFailed(false);
    import('qrcode-generator').then(
      ({ default: qrcode }) => {
        try {
          const qr = qrcode(0, 'M');
          qr.addData(url);
          qr.make();
          if (alive) setSrc(qr.createDataURL(4, 4));
        } catch {
          if (alive) setFailed(true);
        }
      },
      () => alive && setFailed(true),
    );
    return () => {
      alive = false;
    };
  }, [url]);
  if (failed) return <p className="field-error">{failedText}</p>;
  return src ? <img className="qr" data-testid="totp-qr" src={src} alt={alt} /> : <div className="qr" aria-hidden="true" />;
}
