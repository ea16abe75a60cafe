// A confirmation about a form, said by that form (docs/web-experience.md "Toasts and notices"):
// a polite live region at the form's top that is always there (so it is announced when it fills),
// visible only with a text; the form clears it at the next edit.
import { useState } from 'react';

export function useFormStatus() {
  const [text, setText] = useState<string | null>(null);
  return { text, say: setText, clear: () => setText(null) };
}

export function FormStatus({ text, testId }: { text: string | null; testId: string }) {
  return (
    <p className={text ? 'notice' : 'sr-only'} role="status" data-testid={testId}>
      {text}
    </p>
  );
}
