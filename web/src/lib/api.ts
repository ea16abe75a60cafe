// The API client: `call`, the one typed function every API call of the web goes through (its
// addresses are lib/api-url.ts's). An operation is named by its route key, "METHOD /path" as
// docs/openapi.json spells it; its path parameters, query, body and answer are the document's
// (lib/api-types.gen.ts), so no call site writes a path prefix or a type of its own (ESLint and
// tests/api-client.test.mjs hold to it). Calls used in several places are named once per feature
// (features/<feature>/api.ts; lib/account-api.ts for the ones shared components make); the
// sign-in screens call `call` where they use it (the route key is the name, and a wrapper costs
// the sign-in budget bytes). Every request sends the session's bearer token (lib/session.ts:
// memory only on the embedded sign-in), a fresh UUID as X-Request-ID and the page's language;
// errors are read as {reason, message, code} and handled as spec §8 says, unless the caller
// skips the default handling.
import * as session from './session';
import * as toast from './toast';
import { embeddedInfo, keepQuery, originOf } from './redirect';
import { type AnyReason, byReason, type ReasonMap } from './reasons';
import { paths } from '../config/paths';
import type { Locale } from '../i18n/locale';
import type { ErrorBody, Routes } from './api-types.gen';
import { type Optional, type Route, url, type UrlArgs } from './api-url';

export { BASE, type Route, url } from './api-url';

/** An error answer (the document's ErrorBody), or NETWORK_ERROR when there was none. */
export type ApiError = Omit<ErrorBody, 'reason'> & {
  /** The server's catalogue (docs/openapi.json; a cargo test keeps the server to it) or NETWORK_ERROR. */
  reason: AnyReason;
};

export type Result<T> = { success: true; data: T } | { success: false; error: ApiError };

export interface RequestOptions {
  /** Skip the default error handling (toasts, redirects); the caller handles the error. */
  skipErrorHandler?: boolean;
  /** Read a successful answer that is not JSON (a file) instead of parsing it. */
  read?: (res: Response) => Promise<unknown>;
}

/** What the UI provides to the client: translation and navigation. */
export interface ApiHost {
  locale(): Locale;
  /** The localised text of a message id, or null when the catalogue has none. */
  translate(id: string, values?: Record<string, string | number>): string | null;
  navigate(to: string): void;
  onNeedTotp(challenge: string | undefined): void;
  onTotpEnabled(): void;
}

let host: ApiHost | null = null;
export function configure(h: ApiHost): void {
  host = h;
}

/**
 * Calls one operation of the document, e.g. `call('DELETE /auth/sessions/{id}', { params: { id } })`:
 * one round trip. A POST, PUT or PATCH without a body sends `{}`.
 */
export async function call<R extends Route>(route: R, ...[args, options]: [...Optional<CallArgs<R>>, RequestOptions?]): Promise<Result<Answer<R>>> {
  const opts = (options ?? {}) as RequestOptions;
  const method = route.split(' ')[0]!;
  // POST, PUT and PATCH: `{}` at least.
  let body = (args as { body?: unknown } | undefined)?.body ?? (method[0] === 'P' ? {} : undefined);
  const headers: Record<string, string> = { 'X-Request-ID': crypto.randomUUID(), 'Accept-Language': host?.locale() ?? 'zh-CN' };
  const t = session.token();
  if (t) headers.Authorization = `Bearer ${t}`;
  // A file goes as it is: fetch sends its own type as the Content-Type.
  if (body !== undefined && !(body instanceof Blob)) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(body);
  }
  let res: Response;
  try {
    // No Referer: the API reads none, and the address may carry a ticket or an invitation's token.
    res = await fetch(url(route, ...([args] as Optional<UrlArgs<R>>)), { method, headers, body: body as BodyInit | undefined, referrerPolicy: 'no-referrer' });
  } catch {
    return fail({ reason: 'NETWORK_ERROR', message: '', code: 0 }, opts);
  }
  if (res.ok && opts.read) return { success: true, data: (await opts.read(res)) as Answer<R> };
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (res.ok) return { success: true, data: json as Answer<R> };
  const e = (json ?? {}) as Partial<ApiError>;
  const error: ApiError = {
    reason: typeof e.reason === 'string' ? (e.reason as AnyReason) : 'INTERNAL_SERVER_ERROR',
    message: typeof e.message === 'string' ? e.message : '',
    code: typeof e.code === 'number' ? e.code : res.status,
    field: e.field,
    challenge: e.challenge,
  };
  return fail(error, opts);
}

function fail<T>(error: ApiError, opts: RequestOptions): Result<T> {
  if (!opts.skipErrorHandler) handleError(error);
  return { success: false, error };
}

/** Minutes left until `unlockSeconds` (unix seconds), rounded up; null when invalid or past. */
export function lockMinutes(message: string, now = Date.now()): number | null {
  const until = Number(message);
  if (!message || !Number.isFinite(until) || until <= 0) return null;
  const left = until * 1000 - now;
  return left > 0 ? Math.ceil(left / 60000) : null;
}

type Translate = (id: string, values?: Record<string, string | number>) => string | null;

/** Reasons whose text is not simply the catalogue's `error.<REASON>` (null: use the default). */
const TEXTS: ReasonMap<(e: { message: string; reason: string }, tr: Translate, now: number) => string | null> = {
  VERIFICATION_ATTEMPT_CODE_LIMIT: (e, tr, now) => {
    const n = lockMinutes(e.message, now);
    return (n === null ? tr('error.locked') : tr('error.lockedFor', { n })) ?? e.reason;
  },
  INVALID_PARAMETER: (e) => e.message || null,
  // Told only to a proven owner (docs/console-design.md §4): whom to contact, a build setting.
  ACCOUNT_SUSPENDED: (_e, tr) => tr('error.ACCOUNT_SUSPENDED', { contact: host?.locale() === 'en-US' ? __CIAM_SUPPORT_EN__ : __CIAM_SUPPORT_ZH__ }),
};

