// Countries and regions: every assigned ISO 3166-1 alpha-2 code (what the server stores), named
// in the page's language by Intl.DisplayNames. One list for sign-up and the profile.
export const COUNTRY_CODES: readonly string[] =
  'ADAEAFAGAIALAMAOAQARASATAUAWAXAZBABBBDBEBFBGBHBIBJBLBMBNBOBQBRBSBTBVBWBYBZCACCCDCFCGCHCICKCLCMCNCOCRCUCVCWCXCYCZDEDJDKDMDODZECEEEGEHERESETFIFJFKFMFOFRGAGBGDGEGFGGGHGIGLGMGNGPGQGRGSGTGUGWGYHKHMHNHRHTHUIDIEILIMINIOIQIRISITJEJMJOJPKEKGKHKIKMKNKPKRKWKYKZLALBLCLILKLRLSLTLULVLYMAMCMDMEMFMGMHMKMLMMMNMOMPMQMRMSMTMUMVMWMXMYMZNANCNENFNGNINLNONPNRNUNZOMPAPEPFPGPHPKPLPMPNPRPSPTPWPYQARERORSRURWSASBSCSDSESGSHSISJSKSLSMSNSOSRSSSTSVSXSYSZTCTDTFTGTHTJTKTLTMTNTOTRTTTVTWTZUAUGUMUSUYUZVAVCVEVGVIVNVUWFWSYEYTZAZMZW'.match(/../g) ?? [];

function namer(locale: string): (code: string) => string {
  let names: Intl.DisplayNames | null = null;
  try {
    names = new Intl.DisplayNames([locale], { type: 'region' });
  } catch {
    names = null;
  }
  return (code) => {
    try {
      return names?.of(code.toUpperCase()) ?? code;
    } catch {
      return code;
    }
  };
}

export function regionName(code: string, locale: string): string {
  return namer(locale)(code);
}

export function isCountry(code: string | null | undefined): boolean {
  return !!code && COUNTRY_CODES.includes(code.toUpperCase());
}

/** The options sorted by localised name; `current` is included when it is not in the list. */
export function countryOptions(locale: string, current: string | null = null): { code: string; name: string }[] {
  const codes = [...COUNTRY_CODES];
  const cur = current?.toUpperCase();
  if (cur && !codes.includes(cur)) codes.push(cur);
  const collator = new Intl.Collator(locale);
  const name = namer(locale);
  return codes.map((code) => ({ code, name: name(code) })).sort((a, b) => collator.compare(a.name, b.name));
}

/** The region of a language tag ("en-GB" -> "GB"), when it names a country of the list. */
export function regionOf(tag: string | null | undefined): string {
  try {
    const r = tag ? new Intl.Locale(tag).region : undefined;
    return r && isCountry(r) ? r : '';
  } catch {
    return '';
  }
}
