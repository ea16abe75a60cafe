// The API calls of the deactivation page and of the end-session page (sign-out is lib/account-api.ts's, shared with the
// personal pages). Typed by docs/openapi.json through lib/api.ts's `call`.
import { call, type Body, SKIP } from '../../lib/api';

/** PATCH /auth/deactivation: the password, or the authenticator code when two-factor is on. */
export const deactivate = (proof: Body<'PATCH /auth/deactivation'>) => call('PATCH /auth/deactivation', { body: proof }, SKIP);

/** A partner's end-session parameters (OpenID Connect RP-Initiated Logout), as the page got them. */
export type EndSessionParams = Omit<Body<'POST /oidc/end-session'>, 'confirmed'>;

/** GET /oidc/end-session: the request checked by the server (errors shown on the page). */
export function endSessionContext(p: EndSessionParams) {
  const query = {
    id_token_hint: p.idTokenHint || undefined,
    client_id: p.clientId || undefined,
    post_logout_redirect_uri: p.postLogoutRedirectUri || undefined,
    state: p.state || undefined,
  };
  return call('GET /oidc/end-session', { query }, SKIP);
}

/** POST /oidc/end-session: ends this session when the hint names it or the user confirmed. */
export const endSession = (body: Body<'POST /oidc/end-session'>) => call('POST /oidc/end-session', { body }, SKIP);
