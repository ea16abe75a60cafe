import { useEffect, useRef, useSyncExternalStore } from 'react';
import { useLocation } from 'react-router';
import * as toast from '../lib/toast';
import { useIntl } from 'react-intl';
import { common } from '../i18n/common';

/**
 * The live region where toasts appear; errors are announced to screen readers. A toast never
 * outlives its screen: a route change (a new path) clears them. It sits in the page's flow under
 * the header (never over a heading or a button) (docs/web-experience.md "Toasts and notices").
 */
export function Toasts() {
  const items = useSyncExternalStore(toast.subscribe, toast.current, toast.current);
  const { pathname } = useLocation();
  const intl = useIntl();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    toast.clear();
  }, [pathname]);
  return (
    <aside className="toasts" aria-label={intl.formatMessage(common.notifications)}>
      <div className="toast-list" aria-live="assertive" role="status">
        {items.map((t) => (
          <div key={t.id} className={`toast toast-${t.kind}`}>
            {t.text}
          </div>
        ))}
      </div>
    </aside>
  );
}
