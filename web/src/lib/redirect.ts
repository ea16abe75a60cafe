// Query-string rules of spec §2: serviceUrl is preserved on every redirect unless its value
// contains an encoded '=' or '/'. Partners write serviceUrl unencoded and last
// (`?appId=…&serviceUrl=https://app.example.com/cb`); its value ends at the next '&', so a
// serviceUrl cannot carry more than one query parameter of its own.
import { paths } from '../config/paths';
import type { Locale } from '../i18n/locale';
import { KEYS, read, remove, write } from './storage';

/** The raw (still encoded) value of serviceUrl in a query string, if any. */
function rawServiceUrl(search: string): string | null {
  for (const part of search.replace(/^\?/, '').split('&')) {
    const [k, ...rest] = part.split('=');
    if (k === 'serviceUrl') return rest.join('=');
  }
  return null;
}

export function serviceUrlIsKept(search: string): boolean {
  const raw = rawServiceUrl(search);
  return raw === null || !/%3d|%2f/i.test(raw);
}

/** The serviceUrl of a query string, decoded (a value that does not decode is taken as it is). */
export function serviceUrlOf(search: string): string | null {
  const raw = rawServiceUrl(search);
  if (raw === null) return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * The query to carry over on a redirect. The parameters are kept as they came (still encoded):
 * re-encoding would turn the '/' of a kept serviceUrl into %2F and a second redirect would drop it.
 * `drop` names parameters to leave out (e.g. a one-time code already handled); `dropServiceUrl`
 * leaves out the serviceUrl too.
 */
export function keepQuery(search: string, opts: { dropServiceUrl?: boolean; drop?: readonly string[] } = {}): string {
  const drop = new Set(opts.drop ?? []);
  if (opts.dropServiceUrl || !serviceUrlIsKept(search)) drop.add('serviceUrl');
  const parts = search
    .replace(/^\?/, '')
    .split('&')
    .filter((p) => p !== '' && !drop.has(p.split('=')[0]!));
  return parts.length ? `?${parts.join('&')}` : '';
}

/** What a partner asked for in the query: a ticket for appId + serviceUrl, or an OpenID Connect request. */
export type PartnerRequest = { kind: 'ticket'; appId: string; serviceUrl: string } | { kind: 'oidc'; id: string };

export function partnerRequest(search: string): PartnerRequest | null {
  const q = new URLSearchParams(search);
  const id = q.get('oidcRequest')?.trim();
  if (id) return { kind: 'oidc', id };
  const appId = q.get('appId')?.trim();
  const serviceUrl = serviceUrlOf(search);
  return appId && serviceUrl ? { kind: 'ticket', appId, serviceUrl } : null;
}

/**
 * The protected pages a signed-out visit may return to after sign-in (spec §3 ciam_origin_url),
 * and an organization's invitation landing (its token stays in sessionStorage, not here).
 */
const PROTECTED = /^\/(zh-CN|en-US)\/(personal|logout|admin|org\/invitation$)(\/[A-Za-z0-9/_-]*)?$/;

/**
 * A page of this app to return to: a path (with its query and fragment) under /{lang}/personal,
 * /{lang}/logout or /{lang}/admin, or /{lang}/org/invitation, resolved against this origin; null for anything else (another origin, a
 * scheme, `//host`, a backslash, another screen).
 */
export function ownProtectedPage(url: string | null, origin = window.location.origin): string | null {
  if (!url || !url.startsWith('/') || url.startsWith('//') || url.includes('\\')) return null;
  let u: URL;
  try {
    u = new URL(url, origin);
  } catch {
    return null;
  }
  if (u.origin !== origin || !PROTECTED.test(u.pathname)) return null;
  return `${u.pathname}${u.search}${u.hash}`;
}

/** Remembers the protected page a signed-out visit asked for (ciam_origin_url), when it is one. */
export function rememberOrigin(url: string): void {
  const own = ownProtectedPage(url);
  if (own) write(KEYS.originUrl, own);
}

export function forgetOrigin(): void {
  remove(KEYS.originUrl);
}

/**
 * Where a completed sign-in goes (password, code, the two-factor step, staff login): the consent
 * screen when a partner sent the user (it goes straight on when consent exists; the serviceUrl
 * flow is unchanged), else the protected page a signed-out visit asked for (ciam_origin_url, read
 * once, in the current language), else the personal centre. The query is carried over by the
 * rules above.
 */
export function afterSignIn(lang: Locale, search: string): string {
  const q = keepQuery(search);
  const origin = typeof window === 'undefined' ? null : ownProtectedPage(read(KEYS.originUrl));
  forgetOrigin();
  if (partnerRequest(q)) return `${paths.authorize(lang)}${q}`;
  if (origin) return origin.replace(/^\/(zh-CN|en-US)/, `/${lang}`);
  return `${paths.info(lang)}${q}`;
}

export interface Embedded {
  embedded: boolean;
  serviceUrl: string | null;
  validateMsg: string | null;
}

export function embeddedInfo(pathname: string, search: string): Embedded {
  const params = new URLSearchParams(search);
  return {
    embedded: /^\/(zh-CN|en-US)\/embedded\//.test(pathname),
    serviceUrl: serviceUrlOf(search),
    validateMsg: params.get('validateMsg'),
  };
}

/** The origin of a serviceUrl, when it is an absolute http(s) URL. */
export function originOf(url: string | null): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : null;
  } catch {
    return null;
  }
}
