import { describe, expect, it } from 'vitest';
import { groupKey, secretOf } from './otpauth';

const URL_OF = (secret: string) =>
  `otpauth://totp/Ciam:ann%40example.com?secret=${secret}&issuer=Ciam&algorithm=SHA1&digits=6&period=30`;

describe('the secret of an otpauth URI', () => {
  it('is read from the secret parameter of the server URI', () => {
    expect(secretOf(URL_OF('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'))).toBe('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
  });

  it('is upper-cased with padding and spaces removed', () => {
    expect(secretOf(URL_OF('jbsw%20y3dp%3D%3D'))).toBe('JBSWY3DP');
  });

  it('is null for other schemes, a missing secret, or letters outside Base32', () => {
    expect(secretOf('https://example.com/?secret=JBSWY3DP')).toBeNull();
    expect(secretOf('otpauth://totp/Ciam:ann?issuer=Ciam')).toBeNull();
    expect(secretOf(URL_OF('JBSW1Y3DP'))).toBeNull();
    expect(secretOf('not a url')).toBeNull();
  });
});

describe('grouping the key for reading', () => {
  it('splits it into groups of 4, the last one shorter', () => {
    expect(groupKey('JBSWY3DPEHPK3PXP')).toBe('JBSW Y3DP EHPK 3PXP');
    expect(groupKey('ABCDEF')).toBe('ABCD EF');
    expect(groupKey('')).toBe('');
  });

  it('keeps every character: removing the spaces gives the secret back', () => {
    const s = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    expect(groupKey(s).replace(/ /g, '')).toBe(s);
  });
});
