import { useEffect } from 'react';
import { type MessageDescriptor, useIntl } from 'react-intl';
import { common } from '../i18n/common';
import { brandName, brandedTitle } from '../lib/brand';

/**
 * Sets the page title from a translation key (with `values`), with the default tagline as the
 * fallback; with a configured brand, its product name follows (" · Acme ID", lib/brand.ts).
 */
export function useTitle(title: MessageDescriptor | null, values?: Record<string, string>) {
  const intl = useIntl();
  const said = values ? JSON.stringify(values) : '';
  useEffect(() => {
    const id = title?.id;
    const has = id !== undefined && intl.messages[id] !== undefined;
    const text = has ? intl.formatMessage(title as MessageDescriptor, values) : intl.formatMessage(common.tagline);
    document.title = brandedTitle(text, brandName(intl.locale));
    // `said` stands for `values` (a new object each render).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [intl, title, said]);
}
