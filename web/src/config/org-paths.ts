// "My company" and the invitation landing (features/org/): their addresses, in a module of their
// own so that only the personal chunks carry them (config/paths.ts is in the entry chunk, which
// the sign-in budget holds to 110 KB). app/router.tsx declares the same routes.
import type { Locale } from '../i18n/locale';

export const orgPaths = {
  /** "My company", on one organization with `orgId`. */
  company: (l: Locale, orgId?: string) => `/${l}/personal/company${orgId ? `?org=${encodeURIComponent(orgId)}` : ''}`,
  /** The invitation landing, without its token (kept in sessionStorage: features/org/pending.ts). */
  invitation: (l: Locale) => `/${l}/org/invitation`,
} as const;
