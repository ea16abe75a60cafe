// The API calls shared by more than one feature or made by shared components (captcha, the
// second-step modal, the code field): the signed-in user, sign-out, the captcha, the one-time code
// and the second step of sign-in. Typed by docs/openapi.json through `call`.
import { call, type Body, type RequestOptions, SKIP } from './api';

/** GET /auth/info: the signed-in user (mail and phone masked). */
export const getInfo = (opts?: RequestOptions) => call('GET /auth/info', {}, opts);

/** POST /auth/logout: ends the session on the server (best effort: errors are the caller's). */
export const logout = () => call('POST /auth/logout', {}, SKIP);

/** GET /auth/captcha: a proof-of-work challenge. */
export const getCaptcha = () => call('GET /auth/captcha');

/** POST /auth/identity: sends a one-time code to a mail address or phone. */
export const sendCode = (body: Body<'POST /auth/identity'>, opts?: RequestOptions) => call('POST /auth/identity', { body }, opts);

/** POST /auth/login/totp: the second step with an authenticator code. */
export const loginTotp = (body: Body<'POST /auth/login/totp'>) => call('POST /auth/login/totp', { body });

/** POST /auth/unlockCode: the second step with a backup code (errors shown in the modal). */
export const loginBackupCode = (body: Body<'POST /auth/unlockCode'>) => call('POST /auth/unlockCode', { body }, SKIP);
