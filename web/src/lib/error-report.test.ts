import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import pkg from '../../../package.json' with { type: 'json' };

type Sent = { url: string; init: RequestInit; body: Record<string, string> };
let sent: Sent[];

async function fresh() {
  vi.resetModules();
  return import('./error-report');
}

beforeEach(() => {
  sent = [];
  vi.stubGlobal(
    'fetch',
    vi.fn((url: string, init: RequestInit) => {
      sent.push({ url, init, body: JSON.parse(String(init.body)) });
      return Promise.resolve(new Response(null, { status: 204 }));
    }),
  );
  window.history.replaceState(null, '', '/en-US/personal/info?serviceUrl=https://app.example.com/cb&cTicket=ST-1#top');
  localStorage.setItem('ciam_token', '0123456789abcdef0123456789abcdef.q2D9s7Lx0aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3w');
});
afterEach(() => {
  vi.unstubAllGlobals();
  localStorage.clear();
});

describe('client error reports', () => {
  it('send the release, the kind, the path alone and a scrubbed message and stack', async () => {
    const { send, ENDPOINT } = await fresh();
    const e = new TypeError('no account ann@example.com (code 123456) for token 0123456789abcdef0123456789abcdef');
    e.stack = `TypeError: x\n    at f (http://localhost/assets/index-1.js?v=2:1:234567)\n${'    at g (http://localhost/a.js:1:2)\n'.repeat(40)}`;
    send('error', e);
    expect(sent).toHaveLength(1);
    const [{ url, init, body }] = sent;
    expect(url).toBe(ENDPOINT);
    expect(init.method).toBe('POST');
    expect(init.keepalive).toBe(true);
    const headers = init.headers as Record<string, string>;
    expect(headers['content-type']).toBe('application/json');
    expect(Object.keys(headers).map((h) => h.toLowerCase())).not.toContain('authorization');
    expect(Object.keys(body).sort()).toEqual(['kind', 'message', 'route', 'stack', 'version']);
    expect(body.version).toBe(`release.${pkg.version}`);
    expect(body.kind).toBe('error');
    expect(body.route).toBe('/en-US/personal/info');
    expect(body.message).toBe('TypeError: no account [email] (code [number]) for token [token]');
    expect(body.stack.split('\n')[1]).toBe('    at f (http://localhost/assets/index-1.js)');
    expect(body.stack.split('\n')).toHaveLength(12);
    const text = JSON.stringify(sent);
    for (const secret of ['ann@', '123456', 'serviceUrl', 'cTicket', 'q2D9s7', '?v=2', '#top']) expect(text).not.toContain(secret);
  });

  it('send a repeated error once and at most five per page load', async () => {
    const { send } = await fresh();
    send('error', new Error('same'));
    send('error', new Error('same'));
    send('rejection', new Error('same'));
    expect(sent.map((s) => s.body.kind)).toEqual(['error', 'rejection']);
    for (let i = 0; i < 10; i++) send('error', new Error(`other ${i}`));
    expect(sent).toHaveLength(5);
  });

  it('report values that are not errors, and caps long messages', async () => {
    const { send } = await fresh();
    send('rejection', 'plain reason');
    send('rejection', { toString: () => 'x'.repeat(1000) });
    expect(sent[0].body.message).toBe('plain reason');
    expect(sent[0].body.stack).toBe('');
    expect(sent[1].body.message).toHaveLength(300);
  });

  it('never throw, whatever the error or the network does', async () => {
    const { send } = await fresh();
    const hostile = {
      toString() {
        throw new Error('no');
      },
    };
    expect(() => send('error', hostile)).not.toThrow();
    vi.stubGlobal('fetch', () => {
      throw new Error('offline');
    });
    expect(() => send('error', new Error('a'))).not.toThrow();
    vi.stubGlobal('fetch', () => Promise.reject(new Error('offline')));
    expect(() => send('error', new Error('b'))).not.toThrow();
  });
});

describe('the page watch', () => {
  it('reports uncaught errors and unhandled rejections of the window', async () => {
    vi.resetModules();
    const { watchErrors } = await import('./report-errors');
    watchErrors();
    window.dispatchEvent(new ErrorEvent('error', { error: new Error('uncaught one'), message: 'uncaught one' }));
    const rejection = new Event('unhandledrejection') as Event & { reason?: unknown };
    rejection.reason = new Error('rejected one');
    window.dispatchEvent(rejection);
    await vi.waitFor(() => expect(sent).toHaveLength(2));
    expect(sent.map((s) => [s.body.kind, s.body.message]).sort()).toEqual([
      ['error', 'Error: uncaught one'],
      ['rejection', 'Error: rejected one'],
    ]);
  });
});
