import { useSyncExternalStore } from 'react';
import * as toast from '../lib/toast';

/** The live region where toasts appear; errors are announced to screen readers. */
export function Toasts() {
  const items = useSyncExternalStore(toast.subscribe, toast.current, toast.current);
  return (
    <div className="toasts" aria-live="assertive" role="status">
      {items.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`}>
          {t.text}
        </div>
      ))}
    </div>
  );
}
