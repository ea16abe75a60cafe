// The passkey entry of the sign-in screens (docs/passkeys-design.md §4.1, §4.2). Kept tiny (it is
// in the sign-in route's first download): the ceremonies are the lazy lib/passkey.ts. The button
// shows when the browser has PublicKeyCredential (and the server has passkeys: lib/passkey-gate).
// With `conditional`, after first paint one `mediation: 'conditional'` request waits for the
// account field's autofill; it is aborted before the button's modal request, when the screen
// goes, and renewed after 4.5 minutes (the options live 5).
import { useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage } from 'react-intl';
import { errorText, handleError } from '../../lib/api';
import { turnOff, usePasskeys } from '../../lib/passkey-gate';

const m = defineMessages({
  button: { id: 'signin.passkey', defaultMessage: 'Sign in with a passkey' },
  or: { id: 'signin.or', defaultMessage: 'or' },
  cancelled: { id: 'signin.passkeyCancelled', defaultMessage: 'Passkey sign-in was cancelled.' },
});

const load = () => import('../../lib/passkey');
export const REFRESH_MS = 270_000;
/** A refusal this soon after get() came before any prompt: the frame may not ask. */
const AT_ONCE_MS = 600;

interface Props {
  onSignedIn: (token: string) => void;
  /** Autofill by conditional mediation (never in a frame). */
  conditional?: boolean;
  /** The embedded sign-in: its app, and hide for good when get() is refused at once. */
  appId?: string;
}

export function PasskeySignIn({ onSignedIn, conditional, appId }: Props) {
  const on = usePasskeys();
  // null, an error text, or true for the quiet "cancelled".
  const [note, setNote] = useState<string | true | null>(null);
  const [busy, setBusy] = useState(false);
  const [round, setRound] = useState(0);
  const pending = useRef<AbortController | null>(null);
  const done = useRef(onSignedIn);
  done.current = onSignedIn;

  useEffect(() => {
    if (!on || !conditional) return;
    let stop = false;
    let timer = 0;
    const start = async () => {
      const pkc = window.PublicKeyCredential as { isConditionalMediationAvailable?: () => Promise<boolean> };
      if (stop || !(await pkc.isConditionalMediationAvailable?.().catch(() => false))) return;
      const pk = await load();
      if (stop) return;
      const ctl = new AbortController();
      pending.current = ctl;
      timer = window.setTimeout(() => {
        ctl.abort();
        void start();
      }, REFRESH_MS);
      const out = await pk.signIn('conditional', ctl.signal);
      if (ctl.signal.aborted || stop) return;
      clearTimeout(timer);
      if (out.ok) done.current(out.data.token);
      else if (!out.cancelled) setNote(errorText(out.error));
    };
    const idle = window.requestIdleCallback ?? ((f: () => void) => window.setTimeout(f, 1));
    idle(() => void start());
    return () => {
      stop = true;
      clearTimeout(timer);
      pending.current?.abort();
    };
  }, [on, conditional, round]);

  if (!on) return null;
  const click = async () => {
    // Chromium allows one pending request: the autofill's goes first.
    pending.current?.abort();
    setBusy(true);
    setNote(null);
    const out = await (await load()).signIn(undefined, undefined, appId);
    setBusy(false);
    if (out.ok) return done.current(out.data.token);
    if (out.cancelled && appId !== undefined && out.ms < AT_ONCE_MS) return turnOff();
    // In a frame a refusal is also told to the host page, as the password form's are (validateMsg=notice).
    if (!out.cancelled && appId !== undefined) handleError(out.error);
    setNote(out.cancelled ? true : errorText(out.error));
    setRound((r) => r + 1);
  };
  return (
    <div className="passkey">
      <p className="muted or">
        <FormattedMessage {...m.or} />
      </p>
      <button type="button" data-testid="signin-passkey" disabled={busy} onClick={() => void click()}>
        <FormattedMessage {...m.button} />
      </button>
      <p className={note === true ? 'muted' : 'field-error'} role={note === true ? 'status' : 'alert'} data-testid="passkey-note">
        {note === true ? <FormattedMessage {...m.cancelled} /> : note}
      </p>
    </div>
  );
}
