// The route table (spec §2) with typed href builders. Every href carries the language prefix.
// Every link and redirect of the app is built here (app/router.tsx declares the same routes).
import type { Locale } from '../i18n/locale';

export const paths = {
  signin: (l: Locale) => `/${l}/passport/signin`,
  register: (l: Locale) => `/${l}/passport/register`,
  authorize: (l: Locale) => `/${l}/passport/authorize`,
  info: (l: Locale) => `/${l}/personal/info`,
  secure: (l: Locale) => `/${l}/personal/secure`,
  privacy: (l: Locale) => `/${l}/agreement/privacy`,
  protocols: (l: Locale) => `/${l}/agreement/protocols`,
  manual: (l: Locale) => `/${l}/agreement/manual`,
  findPassword: (l: Locale) => `/${l}/find/password`,
  logout: (l: Locale) => `/${l}/logout`,
  embeddedSignin: (l: Locale) => `/${l}/embedded/signin`,
  signout: () => '/signout',
} as const;

// The operator console's screens (/{lang}/admin/...) are the rest of this table: in
// config/console-paths.ts, its own module so that only the console's chunk carries them (any
// import from here lands in the entry chunk, which the sign-in budget holds to 110 KB).
