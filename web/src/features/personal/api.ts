// The API calls of the personal centre (profile, bindings, privacy, two-factor, sessions, apps).
// The consents are in lib/partner.ts (shared with the consent screen), the signed-in user in
// lib/account-api.ts, the avatar upload (a file body, not JSON) in avatar-file.ts. Calls whose
// errors the screen shows itself pass SKIP. Types from docs/openapi.json (api-types.gen.ts).
import { api, type RequestOptions, SKIP } from '../../lib/api';
import type {
  AppsByLanguageResponse,
  BindMailResponse,
  ChangePasswordRequest,
  ChangePasswordResponse,
  DisableTotpResponse,
  EnableTotpResponse,
  GetPrivacyResponse,
  GetTotpUrlResponse,
  ListActivityResponse,
  ListSessionsResponse,
  PatchInfoRequest,
  PatchInfoResponse,
  RecentAppsResponse,
  RegenerateBackupCodesResponse,
  RevokeSessionResponse,
  SetAdvertisementRequest,
  SetAdvertisementResponse,
  SetPrivacyRequest,
  SetPrivacyResponse,
} from '../../lib/api-types.gen';

const enc = encodeURIComponent;

/** PATCH /auth/info: the profile fields that changed. */
export const patchInfo = (diff: PatchInfoRequest) => api.patch<PatchInfoResponse>('/auth/info', diff, SKIP);

/** PATCH /auth/mail or /auth/phone: binds a new address with its one-time code. */
export const bindAddress = (kind: 'mail' | 'phone', value: string, code: string) =>
  api.patch<BindMailResponse>(`/auth/${kind}`, { [kind]: value, code }, SKIP);

/** PATCH /auth/advertisement. */
export const setAdvertisement = (body: SetAdvertisementRequest) => api.patch<SetAdvertisementResponse>('/auth/advertisement', body);

/** PATCH /auth/pwd with a session: the old password (or a code) and the new one. */
export const changePassword = (body: ChangePasswordRequest) => api.patch<ChangePasswordResponse>('/auth/pwd', body, SKIP);

/** GET /auth/privacy. */
export const getPrivacy = () => api.get<GetPrivacyResponse>('/auth/privacy', SKIP);

/** PATCH /auth/privacy: the choices that changed. */
export const setPrivacy = (diff: SetPrivacyRequest) => api.patch<SetPrivacyResponse>('/auth/privacy', diff);

/** GET /auth/totp/url: the otpauth URL of a new secret. */
export const getTotpUrl = () => api.get<GetTotpUrlResponse>('/auth/totp/url');

/** POST /auth/totp/enable: the first code; answers the backup codes. */
export const enableTotp = (code: string, opts?: RequestOptions) => api.post<EnableTotpResponse>('/auth/totp/enable', { code }, opts);

/** POST /auth/totp/backupCodes: new backup codes (the old ones stop working). */
export const regenerateBackupCodes = (opts?: RequestOptions) => api.post<RegenerateBackupCodesResponse>('/auth/totp/backupCodes', {}, opts);

/** POST /auth/totp/disable. */
export const disableTotp = (opts?: RequestOptions) => api.post<DisableTotpResponse>('/auth/totp/disable', {}, opts);

/** GET /auth/sessions. */
export const listSessions = () => api.get<ListSessionsResponse>('/auth/sessions', SKIP);

/** DELETE /auth/sessions/{id}. */
export const revokeSession = (id: string) => api.delete<RevokeSessionResponse>(`/auth/sessions/${enc(id)}`, SKIP);

/** GET /auth/activity. */
export const listActivity = () => api.get<ListActivityResponse>('/auth/activity', SKIP);

/** GET /auth/apps: the 2 applications used most recently. */
export const getRecentApps = () => api.get<RecentAppsResponse>('/auth/apps', SKIP);

/** GET /app/language/{language}: the common and recommended applications in that language. */
export const getAppsByLanguage = (language: string) => api.get<AppsByLanguageResponse>(`/app/language/${enc(language)}`, SKIP);
