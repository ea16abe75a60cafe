import { useEffect } from 'react';
import { type MessageDescriptor, useIntl } from 'react-intl';
import { common } from '../i18n/common';

/** Sets the page title from a translation key, with the default tagline as the fallback. */
export function useTitle(title: MessageDescriptor | null) {
  const intl = useIntl();
  useEffect(() => {
    const id = title?.id;
    const has = id !== undefined && intl.messages[id] !== undefined;
    document.title = has ? intl.formatMessage(title as MessageDescriptor) : intl.formatMessage(common.tagline);
  }, [intl, title]);
}
