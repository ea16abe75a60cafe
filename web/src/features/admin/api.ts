// The API calls of the operator console (the document's /admin operations). Every call passes SKIP:
// the console handles its errors itself (the gate's refusals, a fresh proof on REAUTH_REQUIRED,
// inline errors). Typed by docs/openapi.json through lib/api.ts's `call`.
import { type Answer, type Body, call, type Query, type Result, type Route, SKIP } from '../../lib/api';

export type Role = Answer<'GET /admin/me'>['role'];
export const ROLES: readonly Role[] = ['viewer', 'operator', 'admin'];

/** Whether `role` includes `need` (viewer < operator < admin). */
export const may = (role: Role, need: Role) => ROLES.indexOf(role) >= ROLES.indexOf(need);

export type Me = Answer<'GET /admin/me'>;
export type Overview = Answer<'GET /admin/overview'>;
export type Found = Answer<'GET /admin/accounts'>['account'];
export type DirectoryPage = Answer<'GET /admin/directory'>;
export type AuditEntry = Answer<'GET /admin/audit'>['entries'][number];
/** The audit log's page: its entries, and the people and apps they name, by id. */
export type AuditPage = Answer<'GET /admin/audit'>;
/** An audited action (the document's enum of AuditEntry.action). */
export type AuditAction = AuditEntry['action'];
export type Holder = Answer<'GET /admin/roles'>['holders'][number];

/** An account's status: active, locked, suspended or deactivated. */
export type Status = Found['status'];

/**
 * The account's page. The document gives its lists as plain objects: they are the owner's own
 * lists, in the shapes the personal centre reads (sessions, recent apps, consents, activity).
 */
export type AccountPage = Omit<Answer<'GET /admin/accounts/{userId}'>, 'sessions' | 'recentApps' | 'consents' | 'activity'> & {
  sessions: Answer<'GET /auth/sessions'>['sessions'];
  recentApps: Answer<'GET /auth/apps'>['apps'];
  consents: Answer<'GET /auth/consents'>['apps'];
  activity: Answer<'GET /auth/activity'>['events'];
};

/** A partner app as the registry keeps it (with its secret's rotation). */
export type AppDetail = Answer<'GET /admin/apps'>['apps'][number];
/** One app, with what deleting it ends and what it keeps. */
export type OneApp = Answer<'GET /admin/apps/{appId}'>;
/** The fields of a new or changed app (without the reason, asked for in its dialog). */
export type AppFields = Omit<Body<'POST /admin/apps'>, 'reason'>;
/** An app with its new secret, shown once. */
export type AppWithSecret = Answer<'POST /admin/apps'>;

/** The ways to find one account: the query parameters of GET /admin/accounts. */
export type FindBy = keyof NonNullable<Query<'GET /admin/accounts'>>;

/** An account action's route: POST /admin/accounts/{userId}/<action> {reason}. */
type ActionRoute<A extends string> = `POST /admin/accounts/{userId}/${A}`;
/** The account actions an operator takes, each with a reason: the document's, but the reveal, the
 * identity's replacement and the unlinking of one linked account (their own screens). */
export type Action = Exclude<Route extends infer R ? (R extends ActionRoute<infer A> ? A : never) : never, 'reveal' | 'identity' | 'unlink-identity'>;

/** GET /admin/me: the operator's role (the gate). */
export const getMe = () => call('GET /admin/me', {}, SKIP);

/** GET /admin/overview: the numbers. */
export const getOverview = () => call('GET /admin/overview', {}, SKIP);

/** GET /admin/accounts?<by>=<value>: one account by an exact value. */
export const findAccount = (by: FindBy, value: string) => call('GET /admin/accounts', { query: { [by]: value } }, SKIP);

/** GET /admin/directory?company=|day=&after=: accounts by company prefix or sign-up day, newest first. */
export const directory = (by: 'company' | 'day', value: string, after?: string) =>
  call('GET /admin/directory', { query: { [by]: value, after: after || undefined } }, SKIP);

/** The find box's answer: a group per kind of match. */
export type FindResult = Answer<'GET /admin/search'>;
export type FindGroup = FindResult['groups'][number];
/** What a group matched (mail, phone, phoneEnd, userId, userName, displayName, company). */
export type FindKind = FindGroup['matched'];
/** A page of the locked or suspended accounts. */
export type HeldPage = Answer<'GET /admin/held'>;
export type Held = NonNullable<Query<'GET /admin/held'>>['status'];

