// A confirmation said where the person is looking (docs/web-experience.md "Toasts and notices"):
// next to the control that was used, in a polite live region that is always there (so it is
// announced when it fills). With `focus`, the focus moves to it once it is said (after a closing
// dialog has given the focus back to its button) and it is scrolled into view: the console's
// actions, whose button may go away with the change (an unlocked account has no "Unlock").
import { useCallback, useEffect, useRef, useState } from 'react';

export interface Saying {
  text: string;
  /** Counts the sayings, so the same words said twice are said (and focused) again. */
  n: number;
}

export function useSaid() {
  const [said, setSaid] = useState<Saying | null>(null);
  const say = useCallback((text: string) => setSaid((s) => ({ text, n: (s?.n ?? 0) + 1 })), []);
  const clear = useCallback(() => setSaid(null), []);
  return { said, say, clear };
}

export function Said({ said, testId, focus = false }: { said: Saying | null; testId: string; focus?: boolean }) {
  const ref = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (!said || !focus) return;
    // A tick later: a dialog that closes in the same change gives the focus back to its button first.
    const timer = setTimeout(() => {
      const el = ref.current;
      if (!el) return;
      el.focus({ preventScroll: true });
      el.scrollIntoView?.({ block: 'nearest' });
    }, 0);
    return () => clearTimeout(timer);
  }, [said, focus]);
  return (
    <p ref={ref} className={said ? 'notice said' : 'sr-only'} role="status" tabIndex={focus ? -1 : undefined} data-testid={testId}>
      {said?.text}
    </p>
  );
}
