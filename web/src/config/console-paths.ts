// The operator console's part of the route table (config/paths.ts has the rest). Its own module,
// so that only the console's chunk carries it (the sign-in budget).
import type { Locale } from '../i18n/locale';

/**
 * The operator console's screens: the pattern of each under /{lang}/admin (react-router's). The
 * app's router knows only `/{lang}/admin/*`; the console (features/admin/console.tsx) routes these
 * patterns, and `adminPath` builds their hrefs.
 */
export const consoleScreens = {
  overview: '',
  accounts: 'accounts',
  account: 'accounts/:userId',
  apps: 'apps',
  app: 'apps/:appId',
  audit: 'audit',
  roles: 'roles',
  organizations: 'organizations',
  organization: 'organizations/:orgId',
} as const;

export type ConsoleScreen = keyof typeof consoleScreens;

/** The href of a console screen in `l`, with its parameter (the screen's one `:name`) filled in. */
export const adminPath = (l: Locale, screen: ConsoleScreen, id = '') =>
  `/${l}/admin/${consoleScreens[screen].replace(/:\w+/, encodeURIComponent(id))}`.replace(/\/$/, '');
