// lib/passkey.ts: base64url, the options parsing and the credential JSON with and without the
// browser's own helpers, and the ceremonies' handling of the API and browser refusals.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi, inTurn, type FakeApi } from '../testing/fake-api';
import { passkeysOn, resetGate } from './passkey-gate';
import { fromB64u, parseCreation, parseRequest, register, signIn, toB64u, toJSON, mfa, reauth } from './passkey';

const bytes = (...b: number[]) => new Uint8Array(b).buffer;
const enc = (s: string) => new TextEncoder().encode(s).buffer as ArrayBuffer;

class FakePKC {}
let api: FakeApi;

beforeEach(() => {
  resetGate();
  vi.stubGlobal('PublicKeyCredential', FakePKC);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  Object.defineProperty(navigator, 'credentials', { configurable: true, value: undefined });
});

describe('base64url', () => {
  it('round-trips every byte without padding or + /', () => {
    const all = new Uint8Array(256).map((_, i) => i);
    const s = toB64u(all);
    expect(s).not.toMatch(/[+/=]/);
    expect(new Uint8Array(fromB64u(s))).toEqual(all);
  });
  it('matches RFC 4648 vectors', () => {
    expect(toB64u(enc('f'))).toBe('Zg');
    expect(toB64u(enc('fo'))).toBe('Zm8');
    expect(toB64u(enc('foo'))).toBe('Zm9v');
    expect(toB64u(bytes(0xfb, 0xff))).toBe('-_8');
    expect(new Uint8Array(fromB64u('-_8'))).toEqual(new Uint8Array([0xfb, 0xff]));
  });
  it('reads a view at its offset', () => {
    expect(toB64u(new Uint8Array([1, 2, 3, 0x66]).subarray(3))).toBe('Zg');
  });
});

describe('options', () => {
  const creation = {
    challenge: 'AQID',
    rp: { id: 'localhost', name: 'Ciam' },
    user: { id: 'dTE', name: 'ann', displayName: 'Ann' },
    pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
    excludeCredentials: [{ id: 'BAU', type: 'public-key' }],
  };
  it('converts the binary fields by hand where the browser has no parser', () => {
    const o = parseCreation(creation);
    expect(new Uint8Array(o.challenge as ArrayBuffer)).toEqual(new Uint8Array([1, 2, 3]));
    expect(new TextDecoder().decode(o.user.id as ArrayBuffer)).toBe('u1');
    expect(new Uint8Array(o.excludeCredentials![0]!.id as ArrayBuffer)).toEqual(new Uint8Array([4, 5]));
    expect(o.rp).toEqual({ id: 'localhost', name: 'Ciam' });
    const r = parseRequest({ challenge: 'AQID', rpId: 'localhost', allowCredentials: [{ id: 'BAU', type: 'public-key' }] });
    expect(new Uint8Array(r.allowCredentials![0]!.id as ArrayBuffer)).toEqual(new Uint8Array([4, 5]));
    expect(parseRequest({ challenge: 'AQID' }).allowCredentials).toBeUndefined();
  });
  it("uses the browser's parsers when present", () => {
    const native = Object.assign(class {}, { parseCreationOptionsFromJSON: vi.fn(() => ({ native: 'c' })), parseRequestOptionsFromJSON: vi.fn(() => ({ native: 'r' })) });
    vi.stubGlobal('PublicKeyCredential', native);
    expect(parseCreation(creation)).toEqual({ native: 'c' });
    expect(parseRequest({ challenge: 'AQID' })).toEqual({ native: 'r' });
    expect(native.parseCreationOptionsFromJSON).toHaveBeenCalledWith(creation);
  });
});

