import { describe, expect, it } from 'vitest';
import { withoutEmpty } from './proof';

describe('removing the empty fields of a proof', () => {
  it('sends only the password when there is no code', () => {
    expect(withoutEmpty({ password: 'Ciam-Demo-2026!', code: '' })).toEqual({ password: 'Ciam-Demo-2026!' });
  });

  it('sends only the code when there is no password', () => {
    expect(withoutEmpty({ password: '', code: '123456' })).toEqual({ code: '123456' });
  });

  it('drops blank, undefined and null values but keeps false and 0', () => {
    expect(withoutEmpty({ a: '  ', b: undefined, c: null, d: false, e: 0, f: 'x' })).toEqual({ d: false, e: 0, f: 'x' });
  });

  it('keeps a password as typed, spaces included', () => {
    expect(withoutEmpty({ password: ' pw with spaces ' })).toEqual({ password: ' pw with spaces ' });
  });

  it('leaves the original object alone', () => {
    const body = { password: '', code: '1' };
    withoutEmpty(body);
    expect(body).toEqual({ password: '', code: '1' });
  });

  it('removes empty proof fields from the body (the deactivation form)', () => {
    expect(withoutEmpty({ password: 'pw', code: '' })).toEqual({ password: 'pw' });
    expect(withoutEmpty({ password: '', code: '123456' })).toEqual({ code: '123456' });
    expect(withoutEmpty({ password: ' ' })).toEqual({});
  });
});
