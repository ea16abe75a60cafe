// A modal dialog on the native <dialog>: showModal() makes the rest of the page inert, keeps the
// focus inside and closes on Escape (onCancel). The element that had the focus gets it back when
// the dialog goes away. Its title labels it; its [data-autofocus] element or first control is focused.
import { type ReactNode, useEffect, useId, useRef } from 'react';

interface Props {
  title: ReactNode;
  /** Escape, or the owner's cancel button. */
  onCancel: () => void;
  children: ReactNode;
  testId?: string;
  /** Text that explains the dialog (aria-describedby). */
  description?: ReactNode;
}

export function Dialog({ title, onCancel, children, testId, description }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  useEffect(() => {
    const back = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const d = ref.current;
    if (d && !d.open) {
      if (typeof d.showModal === 'function') d.showModal();
      else d.setAttribute('open', '');
    }
    // The element marked data-autofocus, else the first control (React's autoFocus would fire
    // before the dialog is shown, and jsdom has no showModal).
    (d?.querySelector<HTMLElement>('[data-autofocus]') ?? d?.querySelector<HTMLElement>('input, select, textarea, button'))?.focus();
    return () => {
      if (d?.open && typeof d.close === 'function') d.close();
      if (back?.isConnected) back.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className="modal"
      data-testid={testId}
      aria-labelledby={`${id}-t`}
      aria-describedby={description ? `${id}-d` : undefined}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id={`${id}-t`}>{title}</h2>
      {description && (
        <p id={`${id}-d`} className="muted">
          {description}
        </p>
      )}
      {children}
    </dialog>
  );
}