/** GET /admin/search?q=&kind=&after=: the find box; `kind` and `after` page one group. */
export const search = (q: string, kind?: FindKind, after?: string) =>
  call('GET /admin/search', { query: { q, kind: kind || undefined, after: after || undefined } }, SKIP);

/** GET /admin/held?status=&after=: the locked or suspended accounts, newest first. */
export const held = (status: Held, after?: string) => call('GET /admin/held', { query: { status, after: after || undefined } }, SKIP);

/** GET /admin/accounts/{userId}: the account's page (masked). */
export const getAccount = (userId: string) => call('GET /admin/accounts/{userId}', { params: { userId } }, SKIP) as Promise<Result<AccountPage>>;

/** POST /admin/accounts/{userId}/reveal: the unmasked mail and phone (audited). */
export const reveal = (userId: string, reason: string) => call('POST /admin/accounts/{userId}/reveal', { params: { userId }, body: { reason } }, SKIP);

/** PUT /admin/accounts/{userId}/notes {notes}: the support desk's notes (operator, audited). */
export const saveNotes = (userId: string, notes: string) => call('PUT /admin/accounts/{userId}/notes', { params: { userId }, body: { notes } }, SKIP);

/** POST /admin/accounts/{userId}/<action> {reason} (operator). */
export const act = (userId: string, action: Action, reason: string) =>
  call(`POST /admin/accounts/{userId}/${action}` as const, { params: { userId }, body: { reason } }, SKIP);

/** POST /admin/accounts/{userId}/unlink-identity {provider, reason} (operator). */
export const unlinkIdentity = (userId: string, provider: string, reason: string) =>
  call('POST /admin/accounts/{userId}/unlink-identity', { params: { userId }, body: { provider, reason } }, SKIP);

/** The new bound mail, or phone with its country. */
export type IdentityChange = Omit<Body<'PUT /admin/accounts/{userId}/identity'>, 'reason'>;

/** PUT /admin/accounts/{userId}/identity (admin): replace the bound mail or phone. */
export const replaceIdentity = (userId: string, reason: string, change: IdentityChange) =>
  call('PUT /admin/accounts/{userId}/identity', { params: { userId }, body: { reason, ...change } }, SKIP);

/** GET /admin/apps. */
export const listApps = () => call('GET /admin/apps', {}, SKIP);

/** GET /admin/apps/{appId}: the app, what deleting it ends and what it keeps. */
export const getApp = (appId: string) => call('GET /admin/apps/{appId}', { params: { appId } }, SKIP);

/** POST /admin/apps (admin): answers the app and its first secret. */
export const createApp = (fields: AppFields, reason: string) => call('POST /admin/apps', { body: { ...fields, reason } }, SKIP);

/** PATCH /admin/apps/{appId} (admin). */
export const patchApp = (appId: string, fields: Omit<Body<'PATCH /admin/apps/{appId}'>, 'reason'>, reason: string) =>
  call('PATCH /admin/apps/{appId}', { params: { appId }, body: { ...fields, reason } }, SKIP);

/** POST /admin/apps/{appId}/secret (admin): a new secret; the old one works until `previousValidUntil`. */
export const rotateSecret = (appId: string, reason: string, previousValidUntil: number) =>
  call('POST /admin/apps/{appId}/secret', { params: { appId }, body: { reason, previousValidUntil } }, SKIP);

/** POST /admin/apps/{appId}/retire-previous-secret (admin). */
export const retirePreviousSecret = (appId: string, reason: string) =>
  call('POST /admin/apps/{appId}/retire-previous-secret', { params: { appId }, body: { reason } }, SKIP);

/** DELETE /admin/apps/{appId} {reason} (admin). */
export const deleteApp = (appId: string, reason: string) => call('DELETE /admin/apps/{appId}', { params: { appId }, body: { reason } }, SKIP);

/** A webhook endpoint of a partner app (never its secret). */
export type Endpoint = Answer<'GET /admin/apps/{appId}/webhooks/{endpointId}'>;
/** An event kind an endpoint may hear. */
export type EventKind = Endpoint['events'][number];
/** An endpoint with its secret, present only when just made or rotated. */
export type EndpointWithSecret = Answer<'POST /admin/apps/{appId}/webhooks'>;
/** A page of an endpoint's delivery log, newest first. */
export type DeliveryPage = Answer<'GET /admin/apps/{appId}/webhooks/{endpointId}/deliveries'>;
export type Delivery = DeliveryPage['deliveries'][number];

