// The client's copy of the spec §5 rules against the vectors shared with the server
// (functions/core/tests/validation_vectors.json; the Rust side checks the same file).
import { describe, expect, it } from 'vitest';
import * as v from './validate';

const FIELDS = ['mail', 'phone', 'password', 'username', 'company', 'code'] as const;
type Field = (typeof FIELDS)[number];
type Vectors = Record<Field, { valid: string[]; invalid: string[] }>;
// A glob, so that a missing file is a failing test rather than a file that cannot load.
const found = import.meta.glob<Vectors>('../../../functions/core/tests/validation_vectors.json', { eager: true, import: 'default' });
const file = 'functions/core/tests/validation_vectors.json';

describe('validation vectors', () => {
  it('the shared file exists', () => {
    expect(Object.keys(found), file).toHaveLength(1);
  });
  const vectors: Vectors | null = Object.values(found)[0] ?? null;
  if (!vectors) return;

  it('has every field, each with valid and invalid examples', () => {
    for (const f of FIELDS) {
      expect(Array.isArray(vectors[f]?.valid), f).toBe(true);
      expect(Array.isArray(vectors[f]?.invalid), f).toBe(true);
      expect(vectors[f].valid.length, `${f}.valid`).toBeGreaterThan(0);
      expect(vectors[f].invalid.length, `${f}.invalid`).toBeGreaterThan(0);
    }
  });

  describe.each(FIELDS)('%s', (f) => {
    const check = v[f] as (s: string) => v.Problem;
    it('accepts every valid vector', () => {
      expect(vectors[f].valid.filter((s) => check(s) !== null)).toEqual([]);
    });
    it('refuses every invalid vector with a message', () => {
      expect(vectors[f].invalid.filter((s) => check(s) === null)).toEqual([]);
      for (const s of vectors[f].invalid) expect(check(s)?.id, JSON.stringify(s)).toMatch(/^validate\./);
    });
  });
});

describe('spec §5 rules', () => {
  it('password: 8+ characters, upper, lower, digit, special; no ` \\ \' " /', () => {
    expect(v.password('Ciam-Demo-2026!')).toBeNull();
    for (const bad of ['Sh0rt!a', 'alllower1!', 'ALLUPPER1!', 'NoDigits!!', 'NoSpecial12', 'Back`tick1a', 'Back\\slash1a', "Quote'1aA", 'Dq"uote1aA', 'Sla/sh1aAa']) {
      expect(v.password(bad), bad).toEqual(v.rules.password);
    }
  });
  it('confirm must match', () => {
    expect(v.confirm('a', 'a')).toBeNull();
    expect(v.confirm('a', 'b')).toEqual(v.rules.confirm);
  });
  it('company is required and has no special characters', () => {
    expect(v.company('')).toEqual(v.rules.company);
    expect(v.company('   ')).toEqual(v.rules.company);
    expect(v.company('Acme (Shanghai) Co., Ltd.')).toBeNull();
    expect(v.company('Acme<script>')).toEqual(v.rules.special);
  });
  it('code cannot be empty', () => {
    expect(v.code('')).toEqual(v.rules.codeEmpty);
    expect(v.code('123456')).toBeNull();
  });
  it('terms must be accepted and a country chosen', () => {
    expect(v.terms(false)).toEqual(v.rules.terms);
    expect(v.terms(true)).toBeNull();
    expect(v.country('')).toEqual(v.rules.country);
    expect(v.country('CN')).toBeNull();
  });
  it('phone: mainland China only', () => {
    expect(v.phone('13800138000')).toBeNull();
    expect(v.phone('+86 138-0013-8000')).toBeNull();
    expect(v.phone('12800138000')).toEqual(v.rules.phone);
    expect(v.phone('+1 415 555 0100')).toEqual(v.rules.phone);
  });
});
