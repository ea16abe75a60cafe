// The resend countdown of the send-code buttons (spec §9: 60 s). The arithmetic is a pure function
// of the clock so that it is right after a throttled background tab and testable with fake timers.
import { useCallback, useEffect, useState } from 'react';

export const RESEND_SECONDS = 60;

/** Whole seconds left (rounded up) of a countdown of `seconds` started at `startedAt` (ms). */
export function remaining(startedAt: number | null, now: number, seconds: number): number {
  if (startedAt === null) return 0;
  return Math.min(seconds, Math.max(0, Math.ceil(seconds - (now - startedAt) / 1000)));
}

/** `left` is 0 when idle; `start()` (re)starts it, optionally for another number of seconds. */
export function useCountdown(seconds: number = RESEND_SECONDS) {
  const [run, setRun] = useState<{ at: number; s: number } | null>(null);
  const [left, setLeft] = useState(0);
  useEffect(() => {
    if (!run) return;
    const tick = () => {
      const l = remaining(run.at, Date.now(), run.s);
      setLeft(l);
      if (l === 0) clearInterval(timer);
    };
    const timer = setInterval(tick, 1000);
    tick();
    return () => clearInterval(timer);
  }, [run]);
  // `left` is set at once, in the same render as whatever started it (a lock's alert says the
  // lock from its first render, not the refusal's text until the first tick).
  const start = useCallback(
    (s: number = seconds) => {
      setRun({ at: Date.now(), s });
      setLeft(s);
    },
    [seconds],
  );
  return { left, start };
}
