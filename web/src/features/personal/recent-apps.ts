// The application lists of the personal centre (spec §4: "Apps list keeps the 2 most recent by
// lastLoginTime, descending"). The server already sorts and cuts; the client does it again so
// that the page is right whatever order or length arrives.

import type { Answer } from '../../lib/api';
import { originOf } from '../../lib/redirect';

/** One app of GET /auth/apps. */
export type RecentApp = Answer<'GET /auth/apps'>['apps'][number];

/** One app of GET /app/language/{language} (what the lists read of it). */
export type CatalogueApp = Pick<Answer<'GET /app/language/{language}'>['apps'][number], 'appId' | 'name' | 'url' | 'recommended'>;

export const RECENT_SHOWN = 2;

/** The `RECENT_SHOWN` most recently used apps, newest first (stable for equal times). */
export function recentApps(apps: readonly RecentApp[] | null | undefined, n = RECENT_SHOWN): RecentApp[] {
  if (!Array.isArray(apps)) return [];
  return apps
    .filter((a) => a && typeof a.lastLoginTime === 'number' && Number.isFinite(a.lastLoginTime))
    .map((a, i) => ({ a, i }))
    .sort((x, y) => y.a.lastLoginTime - x.a.lastLoginTime || x.i - y.i)
    .slice(0, n)
    .map(({ a }) => a);
}

/** The catalogue split into recommended and the other (common) apps. */
export function splitCatalogue(apps: readonly CatalogueApp[] | null | undefined): { recommended: CatalogueApp[]; common: CatalogueApp[] } {
  const all = Array.isArray(apps) ? apps.filter((a) => a && typeof a.name === 'string') : [];
  return { recommended: all.filter((a) => a.recommended), common: all.filter((a) => !a.recommended) };
}

/** An app's link when it is an http(s) address; anything else (javascript:, data:) is not linked. */
export function safeHref(url: string | null | undefined, base = typeof window === 'undefined' ? 'http://localhost/' : window.location.href): string | null {
  if (!url) return null;
  try {
    const href = new URL(url, base).href;
    return originOf(href) ? href : null;
  } catch {
    return null;
  }
}