/** The fields of a new endpoint (without the reason, asked for in its dialog). */
export type EndpointFields = Omit<Body<'POST /admin/apps/{appId}/webhooks'>, 'reason'>;
/** A change of an endpoint: its fields, `enabled`, `rotateSecret` (without the reason). */
export type EndpointChange = Omit<Body<'PATCH /admin/apps/{appId}/webhooks/{endpointId}'>, 'reason'>;
/** What a replay sends again: one event of the log, or the attempts in a range (unix seconds). */
export type ReplayWhat = { eventId: string } | { from: number; to: number };
/**
 * A replay's answer: the event ids queued again and, when a range had more than one replay sends,
 * `next`: the `from` to continue with (the same `to`).
 */
export type Replayed = { eventIds: string[]; next: number | null };

/** GET /admin/apps/{appId}/webhooks (viewer). */
export const listWebhooks = (appId: string) => call('GET /admin/apps/{appId}/webhooks', { params: { appId } }, SKIP);

/** GET /admin/apps/{appId}/webhooks/{endpointId} (viewer). */
export const getWebhook = (appId: string, endpointId: string) => call('GET /admin/apps/{appId}/webhooks/{endpointId}', { params: { appId, endpointId } }, SKIP);

/** POST /admin/apps/{appId}/webhooks {..., reason} (admin): the endpoint and its `whsec_` secret, shown once. */
export const createWebhook = (appId: string, fields: EndpointFields, reason: string) =>
  call('POST /admin/apps/{appId}/webhooks', { params: { appId }, body: { ...fields, reason } }, SKIP);

/**
 * PATCH /admin/apps/{appId}/webhooks/{endpointId} {..., reason} (admin): `enabled`, `rotateSecret`
 * (the new secret in the answer only), fields.
 */
export const patchWebhook = (appId: string, endpointId: string, change: EndpointChange, reason: string) =>
  call('PATCH /admin/apps/{appId}/webhooks/{endpointId}', { params: { appId, endpointId }, body: { ...change, reason } }, SKIP);

/** DELETE /admin/apps/{appId}/webhooks/{endpointId} {reason} (admin). */
export const deleteWebhook = (appId: string, endpointId: string, reason: string) =>
  call('DELETE /admin/apps/{appId}/webhooks/{endpointId}', { params: { appId, endpointId }, body: { reason } }, SKIP);

/** GET /admin/apps/{appId}/webhooks/{endpointId}/deliveries?after= (viewer): a page of the log, newest first. */
export const listDeliveries = (appId: string, endpointId: string, after?: string | null) =>
  call('GET /admin/apps/{appId}/webhooks/{endpointId}/deliveries', { params: { appId, endpointId }, query: { after: after || undefined } }, SKIP);

/**
 * POST /admin/apps/{appId}/webhooks/{endpointId}/replay `{eventId}` or `{from, to}` with a reason
 * (admin): the event ids queued again, and `next` when a range had more (null when the server
 * says nothing of it).
 */
export async function replayWebhook(appId: string, endpointId: string, what: ReplayWhat, reason: string): Promise<Result<Replayed>> {
  const r = await call('POST /admin/apps/{appId}/webhooks/{endpointId}/replay', { params: { appId, endpointId }, body: { ...what, reason } }, SKIP);
  if (!r.success) return r;
  const { eventIds, next } = r.data;
  return { success: true, data: { eventIds: eventIds ?? [], next: typeof next === 'number' ? next : null } };
}

/** The audit log's filter: days yyyy-mm-dd (at most 31), and optional exact values (GET /admin/audit's query, but the format). */
export type AuditFilter = Omit<NonNullable<Query<'GET /admin/audit'>>, 'format'>;

/** The query of GET /admin/audit: the days, the exact values given, and the export's format. */
export function auditQuery(f: AuditFilter, format?: 'csv' | 'json'): NonNullable<Query<'GET /admin/audit'>> {
  const v = (k: 'actor' | 'target' | 'action') => f[k]?.trim() || undefined;
  return { from: f.from, to: f.to, actor: v('actor'), target: v('target'), action: v('action'), format };
}

/** GET /admin/audit: the entries, newest first. */
export const getAudit = (f: AuditFilter) => call('GET /admin/audit', { query: auditQuery(f) }, SKIP);

/** GET /admin/roles (admin). */
export const listRoles = () => call('GET /admin/roles', {}, SKIP);

/** PUT /admin/roles/{userId} (admin): grants (or replaces) the role. */
export const grantRole = (userId: string, role: Role) => call('PUT /admin/roles/{userId}', { params: { userId }, body: { role } }, SKIP);

/** DELETE /admin/roles/{userId} (admin). */
export const revokeRole = (userId: string) => call('DELETE /admin/roles/{userId}', { params: { userId } }, SKIP);

