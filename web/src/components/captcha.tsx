// The proof-of-work captcha (ALTCHA v1, see docs/api.md): fetch a challenge, find the number whose
// SHA-256(salt + number) is the challenge, and hand the signed payload to the form. A solution is
// single-use: the form remounts the widget (a new `key`) after each send to get a fresh one.
import { useEffect, useId, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor } from 'react-intl';
import { getCaptcha } from '../lib/account-api';

const m = defineMessages({
  label: { id: 'captcha.label', defaultMessage: "I'm not a robot" },
  busy: { id: 'captcha.busy', defaultMessage: 'Verifying…' },
  done: { id: 'captcha.done', defaultMessage: 'Verified' },
  failed: { id: 'captcha.failed', defaultMessage: 'Verification failed, please try again' },
});

interface Challenge {
  algorithm: string;
  challenge: string;
  maxnumber: number;
  salt: string;
  signature: string;
}

const BATCH = 1000;

async function sha256hex(text: string): Promise<string> {
  const h = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(h, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The number of the challenge, or null; yields to the event loop between batches. */
export async function solve(c: Challenge, alive: () => boolean, progress: (done: number) => void): Promise<number | null> {
  for (let from = 0; from <= c.maxnumber; from += BATCH) {
    const n = Math.min(BATCH, c.maxnumber - from + 1);
    const hashes = await Promise.all(Array.from({ length: n }, (_, i) => sha256hex(c.salt + (from + i))));
    const i = hashes.indexOf(c.challenge);
    if (i >= 0) return from + i;
    if (!alive()) return null;
    progress((from + n) / (c.maxnumber + 1));
    await new Promise((r) => setTimeout(r, 0));
  }
  return null;
}

type State = 'idle' | 'busy' | 'verified' | 'failed';
const TEXT: Record<State, MessageDescriptor | null> = { idle: null, busy: m.busy, verified: m.done, failed: m.failed };

/** `onSolved` gets the base64 payload for the `captcha` field; `error` is the form's complaint. */
export function Captcha({ onSolved, error }: { onSolved: (payload: string) => void; error?: MessageDescriptor | null }) {
  const [state, setState] = useState<State>('idle');
  const [done, setDone] = useState(0);
  const alive = useRef(true);
  const id = useId();
  useEffect(() => {
    alive.current = true;
    return () => void (alive.current = false);
  }, []);
  const run = async () => {
    if (state === 'busy' || state === 'verified') return;
    setState('busy');
    setDone(0);
    const res = await getCaptcha();
    const c = res.success ? res.data : null;
    const number = c && (await solve(c, () => alive.current, setDone));
    if (!alive.current) return;
    if (c && number !== null) {
      const { algorithm, challenge, salt, signature } = c;
      onSolved(btoa(JSON.stringify({ algorithm, challenge, number, salt, signature })));
      setState('verified');
    } else setState('failed');
  };
  const bad = !!error && state !== 'verified';
  const text = bad ? error : TEXT[state];
  return (
    <div className="captcha">
      <button type="button" role="checkbox" aria-checked={state === 'verified'} aria-busy={state === 'busy'} aria-invalid={bad}
        aria-describedby={id}
        data-testid="captcha" data-state={state} onClick={run} style={{ '--p': done } as React.CSSProperties}>
        <span className="captcha-box" aria-hidden="true" />
        <FormattedMessage {...m.label} />
      </button>
      <p id={id} className={bad ? 'field-error' : 'field-error muted'} aria-live="polite">
        {text && <FormattedMessage {...text} />}
      </p>
    </div>
  );
}
