// The proof-of-work captcha (ALTCHA v1, see docs/api.md): fetch a challenge, find the number whose
// SHA-256(salt + number) is the challenge, and hand the signed payload to the form. A solution is
// single-use. A form that sends codes solves in the background as soon as it is in use
// (useCaptcha), so sending a code is one act; the row (Captcha) is shown only when the server
// asks for the person (components/code-field.tsx).
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor } from 'react-intl';
import { type Answer, call, SKIP } from '../lib/api';

const m = defineMessages({
  label: { id: 'captcha.label', defaultMessage: "I'm not a robot" },
  busy: { id: 'captcha.busy', defaultMessage: 'Verifying…' },
  done: { id: 'captcha.done', defaultMessage: 'Verified' },
  failed: { id: 'captcha.failed', defaultMessage: 'Verification failed, please try again' },
});

type Challenge = Answer<'GET /auth/captcha'>;

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
// Shown only when asked: idle then means the last proof was refused (or none could be made).
const TEXT: Record<State, MessageDescriptor> = { idle: m.failed, busy: m.busy, verified: m.done, failed: m.failed };

/** A challenge expires 300 s after it is issued (functions/core/src/captcha.rs): use it well before. */
const FRESH_MS = 240_000;

export interface CaptchaHandle {
  state: State;
  /** The share of the numbers tried so far (0..1). */
  progress: number;
  /** Starts solving in the background (nothing new while one is under way or solved and fresh). */
  start: () => Promise<string | null>;
  /** The proof for one send, waiting for the solving under way; single-use (the next take solves anew). */
  take: () => Promise<string | null>;
}

/**
 * The solver of a form: the form calls `start` as soon as it is in use, so a proof is usually
 * ready when the user presses "Send code", and `take` when sending. The server verifies the
 * proof as before.
 */
export function useCaptcha(): CaptchaHandle {
  const [state, setState] = useState<State>('idle');
  const [progress, setProgress] = useState(0);
  const alive = useRef(true);
  const job = useRef<{ at: number; promise: Promise<string | null> } | null>(null);
  useEffect(() => {
    alive.current = true;
    return () => void (alive.current = false);
  }, []);
  const start = useCallback(() => {
    const j = job.current;
    if (j && Date.now() - j.at < FRESH_MS) return j.promise;
    const me = { at: Date.now() } as { at: number; promise: Promise<string | null> };
    job.current = me;
    me.promise = (async () => {
      setState('busy');
      setProgress(0);
      // Solved in the background: a refusal is the widget's status line, not a toast.
      const res = await call('GET /auth/captcha', {}, SKIP);
      const c = res.success ? res.data : null;
      const number = c && (await solve(c, () => alive.current, (p) => alive.current && setProgress(p)));
      if (!alive.current) return null;
      if (c && number !== null) {
        setState('verified');
        const { algorithm, challenge, salt, signature } = c;
        return btoa(JSON.stringify({ algorithm, challenge, number, salt, signature }));
      }
      setState('failed');
      if (job.current === me) job.current = null;
      return null;
    })();
    return me.promise;
  }, []);
  const take = useCallback(async () => {
    const p = await start();
    job.current = null;
    // Used up: nothing is verified until the next solve.
    setState('idle');
    return p;
  }, [start]);
  return { state, progress, start, take };
}

/**
 * The captcha's row, for when the server asks for the person: focused when it appears, it says
 * what went wrong; pressing it solves anew (then "Send code" uses the proof).
 */
export function Captcha({ handle: c }: { handle: CaptchaHandle }) {
  const id = useId();
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const run = () => void (c.state !== 'busy' && c.state !== 'verified' && c.start());
  const bad = c.state === 'idle' || c.state === 'failed';
  return (
    <div className="captcha" data-testid="captcha-row">
      <button ref={ref} type="button" role="checkbox" aria-checked={c.state === 'verified'} aria-busy={c.state === 'busy'} aria-invalid={bad}
        aria-describedby={id}
        data-testid="captcha" data-state={c.state} onClick={run} style={{ '--p': c.progress } as React.CSSProperties}>
        <span className="captcha-box" aria-hidden="true" />
        <FormattedMessage {...m.label} />
      </button>
      <p id={id} className={bad ? 'field-error' : 'field-error muted'} role="alert">
        <FormattedMessage {...TEXT[c.state]} />
      </p>
    </div>
  );
}