/** A file the server sends (the audit export): its bytes and its name. */
export interface Download {
  blob: Blob;
  filename: string;
}

/** The file name of a Content-Disposition header, else `fallback`. */
export function filenameOf(disposition: string | null, fallback: string): string {
  const m = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition ?? '');
  if (!m?.[1]) return fallback;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}

/**
 * GET /admin/audit as a file (`format=csv|json`), with the session's bearer token (a plain link
 * would not send it): its bytes, and its name from Content-Disposition, else `fallback`.
 */
export async function download(f: AuditFilter, format: 'csv' | 'json', fallback: string): Promise<Result<Download>> {
  let file: Download = { blob: new Blob(), filename: fallback };
  const read = async (res: Response) => (file = { blob: await res.blob(), filename: filenameOf(res.headers.get('Content-Disposition'), fallback) });
  const r = await call('GET /admin/audit', { query: auditQuery(f, format) }, { ...SKIP, read });
  return r.success ? { success: true, data: file } : r;
}

/** An organization in the console's list (newest first). */
export type OrgListed = Answer<'GET /admin/organizations'>['organizations'][number];
/** A customer's pending request for an organization. */
export type OrgRequest = Answer<'GET /admin/organizations/requests'>['requests'][number];
/** A company name written on accounts, and how many. */
export type CompanySuggestion = Answer<'GET /admin/organizations/suggestions'>['companies'][number];
/** One organization: the item, a page of members, its invitations, its audit slice. */
export type OrgDetail = Answer<'GET /admin/organizations/{orgId}'>;
export type Organization = OrgDetail['organization'];
export type OrgMember = OrgDetail['members'][number];
export type OrgInvitation = OrgDetail['invitations'][number];
/** A member's role in an organization. */
export type OrgRole = OrgMember['role'];
export const ORG_ROLES: readonly OrgRole[] = ['owner', 'admin', 'member'];
/** A change of an organization (without the reason, asked for in its dialog). */
export type OrgChange = Omit<Body<'PATCH /admin/organizations/{orgId}'>, 'reason'>;

/** GET /admin/organizations?cursor=: a page of organizations, newest first. */
export const listOrgs = (cursor?: string) => call('GET /admin/organizations', { query: { cursor: cursor || undefined } }, SKIP);

/** GET /admin/organizations/requests: the customers' pending requests, oldest first. */
export const orgRequests = () => call('GET /admin/organizations/requests', {}, SKIP);

/** GET /admin/organizations/suggestions?q=: company names on accounts starting with `q`. */
export const orgSuggestions = (q: string) => call('GET /admin/organizations/suggestions', { query: { q } }, SKIP);

/** POST /admin/organizations (operator): a new active organization. */
export const createOrg = (fields: Omit<Body<'POST /admin/organizations'>, 'reason'>, reason: string) =>
  call('POST /admin/organizations', { body: { ...fields, reason } }, SKIP);

/** GET /admin/organizations/{orgId}?after=: the organization's page. */
export const getOrg = (orgId: string, after?: string) => call('GET /admin/organizations/{orgId}', { params: { orgId }, query: { after: after || undefined } }, SKIP);

/** PATCH /admin/organizations/{orgId} (operator): names, settings or status. */
export const patchOrg = (orgId: string, change: OrgChange, reason: string) =>
  call('PATCH /admin/organizations/{orgId}', { params: { orgId }, body: { ...change, reason } }, SKIP);

/** POST /admin/organizations/{orgId}/approve|refuse (operator): decide a customer's request. */
export const decideOrg = (orgId: string, decision: 'approve' | 'refuse', reason: string): Promise<Result<unknown>> =>
  decision === 'approve'
    ? call('POST /admin/organizations/{orgId}/approve', { params: { orgId }, body: { reason } }, SKIP)
    : call('POST /admin/organizations/{orgId}/refuse', { params: { orgId }, body: { reason } }, SKIP);

/** POST /admin/organizations/{orgId}/members/{userId} (operator): a new role, or the member removed. */
export const changeOrgMember = (orgId: string, userId: string, change: { role: OrgRole } | { remove: true }, reason: string) =>
  call('POST /admin/organizations/{orgId}/members/{userId}', { params: { orgId, userId }, body: { ...change, reason } }, SKIP);

/** POST /admin/organizations/{orgId}/invitations (operator): invite a mail or phone. */
export const inviteToOrg = (orgId: string, to: string, role: OrgRole | undefined, reason: string) =>
  call('POST /admin/organizations/{orgId}/invitations', { params: { orgId }, body: { to, role, reason } }, SKIP);

