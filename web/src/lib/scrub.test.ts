// The scrubber against the vectors shared with the server (functions/api/tests/scrub-vectors.json;
// the Rust side, functions/api/src/routes/client_error.rs, checks the same file).
import { describe, expect, it } from 'vitest';
import { scrub } from './scrub';

// A glob, so that a missing file is a failing test rather than a file that cannot load.
const found = import.meta.glob<[string, string][]>('../../../functions/api/tests/scrub-vectors.json', {
  eager: true,
  import: 'default',
});
const vectors = Object.values(found)[0] ?? [];

describe('scrub', () => {
  it('reads the shared vectors', () => {
    expect(Object.keys(found), 'functions/api/tests/scrub-vectors.json').toHaveLength(1);
    expect(vectors.length).toBeGreaterThan(10);
  });
  it.each(vectors)('%s', (input, output) => {
    expect(scrub(input)).toBe(output);
  });
  it('scrubs a JSON Web Token whole, never leaving its payload', () => {
    const payload = 'eyJzdWIiOiJhbm4ifQ';
    expect(scrub(`token=eyJhbGciOiJIUzI1NiJ9.${payload}.c2ln`)).toBe('token=[token]');
  });
});
