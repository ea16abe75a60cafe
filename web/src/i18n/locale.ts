// Locale detection (spec §4): the stored umi_locale, then the browser language, then zh-CN. Only
// en-US and zh-CN exist: any English (en, en-GB, en-AU, ...) is en-US, any Chinese (zh, zh-TW,
// zh-Hant-HK, ...) is zh-CN, and anything else becomes zh-CN.
import { KEYS, read, write } from '../lib/storage';

export const LOCALES = ['zh-CN', 'en-US'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'zh-CN';

/**
 * The locale of a language tag, in any case: `en` or `en-*` (en-GB, EN-au, en_US) is en-US, `zh` or
 * `zh-*` is zh-CN; null for any other language.
 */
export function asLocale(value: string | null | undefined): Locale | null {
  const m = /^\s*(?:(en)|zh)([-_][a-z\d]+)*\s*$/i.exec(value ?? '');
  return m ? (m[1] ? 'en-US' : 'zh-CN') : null;
}

export function normalize(value: string | null | undefined): Locale {
  return asLocale(value) ?? DEFAULT_LOCALE;
}

export function detect(stored = read(KEYS.locale), browser: readonly string[] = navigatorLanguages()): Locale {
  if (stored) return normalize(stored);
  const first = browser[0];
  return first ? normalize(first) : DEFAULT_LOCALE;
}

function navigatorLanguages(): readonly string[] {
  if (typeof navigator === 'undefined') return [];
  return navigator.languages?.length ? navigator.languages : navigator.language ? [navigator.language] : [];
}

/** Right-to-left scripts, as the spec notes (he, ar, fa, ku). */
export function isRtl(lang: string): boolean {
  return /^(he|ar|fa|ku)(-|$)/i.test(lang);
}

export function dirOf(lang: string): 'rtl' | 'ltr' {
  return isRtl(lang) ? 'rtl' : 'ltr';
}

/** The same path and query with the language segment replaced. */
export function swapLanguage(pathname: string, search: string, to: Locale): string {
  const rest = pathname.replace(/^\/(zh-CN|en-US)(?=\/|$)/i, '');
  return `/${to}${rest}${search}`;
}

/** Switching language is stored and reloads the page at the swapped url. */
export function switchTo(to: Locale): void {
  write(KEYS.locale, to);
  const { pathname, search } = window.location;
  // Pages outside the language prefix (/signout) keep their url and just reload.
  if (/^\/(zh-CN|en-US)(\/|$)/.test(pathname)) window.location.assign(swapLanguage(pathname, search, to));
  else window.location.reload();
}
