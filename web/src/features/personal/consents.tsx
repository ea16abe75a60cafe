// The apps the user allowed on the consent screen (GET /auth/consents), each with Revoke
// (DELETE /auth/consents/{appId}): a revoked app shows the consent screen again next time.
import { useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { handleError } from '../../lib/api';
import { type GrantedApp, knownScopes, listConsents, logoUrl, revokeConsent, scopeMessages } from '../../lib/partner';
import { Dialog } from '../../components/dialog';
import { When } from '../../components/when';
import { hasReason } from '../../lib/reasons';

const m = defineMessages({
  heading: { id: 'info.consents.heading', defaultMessage: 'Authorized apps' },
  none: { id: 'info.consents.none', defaultMessage: 'You have not allowed any application to use your account.' },
  loading: { id: 'info.consents.loading', defaultMessage: 'Loading authorized apps…' },
  failed: { id: 'info.consents.failed', defaultMessage: 'The authorized apps could not be loaded.' },
  allowed: { id: 'info.consents.allowed', defaultMessage: 'Allowed {when}' },
  access: { id: 'info.consents.access', defaultMessage: 'Can see: {scopes}' },
  identityOnly: { id: 'info.consents.identityOnly', defaultMessage: 'Can see who you are' },
  revoke: { id: 'info.consents.revoke', defaultMessage: 'Revoke' },
  revokeFor: { id: 'info.consents.revokeFor', defaultMessage: 'Revoke access for {app}' },
  revoked: { id: 'info.consents.revoked', defaultMessage: '{app} can no longer use your account. It will ask you again next time.' },
  logoAlt: { id: 'info.consents.logoAlt', defaultMessage: 'Logo of {app}' },
  confirmTitle: { id: 'info.consents.confirmTitle', defaultMessage: 'Revoke access for {app}?' },
  confirmText: { id: 'info.consents.confirmText', defaultMessage: '{app} will no longer see your account. It will ask you again the next time you use it.' },
  cancel: { id: 'info.consents.cancel', defaultMessage: 'Cancel' },
});

export function AuthorizedApps() {
  const intl = useIntl();
  const [apps, setApps] = useState<GrantedApp[] | 'failed' | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [said, setSaid] = useState('');
  const [asking, setAsking] = useState<GrantedApp | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    let alive = true;
    void listConsents({ skipErrorHandler: true }).then((res) => {
      if (!alive) return;
      if (res.success) setApps(res.data);
      else {
        if (hasReason(res.error, 'AUTHORIZATION_FAILED')) handleError(res.error);
        setApps('failed');
      }
    });
    return () => {
      alive = false;
    };
  }, []);

  const revoke = async (app: GrantedApp) => {
    setBusy(app.appId);
    setSaid('');
    // A refusal is shown by the default handling (a toast).
    const res = await revokeConsent(app.appId);
    setBusy(null);
    if (!res.success) return;
    setApps((list) => (Array.isArray(list) ? list.filter((a) => a.appId !== app.appId) : list));
    setSaid(intl.formatMessage(m.revoked, { app: app.name }));
    // The button is gone with its row: keep the focus in the section.
    heading.current?.focus();
  };

  const scopesOf = (a: GrantedApp) => {
    const words = knownScopes(a.scopes).map((s) => intl.formatMessage(scopeMessages[s]));
    return words.length ? intl.formatMessage(m.access, { scopes: intl.formatList(words, { type: 'conjunction' }) }) : intl.formatMessage(m.identityOnly);
  };

  return (
    <div data-testid="consents">
      <h3 id="consents-title" ref={heading} tabIndex={-1}>
        <FormattedMessage {...m.heading} />
      </h3>
      <p className="muted" role="status" data-testid="consents-status">
        {said}
      </p>
      {Array.isArray(apps) ? (
        apps.length === 0 ? (
          <p className="muted" data-testid="consents-none">
            <FormattedMessage {...m.none} />
          </p>
        ) : (
          <ul className="items" aria-labelledby="consents-title">
            {apps.map((a) => {
              const logo = logoUrl(a.logo);
              return (
                <li key={a.appId} data-testid="consent" data-app-id={a.appId}>
                  <div>
                    {logo && <img src={logo} alt={intl.formatMessage(m.logoAlt, { app: a.name })} width={24} height={24} />}{' '}
                    <strong>{a.name}</strong>
                    <p className="muted">{scopesOf(a)}</p>
                    <p className="muted">
                      <FormattedMessage {...m.allowed} values={{ when: <When at={a.grantedAt} /> }} />
                    </p>
                  </div>
                  <button type="button" className="danger" data-testid="consent-revoke" disabled={busy !== null}
                    aria-label={intl.formatMessage(m.revokeFor, { app: a.name })} onClick={() => setAsking(a)}>
                    <FormattedMessage {...m.revoke} />
                  </button>
                </li>
              );
            })}
          </ul>
        )
      ) : (
        <p className="muted" aria-live="polite">
          <FormattedMessage {...(apps === 'failed' ? m.failed : m.loading)} />
        </p>
      )}
      {asking && (
        <Dialog
          testId="consent-revoke-dialog"
          title={intl.formatMessage(m.confirmTitle, { app: asking.name })}
          description={intl.formatMessage(m.confirmText, { app: asking.name })}
          onCancel={() => setAsking(null)}
        >
          <div className="actions">
            <button type="button" data-autofocus onClick={() => setAsking(null)}>
              <FormattedMessage {...m.cancel} />
            </button>
            <button
              type="button"
              className="primary danger"
              data-testid="consent-revoke-confirm"
              onClick={() => {
                setAsking(null);
                void revoke(asking);
              }}
            >
              <FormattedMessage {...m.revoke} />
            </button>
          </div>
        </Dialog>
      )}
    </div>
  );
}