/** DELETE /admin/organizations/{orgId}/invitations/{invId} {reason} (operator): a pending invitation revoked. */
export const revokeOrgInvitation = (orgId: string, invId: string, reason: string) =>
  call('DELETE /admin/organizations/{orgId}/invitations/{invId}', { params: { orgId, invId }, body: { reason } }, SKIP);

/** A domain of an organization (its claim, pending or verified). */
export type OrgDomain = Answer<'GET /admin/organizations/{orgId}/domains'>['domains'][number];

/** GET /admin/organizations/{orgId}/domains: its domains (viewers read). */
export const orgDomains = (orgId: string) => call('GET /admin/organizations/{orgId}/domains', { params: { orgId } }, SKIP);

/** POST /admin/organizations/{orgId}/domains (operator): a new claim with its method. */
export const addOrgDomain = (orgId: string, domain: string, method: string, reason: string) =>
  call('POST /admin/organizations/{orgId}/domains', { params: { orgId }, body: { domain, method, reason } }, SKIP);

/** PATCH /admin/organizations/{orgId}/domains/{domain} (operator): its enrolment. */
export const setOrgDomainEnrolment = (orgId: string, domain: string, enrolment: string, reason: string) =>
  call('PATCH /admin/organizations/{orgId}/domains/{domain}', { params: { orgId, domain }, body: { enrolment, reason } }, SKIP);

/** DELETE /admin/organizations/{orgId}/domains/{domain} {reason} (operator). */
export const removeOrgDomain = (orgId: string, domain: string, reason: string) =>
  call('DELETE /admin/organizations/{orgId}/domains/{domain}', { params: { orgId, domain }, body: { reason } }, SKIP);

/** POST /admin/organizations/{orgId}/domains/{domain}/verify (operator): one DNS lookup, or the mail code. */
export const verifyOrgDomain = (orgId: string, domain: string, reason: string, proof?: { mail: string; code: string }) =>
  call('POST /admin/organizations/{orgId}/domains/{domain}/verify', { params: { orgId, domain }, body: { ...proof, reason } }, SKIP);

/** POST /admin/organizations/{orgId}/domains/{domain}/code (operator): a code to an administrative mailbox. */
export const sendOrgDomainCode = (orgId: string, domain: string, mail: string, captcha: string, reason: string) =>
  call('POST /admin/organizations/{orgId}/domains/{domain}/code', { params: { orgId, domain }, body: { mail, captcha, reason } }, SKIP);

/** An organization's own sign-in connection (everything but its secret). */
export type OrgConnection = Answer<'GET /admin/organizations/{orgId}/connections'>['connections'][number];

/** GET /admin/organizations/{orgId}/connections: its sign-in connections (viewers read). */
export const orgConnections = (orgId: string) => call('GET /admin/organizations/{orgId}/connections', { params: { orgId } }, SKIP);

/** POST /admin/organizations/{orgId}/connections (operator): a new connection, a `draft`. */
export const addOrgConnection = (orgId: string, body: Body<'POST /admin/organizations/{orgId}/connections'>) =>
  call('POST /admin/organizations/{orgId}/connections', { params: { orgId }, body }, SKIP);

/** PATCH /admin/organizations/{orgId}/connections/{connId} (operator): names, settings, secret, jit, `on`. */
export const patchOrgConnection = (orgId: string, connId: string, body: Body<'PATCH /admin/organizations/{orgId}/connections/{connId}'>) =>
  call('PATCH /admin/organizations/{orgId}/connections/{connId}', { params: { orgId, connId }, body }, SKIP);

/** DELETE /admin/organizations/{orgId}/connections/{connId} {reason} (operator). */
export const deleteOrgConnection = (orgId: string, connId: string, reason: string) =>
  call('DELETE /admin/organizations/{orgId}/connections/{connId}', { params: { orgId, connId }, body: { reason } }, SKIP);

/** POST /admin/organizations/{orgId}/connections/{connId}/test {reason} (operator): the test sign-in's URL. */
export const testOrgConnection = (orgId: string, connId: string, reason: string) =>
  call('POST /admin/organizations/{orgId}/connections/{connId}/test', { params: { orgId, connId }, body: { reason } }, SKIP);

/** PUT /admin/organizations/{orgId}/domains/{domain}/sign-in (operator): a verified domain's connection and "required". */
export const setOrgDomainSignIn = (orgId: string, domain: string, connId: string | null, required: boolean, reason: string) =>
  call('PUT /admin/organizations/{orgId}/domains/{domain}/sign-in', { params: { orgId, domain }, body: { connId, required, reason } }, SKIP);