/** A credential as a browser without toJSON() gives it. */
function created(): PublicKeyCredential {
  return {
    id: 'AQI',
    rawId: bytes(1, 2),
    type: 'public-key',
    authenticatorAttachment: 'platform',
    getClientExtensionResults: () => ({ credProps: { rk: true } }),
    response: {
      clientDataJSON: enc('{}'),
      attestationObject: bytes(9),
      getAuthenticatorData: () => bytes(7, 7),
      getPublicKey: () => bytes(8),
      getPublicKeyAlgorithm: () => -7,
      getTransports: () => ['internal', 'hybrid'],
    },
  } as unknown as PublicKeyCredential;
}
function asserted(): PublicKeyCredential {
  return {
    id: 'AQI',
    rawId: bytes(1, 2),
    type: 'public-key',
    authenticatorAttachment: null,
    getClientExtensionResults: () => ({}),
    response: { clientDataJSON: enc('{}'), authenticatorData: bytes(7), signature: bytes(6), userHandle: enc('u1') },
  } as unknown as PublicKeyCredential;
}

describe('toJSON', () => {
  it('builds the registration JSON with every field the server requires', () => {
    expect(toJSON(created())).toEqual({
      id: 'AQI',
      rawId: 'AQI',
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: { credProps: { rk: true } },
      response: { clientDataJSON: 'e30', attestationObject: 'CQ', authenticatorData: 'Bwc', publicKey: 'CA', publicKeyAlgorithm: -7, transports: ['internal', 'hybrid'] },
    });
  });
  it('builds the assertion JSON', () => {
    expect(toJSON(asserted())).toEqual({
      id: 'AQI',
      rawId: 'AQI',
      type: 'public-key',
      clientExtensionResults: {},
      response: { clientDataJSON: 'e30', authenticatorData: 'Bw', signature: 'Bg', userHandle: 'dTE' },
    });
  });
  it("uses the credential's own toJSON when present", () => {
    const c = Object.assign(asserted(), { toJSON: () => ({ own: true }) });
    expect(toJSON(c)).toEqual({ own: true });
  });
});

const OPTIONS = { passkeyChallenge: 'PC', publicKey: { challenge: 'AQID', rpId: 'localhost' } };
const CREATE_OPTIONS = { passkeyChallenge: 'PC', publicKey: { challenge: 'AQID', rp: { name: 'Ciam' }, user: { id: 'dTE', name: 'a', displayName: 'A' }, pubKeyCredParams: [] } };

function browser(get: () => Promise<unknown>, create: () => Promise<unknown> = get) {
  const c = { get: vi.fn((_o: CredentialRequestOptions) => get()), create: vi.fn((_o: CredentialCreationOptions) => create()) };
  Object.defineProperty(navigator, 'credentials', { configurable: true, value: c });
  return c;
}
const named = (name: string) => Object.assign(new Error(name), { name });

