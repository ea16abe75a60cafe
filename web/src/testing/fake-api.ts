// A fake of the server for tests (not shipped: only tests import it): `fetch` is stubbed,
// answers are looked up by "METHOD /path" (the path after the API's prefix, BASE, with its query), and every
// call is recorded. `vi.unstubAllGlobals()` (resetApp in render-app.tsx) removes it.
import { type Mock, vi } from 'vitest';
import { BASE } from '../lib/api-url';

/** A status and a JSON body. */
export type Reply = [status: number, body: unknown];
/** The reply to one call; undefined leaves it to the fallback. */
export type Answer = () => Reply | undefined;

export interface Call {
  method: string;
  path: string;
  /** The JSON body, parsed; undefined when there is none or it is not JSON. */
  body: unknown;
  raw: BodyInit | null | undefined;
  headers: Headers;
  /** The Authorization header, if any. */
  auth: string | undefined;
}

export const OK: Reply = [200, { ok: true }];
export const NOT_FOUND: Reply = [404, { reason: 'NOT_FOUND', message: '', code: 404 }];
export const SIGNED_OUT: Reply = [401, { reason: 'AUTHORIZATION_FAILED', message: '', code: 401 }];

export interface FakeApi {
  /** Every call, in order. */
  calls: Call[];
  /** Answers by "METHOD /path"; change them at any time. */
  answers: Record<string, Answer>;
  /** The stubbed fetch. */
  fetch: Mock<(url: string, init?: RequestInit) => Promise<Response>>;
  callsTo(method: string, path: string): Call[];
}

export function reply(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** Replies given in turn, one per call; then the fallback. */
export function inTurn(...replies: Reply[]): Answer {
  return () => replies.shift();
}

/** Stubs `fetch` with a fake answering from `answers`, else with `fallback`. */
export function fakeApi(answers: Record<string, Answer> = {}, fallback: Reply = OK): FakeApi {
  const fake: FakeApi = {
    calls: [],
    answers: { ...answers },
    callsTo: (method, path) => fake.calls.filter((c) => c.method === method && c.path === path),
    fetch: vi.fn(async (url: string, init: RequestInit = {}) => {
      const path = url.replace(`${BASE}`, '');
      const method = init.method ?? 'GET';
      let body: unknown;
      try {
        body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
      } catch {
        body = undefined;
      }
      const headers = new Headers(init.headers);
      // Only method, path and body are enumerable: a test compares calls with toEqual({method, path, body}).
      const call = Object.defineProperties({ method, path, body } as Call, {
        raw: { value: init.body },
        headers: { value: headers },
        auth: { value: headers.get('Authorization') ?? undefined },
      });
      fake.calls.push(call);
      const [status, answer] = fake.answers[`${method} ${path}`]?.() ?? fallback;
      return reply(status, answer);
    }),
  };
  vi.stubGlobal('fetch', fake.fetch);
  return fake;
}

/** A server that never answers: screens may call the API when they mount, and wait. */
export function silentApi(): void {
  vi.stubGlobal('fetch', vi.fn(() => new Promise(() => {})));
}
