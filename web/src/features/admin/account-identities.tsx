// An account's linked identities on its console page (docs/federation-design.md §4.4): each
// provider with the person's id there masked, when it was linked and last used; an operator
// unlinks one with a reason (POST /admin/accounts/{userId}/unlink-identity, audited; never the
// account's last way in: FEDERATION_LAST_WAY_IN stays in the dialog). A company's sign-in
// (`org:<connId>`) is named by its organization and connection and not unlinked here: it is the
// company's (docs/organizations-connections.md §3).
import { useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Said, useSaid } from '../../components/said';
import { When } from '../../components/when';
import { type AccountPage, unlinkIdentity } from './api';
import { Section, useConsole, useMay } from './context';
import { named, providerNames } from './labels';
import { ReasonDialog, usePunct } from './widgets';

const m = defineMessages({
  heading: { id: 'admin.account.identities', defaultMessage: 'Linked accounts' },
  none: { id: 'admin.account.identitiesNone', defaultMessage: 'No account of another service is linked.' },
  linkedAt: { id: 'admin.account.identityLinkedAt', defaultMessage: 'Linked {when}' },
  lastDay: { id: 'admin.account.identityLastDay', defaultMessage: 'last used on {date}' },
  unlink: { id: 'admin.account.unlink', defaultMessage: 'Unlink' },
  unlinkOf: { id: 'admin.account.unlinkOf', defaultMessage: 'Unlink {provider}' },
  unlinkTitle: { id: 'admin.account.unlinkTitle', defaultMessage: 'Unlink {provider} from {name}?' },
  unlinkHelp: {
    id: 'admin.account.unlinkHelp',
    defaultMessage: 'The customer can no longer sign in with it and is told by a notice. The last way to sign in is never removed.',
  },
  unlinked: { id: 'admin.account.unlinked', defaultMessage: 'The {provider} account was unlinked.' },
});

type Identity = AccountPage['identities'][number];

/** A company's sign-in (`org:<connId>`): its organization and connection, in the page's language. */
function companyName(locale: string, o: { nameZh: string; nameEn: string; connectionZh: string; connectionEn: string }): string {
  const zh = locale.startsWith('zh');
  const pick = (a: string, b: string) => (zh ? a || b : b || a);
  return `${pick(o.nameZh, o.nameEn)} · ${pick(o.connectionZh, o.connectionEn)}`;
}

export function AccountIdentities({ a, onDone }: { a: AccountPage; onDone: () => void }) {
  const intl = useIntl();
  const punct = usePunct();
  const operator = useMay('operator');
  const { guard } = useConsole();
  const [asking, setAsking] = useState<Identity | null>(null);
  const done = useSaid();
  const name = (p: string) => {
    const n = named(providerNames, p);
    return typeof n === 'string' ? n : intl.formatMessage(n);
  };
  return (
    <Section title={<FormattedMessage {...m.heading} />} id="identities">
      <Said said={done.said} testId="unlink-done" focus />
      {a.identities.length === 0 ? (
        <p className="muted">
          <FormattedMessage {...m.none} />
        </p>
      ) : (
        <ul className="items" data-testid="account-identities">
          {a.identities.map((i) => (
            <li key={i.provider} data-provider={i.provider}>
              <div>
                <strong>{i.organization ? companyName(intl.locale, i.organization) : name(i.provider)}</strong> <code>{i.subjectMasked}</code>
                {i.name ? ` · ${i.name}` : ''}
                <p className="muted">
                  <FormattedMessage {...m.linkedAt} values={{ when: <When at={i.linkedAt} /> }} />
                  {i.lastDay && (
                    <>
                      {punct.comma}
                      <FormattedMessage {...m.lastDay} values={{ date: i.lastDay }} />
                    </>
                  )}
                </p>
              </div>
              {/* A company's sign-in is the company's: its admins manage the connection. */}
              {operator && a.status !== 'deactivated' && !i.organization && (
                <button type="button" className="danger" data-testid={`unlink-${i.provider}`}
                  aria-label={intl.formatMessage(m.unlinkOf, { provider: name(i.provider) })} onClick={() => setAsking(i)}>
                  <FormattedMessage {...m.unlink} />
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {asking && (
        <ReasonDialog
          testId="unlink-dialog"
          title={<FormattedMessage {...m.unlinkTitle} values={{ provider: name(asking.provider), name: a.userName }} />}
          description={<FormattedMessage {...m.unlinkHelp} />}
          confirm={m.unlink}
          danger
          run={(reason) => guard(() => unlinkIdentity(a.userId, asking.provider, reason))}
          onDone={(ok) => {
            const which = asking.provider;
            setAsking(null);
            if (!ok) return;
            done.say(intl.formatMessage(m.unlinked, { provider: name(which) }));
            onDone();
          }}
        />
      )}
    </Section>
  );
}