/**
 * The user-visible text of an error: the catalogue's, else the server's, else the reason. Any
 * reason string is accepted (a newer server's, or one read from an address).
 */
export function errorText(e: Omit<ApiError, 'reason'> & { reason: string }, now = Date.now()): string {
  const tr: Translate = (id, v) => host?.translate(id, v) ?? null;
  const special = byReason(TEXTS, e.reason)?.(e, tr, now);
  if (special != null) return special;
  return tr(`error.${e.reason}`) ?? (e.message || e.reason);
}

const PASSWORD_UNSET_DELAY_MS = 1200;

interface Where {
  loc: Location | null;
  lang: Locale;
  now: number;
}

/** The default handling of spec §8 for these reasons, wherever the page is. */
const ALWAYS: ReasonMap<(e: ApiError, w: Where, embedded: boolean) => void> = {
  AUTHORIZATION_FAILED: (_e, { loc, lang }, embedded) => {
    session.clear();
    if (!embedded && loc) host?.navigate(`${paths.signin(lang)}${keepQuery(loc.search, { dropServiceUrl: true })}`);
  },
  USER_TOTP_ENABLED: () => host?.onTotpEnabled(),
};

/**
 * In a partner's frame nothing navigates: the second step and the password set-up happen in
 * the full sign-in, so these are refusals like any other there (docs/partners.md).
 */
const FULL_PAGE: ReasonMap<(e: ApiError, w: Where) => void> = {
  NEED_TOTP_VERIFY: (e) => host?.onNeedTotp(e.challenge),
  EIAM_PASSWORD_UNSET: (e, { loc, lang, now }) => {
    const id = toast.show('loading', errorText(e, now), PASSWORD_UNSET_DELAY_MS);
    setTimeout(() => {
      toast.dismiss(id);
      host?.navigate(`${paths.findPassword(lang)}${loc ? keepQuery(loc.search, { dropServiceUrl: true }) : ''}`);
    }, PASSWORD_UNSET_DELAY_MS);
  },
};

/** The default handling of spec §8. */
export function handleError(e: ApiError, now = Date.now()): void {
  const loc = typeof window === 'undefined' ? null : window.location;
  const info = loc ? embeddedInfo(loc.pathname, loc.search) : { embedded: false, serviceUrl: null, validateMsg: null };
  const where: Where = { loc, lang: host?.locale() ?? 'zh-CN', now };
  const always = byReason(ALWAYS, e.reason);
  if (always) return always(e, where, info.embedded);
  const fullPage = info.embedded ? undefined : byReason(FULL_PAGE, e.reason);
  if (fullPage) return fullPage(e, where);
  if (info.embedded) {
    // No toast when embedded: tell the host page when it asked (validateMsg=notice), only at the
    // serviceUrl's own origin. The shape is fixed: never a token, ticket, mail or phone.
    if (info.validateMsg === 'notice') postToHost({ type: 'ciam:error', reason: e.reason, errMsg: errorText(e, now) }, info.serviceUrl);
    return;
  }
  toast.show('error', errorText(e, now));
}

/**
 * What the embedded sign-in posts to the page that frames it (docs/partners.md). Nothing else is
 * ever posted, and never to '*'.
 */
export type EmbeddedMessage =
  /** A refusal, only with validateMsg=notice. An unknown account reads as a wrong password. */
  | { type: 'ciam:error'; reason: string; errMsg: string }
  /** Signed in and allowed: verify the ticket server to server with this serviceUrl. */
  | { type: 'ciam:ticket'; cTicket: string; serviceUrl: string }
  /** The user declined the app's request on the consent step. */
  | { type: 'ciam:cancel' };

/** The origin of the page that frames this one: `location.ancestorOrigins`, else the referrer's. */
export function parentOrigin(): string | null {
  if (typeof window === 'undefined' || window.parent === window) return null;
  const ancestors = window.location.ancestorOrigins;
  if (ancestors && ancestors.length > 0) return ancestors[0] ?? null;
  return originOf(document.referrer || null);
}

/**
 * Posts `msg` to the framing page, with targetOrigin = the origin of `serviceUrl`, and only when
 * the framing page is at that origin. Answers whether it was posted.
 */
export function postToHost(msg: EmbeddedMessage, serviceUrl: string | null): boolean {
  const origin = originOf(serviceUrl);
  if (!origin || parentOrigin() !== origin) return false;
  window.parent.postMessage(msg, origin);
  return true;
}

/** The body of an operation: required when the document requires one, else optional. */
type BodyArg<R extends Route> = [Routes[R]['request']] extends [undefined]
  ? { body?: undefined }
  : Record<string, never> extends Routes[R]['request']
    ? { body?: Routes[R]['request'] }
    : { body: Routes[R]['request'] };

/** What a call of `route` takes: its path parameters, query and body. */
export type CallArgs<R extends Route> = UrlArgs<R> & BodyArg<R>;

/** The query parameters of `route` (undefined: none). */
export type Query<R extends Route> = Routes[R]['query'];

/** The request body of `route` (undefined: none). */
export type Body<R extends Route> = Routes[R]['request'];

/** The answer of `route` (undefined: the document gives none). */
export type Answer<R extends Route> = Routes[R]['response'];

/** The options of a call that handles its errors itself. */
export const SKIP: RequestOptions = { skipErrorHandler: true };
