// A point in time from the API (unix seconds), in the page's language.
import { useMemo } from 'react';
import { useIntl } from 'react-intl';

/** Unix seconds (or, defensively, milliseconds) as a Date; null when absent or invalid. */
export function dateOf(at: number | null | undefined): Date | null {
  if (typeof at !== 'number' || !Number.isFinite(at) || at <= 0) return null;
  return new Date(at < 1e11 ? at * 1000 : at);
}

/** The time `at`; with `dateOnly`, its day alone (for a time recorded once a day, such as an
 * app's last use: docs/data-model.md "Recent app"). */
export function When({ at, dateOnly = false }: { at: number | null | undefined; dateOnly?: boolean }) {
  const { locale } = useIntl();
  const format = useMemo(
    () =>
      new Intl.DateTimeFormat(locale, dateOnly ? { dateStyle: 'medium' } : { dateStyle: 'medium', timeStyle: 'short' }),
    [locale, dateOnly],
  );
  const d = dateOf(at);
  return d ? <time dateTime={d.toISOString()}>{format.format(d)}</time> : <span>–</span>;
}
