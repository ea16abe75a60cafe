// The API calls of the operator console (/ciam/v1/admin/...). Every call passes SKIP: the console
// handles its errors itself (the gate's refusals, a fresh proof on REAUTH_REQUIRED, inline errors).
// Types from docs/openapi.json (api-types.gen.ts).
import { api, BASE, type ApiError, request, type Result, SKIP } from '../../lib/api';
import type {
  AdminAuditResponse,
  AdminCreateAppRequest,
  AdminCreateAppResponse,
  AdminDeleteAppResponse,
  AdminDirectoryResponse,
  AdminFindAccountResponse,
  AdminGetAccountResponse,
  AdminGetAppResponse,
  AdminGrantRoleResponse,
  AdminListAppsResponse,
  AdminListRolesResponse,
  AdminMeResponse,
  AdminOverviewResponse,
  AdminPatchAppRequest,
  AdminPatchAppResponse,
  AdminReplaceIdentityRequest,
  AdminReplaceIdentityResponse,
  AdminRetirePreviousSecretResponse,
  AdminRevealResponse,
  AdminRevokeRoleResponse,
  AdminRotateAppSecretResponse,
  AdminUnlockResponse,
  App,
  CreateWebhookRequest,
  CreateWebhookResponse,
  DeleteWebhookResponse,
  GetWebhookResponse,
  ListWebhookDeliveriesResponse,
  ListWebhooksResponse,
  PatchWebhookRequest,
  PatchWebhookResponse,
  ReplayWebhookResponse,
  WebhookEndpoint,
  ListActivityResponse,
  ListConsentsResponse,
  ListSessionsResponse,
  RecentAppsResponse,
} from '../../lib/api-types.gen';
import * as session from '../../lib/session';

const enc = encodeURIComponent;

export type Role = AdminMeResponse['role'];
export const ROLES: readonly Role[] = ['viewer', 'operator', 'admin'];

/** Whether `role` includes `need` (viewer < operator < admin). */
export const may = (role: Role, need: Role) => ROLES.indexOf(role) >= ROLES.indexOf(need);

export type Me = AdminMeResponse;
export type Overview = AdminOverviewResponse;
export type Found = AdminFindAccountResponse['account'];
export type DirectoryPage = AdminDirectoryResponse;
export type AuditEntry = AdminAuditResponse['entries'][number];
export type Holder = AdminListRolesResponse['holders'][number];

/** An account's status: active, locked, suspended or deactivated. */
export type Status = Found['status'];

/**
 * The account's page. The document gives its lists as plain objects: they are the owner's own
 * lists, in the shapes the personal centre reads (sessions, recent apps, consents, activity).
 */
export type AccountPage = Omit<AdminGetAccountResponse, 'sessions' | 'recentApps' | 'consents' | 'activity'> & {
  sessions: ListSessionsResponse['sessions'];
  recentApps: RecentAppsResponse['apps'];
  consents: ListConsentsResponse['apps'];
  activity: ListActivityResponse['events'];
};

/** A partner app as the registry keeps it (with its secret's rotation). */
export type AppDetail = App;
/** One app, with what deleting it ends and what it keeps. */
export type OneApp = AdminGetAppResponse;
/** The fields of a new or changed app (without the reason, asked for in its dialog). */
export type AppFields = Omit<AdminCreateAppRequest, 'reason'>;
/** An app with its new secret, shown once. */
export type AppWithSecret = AdminCreateAppResponse;

/** The ways to find one account. */
export type FindBy = 'mail' | 'phone' | 'userName' | 'userId';

/** The account actions an operator takes, each with a reason. */
export type Action = 'unlock' | 'suspend' | 'reactivate' | 'end-sessions' | 'reset-two-factor' | 'reset-passkeys' | 'send-reset-code';

/** GET /admin/me: the operator's role (the gate). */
export const getMe = () => api.get<Me>('/admin/me', SKIP);

/** GET /admin/overview: the numbers. */
export const getOverview = () => api.get<Overview>('/admin/overview', SKIP);

/** GET /admin/accounts?<by>=<value>: one account by an exact value. */
export const findAccount = (by: FindBy, value: string) => api.get<AdminFindAccountResponse>(`/admin/accounts?${by}=${enc(value)}`, SKIP);

/** GET /admin/directory?company=|day=&after=: accounts by company prefix or sign-up day, newest first. */
export const directory = (by: 'company' | 'day', value: string, after?: string) =>
  api.get<DirectoryPage>(`/admin/directory?${by}=${enc(value)}${after ? `&after=${enc(after)}` : ''}`, SKIP);

