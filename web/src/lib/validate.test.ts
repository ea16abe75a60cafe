// The client's copy of the spec §5 rules against the vectors shared with the server
// (functions/core/tests/validation_vectors.json; the Rust side checks the same file).
import { describe, expect, it } from 'vitest';
import * as base from './validate';
import * as text from './validate-text';

const v = { ...base, ...text, rules: { ...base.rules, ...text.textRules } };

const FIELDS = ['mail', 'phone', 'password', 'username', 'company', 'code', 'text'] as const;
type Field = (typeof FIELDS)[number];
// The check each rule of the file stands for ('text': a required free-text field of 50
// characters, as the display name, position, address and app names are checked).
const CHECKS: Record<Field, (s: string) => base.Problem> = {
  mail: v.mail,
  phone: v.phone,
  password: v.password,
  username: v.username,
  company: v.company,
  code: v.code,
  text: (s) => v.requiredText(s, 50),
};
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
    const check = CHECKS[f];
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
    expect(v.company('   ')).toEqual(v.rules.empty);
    expect(v.company('\u3000 \t')).toEqual(v.rules.empty);
    expect(v.rules.empty.defaultMessage).toBe('The field cannot be empty');
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

describe('invisible characters', () => {
  it('refuses format, bidi, separator and filler characters anywhere in a name', () => {
    for (const c of ['\u200B', '\u200D', '\u202E', '\u2066', '\uFEFF', '\u00AD', '\u3164', '\u115F', '\u034F', '\u{E0041}', '\u2800']) {
      for (const s of [`${c}ann`, `an${c}n`, `ann${c}`]) {
        expect(v.hasInvisible(s), JSON.stringify(s)).toBe(true);
        expect(v.username(s), JSON.stringify(s)).toEqual(v.rules.special);
      }
    }
  });
  it('refuses a line separator inside a name (at either end it is trimmed like a space)', () => {
    expect(v.username('an\u2028n')).toEqual(v.rules.special);
    expect(v.username('ann\u2028')).toBeNull();
  });
  it('allows a variation selector only right after a visible character', () => {
    expect(v.hasInvisible('\u2764\uFE0F Ann')).toBe(false);
    expect(v.hasInvisible('\uFE0FAnn')).toBe(true);
    expect(v.hasInvisible('Ann \uFE0F')).toBe(true);
    expect(v.hasInvisible('A\uFE0F\uFE0F')).toBe(true);
  });
  it('keeps a leading byte-order mark to refuse it, where String.trim would hide it', () => {
    expect(v.requiredText('\uFEFFAcme', 50)).toEqual(v.rules.special);
    expect(v.requiredText('  Acme  ', 50)).toBeNull();
  });
});
