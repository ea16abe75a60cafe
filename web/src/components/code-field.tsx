// The verification-code input and its send button with the 60 s resend countdown, and the
// captcha out of sight: it solves in the background from the form's first focus or input, and
// "Send code" waits for it when it is still solving. Its row appears only when the server asks
// for the person (it refused the proof: VERIFYCAPTCHA_*) or no proof could be made; pressing it
// solves anew, and the next send hides it again (docs/web-experience.md "The captcha"). Focus
// never drops to the page body: the
// button is never disabled under it (aria-disabled while busy or counting down, so it stays
// focusable), and after a successful send focus moves to the code input. The same on sign-up,
// sign-in by code, recovery and binding a mail or phone in the personal centre.
import { useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage } from 'react-intl';
import { Captcha, useCaptcha } from './captcha';
import { Field, type Msg } from './field';
import { sendCode } from '../lib/account-api';
import { RESEND_SECONDS, useCountdown } from '../lib/countdown';
import { type ApiError, SKIP } from '../lib/api';

const m = defineMessages({
  code: { id: 'auth.code', defaultMessage: 'Verification code' },
  send: { id: 'auth.sendCode', defaultMessage: 'Send code' },
  resendIn: { id: 'auth.resendIn', defaultMessage: '{n, plural, one {Resend in # second} other {Resend in # seconds}}' },
  sent: { id: 'auth.codeSent', defaultMessage: 'The verification code has been sent' },
});

interface Props {
  purpose: 'login' | 'register' | 'resetPassword' | 'bind' | 'link';
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
  const captcha = useCaptcha();
  const button = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);
  // The server (or a failed solve) needs the person: the captcha's row is shown, focused.
  const [ask, setAsk] = useState(false);
  const { start: solve } = captcha;
  // The form is in use (first focus or input in it): solve the captcha in the background.
  useEffect(() => {
    const form = button.current?.form;
    if (!form) return;
    const events = ['focusin', 'input', 'change'] as const; // change: a password manager's fill
    const stop = () => events.forEach((e) => form.removeEventListener(e, kick));
    function kick() {
      stop();
      void solve();
    }
    if (form.contains(document.activeElement)) return kick();
    events.forEach((e) => form.addEventListener(e, kick));
    return stop;
  }, [solve]);
  const waiting = busy || left > 0;
  const send = async () => {
    if (waiting) return;
    const to = account();
    if (to === null) return;
    setBusy(true);
    setSent(false);
    const proof = await captcha.take();
    const res = proof ? await sendCode({ account: to, purpose, captcha: proof }, SKIP) : null;
    setBusy(false);
    // No proof, or the server refused it: the row says so and waits for a press.
    if (!res || (!res.success && /^VERIFYCAPTCHA_/.test(res.error.reason))) return setAsk(true);
    setAsk(false);
    // A proof is single-use: the next send's is solved in the background now.
    void solve();
    if (res.success) {
      start(res.data.resendAfter || RESEND_SECONDS);
      // Said by the field, not in a toast; the code is what to type next.
      setSent(true);
      (button.current?.form?.elements.namedItem('code') as HTMLInputElement | null)?.focus();
    } else onRefused(res.error);
  };
  return (
    <>
      {ask && <Captcha handle={captcha} />}
      <Field {...field} name="code" label={m.code} inputMode="numeric" autoComplete="one-time-code" maxLength={6}
        after={
          <button ref={button} type="button" className="send" data-testid="send-code" aria-disabled={waiting} aria-busy={busy}
            onClick={() => void send()}>
            {left > 0 ? <FormattedMessage {...m.resendIn} values={{ n: left }} /> : <FormattedMessage {...m.send} />}
          </button>
        } />
      <p className="code-sent hint muted" role="status" data-testid="code-sent">
        {sent && <FormattedMessage {...m.sent} />}
      </p>
    </>
  );
}

/** The captcha of a form that sends a code its own way (an organization's domain proof). */
export { Captcha, useCaptcha } from './captcha';
