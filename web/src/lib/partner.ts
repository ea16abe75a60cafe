// Partner applications seen from the browser: what the consent screen (and the embedded sign-in)
// ask the server before a user is sent back to an app, and the words for the scopes an app asks
// for (spec §2: avatar, nickname, company name, phone and/or e-mail). Only the server decides
// where a browser may go: a redirect or a Cancel address is followed only as it answered it, and
// only when it is an http(s) URL.
import { defineMessages, type MessageDescriptor } from 'react-intl';
import { type Answer, type ApiError, call, type RequestOptions, type Result } from './api';
import { originOf, type PartnerRequest } from './redirect';
import { hasReason } from './reasons';

export { afterSignIn, partnerRequest, type PartnerRequest } from './redirect';

/** What the consent screen shows: `GET /auth/consent` and `GET /oidc/requests/{id}`. */
export type ConsentContext = Answer<'GET /auth/consent'>;

/** A scope an app may ask for. */
export type Scope = ConsentContext['scopes'][number];

/** Where the browser goes after Allow: `POST /oidc/requests/{id}` (the code travels in it). */
export type Redirect = Answer<'POST /oidc/requests/{id}'>;

/** `POST /auth/login/token`: the ticket (always sent) and the serviceUrl + cTicket to go to. */
export type Approved = Answer<'POST /auth/login/token'>;

/** A request for a ticket (appId + serviceUrl), as opposed to an OpenID Connect request. */
export type TicketRequest = Extract<PartnerRequest, { kind: 'ticket' }>;

/** One remembered consent of `GET /auth/consents`. */
export type GrantedApp = Answer<'GET /auth/consents'>['apps'][number];

/** The consent context of a ticket request; the server checks the serviceUrl is registered. */
export function consentContext(appId: string, serviceUrl: string, opts?: RequestOptions): Promise<Result<ConsentContext>> {
  return call('GET /auth/consent', { query: { appId, serviceUrl } }, opts);
}

/**
 * A ticket for the app (the server remembers the consent); `redirect` is serviceUrl + cTicket.
 * `scopes` are those the consent screen showed: the server refuses them (INVALID_PARAMETER,
 * field `scopes`) when the app changed its scopes meanwhile — see `scopesChanged`.
 */
export function issueTicket(appId: string, serviceUrl: string, scopes?: readonly string[], opts?: RequestOptions, organization?: string): Promise<Result<Approved>> {
  const body = scopes ? { appId, serviceUrl, scopes: [...scopes] } : { appId, serviceUrl };
  return call('POST /auth/login/token', { body: organization ? { ...body, organization } : body }, opts);
}

/** The organization step of a context (docs/oidc.md "Organizations"), when the request asks for one. */
export type OrgStep = NonNullable<ConsentContext['organization']>;

/**
 * Whether the context needs the person before Allow, however remembered the consent is: a refusal
 * to show (the app requires an organization they lack, or named one not theirs), several
 * organizations to pick from, or an organization whose policy asks something of the session
 * (a choice's `need`: org-policy.tsx).
 */
export function needsOrgStep(ctx: ConsentContext): boolean {
  const step = ctx.organization;
  return !!step && (!!step.refused || (Array.isArray(step.choices) && (step.choices.length > 1 || step.choices.some((c) => c.need))));
}

/** Allow was refused because the app's scopes changed while the screen was open: reload the context. */
export function scopesChanged(e: ApiError): boolean {
  return hasReason(e, 'INVALID_PARAMETER') && e.field === 'scopes';
}

/** The context of a request, whichever kind it is. */
export function loadContext(req: PartnerRequest, opts?: RequestOptions): Promise<Result<ConsentContext>> {
  return req.kind === 'oidc'
    ? call('GET /oidc/requests/{id}', { params: { id: req.id } }, opts)
    : consentContext(req.appId, req.serviceUrl, opts);
}

/**
 * Allow of what `ctx` showed: a ticket, or the OpenID Connect code (whose request fixed its
 * scopes); answers where the browser goes next.
 */
export function approve(req: TicketRequest, ctx: ConsentContext, opts?: RequestOptions, organization?: string): Promise<Result<Approved>>;
export function approve(req: PartnerRequest, ctx: ConsentContext, opts?: RequestOptions, organization?: string): Promise<Result<Redirect>>;
export function approve(req: PartnerRequest, ctx: ConsentContext, opts?: RequestOptions, organization?: string): Promise<Result<Redirect>> {
  return req.kind === 'oidc'
    ? call('POST /oidc/requests/{id}', { params: { id: req.id }, body: organization ? { organization } : {} }, opts)
    : issueTicket(req.appId, req.serviceUrl, Array.isArray(ctx.scopes) ? ctx.scopes : [], opts, organization);
}

