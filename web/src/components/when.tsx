// A point in time from the API (unix seconds), in the page's language.
import { useMemo } from 'react';
import { useIntl } from 'react-intl';

/** Unix seconds (or, defensively, milliseconds) as a Date; null when absent or invalid. */
export function dateOf(at: number | null | undefined): Date | null {
  if (typeof at !== 'number' || !Number.isFinite(at) || at <= 0) return null;
  return new Date(at < 1e11 ? at * 1000 : at);
}

export function When({ at }: { at: number | null | undefined }) {
  const { locale } = useIntl();
  const format = useMemo(() => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }), [locale]);
  const d = dateOf(at);
  return d ? <time dateTime={d.toISOString()}>{format.format(d)}</time> : <span>–</span>;
}
