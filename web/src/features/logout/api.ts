// The API calls of the deactivation page and of the end-session page (sign-out is lib/account-api.ts's, shared with the
// personal pages). Types from docs/openapi.json (api-types.gen.ts).
import { api, SKIP } from '../../lib/api';
import type {
  DeactivateRequest,
  DeactivateResponse,
  OidcEndSessionGetResponse,
  OidcEndSessionRequest,
  OidcEndSessionResponse,
} from '../../lib/api-types.gen';

/** PATCH /auth/deactivation: the password, or the authenticator code when two-factor is on. */
export const deactivate = (proof: DeactivateRequest) => api.patch<DeactivateResponse>('/auth/deactivation', proof, SKIP);

/** A partner's end-session parameters (OpenID Connect RP-Initiated Logout), as the page got them. */
export type EndSessionParams = Omit<OidcEndSessionRequest, 'confirmed'>;

/** GET /oidc/end-session: the request checked by the server (errors shown on the page). */
export function endSessionContext(p: EndSessionParams) {
  const q = new URLSearchParams();
  if (p.idTokenHint) q.set('id_token_hint', p.idTokenHint);
  if (p.clientId) q.set('client_id', p.clientId);
  if (p.postLogoutRedirectUri) q.set('post_logout_redirect_uri', p.postLogoutRedirectUri);
  if (p.state) q.set('state', p.state);
  const s = q.toString();
  return api.get<OidcEndSessionGetResponse>(`/oidc/end-session${s ? `?${s}` : ''}`, SKIP);
}

/** POST /oidc/end-session: ends this session when the hint names it or the user confirmed. */
export const endSession = (body: OidcEndSessionRequest) => api.post<OidcEndSessionResponse>('/oidc/end-session', body, SKIP);
