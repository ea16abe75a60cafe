// The addresses of the API (the client's first half; lib/api.ts makes the calls). An operation is
// named by its route key, "METHOD /path" as docs/openapi.json spells it (`Routes` in
// api-types.gen.ts): the key is checked against the document by the type checker, and it is the
// only runtime fact the client needs, so no table of operations travels in the bundle. This is the
// one file that spells the API's prefix (ESLint and tests/api-client.test.mjs keep it so). No
// dependency: the boot (main.tsx) and the error reports read it before anything else loads.
import type { Routes } from './api-types.gen';

export const BASE = '/ciam/v1';

/** An operation of the document: "METHOD /path". */
export type Route = keyof Routes;

/** `K: T` when T is required, `K?: T` when every field of T is optional, nothing when T is undefined. */
type Part<T, K extends string> = [T] extends [undefined]
  ? { [P in K]?: undefined }
  : Record<string, never> extends T
    ? { [P in K]?: T }
    : { [P in K]: T };

/** The path parameters and query of an operation, typed by the document. */
export type UrlArgs<R extends Route> = Part<Routes[R]['params'], 'params'> & Part<Routes[R]['query'], 'query'>;

/** The arguments of an operation when nothing in them is required. */
export type Optional<A> = Record<string, never> extends A ? [args?: A] : [args: A];

/**
 * The address of an operation: its path parameters encoded into the path, its query in the order
 * given (undefined and null left out).
 */
export function url<R extends Route>(route: R, ...[args]: Optional<UrlArgs<R>>): string {
  const { params, query } = (args ?? {}) as { params?: Record<string, string>; query?: Record<string, string | number | null | undefined> };
  let q = '';
  for (const k in query) if (query[k] != null) q += `${q ? '&' : '?'}${k}=${encodeURIComponent(query[k])}`;
  return BASE + route.slice(route.indexOf(' ') + 1).replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(params![k]!)) + q;
}
