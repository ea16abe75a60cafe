// Focus on route change (WCAG 2.4.3): after every route change but the first load, once the new
// screen is drawn (lazy screens load first), focus moves to its heading (an h1 made focusable with
// tabIndex -1), or to its first field when it has no heading. A screen that focused a field
// itself (the sign-in prefilled after sign-up focuses the password) or an open dialog keeps it, and
// an address whose fragment names an element of the screen (`/personal/secure#two-factor`) leaves
// the focus to the screen (the centre focuses that section).
// Redirects before the first screen is drawn count as the first load.
import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router';

const TICK_MS = 50;
const GIVE_UP = 200; // 10 s

export function RouteFocus() {
  const { pathname, hash } = useLocation();
  const drawn = useRef(false);
  useEffect(() => {
    const move = drawn.current;
    let n = 0;
    const timer = setInterval(() => {
      const main = document.getElementById('main');
      const target = main?.querySelector('.loading') ? null : (main?.querySelector<HTMLElement>('h1') ?? main?.querySelector<HTMLElement>('input, select, textarea'));
      if (!main || !target) {
        if (++n > GIVE_UP) clearInterval(timer);
        return;
      }
      clearInterval(timer);
      drawn.current = true;
      const active = document.activeElement;
      const fragment = hash.length > 1 ? document.getElementById(decodeURIComponent(hash.slice(1))) : null;
      if (!move || (fragment && main.contains(fragment)) || (active?.matches('input, select, textarea') && (main.contains(active) || active.closest('dialog, [role="dialog"]')))) return;
      if (target.tagName === 'H1') target.tabIndex = -1;
      target.focus();
    }, TICK_MS);
    return () => clearInterval(timer);
    // Only a new path is a new screen; a hash change within it is the screen's business.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pathname]);
  return null;
}
