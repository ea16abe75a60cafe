// The API call of the deactivation page (sign-out is lib/account-api.ts's, shared with the
// personal pages). Types from docs/openapi.json (api-types.gen.ts).
import { api, SKIP } from '../../lib/api';
import type { DeactivateRequest, DeactivateResponse } from '../../lib/api-types.gen';

/** PATCH /auth/deactivation: the password, or the authenticator code when two-factor is on. */
export const deactivate = (proof: DeactivateRequest) => api.patch<DeactivateResponse>('/auth/deactivation', proof, SKIP);
