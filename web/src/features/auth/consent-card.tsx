// What an app asks for and the Cancel / Allow buttons: the consent screen and the embedded
// sign-in's consent step show the same card. Only those lazy screens import it, never sign-in.
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { type ConsentContext, knownScopes, logoUrl, scopeMessages } from '../../lib/partner';

const m = defineMessages({
  asks: { id: 'consent.asks', defaultMessage: '{app} would like to use your Ciam account and access:' },
  identityOnly: { id: 'consent.identityOnly', defaultMessage: '{app} would like to know who you are. It asks for nothing else.' },
  logoAlt: { id: 'consent.logoAlt', defaultMessage: 'Logo of {app}' },
  cancel: { id: 'consent.cancel', defaultMessage: 'Cancel' },
  allow: { id: 'consent.allow', defaultMessage: 'Allow' },
  allowing: { id: 'consent.allowing', defaultMessage: 'Allowing…' },
  signedInAs: { id: 'consent.signedInAs', defaultMessage: 'Signed in as {account}' },
  notYou: { id: 'consent.notYou', defaultMessage: 'Not you? Use another account' },
  privacy: { id: 'consent.privacy', defaultMessage: 'Privacy policy of {app} (opens a new window)' },
  revocable: {
    id: 'consent.revocable',
    defaultMessage: 'Ciam remembers your choice. You can revoke it at any time under Applications in your Personal Center.',
  },
  // The consent's title once the app is known (issue 34 item 7: titled for what it asks).
  title: { id: 'authorize.titleApp', defaultMessage: 'Allow {app} to use your account' },
});

/** The heading and document title of the question: "Allow <app> to use your account". */
export const consentTitle = m.title;

interface Props {
  ctx: ConsentContext;
  /** Prefix of the test ids and element ids: `<prefix>-app`, `-asks`, `-scopes`, `-cancel`, `-allow`. */
  prefix: 'authorize' | 'embedded';
  /** The decision under way, if any: both buttons wait for it. */
  busy: 'allow' | 'cancel' | null;
  onAllow: () => void;
  onCancel: () => void;
  /** Who is signed in, masked as elsewhere (the account picker's mask); unknown: not shown. */
  account?: string | null;
  /** "Not you? Use another account": signs out, then back to the sign-in with the same request. */
  onSwitch?: () => void;
}

export function ConsentCard({ ctx, prefix, busy, onAllow, onCancel, account, onSwitch }: Props) {
  const intl = useIntl();
  const logo = logoUrl(ctx.logo);
  const privacy = logoUrl(ctx.privacyUrl);
  const scopes = knownScopes(ctx.scopes);
  const app = <strong data-testid={`${prefix}-app`}>{ctx.name}</strong>;
  return (
    <>
      {logo && <img className="app-logo" src={logo} alt={intl.formatMessage(m.logoAlt, { app: ctx.name })} width={64} height={64} />}
      {scopes.length ? (
        <>
          <p id={`${prefix}-asks`}>
            <FormattedMessage {...m.asks} values={{ app }} />
          </p>
          <ul aria-labelledby={`${prefix}-asks`} data-testid={`${prefix}-scopes`}>
            {scopes.map((s) => (
              <li key={s} data-scope={s}>
                <FormattedMessage {...scopeMessages[s]} />
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p>
          <FormattedMessage {...m.identityOnly} values={{ app }} />
        </p>
      )}
      {privacy && (
        <p>
          <a href={privacy} target="_blank" rel="noopener noreferrer" data-testid={`${prefix}-privacy`}>
            <FormattedMessage {...m.privacy} values={{ app: ctx.name }} />
          </a>
        </p>
      )}
      <p className="muted">
        <FormattedMessage {...m.revocable} />
      </p>
      {account && (
        <p className="who" data-testid={`${prefix}-who`}>
          <FormattedMessage {...m.signedInAs} values={{ account: <strong>{account}</strong> }} />{' '}
          {onSwitch && (
            <button type="button" className="link" data-testid={`${prefix}-switch`} disabled={busy !== null} onClick={onSwitch}>
              <FormattedMessage {...m.notYou} />
            </button>
          )}
        </p>
      )}
      <div className="actions">
        <button type="button" data-testid={`${prefix}-cancel`} disabled={busy !== null} onClick={onCancel}>
          <FormattedMessage {...m.cancel} />
        </button>
        <button type="button" className="primary" data-testid={`${prefix}-allow`} disabled={busy !== null}
          aria-busy={busy === 'allow'} onClick={onAllow}>
          <FormattedMessage {...(busy === 'allow' ? m.allowing : m.allow)} />
        </button>
      </div>
    </>
  );
}
