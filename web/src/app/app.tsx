import { useLayoutEffect, useMemo } from 'react';
import { createIntl, createIntlCache, RawIntlProvider } from 'react-intl';
import { BrowserRouter, type NavigateFunction, useNavigate } from 'react-router';
import type { Locale } from '../i18n/locale';
import type { Messages } from '../i18n/load';
import * as api from '../lib/api';
import * as mfa from '../lib/mfa';
import { AppRoutes } from './router';

const cache = createIntlCache();

/** The router's navigate, for the API client (a refusal such as USER_NOT_LOGIN moves to sign-in). */
let navigator: NavigateFunction | null = null;
function NavigatorBridge() {
  const navigate = useNavigate();
  useLayoutEffect(() => {
    navigator = navigate;
  }, [navigate]);
  return null;
}

export function App({ locale, messages }: { locale: Locale; messages: Messages }) {
  const intl = useMemo(() => {
    const intl = createIntl({ locale, messages, defaultLocale: 'zh-CN', onError: () => {} }, cache);
    api.configure({
      locale: () => locale,
      translate: (id, values) => {
        const descriptor = { id };
        return messages[id] ? intl.formatMessage(descriptor, values) : null;
      },
      navigate: (to) => void navigator?.(to, { replace: true }),
      onNeedTotp: (c) => mfa.open(c),
      onTotpEnabled: () => window.dispatchEvent(new CustomEvent(mfa.TOTP_ENABLED_EVENT)),
    });
    return intl;
  }, [locale, messages]);
  return (
    <RawIntlProvider value={intl}>
      <BrowserRouter>
        <NavigatorBridge />
        <AppRoutes />
      </BrowserRouter>
    </RawIntlProvider>
  );
}
