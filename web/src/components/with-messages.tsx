// Adds a message bundle (loaded with the screen's chunk) to the catalogue for its children.
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { createIntl, RawIntlProvider, useIntl } from 'react-intl';
import { type Bundle, loadBundle, type Messages } from '../i18n/load';
import { type Locale, normalize } from '../i18n/locale';
import { ChunkLoadError, Loading, withTimeout } from './lazy-screen';

/**
 * `bundle` is one of load.ts's, or any name with its own `load` (a screen's chunk may carry its
 * bundle's loader, so the entry need not: features/auth/signup-messages.ts).
 */
export function WithMessages({ bundle, load, children }: { bundle: string; load?: (l: Locale) => Promise<Messages>; children: ReactNode }) {
  const outer = useIntl();
  const [extra, setExtra] = useState<Messages | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    const l = normalize(outer.locale);
    withTimeout(load ? load(l) : loadBundle(l, bundle as Bundle), `${bundle}-messages`).then(
      (m) => live && setExtra(m),
      (e: unknown) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [outer.locale, bundle, load]);
  const intl = useMemo(
    () =>
      extra &&
      createIntl({ locale: outer.locale, defaultLocale: outer.defaultLocale, messages: { ...(outer.messages as Messages), ...extra }, onError: () => {} }),
    [outer, extra],
  );
  if (error) throw error instanceof ChunkLoadError ? error : new ChunkLoadError(`${bundle}-messages`, false);
  if (!intl) return <Loading />;
  return <RawIntlProvider value={intl}>{children}</RawIntlProvider>;
}
