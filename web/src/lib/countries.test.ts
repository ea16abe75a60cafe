// The country list's search: dialling codes for every code, matching by name or dialling code,
// and the region of a browser language.
import { describe, expect, it } from 'vitest';
import { COUNTRY_CODES, countryOptions, regionOf } from './countries';
import { dialCode, matchesCountry } from './dial-codes';

describe('countries', () => {
  it('every country has a dialling code', () => {
    expect(COUNTRY_CODES.filter((c) => !/^\d{1,4}$/.test(dialCode(c)))).toEqual([]);
    expect([dialCode('CN'), dialCode('gb'), dialCode('HK'), dialCode('US'), dialCode('ZZ')]).toEqual(['86', '44', '852', '1', '']);
  });

  it('matches a part of the localised name, any case, accents ignored', () => {
    const en = countryOptions('en-US');
    const find = (q: string) => en.filter((o) => matchesCountry(o, q)).map((o) => o.code);
    expect(find('germ')).toEqual(['DE']);
    expect(find('aland isl')).toEqual(['AX']);
    expect(find('KINGDOM')).toContain('GB');
    expect(find('')).toHaveLength(COUNTRY_CODES.length);
    const zh = countryOptions('zh-CN');
    expect(zh.filter((o) => matchesCountry(o, '德国')).map((o) => o.code)).toEqual(['DE']);
  });

  it('matches the start of the dialling code, with or without + or 00', () => {
    const en = countryOptions('en-US');
    const find = (q: string) => en.filter((o) => matchesCountry(o, q)).map((o) => o.code).sort();
    expect(find('+852')).toEqual(['HK']);
    expect(find('0086')).toEqual(['CN']);
    expect(find('44')).toEqual(['GB', 'GG', 'IM', 'JE']);
    expect(find('+1')).toContain('US');
    expect(find('+999')).toEqual([]);
  });

  it('the region of a language tag, when it is a country', () => {
    expect([regionOf('en-GB'), regionOf('zh-CN'), regionOf('de-DE'), regionOf('en'), regionOf('es-419'), regionOf('not a tag'), regionOf(null)]).toEqual(
      ['GB', 'CN', 'DE', '', '', '', ''],
    );
  });
});