/** What a consent screen shows while the flow runs (see `consentFlow`). */
export interface ConsentSteps<A extends Redirect> {
  /** The context is being asked for (again). */
  loading(): void;
  /** Not allowed yet: ask the user. */
  ask(ctx: ConsentContext): void;
  /** Allow of `ctx` is under way (straight on when it was already allowed). */
  approving(ctx: ConsentContext): void;
  approved(ctx: ConsentContext, answer: A): void;
  /**
   * A refusal; `confirmed` once the server accepted the request's context (for a ticket: the
   * serviceUrl is registered for the app).
   */
  refused(e: ApiError, confirmed: boolean): void;
}

/**
 * The consent screen's logic, shared by the consent screen and the embedded sign-in: `load` asks
 * for the context and goes straight on when the user already allowed it (and no organization
 * step needs them: `needsOrgStep`), else asks; `allow` (with the organization picked, if any)
 * approves what the context showed. When the app changed its scopes meanwhile (`scopesChanged`),
 * the context is loaded again, once, to show what it asks for now. The server's errors are the
 * caller's to handle (`refused`).
 */
export function consentFlow<R extends PartnerRequest>(req: R, on: ConsentSteps<R extends TicketRequest ? Approved : Redirect>) {
  type A = R extends TicketRequest ? Approved : Redirect;
  const load = async (retried: boolean): Promise<void> => {
    on.loading();
    const res = await loadContext(req, { skipErrorHandler: true });
    if (!res.success) return on.refused(res.error, false);
    if (res.data.granted && !needsOrgStep(res.data)) await allow(res.data, retried);
    else on.ask(res.data);
  };
  const allow = async (ctx: ConsentContext, retried = false, organization?: string): Promise<void> => {
    on.approving(ctx);
    const res = await approve(req as PartnerRequest, ctx, { skipErrorHandler: true }, organization);
    if (!res.success && !retried && scopesChanged(res.error)) return load(true);
    if (!res.success) return on.refused(res.error, true);
    on.approved(ctx, res.data as A);
  };
  return { load: () => load(false), allow: (ctx: ConsentContext, organization?: string) => allow(ctx, false, organization) };
}

/** The apps the user allowed (personal centre), newest first. */
export async function listConsents(opts?: RequestOptions): Promise<Result<GrantedApp[]>> {
  const res = await call('GET /auth/consents', {}, opts);
  if (!res.success) return res;
  const apps = res.data?.apps;
  return { success: true, data: Array.isArray(apps) ? apps.filter((a) => a && typeof a.appId === 'string') : [] };
}

/** Forgets the decision: the app asks again next time. */
export function revokeConsent(appId: string, opts?: RequestOptions) {
  return call('DELETE /auth/consents/{appId}', { params: { appId } }, opts);
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

/** The words of the consent screen that the embedded sign-in shows too. */
export const consentMessages = defineMessages({
  loading: { id: 'authorize.loading', defaultMessage: 'Checking the application…' },
  failed: { id: 'authorize.failed', defaultMessage: 'The application cannot be authorized' },
});

/** The words of each scope; a scope the document adds fails the type check until it has its words. */
export const scopeMessages: Record<Scope, MessageDescriptor> = defineMessages({
  avatar: { id: 'scope.avatar', defaultMessage: 'Your avatar' },
  nickname: { id: 'scope.nickname', defaultMessage: 'Your display name' },
  company: { id: 'scope.company', defaultMessage: 'Your company name' },
  phone: { id: 'scope.phone', defaultMessage: 'Your phone number' },
  email: { id: 'scope.email', defaultMessage: 'Your e-mail address' },
});

/** The scopes, in the consent screen's order (scopeMessages's). */
export const SCOPES = Object.keys(scopeMessages) as Scope[];

/** The known scopes of a list, in the catalogue's order, each once. */
export function knownScopes(scopes: readonly string[] | null | undefined): Scope[] {
  const asked = new Set(Array.isArray(scopes) ? scopes : []);
  return SCOPES.filter((s) => asked.has(s));
}
