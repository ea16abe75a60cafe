// The API calls shared by more than one feature or made by shared components (captcha, the
// second-step modal, the code field): the signed-in user, sign-out, the captcha, the one-time code
// and the second step of sign-in. Types from docs/openapi.json (api-types.gen.ts).
import { api, type RequestOptions, SKIP } from './api';
import type {
  GetCaptchaResponse,
  GetInfoResponse,
  LoginBackupCodeRequest,
  LoginBackupCodeResponse,
  LoginTotpRequest,
  LoginTotpResponse,
  LogoutResponse,
  SendCodeRequest,
  SendCodeResponse,
} from './api-types.gen';

/** GET /auth/info: the signed-in user (mail and phone masked). */
export const getInfo = (opts?: RequestOptions) => api.get<GetInfoResponse>('/auth/info', opts);

/** POST /auth/logout: ends the session on the server (best effort: errors are the caller's). */
export const logout = () => api.post<LogoutResponse>('/auth/logout', {}, SKIP);

/** GET /auth/captcha: a proof-of-work challenge. */
export const getCaptcha = () => api.get<GetCaptchaResponse>('/auth/captcha');

/** POST /auth/identity: sends a one-time code to a mail address or phone. */
export const sendCode = (body: SendCodeRequest, opts?: RequestOptions) => api.post<SendCodeResponse>('/auth/identity', body, opts);

/** POST /auth/login/totp: the second step with an authenticator code. */
export const loginTotp = (body: LoginTotpRequest) => api.post<LoginTotpResponse>('/auth/login/totp', body);

/** POST /auth/unlockCode: the second step with a backup code (errors shown in the modal). */
export const loginBackupCode = (body: LoginBackupCodeRequest) => api.post<LoginBackupCodeResponse>('/auth/unlockCode', body, SKIP);
