// The captcha, the verification-code input and its send button with the 60 s resend countdown.
import { useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { Captcha } from '../../components/captcha';
import { Field, type Msg } from '../../components/field';
import { sendCode } from '../../lib/account-api';
import { RESEND_SECONDS, useCountdown } from '../../lib/countdown';
import * as toast from '../../lib/toast';

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
}

export function CodeField({ purpose, account, ...field }: Props) {
  const intl = useIntl();
  const { left, start } = useCountdown(RESEND_SECONDS);
  const [captcha, setCaptcha] = useState<string | null>(null);
  const [round, setRound] = useState(0);
  const [captchaError, setCaptchaError] = useState<MessageDescriptor | null>(null);
  const [busy, setBusy] = useState(false);
  const send = async () => {
    const to = account();
    if (to === null) return;
    if (!captcha) {
      setCaptchaError(m.captchaFirst);
      document.querySelector<HTMLElement>('[data-testid="captcha"]')?.focus();
      return;
    }
    setBusy(true);
    const res = await sendCode({ account: to, purpose, captcha });
    setBusy(false);
    // A solution is single-use: whatever the answer, the next send needs a fresh one.
    setCaptcha(null);
    setRound((r) => r + 1);
    if (res.success) {
      start(res.data.resendAfter || RESEND_SECONDS);
      toast.show('success', intl.formatMessage(m.sent));
    }
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
    </>
  );
}
