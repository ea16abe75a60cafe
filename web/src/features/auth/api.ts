// The API calls of the sign-in screens (the partner flows' are in lib/partner.ts, shared with
// the personal centre; the code sender in lib/account-api.ts). Types from docs/openapi.json.
import { api, type RequestOptions, SKIP } from '../../lib/api';
import type {
  ChangePasswordRequest,
  ChangePasswordResponse,
  LoginCodeRequest,
  LoginCodeResponse,
  LoginPasswordRequest,
  LoginPasswordResponse,
  LoginStaffRequest,
  LoginStaffResponse,
  RegisterRequest,
  RegisterResponse,
} from '../../lib/api-types.gen';

export type SignedIn = LoginPasswordResponse;

/** POST /auth/login/password. */
export const loginPassword = (body: LoginPasswordRequest, opts?: RequestOptions) => api.post<LoginPasswordResponse>('/auth/login/password', body, opts);

/** POST /auth/login/code. */
export const loginCode = (body: LoginCodeRequest, opts?: RequestOptions) => api.post<LoginCodeResponse>('/auth/login/code', body, opts);

/** POST /auth/login/staff: redeems the staff callback's code (errors shown on the screen). */
export const loginStaff = (body: LoginStaffRequest) => api.post<LoginStaffResponse>('/auth/login/staff', body, SKIP);

/** POST /auth/register (errors shown at their fields). */
export const register = (body: RegisterRequest) => api.post<RegisterResponse>('/auth/register', body, SKIP);

/** PATCH /auth/pwd without a session: a new password with a one-time code (errors at their fields). */
export const resetPassword = (body: ChangePasswordRequest) => api.patch<ChangePasswordResponse>('/auth/pwd', body, SKIP);
