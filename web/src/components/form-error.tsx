// An error of the default handling (lib/api.ts handleError) said inside the form (or the account
// centre's section) the person used, not in a toast at the top of the page (docs/web-experience.md
// "Where refusals appear"): for the forms without use-form.ts (whose FormAlert does the same) and
// every section of the centres (centre-nav.tsx). It registers its form or section with the toast
// store (lib/toast.ts slot); an error while that one is in use is shown here, in an alert,
// focused (so it is in view and read), until it is edited.
import { useEffect, useRef, useState } from 'react';
import { slot } from '../lib/toast';

export function FormError({ testId = 'form-error' }: { testId?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [said, setSaid] = useState<{ text: string; n: number } | null>(null);
  useEffect(() => {
    const form = ref.current?.closest('form, .centre-section');
    if (!form) return;
    const clear = () => setSaid(null);
    form.addEventListener('input', clear);
    const off = slot(form, (text) => setSaid((s) => ({ text, n: (s?.n ?? 0) + 1 })));
    return () => {
      off();
      form.removeEventListener('input', clear);
    };
  }, []);
  useEffect(() => {
    if (said) ref.current?.focus();
  }, [said]);
  return (
    <div ref={ref} tabIndex={-1} className={said ? 'form-alert on' : 'form-alert'} data-testid={testId}>
      <p>
        <span role="alert">{said?.text}</span>
      </p>
    </div>
  );
}