describe('ceremonies', () => {
  it('signs in: options, get() with the mediation and signal, then the finish', async () => {
    api = fakeApi({ 'POST /auth/login/passkey/options': () => [200, OPTIONS], 'POST /auth/login/passkey': () => [200, { token: 't1', userId: 'u1' }] });
    const c = browser(async () => asserted());
    const abort = new AbortController();
    const out = await signIn('conditional', abort.signal, 'app1');
    expect(out).toEqual({ ok: true, data: { token: 't1', userId: 'u1' } });
    expect(api.callsTo('POST', '/auth/login/passkey/options')[0]!.body).toEqual({ appId: 'app1' });
    expect(c.get.mock.calls[0]![0]).toMatchObject({ mediation: 'conditional', signal: abort.signal });
    expect(api.callsTo('POST', '/auth/login/passkey')[0]!.body).toMatchObject({ passkeyChallenge: 'PC', credential: { id: 'AQI' } });
  });
  it('aborts the pending conditional request before a modal one', async () => {
    api = fakeApi({ 'POST /auth/login/passkey/options': () => [200, OPTIONS], 'POST /auth/login/passkey/mfa/options': () => [200, OPTIONS] });
    const signals: AbortSignal[] = [];
    const c = browser(async () => undefined);
    c.get.mockImplementation((o: CredentialRequestOptions) => {
      signals.push(o.signal!);
      return new Promise((_, fail) => o.signal?.addEventListener('abort', () => fail(named('AbortError'))));
    });
    const waiting = signIn('conditional', new AbortController().signal);
    await vi.waitFor(() => expect(signals).toHaveLength(1));
    c.get.mockImplementation(() => Promise.reject(named('NotAllowedError')));
    await mfa('ch');
    expect(signals[0]!.aborted).toBe(true);
    expect(await waiting).toMatchObject({ cancelled: true, name: 'AbortError' });
  });
  it('fetches new options once when the challenge expired', async () => {
    api = fakeApi({
      'POST /auth/login/passkey/options': () => [200, OPTIONS],
      'POST /auth/login/passkey': inTurn([400, { reason: 'PASSKEY_CHALLENGE_EXPIRED', code: 400 }], [400, { reason: 'PASSKEY_CHALLENGE_EXPIRED', code: 400 }]),
    });
    const c = browser(async () => asserted());
    const out = await signIn();
    expect(c.get).toHaveBeenCalledTimes(2);
    expect(api.callsTo('POST', '/auth/login/passkey/options')).toHaveLength(2);
    expect(out).toMatchObject({ ok: false, cancelled: false, error: { reason: 'PASSKEY_CHALLENGE_EXPIRED' } });
  });
  it('reads NotAllowedError and AbortError as a cancellation', async () => {
    api = fakeApi({ 'POST /auth/login/passkey/options': () => [200, OPTIONS], 'POST /auth/login/passkey/mfa/options': () => [200, OPTIONS] });
    browser(() => Promise.reject(named('NotAllowedError')));
    expect(await signIn()).toMatchObject({ ok: false, cancelled: true, name: 'NotAllowedError' });
    browser(() => Promise.reject(named('AbortError')));
    expect(await mfa('ch')).toMatchObject({ ok: false, cancelled: true, name: 'AbortError' });
    expect(api.callsTo('POST', '/auth/login/passkey/mfa/options')[0]!.body).toEqual({ challenge: 'ch' });
    expect(passkeysOn()).toBe(true);
  });
  it('turns passkeys off on PASSKEY_UNAVAILABLE and on a missing route', async () => {
    api = fakeApi({ 'POST /auth/login/passkey/options': () => [503, { reason: 'PASSKEY_UNAVAILABLE', code: 503 }] });
    expect(await signIn()).toMatchObject({ ok: false, cancelled: false, error: { reason: 'PASSKEY_UNAVAILABLE' } });
    expect(passkeysOn()).toBe(false);
    resetGate();
    api = fakeApi({}, [404, { reason: 'NOT_FOUND', code: 404 }]);
    await reauth();
    expect(passkeysOn()).toBe(false);
  });
  it('tells the authenticator about a credential the server does not know', async () => {
    const signal = vi.fn(async () => {});
    vi.stubGlobal('PublicKeyCredential', Object.assign(class {}, { signalUnknownCredential: signal }));
    api = fakeApi({ 'POST /auth/login/passkey/options': () => [200, OPTIONS], 'POST /auth/login/passkey': () => [404, { reason: 'PASSKEY_NOT_FOUND', code: 404 }] });
    browser(async () => asserted());
    expect(await signIn()).toMatchObject({ ok: false, error: { reason: 'PASSKEY_NOT_FOUND' } });
    expect(signal).toHaveBeenCalledWith({ rpId: 'localhost', credentialId: 'AQI' });
    expect(passkeysOn()).toBe(true);
  });
  it('registers with the name, and maps an excluded authenticator to PASSKEY_EXISTS', async () => {
    api = fakeApi({ 'POST /auth/passkeys/options': () => [200, CREATE_OPTIONS], 'POST /auth/passkeys': () => [200, { id: 'k1', name: 'Mine' }] });
    const c = browser(async () => created());
    expect(await register('Mine')).toEqual({ ok: true, data: { id: 'k1', name: 'Mine' } });
    expect(c.create).toHaveBeenCalledTimes(1);
    const body = api.callsTo('POST', '/auth/passkeys')[0]!.body as { name: string; credential: { response: Record<string, unknown> } };
    expect(body.name).toBe('Mine');
    expect(Object.keys(body.credential.response)).toEqual(expect.arrayContaining(['publicKey', 'authenticatorData', 'publicKeyAlgorithm', 'transports']));
    browser(async () => created(), () => Promise.reject(named('InvalidStateError')));
    expect(await register()).toMatchObject({ ok: false, cancelled: false, error: { reason: 'PASSKEY_EXISTS' } });
  });
});