/** GET /admin/accounts/{userId}: the account's page (masked). */
export const getAccount = (userId: string) => api.get<AccountPage>(`/admin/accounts/${enc(userId)}`, SKIP);

/** POST /admin/accounts/{userId}/reveal: the unmasked mail and phone (audited). */
export const reveal = (userId: string, reason: string) => api.post<AdminRevealResponse>(`/admin/accounts/${enc(userId)}/reveal`, { reason }, SKIP);

/** POST /admin/accounts/{userId}/<action> {reason} (operator). */
export const act = (userId: string, action: Action, reason: string) =>
  api.post<AdminUnlockResponse>(`/admin/accounts/${enc(userId)}/${action}`, { reason }, SKIP);

/** The new bound mail, or phone with its country. */
export type IdentityChange = Omit<AdminReplaceIdentityRequest, 'reason'>;

/** PUT /admin/accounts/{userId}/identity (admin): replace the bound mail or phone. */
export const replaceIdentity = (userId: string, reason: string, change: IdentityChange) =>
  request<AdminReplaceIdentityResponse>('PUT', `/admin/accounts/${enc(userId)}/identity`, { reason, ...change }, SKIP);

/** GET /admin/apps. */
export const listApps = () => api.get<AdminListAppsResponse>('/admin/apps', SKIP);

/** GET /admin/apps/{appId}: the app, what deleting it ends and what it keeps. */
export const getApp = (appId: string) => api.get<OneApp>(`/admin/apps/${enc(appId)}`, SKIP);

/** POST /admin/apps (admin): answers the app and its first secret. */
export const createApp = (fields: AppFields, reason: string) => api.post<AppWithSecret>('/admin/apps', { ...fields, reason }, SKIP);

/** PATCH /admin/apps/{appId} (admin). */
export const patchApp = (appId: string, fields: Omit<AdminPatchAppRequest, 'reason'>, reason: string) =>
  api.patch<AdminPatchAppResponse>(`/admin/apps/${enc(appId)}`, { ...fields, reason }, SKIP);

/** POST /admin/apps/{appId}/secret (admin): a new secret; the old one works until `previousValidUntil`. */
export const rotateSecret = (appId: string, reason: string, previousValidUntil: number) =>
  api.post<AdminRotateAppSecretResponse>(`/admin/apps/${enc(appId)}/secret`, { reason, previousValidUntil }, SKIP);

/** POST /admin/apps/{appId}/retire-previous-secret (admin). */
export const retirePreviousSecret = (appId: string, reason: string) =>
  api.post<AdminRetirePreviousSecretResponse>(`/admin/apps/${enc(appId)}/retire-previous-secret`, { reason }, SKIP);

/** DELETE /admin/apps/{appId} {reason} (admin). */
export const deleteApp = (appId: string, reason: string) => request<AdminDeleteAppResponse>('DELETE', `/admin/apps/${enc(appId)}`, { reason }, SKIP);

/** A webhook endpoint of a partner app (never its secret). */
export type Endpoint = WebhookEndpoint;
/** An event kind an endpoint may hear. */
export type EventKind = WebhookEndpoint['events'][number];
/** An endpoint with its secret, present only when just made or rotated. */
export type EndpointWithSecret = CreateWebhookResponse;
/** A page of an endpoint's delivery log, newest first. */
export type DeliveryPage = ListWebhookDeliveriesResponse;
export type Delivery = DeliveryPage['deliveries'][number];

const hooks = (appId: string) => `/admin/apps/${enc(appId)}/webhooks`;
const hook = (appId: string, endpointId: string) => `${hooks(appId)}/${enc(endpointId)}`;

/** The fields of a new endpoint (without the reason, asked for in its dialog). */
export type EndpointFields = Omit<CreateWebhookRequest, 'reason'>;
/** A change of an endpoint: its fields, `enabled`, `rotateSecret` (without the reason). */
export type EndpointChange = Omit<PatchWebhookRequest, 'reason'>;
/** What a replay sends again: one event of the log, or the attempts in a range (unix seconds). */
export type ReplayWhat = { eventId: string } | { from: number; to: number };
/**
 * A replay's answer: the event ids queued again and, when a range had more than one replay sends,
 * `next`: the `from` to continue with (the same `to`).
 */
export type Replayed = { eventIds: string[]; next: number | null };

/** GET /admin/apps/{appId}/webhooks (viewer). */
export const listWebhooks = (appId: string) => api.get<ListWebhooksResponse>(hooks(appId), SKIP);

/** GET /admin/apps/{appId}/webhooks/{endpointId} (viewer). */
export const getWebhook = (appId: string, endpointId: string) => api.get<GetWebhookResponse>(hook(appId, endpointId), SKIP);

