// The API calls of "My company" and the invitation landing (functions/api/src/routes/org.rs).
// Every call passes SKIP: the screens say their own refusals (the default handling still runs for
// what is not about them, through `refuse`/`handleError`).
import { type Body, call, SKIP } from '../../lib/api';

/** GET /org/mine: the organizations I belong to, with my role in each. */
export const myOrganizations = () => call('GET /org/mine', {}, SKIP);

/** GET /org/{orgId}: the organization, my role; its members (a page) and invitations for an admin. */
export const getOrganization = (orgId: string, after?: string) => call('GET /org/{orgId}', { params: { orgId }, query: { after } }, SKIP);

/** POST /org/requests: ask Ciam for an organization. */
export const askForOrganization = (nameZh: string, nameEn: string) =>
  call('POST /org/requests', { body: { nameZh: nameZh || null, nameEn: nameEn || null } }, SKIP);

/** POST /org/{orgId}/invitations: invite a mail or mainland phone with a role. */
export const invite = (orgId: string, to: string, role: string) => call('POST /org/{orgId}/invitations', { params: { orgId }, body: { to, role } }, SKIP);

/** DELETE /org/{orgId}/invitations/{invId}. */
export const revokeInvitation = (orgId: string, invId: string) => call('DELETE /org/{orgId}/invitations/{invId}', { params: { orgId, invId } }, SKIP);

/** PUT /org/{orgId}/members/{userId}: a new role. */
export const setRole = (orgId: string, userId: string, role: string) =>
  call('PUT /org/{orgId}/members/{userId}', { params: { orgId, userId }, body: { role } }, SKIP);

/** DELETE /org/{orgId}/members/{userId}: remove a member (or leave, for oneself). */
export const removeMember = (orgId: string, userId: string) => call('DELETE /org/{orgId}/members/{userId}', { params: { orgId, userId } }, SKIP);

/** GET /org/{orgId}/audit: a page of the organization's audit slice (`cursor`: the last entry's). */
export const auditPage = (orgId: string, cursor?: string) => call('GET /org/{orgId}/audit', { params: { orgId }, query: { cursor } }, SKIP);

/** POST /org/invitations/accept. */
export const acceptInvitation = (token: string) => call('POST /org/invitations/accept', { body: { token } }, SKIP);

/** GET /org/{orgId}/domains: the organization's domains, pending and verified (owners and admins). */
export const listDomains = (orgId: string) => call('GET /org/{orgId}/domains', { params: { orgId } }, SKIP);

/** POST /org/{orgId}/domains: claim a domain, to be proven by `dns` or `mail`. */
export const addDomain = (orgId: string, domain: string, method: string) => call('POST /org/{orgId}/domains', { params: { orgId }, body: { domain, method } }, SKIP);

/** PATCH /org/{orgId}/domains/{domain}: its enrolment (`off`, `suggest`, `automatic`). */
export const setEnrolment = (orgId: string, domain: string, enrolment: string) =>
  call('PATCH /org/{orgId}/domains/{domain}', { params: { orgId, domain }, body: { enrolment } }, SKIP);

/** DELETE /org/{orgId}/domains/{domain}. */
export const removeDomain = (orgId: string, domain: string) => call('DELETE /org/{orgId}/domains/{domain}', { params: { orgId, domain } }, SKIP);

/** POST /org/{orgId}/domains/{domain}/code: a code to an administrative mailbox at the domain. */
export const sendDomainCode = (orgId: string, domain: string, mail: string, captcha: string) =>
  call('POST /org/{orgId}/domains/{domain}/code', { params: { orgId, domain }, body: { mail, captcha } }, SKIP);

/** POST /org/{orgId}/domains/{domain}/verify: `{}` looks the TXT record up once; `{mail, code}` checks the code. */
export const verifyDomain = (orgId: string, domain: string, proof: { mail: string; code: string } | Record<string, never> = {}) =>
  call('POST /org/{orgId}/domains/{domain}/verify', { params: { orgId, domain }, body: proof }, SKIP);

/** GET /org/{orgId}/connections: the organization's own sign-in connections (owners and admins). */
export const listConnections = (orgId: string) => call('GET /org/{orgId}/connections', { params: { orgId } }, SKIP);

/** POST /org/{orgId}/connections: a new connection (a `draft` until a test sign-in passes). */
export const createConnection = (orgId: string, body: Body<'POST /org/{orgId}/connections'>) => call('POST /org/{orgId}/connections', { params: { orgId }, body }, SKIP);

/** PATCH /org/{orgId}/connections/{connId}: names, settings, secret, jit, or `on`. */
export const patchConnection = (orgId: string, connId: string, body: Body<'PATCH /org/{orgId}/connections/{connId}'>) =>
  call('PATCH /org/{orgId}/connections/{connId}', { params: { orgId, connId }, body }, SKIP);

/** DELETE /org/{orgId}/connections/{connId}: its routed domains lose their routing. */
export const deleteConnection = (orgId: string, connId: string) => call('DELETE /org/{orgId}/connections/{connId}', { params: { orgId, connId } }, SKIP);

/** POST /org/{orgId}/connections/{connId}/test: the identity provider's URL of a test sign-in. */
export const testConnection = (orgId: string, connId: string) => call('POST /org/{orgId}/connections/{connId}/test', { params: { orgId, connId } }, SKIP);

/** PUT /org/{orgId}/domains/{domain}/sign-in: a verified domain's connection (`null`: none) and "required". */
export const setDomainSignIn = (orgId: string, domain: string, connId: string | null, required: boolean) =>
  call('PUT /org/{orgId}/domains/{domain}/sign-in', { params: { orgId, domain }, body: { connId, required } }, SKIP);

/** GET /org/suggested: the organizations my proven mail's verified domains suggest (enrolment `suggest`). */
export const suggestedOrganizations = () => call('GET /org/suggested', {}, SKIP);

/** POST /org/suggested/{orgId}: join (`accept`) or decline (not suggested again). */
export const answerSuggestion = (orgId: string, accept: boolean) => call('POST /org/suggested/{orgId}', { params: { orgId }, body: { accept } }, SKIP);
