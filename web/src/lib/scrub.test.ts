import { describe, expect, it } from 'vitest';
import { scrub } from './scrub';
import vectors from './scrub.vectors.json';

describe('scrub', () => {
  it.each(vectors as [string, string][])('%s', (input, output) => {
    expect(scrub(input)).toBe(output);
  });
});
