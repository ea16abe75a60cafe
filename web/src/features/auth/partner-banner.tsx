// Which registered app a sign-in, sign-up or embedded sign-in continues to (issue 23 §4): "to
// continue to 精工商城" with its logo (48 px), when the query names the app (`appId`). The name
// and logo come from the public, cached app list (GET /app/language/{language}: one query, the
// CDN's); an id it does not list shows nothing (the consent step says what is wrong). Lazy on the
// sign-in and sign-up screens: most visits name no app.
import { useEffect, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { type Answer, call, SKIP } from '../../lib/api';
import { logoUrl } from '../../lib/partner';

const m = defineMessages({
  continueTo: { id: 'partner.continueTo', defaultMessage: 'to continue to {app}' },
  logoAlt: { id: 'partner.logoAlt', defaultMessage: 'Logo of {app}' },
});

type Listed = Answer<'GET /app/language/{language}'>['apps'][number];

/** The app `appId` as the public list names it in `lang`, else null (also when the list cannot
 * be read or is not a list: the banner is a courtesy, never a reason for the page to fail). */
export async function listedApp(lang: string, appId: string): Promise<Listed | null> {
  try {
    const res = await call('GET /app/language/{language}', { params: { language: lang } }, SKIP);
    const apps = res.success && Array.isArray(res.data?.apps) ? res.data.apps : [];
    return apps.find((a) => a.appId === appId) ?? null;
  } catch {
    return null;
  }
}

export function PartnerBanner({ appId }: { appId: string }) {
  const intl = useIntl();
  const [app, setApp] = useState<Listed | null>(null);
  useEffect(() => {
    let live = true;
    void listedApp(intl.locale, appId).then((a) => live && setApp(a));
    return () => {
      live = false;
    };
  }, [intl.locale, appId]);
  if (!app) return null;
  const logo = logoUrl(app.logo);
  return (
    <p className="partner" data-testid="partner-banner">
      {logo && <img src={logo} alt={intl.formatMessage(m.logoAlt, { app: app.name })} width={48} height={48} />}
      <span>
        <FormattedMessage {...m.continueTo} values={{ app: <strong data-testid="partner-name">{app.name}</strong> }} />
      </span>
    </p>
  );
}

export default PartnerBanner;
