// The sign-up's country or region: preselected (the server's view of the caller from
// /auth/location, stored at boot or asked here, else the browser language's region), and a
// search box before the native select that filters it by name in the page's language or by
// dialling code. Typing selects the first match; Enter or Arrow-down moves to the list.
import { useEffect, useMemo, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { ErrorText, type Msg } from '../../components/field';
import { call, SKIP } from '../../lib/api';
import { countryOptions, isCountry, regionOf } from '../../lib/countries';
import { dialCode, matchesCountry } from '../../lib/dial-codes';
import { KEYS, read, write } from '../../lib/storage';

const m = defineMessages({
  country: { id: 'register.country', defaultMessage: 'Country or region' },
  choose: { id: 'register.choose', defaultMessage: 'Choose…' },
  search: { id: 'register.countrySearch', defaultMessage: 'Search by name or dialling code' },
  found: {
    id: 'register.countryFound',
    defaultMessage: '{n, plural, =0 {No country or region matches} one {# country or region matches} other {# countries or regions match}}',
  },
});

/** The stored country (from /auth/location), else the browser language's region, else ''. */
export function initialCountry(): string {
  const stored = read(KEYS.country)?.toUpperCase() ?? '';
  if (isCountry(stored)) return stored;
  return regionOf(typeof navigator === 'undefined' ? null : navigator.language);
}

interface Props {
  value: string;
  error: Msg;
  onChange: (code: string) => void;
}

export function CountryField({ value, error, onChange }: Props) {
  const intl = useIntl();
  const all = useMemo(() => countryOptions(intl.locale), [intl.locale]);
  const [query, setQuery] = useState('');
  const chosen = useRef(false);
  const list = useRef<HTMLSelectElement>(null);
  const change = useRef(onChange);
  useEffect(() => {
    change.current = onChange;
  });
  // Nothing stored yet (the boot's own request may still be on its way): ask the server once;
  // its answer is taken unless the user has chosen meanwhile.
  useEffect(() => {
    if (isCountry(read(KEYS.country))) return;
    let live = true;
    void call('GET /auth/location', {}, SKIP).then((res) => {
      const c = res.success ? res.data.country?.toUpperCase() : null;
      if (!live || !c || !isCountry(c)) return;
      write(KEYS.country, c);
      if (!chosen.current) change.current(c);
    });
    return () => void (live = false);
  }, []);
  const matches = useMemo(() => all.filter((o) => matchesCountry(o, query)), [all, query]);
  // The current choice stays in the list even when the search does not match it.
  const shown = matches.some((o) => o.code === value) || !value ? matches : [...all.filter((o) => o.code === value), ...matches];
  const pick = (code: string) => {
    chosen.current = true;
    onChange(code);
  };
  const search = (q: string) => {
    setQuery(q);
    const first = all.filter((o) => matchesCountry(o, q));
    if (q.trim() && first[0] && !first.some((o) => o.code === value)) pick(first[0].code);
  };
  const keys = (e: React.KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter' || e.key === 'ArrowDown') {
      e.preventDefault();
      if (matches[0] && !matches.some((o) => o.code === value)) pick(matches[0].code);
      list.current?.focus();
    }
  };
  const label = intl.formatMessage(m.search);
  return (
    <div className="country" data-testid="country-field">
      <label htmlFor="reg-country">
        <FormattedMessage {...m.country} />
      </label>
      <input type="search" id="reg-country-search" data-testid="country-search" className="country-search" value={query}
        onChange={(e) => search(e.target.value)} onKeyDown={keys} aria-label={label} placeholder={label}
        aria-controls="reg-country" aria-describedby="reg-country-n" autoComplete="off" enterKeyHint="next" />
      <p id="reg-country-n" className="hint muted" aria-live="polite" data-testid="country-found">
        {query.trim() && <FormattedMessage {...m.found} values={{ n: matches.length }} />}
      </p>
      <select ref={list} id="reg-country" name="country" value={value} onChange={(e) => pick(e.target.value)}
        aria-invalid={!!error} aria-describedby="reg-country-e" autoComplete="country">
        {!value && <option value="">{intl.formatMessage(m.choose)}</option>}
        {shown.map(({ code, name }) => (
          <option key={code} value={code}>
            {dialCode(code) ? `${name} (+${dialCode(code)})` : name}
          </option>
        ))}
      </select>
      <ErrorText id="reg-country-e" error={error} />
    </div>
  );
}
