// Partner applications seen from the browser: what the consent screen (and the embedded sign-in)
// ask the server before a user is sent back to an app, and the words for the scopes an app asks
// for (spec §2: avatar, nickname, company name, phone and/or e-mail). Only the server decides
// where a browser may go: a redirect or a Cancel address is followed only as it answered it, and
// only when it is an http(s) URL.
import { defineMessages, type MessageDescriptor } from 'react-intl';
import { api, type ApiError, request, type RequestOptions, type Result } from './api';
import { originOf, type PartnerRequest } from './redirect';

export { afterSignIn, partnerRequest, type PartnerRequest } from './redirect';

export const SCOPES = ['avatar', 'nickname', 'company', 'phone', 'email'] as const;
export type Scope = (typeof SCOPES)[number];

/** What the consent screen shows: `GET /auth/consent` and `GET /oidc/requests/{id}`. */
export interface ConsentContext {
  appId: string;
  /** Localised by the server (Accept-Language). */
  name: string;
  logo: string;
  scopes: string[];
  /** The user already allowed these scopes for this app: go straight on. */
  granted: boolean;
  serviceUrl?: string;
  /** Where Cancel leads: made by the server from the registered URL (cError=access_denied). */
  cancelUrl: string;
}

/** `POST /auth/login/token` (with cTicket) and `POST /oidc/requests/{id}`. */
export interface Approved {
  redirect: string;
  cTicket?: string;
}

/** One remembered consent of `GET /auth/consents`. */
export interface GrantedApp {
  appId: string;
  name: string;
  logo: string;
  scopes: string[];
  grantedAt: number;
}

const enc = encodeURIComponent;

/** The consent context of a ticket request; the server checks the serviceUrl is registered. */
export function consentContext(appId: string, serviceUrl: string, opts?: RequestOptions): Promise<Result<ConsentContext>> {
  return api.get<ConsentContext>(`/auth/consent?appId=${enc(appId)}&serviceUrl=${enc(serviceUrl)}`, opts);
}

/**
 * A ticket for the app (the server remembers the consent); `redirect` is serviceUrl + cTicket.
 * `scopes` are those the consent screen showed: the server refuses them (INVALID_PARAMETER,
 * field `scopes`) when the app changed its scopes meanwhile — see `scopesChanged`.
 */
export function issueTicket(appId: string, serviceUrl: string, scopes?: readonly string[], opts?: RequestOptions): Promise<Result<Approved>> {
  return api.post<Approved>('/auth/login/token', scopes ? { appId, serviceUrl, scopes } : { appId, serviceUrl }, opts);
}

/** Allow was refused because the app's scopes changed while the screen was open: reload the context. */
export function scopesChanged(e: ApiError): boolean {
  return e.reason === 'INVALID_PARAMETER' && e.field === 'scopes';
}

/** The context of a request, whichever kind it is. */
export function loadContext(req: PartnerRequest, opts?: RequestOptions): Promise<Result<ConsentContext>> {
  return req.kind === 'oidc'
    ? api.get<ConsentContext>(`/oidc/requests/${enc(req.id)}`, opts)
    : consentContext(req.appId, req.serviceUrl, opts);
}

/**
 * Allow of what `ctx` showed: a ticket, or the OpenID Connect code (whose request fixed its
 * scopes); answers where the browser goes next.
 */
export function approve(req: PartnerRequest, ctx: ConsentContext, opts?: RequestOptions): Promise<Result<Approved>> {
  return req.kind === 'oidc'
    ? api.post<Approved>(`/oidc/requests/${enc(req.id)}`, {}, opts)
    : issueTicket(req.appId, req.serviceUrl, Array.isArray(ctx.scopes) ? ctx.scopes : [], opts);
}

/** The apps the user allowed (personal centre), newest first. */
export async function listConsents(opts?: RequestOptions): Promise<Result<GrantedApp[]>> {
  const res = await api.get<{ apps?: GrantedApp[] } | null>('/auth/consents', opts);
  if (!res.success) return res;
  const apps = res.data?.apps;
  return { success: true, data: Array.isArray(apps) ? apps.filter((a) => a && typeof a.appId === 'string') : [] };
}

/** Forgets the decision: the app asks again next time. */
export function revokeConsent(appId: string, opts?: RequestOptions): Promise<Result<{ ok: boolean }>> {
  return request<{ ok: boolean }>('DELETE', `/auth/consents/${enc(appId)}`, undefined, opts);
}

/** Leaves Ciam for `url` when it is an http(s) URL; answers false (and stays) otherwise. */
export function leave(url: string | null | undefined): boolean {
  if (!url || !originOf(url)) return false;
  window.location.assign(url);
  return true;
}

/** An app's logo when it is an http(s) URL, else nothing (no data:, javascript: or relative URL). */
export function logoUrl(logo: string | null | undefined): string | null {
  return logo && originOf(logo) ? logo : null;
}

export const scopeMessages: Record<Scope, MessageDescriptor> = defineMessages({
  avatar: { id: 'scope.avatar', defaultMessage: 'Your avatar' },
  nickname: { id: 'scope.nickname', defaultMessage: 'Your nickname' },
  company: { id: 'scope.company', defaultMessage: 'Your company name' },
  phone: { id: 'scope.phone', defaultMessage: 'Your phone number' },
  email: { id: 'scope.email', defaultMessage: 'Your e-mail address' },
});

/** The known scopes of a list, in the catalogue's order, each once. */
export function knownScopes(scopes: readonly string[] | null | undefined): Scope[] {
  const asked = new Set(Array.isArray(scopes) ? scopes : []);
  return SCOPES.filter((s) => asked.has(s));
}
