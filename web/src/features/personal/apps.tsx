// The applications of the personal centre: the 2 used most recently (GET /auth/apps), the ones
// the user allowed on the consent screen (consents.tsx), and the common and recommended ones in
// the page's language (GET /app/language/{language}).
import { useCallback, useEffect, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { handleError, type Result } from '../../lib/api';
import { getAppsByLanguage, getRecentApps } from './api';
import { AuthorizedApps } from './consents';
import { type CatalogueApp, type RecentApp, recentApps, safeHref, splitCatalogue } from './recent-apps';
import { When } from '../../components/when';
import { hasReason } from '../../lib/reasons';

const m = defineMessages({
  heading: { id: 'info.apps.heading', defaultMessage: 'Applications' },
  recent: { id: 'info.apps.recent', defaultMessage: 'Recently used' },
  noRecent: { id: 'info.apps.noRecent', defaultMessage: 'You have not signed in to an application with this account yet.' },
  lastLogin: { id: 'info.apps.lastLogin', defaultMessage: 'Last signed in {when}' },
  recommended: { id: 'info.apps.recommended', defaultMessage: 'Recommended for you' },
  common: { id: 'info.apps.common', defaultMessage: 'Common applications' },
  none: { id: 'info.apps.none', defaultMessage: 'No applications are available yet.' },
  loading: { id: 'info.apps.loading', defaultMessage: 'Loading applications…' },
  failed: { id: 'info.apps.failed', defaultMessage: 'The applications could not be loaded.' },
  opens: { id: 'info.apps.opens', defaultMessage: '(opens in a new tab)' },
});

type Loaded<T> = T[] | 'failed' | null;

function useApps<T>(get: () => Promise<Result<unknown>>, pick: (d: unknown) => T[]): Loaded<T> {
  const [items, setItems] = useState<Loaded<T>>(null);
  useEffect(() => {
    let alive = true;
    setItems(null);
    void get().then((res) => {
      if (!alive) return;
      if (res.success) setItems(pick(res.data));
      else {
        if (hasReason(res.error, 'AUTHORIZATION_FAILED')) handleError(res.error);
        setItems('failed');
      }
    });
    return () => {
      alive = false;
    };
  }, [get, pick]);
  return items;
}

const pickRecent = (d: unknown) => recentApps((d as { apps?: RecentApp[] } | null)?.apps);
const pickCatalogue = (d: unknown) => {
  const apps = (d as { apps?: CatalogueApp[] } | null)?.apps;
  return Array.isArray(apps) ? apps : [];
};

function AppLink({ name, url }: { name: string; url: string }) {
  const intl = useIntl();
  const href = safeHref(url);
  return href ? (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {name} <span className="sr-only">{intl.formatMessage(m.opens)}</span>
    </a>
  ) : (
    <span>{name}</span>
  );
}

function Pending({ failed }: { failed: boolean }) {
  return (
    <p className="muted" aria-live="polite">
      <FormattedMessage {...(failed ? m.failed : m.loading)} />
    </p>
  );
}

export function Apps() {
  const intl = useIntl();
  const getCatalogue = useCallback(() => getAppsByLanguage(intl.locale), [intl.locale]);
  const recent = useApps(getRecentApps, pickRecent);
  const catalogue = useApps(getCatalogue, pickCatalogue);
  const split = Array.isArray(catalogue) ? splitCatalogue(catalogue) : null;
  return (
    <section className="card" aria-labelledby="apps-title" data-testid="apps">
      <h2 id="apps-title">
        <FormattedMessage {...m.heading} />
      </h2>
      <h3>
        <FormattedMessage {...m.recent} />
      </h3>
      {Array.isArray(recent) ? (
        recent.length === 0 ? (
          <p className="muted">
            <FormattedMessage {...m.noRecent} />
          </p>
        ) : (
          <ul className="items" data-testid="apps-recent">
            {recent.map((a) => (
              <li key={a.appId}>
                <AppLink name={a.name} url={a.url} />
                <span className="muted">
                  <FormattedMessage {...m.lastLogin} values={{ when: <When at={a.lastLoginTime} dateOnly /> }} />
                </span>
              </li>
            ))}
          </ul>
        )
      ) : (
        <Pending failed={recent === 'failed'} />
      )}
      <AuthorizedApps />
      {split ? (
        split.recommended.length + split.common.length === 0 ? (
          <p className="muted">
            <FormattedMessage {...m.none} />
          </p>
        ) : (
          <>
            {split.recommended.length > 0 && (
              <>
                <h3>
                  <FormattedMessage {...m.recommended} />
                </h3>
                <ul className="items" data-testid="apps-recommended">
                  {split.recommended.map((a) => (
                    <li key={a.appId}>
                      <AppLink name={a.name} url={a.url} />
                    </li>
                  ))}
                </ul>
              </>
            )}
            {split.common.length > 0 && (
              <>
                <h3>
                  <FormattedMessage {...m.common} />
                </h3>
                <ul className="items" data-testid="apps-common">
                  {split.common.map((a) => (
                    <li key={a.appId}>
                      <AppLink name={a.name} url={a.url} />
                    </li>
                  ))}
                </ul>
              </>
            )}
          </>
        )
      ) : (
        <Pending failed={catalogue === 'failed'} />
      )}
    </section>
  );
}
