// The captcha, the verification-code input and its send button with the 60 s resend countdown.
import { useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor } from 'react-intl';
import { Captcha } from '../../components/captcha';
import { Field, type Msg } from '../../components/field';
import { sendCode } from '../../lib/account-api';
import { RESEND_SECONDS, useCountdown } from '../../lib/countdown';
import { type ApiError, SKIP } from '../../lib/api';

const m = defineMessages({
  code: { id: 'auth.code', defaultMessage: 'Verification code' },
  send: { id: 'auth.sendCode', defaultMessage: 'Send code' },
  resendIn: { id: 'auth.resendIn', defaultMessage: 'Resend in {n}s' },
  sent: { id: 'auth.codeSent', defaultMessage: 'The verification code has been sent' },
  captchaFirst: { id: 'auth.captchaFirst', defaultMessage: 'Please confirm that you are not a robot first' },
});

interface Props {
  purpose: 'login' | 'register' | 'resetPassword';
  /** The account to send to, or null after the form showed why it is not valid. */
  account: () => string | null;
  value: string;
  error: Msg;
  onChange: (value: string) => void;
  /** A refusal of the send (the form shows it where it belongs: use-form.ts refuse). */
  onRefused: (e: ApiError) => void;
}

export function CodeField({ purpose, account, onRefused, ...field }: Props) {
  const { left, start } = useCountdown(RESEND_SECONDS);
  const [captcha, setCaptcha] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  const [captchaError, setCaptchaError] = useState<MessageDescriptor | null>(null);
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);
  const send = async (e: React.MouseEvent<HTMLButtonElement>) => {
    const form = e.currentTarget.form;
    const to = account();
    if (to === null) return;
    if (!captcha) {
      setCaptchaError(m.captchaFirst);
      document.querySelector<HTMLElement>('[data-testid="captcha"]')?.focus();
      return;
    }
    setBusy(true);
    setSent(false);
    const res = await sendCode({ account: to, purpose, captcha }, SKIP);
    setBusy(false);
    // A solution is single-use: whatever the answer, the next send needs a fresh one.
    setCaptcha(null);
    setRound((r) => r + 1);
    if (res.success) {
      start(res.data.resendAfter || RESEND_SECONDS);
      // Said by the field, not in a toast; the code is what to type next.
      setSent(true);
      (form?.elements.namedItem('code') as HTMLInputElement | null)?.focus();
    } else onRefused(res.error);
  };
  return (
    <>
      <Captcha key={round} error={captchaError} onSolved={(p) => { setCaptcha(p); setCaptchaError(null); }} />
      <Field {...field} name="code" label={m.code} inputMode="numeric" autoComplete="one-time-code" maxLength={6}
        after={
          <button type="button" className="send" data-testid="send-code" disabled={busy || left > 0} onClick={send}>
            {left > 0 ? <FormattedMessage {...m.resendIn} values={{ n: left }} /> : <FormattedMessage {...m.send} />}
          </button>
        } />
      <p className="code-sent hint muted" role="status" data-testid="code-sent">
        {sent && <FormattedMessage {...m.sent} />}
      </p>
    </>
  );
}
