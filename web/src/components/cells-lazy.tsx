// The cells' parts (components/cells.tsx) as the pages use them: nothing, and nothing loaded, for
// one cell alone; their chunk and message bundle only when index.html names another cell. Kept
// this small so the sign-in screen's first download stays in its budget (web/scripts/budget.mjs).
import { lazy, Suspense } from 'react';

const Cells = lazy(() => import('./cells'));

/**
 * Without `reason`: the header's switch (this service, the other's link). With one: the hint under
 * a refusal (null: none). Drawn only when the page's head names another cell.
 */
export const Cell = (p: { reason?: string | null }) =>
  document.querySelector('[name=ciam-other-cell]') && p.reason !== null ? <Suspense><Cells {...p} /></Suspense> : null;
