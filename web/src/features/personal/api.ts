// The API calls of the personal centre (profile, bindings, privacy, two-factor, sessions, apps,
// passkeys, the avatar). The consents are in lib/partner.ts (shared with the consent screen), the
// signed-in user in lib/account-api.ts. Calls whose errors the screen shows itself pass SKIP.
// Typed by docs/openapi.json through lib/api.ts's `call`.
import { call, type Body, type RequestOptions, SKIP } from '../../lib/api';

/** PATCH /auth/info: the profile fields that changed. */
export const patchInfo = (diff: Body<'PATCH /auth/info'>) => call('PATCH /auth/info', { body: diff }, SKIP);

/** PATCH /auth/mail or /auth/phone: binds a new address with its one-time code. */
export const bindAddress = (kind: 'mail' | 'phone', value: string, code: string) =>
  kind === 'mail' ? call('PATCH /auth/mail', { body: { mail: value, code } }, SKIP) : call('PATCH /auth/phone', { body: { phone: value, code } }, SKIP);

/** PATCH /auth/advertisement. */
export const setAdvertisement = (body: Body<'PATCH /auth/advertisement'>) => call('PATCH /auth/advertisement', { body });

/** PATCH /auth/pwd with a session: the old password (or a code) and the new one. */
export const changePassword = (body: Body<'PATCH /auth/pwd'>) => call('PATCH /auth/pwd', { body }, SKIP);

/** GET /auth/privacy. */
export const getPrivacy = () => call('GET /auth/privacy', {}, SKIP);

/** PATCH /auth/privacy: the choices that changed. */
export const setPrivacy = (diff: Body<'PATCH /auth/privacy'>) => call('PATCH /auth/privacy', { body: diff });

/** GET /auth/totp/url: the otpauth URL of a new secret. */
export const getTotpUrl = () => call('GET /auth/totp/url');

/** POST /auth/totp/enable: the first code; answers the backup codes. */
export const enableTotp = (code: string, opts?: RequestOptions) => call('POST /auth/totp/enable', { body: { code } }, opts);

/** POST /auth/totp/backupCodes: new backup codes (the old ones stop working). */
export const regenerateBackupCodes = (opts?: RequestOptions) => call('POST /auth/totp/backupCodes', {}, opts);

/** POST /auth/totp/disable. */
export const disableTotp = (opts?: RequestOptions) => call('POST /auth/totp/disable', {}, opts);

/** GET /auth/sessions. */
export const listSessions = () => call('GET /auth/sessions', {}, SKIP);

/** DELETE /auth/sessions/{id}. */
export const revokeSession = (id: string) => call('DELETE /auth/sessions/{id}', { params: { id } }, SKIP);

/** GET /auth/activity. */
export const listActivity = () => call('GET /auth/activity', {}, SKIP);

/** GET /auth/apps: the 2 applications used most recently. */
export const getRecentApps = () => call('GET /auth/apps', {}, SKIP);

/** GET /app/language/{language}: the common and recommended applications in that language. */
export const getAppsByLanguage = (language: string) => call('GET /app/language/{language}', { params: { language } }, SKIP);

/** GET /auth/passkeys: the account's passkeys. */
export const listPasskeys = () => call('GET /auth/passkeys', {}, SKIP);

/** PATCH /auth/passkeys/{id}: a new name. */
export const renamePasskey = (id: string, name: string) => call('PATCH /auth/passkeys/{id}', { params: { id }, body: { name } }, SKIP);

/** DELETE /auth/passkeys/{id}. */
export const deletePasskey = (id: string) => call('DELETE /auth/passkeys/{id}', { params: { id } }, SKIP);

/** GET /auth/identities: the linked identities and the providers that may be linked. */
export const listIdentities = () => call('GET /auth/identities', {}, SKIP);

/** POST /auth/identities/link: where the browser goes to link `provider`. */
export const startIdentityLink = (provider: string, bindHash: string) =>
  call('POST /auth/identities/link', { body: { provider, bindHash } }, SKIP);

/** POST /auth/identities/confirm: the link the provider's round trip brought back. */
export const confirmIdentityLink = (provider: string, token: string, bind: string) =>
  call('POST /auth/identities/confirm', { body: { provider, token, bind } }, SKIP);

/** DELETE /auth/identities/{provider}. */
export const unlinkIdentity = (provider: string) => call('DELETE /auth/identities/{provider}', { params: { provider } }, SKIP);
