// Passkeys (issue 13, docs/passkeys-design.md §4): a lazy chunk, only ever loaded by `import()`,
// so no route's first download carries it. The base64url helpers, the options parsing and the
// credential's JSON (the browser's own `parse*OptionsFromJSON` / `toJSON()` where present, else
// the WebAuthn level 3 shapes built by hand), and the four ceremonies against the API: register,
// sign in (a button or conditional mediation), the second step of a sign-in, and the fresh proof.
//
// Every ceremony answers an `Outcome`: done, cancelled by the person (the browser's
// NotAllowedError/AbortError: never an error report), or refused (an ApiError; the browser's
// other failures are mapped to a reason). PASSKEY_CHALLENGE_EXPIRED fetches new options once and
// tries again; PASSKEY_UNAVAILABLE (or a 404 from a passkey route: an older server) turns passkeys
// off for the page's life (lib/passkey-gate.ts).
import { type Answer, type ApiError, call, type Result, SKIP } from './api';
import { turnOff } from './passkey-gate';
import { hasReason } from './reasons';

// ---------------------------------------------------------------------------------------------
// base64url (RFC 4648 §5, no padding)

export function toB64u(data: ArrayBuffer | ArrayBufferView): string {
  const bytes = ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromB64u(text: string): ArrayBuffer {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
}

// ---------------------------------------------------------------------------------------------
// Options (the server's JSON) → what navigator.credentials takes

interface DescriptorJSON {
  id: string;
  type: string;
  transports?: string[];
}
export interface CreationOptionsJSON {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
  pubKeyCredParams: { type: string; alg: number }[];
  excludeCredentials?: DescriptorJSON[];
  [k: string]: unknown;
}
export interface RequestOptionsJSON {
  challenge: string;
  rpId?: string;
  allowCredentials?: DescriptorJSON[];
  [k: string]: unknown;
}

/** What a ceremony's options route answers (its `publicKey` is one of the two shapes above). */
type OptionsAnswer = Answer<'POST /auth/login/passkey/options'>;

type PKC = typeof PublicKeyCredential & {
  parseCreationOptionsFromJSON?: (o: unknown) => PublicKeyCredentialCreationOptions;
  parseRequestOptionsFromJSON?: (o: unknown) => PublicKeyCredentialRequestOptions;
  signalUnknownCredential?: (o: { rpId: string; credentialId: string }) => Promise<void>;
};
const pkc = (): PKC | undefined => (typeof window === 'undefined' ? undefined : (window.PublicKeyCredential as PKC | undefined));

const descriptors = (list: DescriptorJSON[] | undefined) =>
  list?.map((d) => ({ ...d, id: fromB64u(d.id) }) as PublicKeyCredentialDescriptor);

export function parseCreation(json: CreationOptionsJSON): PublicKeyCredentialCreationOptions {
  const native = pkc()?.parseCreationOptionsFromJSON;
  if (native) return native(json);
  const out = { ...json, challenge: fromB64u(json.challenge), user: { ...json.user, id: fromB64u(json.user.id) } } as Record<string, unknown>;
  if (json.excludeCredentials) out.excludeCredentials = descriptors(json.excludeCredentials);
  return out as unknown as PublicKeyCredentialCreationOptions;
}

export function parseRequest(json: RequestOptionsJSON): PublicKeyCredentialRequestOptions {
  const native = pkc()?.parseRequestOptionsFromJSON;
  if (native) return native(json);
  const out = { ...json, challenge: fromB64u(json.challenge) } as Record<string, unknown>;
  if (json.allowCredentials) out.allowCredentials = descriptors(json.allowCredentials);
  return out as unknown as PublicKeyCredentialRequestOptions;
}

// ---------------------------------------------------------------------------------------------
// The credential → its JSON (WebAuthn L3 RegistrationResponseJSON / AuthenticationResponseJSON)

export type CredentialJSON = Record<string, unknown> & { id: string; rawId: string; type: string; response: Record<string, unknown> };

interface AnyResponse {
  clientDataJSON: ArrayBuffer;
  attestationObject?: ArrayBuffer;
  authenticatorData?: ArrayBuffer;
  signature?: ArrayBuffer;
  userHandle?: ArrayBuffer | null;
  getAuthenticatorData?: () => ArrayBuffer;
  getPublicKey?: () => ArrayBuffer | null;
  getPublicKeyAlgorithm?: () => number;
  getTransports?: () => string[];
}

type Cred = PublicKeyCredential & { toJSON?: () => unknown; authenticatorAttachment?: string | null };

export function toJSON(cred: Cred): CredentialJSON {
  if (typeof cred.toJSON === 'function') return cred.toJSON() as CredentialJSON;
  const r = cred.response as unknown as AnyResponse;
  const response: Record<string, unknown> = { clientDataJSON: toB64u(r.clientDataJSON) };
  if (r.attestationObject) {
    // A registration: the server needs every one of these (contracts-pk.md).
    response.attestationObject = toB64u(r.attestationObject);
    const data = r.getAuthenticatorData?.();
    if (data) response.authenticatorData = toB64u(data);
    const key = r.getPublicKey?.();
    if (key) response.publicKey = toB64u(key);
    if (r.getPublicKeyAlgorithm) response.publicKeyAlgorithm = r.getPublicKeyAlgorithm();
    response.transports = r.getTransports?.() ?? [];
  } else {
    if (r.authenticatorData) response.authenticatorData = toB64u(r.authenticatorData);
    if (r.signature) response.signature = toB64u(r.signature);
    if (r.userHandle) response.userHandle = toB64u(r.userHandle);
  }
  const out: CredentialJSON = {
    id: cred.id,
    rawId: toB64u(cred.rawId),
    type: cred.type,
    response,
    clientExtensionResults: cred.getClientExtensionResults?.() ?? {},
  };
  if (cred.authenticatorAttachment) out.authenticatorAttachment = cred.authenticatorAttachment;
  return out;
}

// ---------------------------------------------------------------------------------------------
// The ceremonies

export type Outcome<T> =
  | { ok: true; data: T }
  /** The person closed the browser's prompt, or the request was aborted; `ms` after it started. */
  | { ok: false; cancelled: true; name: string; ms: number }
  | { ok: false; cancelled: false; error: ApiError };

export type SignedIn = Answer<'POST /auth/login/passkey'>;

const fault = (reason: ApiError['reason'], code: number): ApiError => ({ reason, message: '', code });

/** The route is missing (an older server) or the deployment has no RP ID: passkeys off. */
function unavailable(e: ApiError): boolean {
  return hasReason(e, 'PASSKEY_UNAVAILABLE') || (e.code === 404 && !hasReason(e, 'PASSKEY_NOT_FOUND'));
}

interface Steps<O, T> {
  /** The options call (the server's challenge). */
  options: () => Promise<Result<OptionsAnswer>>;
  ask: (publicKey: O, signal?: AbortSignal) => Promise<Credential | null>;
  /** The finishing call, with the browser's credential. */
  finish: (passkeyChallenge: string, credential: CredentialJSON) => Promise<Result<T>>;
  signal?: AbortSignal;
  /** Create: an InvalidStateError means a passkey of this authenticator is already registered. */
  creating?: boolean;
  rpId?: (publicKey: O) => string | undefined;
}

async function ceremony<O, T>(s: Steps<O, T>): Promise<Outcome<T>> {
  for (let attempt = 0; ; attempt++) {
    const opts = await s.options();
    if (!opts.success) {
      if (unavailable(opts.error)) turnOff();
      return { ok: false, cancelled: false, error: opts.error };
    }
    const started = Date.now();
    let cred: Credential | null;
    try {
      cred = await s.ask(opts.data.publicKey as O, s.signal);
    } catch (e) {
      const name = (e as { name?: string } | null)?.name ?? 'Error';
      if (name === 'NotAllowedError' || name === 'AbortError') return { ok: false, cancelled: true, name, ms: Date.now() - started };
      if (s.creating && name === 'InvalidStateError') return { ok: false, cancelled: false, error: fault('PASSKEY_EXISTS', 409) };
      if (name === 'SecurityError') {
        // The page's origin does not fit the RP ID, or the frame may not ask: nothing to offer.
        turnOff();
        return { ok: false, cancelled: false, error: fault('PASSKEY_UNAVAILABLE', 503) };
      }
      return { ok: false, cancelled: false, error: fault('PASSKEY_VERIFY_FAILED', 401) };
    }
    if (!cred) return { ok: false, cancelled: true, name: 'NotAllowedError', ms: Date.now() - started };
    const json = toJSON(cred as Cred);
    const res = await s.finish(opts.data.passkeyChallenge, json);
    if (res.success) return { ok: true, data: res.data };
    if (hasReason(res.error, 'PASSKEY_CHALLENGE_EXPIRED') && attempt === 0) continue;
    if (unavailable(res.error)) turnOff();
    if (hasReason(res.error, 'PASSKEY_NOT_FOUND') && !s.creating) {
      // The server forgot this credential (removed): let the authenticator forget it too.
      const rpId = s.rpId?.(opts.data.publicKey as O) ?? window.location.hostname;
      void pkc()?.signalUnknownCredential?.({ rpId, credentialId: json.id })?.catch(() => {});
    }
    return { ok: false, cancelled: false, error: res.error };
  }
}

/** The page's pending conditional request: a modal one aborts it first (Chromium allows one). */
let conditional: AbortController | null = null;

const get = (mediation?: CredentialMediationRequirement) => (publicKey: RequestOptionsJSON, signal?: AbortSignal) => {
  conditional?.abort();
  conditional = null;
  if (mediation === 'conditional') {
    const own = new AbortController();
    signal?.addEventListener('abort', () => own.abort());
    conditional = own;
    signal = own.signal;
  }
  return navigator.credentials.get({ publicKey: parseRequest(publicKey), ...(mediation ? { mediation } : {}), ...(signal ? { signal } : {}) });
};
const rpIdOf = (o: RequestOptionsJSON) => o.rpId;

/** Adds a passkey to the signed-in account (a fresh proof first: REAUTH_REQUIRED is the caller's). */
export function register(name?: string): Promise<Outcome<Answer<'POST /auth/passkeys'>>> {
  return ceremony({
    options: () => call('POST /auth/passkeys/options', {}, SKIP),
    ask: (publicKey: CreationOptionsJSON) => navigator.credentials.create({ publicKey: parseCreation(publicKey) }),
    finish: (passkeyChallenge, credential) => call('POST /auth/passkeys', { body: name ? { passkeyChallenge, credential, name } : { passkeyChallenge, credential } }, SKIP),
    creating: true,
  });
}

/**
 * Signs in with a discoverable passkey: `mediation` 'conditional' for the account field's
 * autofill (one pending request per page; abort it with `signal`), else the browser's modal
 * prompt. `appId` in the embedded sign-in (the server checks the frame's top origin).
 */
export function signIn(mediation?: CredentialMediationRequirement, signal?: AbortSignal, appId?: string): Promise<Outcome<SignedIn>> {
  return ceremony({
    options: () => call('POST /auth/login/passkey/options', { body: appId ? { appId } : {} }, SKIP),
    ask: get(mediation),
    finish: (passkeyChallenge, credential) => call('POST /auth/login/passkey', { body: { passkeyChallenge, credential } }, SKIP),
    signal,
    rpId: rpIdOf,
  });
}

/**
 * The second step of a sign-in (NEED_TOTP_VERIFY's `challenge`) with a passkey of that account;
 * in a partner's frame with the app's id (the server then accepts its frameOrigins as the top page).
 */
export function mfa(challenge: string, appId?: string): Promise<Outcome<SignedIn>> {
  return ceremony({
    options: () => call('POST /auth/login/passkey/mfa/options', { body: appId ? { challenge, appId } : { challenge } }, SKIP),
    ask: get(),
    finish: (passkeyChallenge, credential) => call('POST /auth/login/passkey/mfa', { body: { challenge, passkeyChallenge, credential } }, SKIP),
    rpId: rpIdOf,
  });
}

/** A fresh proof for the session (like POST /auth/totp/verify). */
export function reauth(): Promise<Outcome<Answer<'POST /auth/reauth/passkey'>>> {
  return ceremony({
    options: () => call('POST /auth/reauth/passkey/options', {}, SKIP),
    ask: get(),
    finish: (passkeyChallenge, credential) => call('POST /auth/reauth/passkey', { body: { passkeyChallenge, credential } }, SKIP),
    rpId: rpIdOf,
  });
}
