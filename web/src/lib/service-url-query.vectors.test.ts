// The serviceUrl of a query, as the web app reads it (serviceUrlOf), against the vectors the
// server's embedded-page handler is tested with (functions/api/src/routes/embedded.rs): the page's
// frame policy is decided for the serviceUrl the page then asks a ticket for.
import { describe, expect, it } from 'vitest';
import { serviceUrlOf } from './redirect';
import vectors from '../../../functions/api/tests/query-vectors.json';

type Vector = { query: string; serviceUrl: string | null; why: string };

describe('serviceUrl query vectors (shared with the server)', () => {
  it.each((vectors as Vector[]).map((v) => [v.why, v] as const))('%s', (_why, v) => {
    expect(serviceUrlOf(v.query)).toBe(v.serviceUrl);
    expect(serviceUrlOf(`?${v.query}`)).toBe(v.serviceUrl);
  });
});