/** POST /admin/apps/{appId}/webhooks {..., reason} (admin): the endpoint and its `whsec_` secret, shown once. */
export const createWebhook = (appId: string, fields: EndpointFields, reason: string) =>
  api.post<CreateWebhookResponse>(hooks(appId), { ...fields, reason }, SKIP);

/**
 * PATCH /admin/apps/{appId}/webhooks/{endpointId} {..., reason} (admin): `enabled`, `rotateSecret`
 * (the new secret in the answer only), fields.
 */
export const patchWebhook = (appId: string, endpointId: string, change: EndpointChange, reason: string) =>
  api.patch<PatchWebhookResponse>(hook(appId, endpointId), { ...change, reason }, SKIP);

/** DELETE /admin/apps/{appId}/webhooks/{endpointId} {reason} (admin). */
export const deleteWebhook = (appId: string, endpointId: string, reason: string) =>
  request<DeleteWebhookResponse>('DELETE', hook(appId, endpointId), { reason }, SKIP);

/** GET /admin/apps/{appId}/webhooks/{endpointId}/deliveries?after= (viewer): a page of the log, newest first. */
export const listDeliveries = (appId: string, endpointId: string, after?: string | null) =>
  api.get<DeliveryPage>(`${hook(appId, endpointId)}/deliveries${after ? `?after=${enc(after)}` : ''}`, SKIP);

/**
 * POST /admin/apps/{appId}/webhooks/{endpointId}/replay `{eventId}` or `{from, to}` with a reason
 * (admin): the event ids queued again, and `next` when a range had more (null when the server
 * says nothing of it).
 */
export async function replayWebhook(appId: string, endpointId: string, what: ReplayWhat, reason: string): Promise<Result<Replayed>> {
  const r = await api.post<Partial<ReplayWebhookResponse> & { queued?: string[]; next?: number | null }>(`${hook(appId, endpointId)}/replay`, { ...what, reason }, SKIP);
  if (!r.success) return r;
  const { eventIds, queued, next } = r.data;
  return { success: true, data: { eventIds: eventIds ?? queued ?? [], next: typeof next === 'number' ? next : null } };
}

/** The audit log's filter: days yyyy-mm-dd (at most 31), and optional exact values. */
export interface AuditFilter {
  from: string;
  to: string;
  actor?: string;
  target?: string;
  action?: string;
}

export function auditQuery(f: AuditFilter, format?: 'csv' | 'json'): string {
  const q = new URLSearchParams({ from: f.from, to: f.to });
  for (const k of ['actor', 'target', 'action'] as const) {
    const v = f[k]?.trim();
    if (v) q.set(k, v);
  }
  if (format) q.set('format', format);
  return `/admin/audit?${q.toString()}`;
}

/** GET /admin/audit: the entries, newest first. */
export const getAudit = (f: AuditFilter) => api.get<AdminAuditResponse>(auditQuery(f), SKIP);

/** GET /admin/roles (admin). */
export const listRoles = () => api.get<AdminListRolesResponse>('/admin/roles', SKIP);

/** PUT /admin/roles/{userId} (admin): grants (or replaces) the role. */
export const grantRole = (userId: string, role: Role) => request<AdminGrantRoleResponse>('PUT', `/admin/roles/${enc(userId)}`, { role }, SKIP);

/** DELETE /admin/roles/{userId} (admin). */
export const revokeRole = (userId: string) => api.delete<AdminRevokeRoleResponse>(`/admin/roles/${enc(userId)}`, SKIP);

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
 * GET `path` as a file, with the session's bearer token (a plain link would not send it): the
 * audit export (`format=csv|json`).
 */
export async function download(path: string, fallback: string, locale: string): Promise<Result<Download>> {
  const headers: Record<string, string> = { 'X-Request-ID': crypto.randomUUID(), 'Accept-Language': locale };
  const t = session.token();
  if (t) headers.Authorization = `Bearer ${t}`;
  let res: Response;
  try {
    res = await fetch(`${BASE}${path}`, { headers });
  } catch {
    return { success: false, error: { reason: 'NETWORK_ERROR', message: '', code: 0 } };
  }
  if (res.ok) return { success: true, data: { blob: await res.blob(), filename: filenameOf(res.headers.get('Content-Disposition'), fallback) } };
  const e = ((await res.json().catch(() => null)) ?? {}) as Partial<ApiError>;
  return {
    success: false,
    error: { reason: (e.reason ?? 'INTERNAL_SERVER_ERROR') as ApiError['reason'], message: e.message ?? '', code: e.code ?? res.status, field: e.field },
  };
}
