import { useMemo } from 'react';
import { createIntl, createIntlCache, RawIntlProvider } from 'react-intl';
import { RouterProvider } from 'react-router';
import type { Locale } from '../i18n/locale';
import type { Messages } from '../i18n/load';
import * as api from '../lib/api';
import * as mfa from '../lib/mfa';
import { createRouter } from './router';

const cache = createIntlCache();

export function App({ locale, messages }: { locale: Locale; messages: Messages }) {
  const { intl, router } = useMemo(() => {
    const intl = createIntl({ locale, messages, defaultLocale: 'zh-CN', onError: () => {} }, cache);
    const router = createRouter();
    api.configure({
      locale: () => locale,
      translate: (id, values) => {
        const descriptor = { id };
        return messages[id] ? intl.formatMessage(descriptor, values) : null;
      },
      navigate: (to) => void router.navigate(to, { replace: true }),
      onNeedTotp: (c) => mfa.open(c),
      onTotpEnabled: () => window.dispatchEvent(new CustomEvent(mfa.TOTP_ENABLED_EVENT)),
    });
    return { intl, router };
  }, [locale, messages]);
  return (
    <RawIntlProvider value={intl}>
      <RouterProvider router={router} />
    </RawIntlProvider>
  );
}
