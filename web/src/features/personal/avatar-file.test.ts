import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configure } from '../../lib/api';
import { AVATAR_MAX_BYTES, checkAvatar, uploadAvatar } from './avatar-file';
import { BASE } from '../../lib/api-url';

describe('checking a chosen avatar before uploading', () => {
  it('accepts PNG, JPEG and WebP up to 1 MB', () => {
    for (const type of ['image/png', 'image/jpeg', 'image/webp']) expect(checkAvatar({ type, size: 1000 })).toBeNull();
    expect(checkAvatar({ type: 'image/png', size: AVATAR_MAX_BYTES })).toBeNull();
  });

  it('refuses a file over 1 MB', () => {
    expect(AVATAR_MAX_BYTES).toBe(1024 * 1024);
    expect(checkAvatar({ type: 'image/png', size: AVATAR_MAX_BYTES + 1 })).toBe('size');
  });

  it('refuses an empty file', () => {
    expect(checkAvatar({ type: 'image/png', size: 0 })).toBe('size');
  });

  it('refuses SVG, GIF and files without a type, whatever their size', () => {
    expect(checkAvatar({ type: 'image/svg+xml', size: 10 })).toBe('type');
    expect(checkAvatar({ type: 'image/gif', size: 10 })).toBe('type');
    expect(checkAvatar({ type: '', size: 10 })).toBe('type');
  });
});

describe('uploading the avatar', () => {
  let fetchMock: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    configure({ locale: () => 'en-US', translate: () => null, navigate: () => {}, onNeedTotp: () => {}, onTotpEnabled: () => {} });
    localStorage.setItem('ciam_token', 'u1.token');
    fetchMock = vi.fn(async () => new Response(JSON.stringify({ avatar: `${BASE}/avatar/abc` }), { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    localStorage.clear();
  });

  it('sends the file itself with its type, the bearer token and a fresh request id', async () => {
    const file = new File([new Uint8Array([137, 80, 78, 71])], 'me.png', { type: 'image/png' });
    const res = await uploadAvatar(file);
    await uploadAvatar(file);
    expect(res).toEqual({ success: true, data: { avatar: `${BASE}/avatar/abc` } });
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe(`${BASE}/auth/avatar`);
    expect(init.method).toBe('PATCH');
    expect(init.body).toBe(file);
    const h = new Headers(init.headers);
    // No header of its own: fetch sends the file's type (image/png) as its Content-Type.
    expect(h.get('content-type')).toBeNull();
    expect((init.body as Blob).type).toBe('image/png');
    expect(h.get('authorization')).toBe('Bearer u1.token');
    expect(h.get('accept-language')).toBe('en-US');
    const id1 = h.get('x-request-id');
    const id2 = new Headers((fetchMock.mock.calls[1] as [string, RequestInit])[1].headers).get('x-request-id');
    expect(id1).toMatch(/^[0-9a-f-]{36}$/);
    expect(id1).not.toBe(id2);
  });

  it('reads an error answer as {reason, message, code}', async () => {
    fetchMock.mockResolvedValueOnce(
      new Response(JSON.stringify({ reason: 'AVATAR_INVALID', message: 'Not an image', code: 400 }), { status: 400 }),
    );
    const res = await uploadAvatar(new Blob(['<svg/>'], { type: 'image/png' }));
    expect(res).toEqual({ success: false, error: { reason: 'AVATAR_INVALID', message: 'Not an image', code: 400, field: undefined } });
  });

  it('reports a network failure and an unreadable answer', async () => {
    fetchMock.mockRejectedValueOnce(new TypeError('offline'));
    expect(await uploadAvatar(new Blob(['x'], { type: 'image/png' }))).toMatchObject({ success: false, error: { reason: 'NETWORK_ERROR' } });
    fetchMock.mockResolvedValueOnce(new Response('<html>bad gateway</html>', { status: 502 }));
    expect(await uploadAvatar(new Blob(['x'], { type: 'image/png' }))).toMatchObject({
      success: false,
      error: { reason: 'INTERNAL_SERVER_ERROR', code: 502 },
    });
  });
});
