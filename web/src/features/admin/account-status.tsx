// The top of an account's console page (issue 34 item 3): its status in words ("Locked until
// 14:05"; "Suspended since 1 Dec") above the actions for that status, so Unlock or Reactivate is
// the first button in view on a desktop and on a phone; then the failed sign-in attempts, each
// with its time, address and device (GET /admin/accounts/{userId}'s failedAttempts, recorded as
// they happen, kept as long as the security activity).
import { type ReactNode } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor } from 'react-intl';
import { When } from '../../components/when';
import { type AccountPage } from './api';
import { Section } from './context';
import { statusNames } from './labels';
import { Place } from './widgets';

const m = defineMessages({
  heading: { id: 'admin.account.statusHeading', defaultMessage: 'Status' },
  lockedUntil: { id: 'admin.account.lockedUntilLine', defaultMessage: 'Locked until {time}' },
  lockedWhy: {
    id: 'admin.account.lockedWhy',
    defaultMessage: 'Too many failed sign-in attempts. The lock ends by itself, or unlock it now.',
  },
  suspendedSince: { id: 'admin.account.suspendedSince', defaultMessage: 'Suspended since {time}' },
  suspendedWhy: {
    id: 'admin.account.suspendedWhy',
    defaultMessage: 'No sign-in by any method until it is reactivated. The reason is in the audit log.',
  },
  attempts: { id: 'admin.account.attempts', defaultMessage: 'Failed sign-in attempts' },
  attemptsNone: { id: 'admin.account.attemptsNone', defaultMessage: 'No failed sign-in attempts are kept.' },
  attemptsHelp: {
    id: 'admin.account.attemptsHelp',
    defaultMessage: 'The latest wrong passwords, codes and second factors, newest first, kept 180 days.',
  },
  address: { id: 'admin.account.attemptAddress', defaultMessage: 'Address {ip}' },
  noAddress: { id: 'admin.account.attemptNoAddress', defaultMessage: 'Address unknown' },
  unknownDevice: { id: 'admin.account.attemptUnknownDevice', defaultMessage: 'Unknown device' },
});

const ways: Record<string, MessageDescriptor> = defineMessages({
  password: { id: 'admin.attempt.password', defaultMessage: 'Wrong password' },
  code: { id: 'admin.attempt.code', defaultMessage: 'Wrong sign-in code' },
  secondFactor: { id: 'admin.attempt.secondFactor', defaultMessage: 'Wrong authenticator or backup code' },
});

/** The status section: the status, what it means, then `actions` (the operator's buttons). */
export function StatusCard({ a, children }: { a: AccountPage; children?: ReactNode }) {
  const locked = a.status === 'locked' && a.lockedUntil;
  const suspended = a.status === 'suspended' && a.suspendedAt;
  return (
    <Section title={<FormattedMessage {...m.heading} />} id="actions" className="account-status">
      <p className="status-line">
        <span className={`status status-${a.status}`} data-testid="account-status">
          <FormattedMessage {...(statusNames[a.status] ?? statusNames.active)} />
        </span>{' '}
        {locked && (
          <strong data-testid="account-status-detail">
            <FormattedMessage {...m.lockedUntil} values={{ time: <When at={a.lockedUntil} /> }} />
          </strong>
        )}
        {suspended && (
          <strong data-testid="account-status-detail">
            <FormattedMessage {...m.suspendedSince} values={{ time: <When at={a.suspendedAt} /> }} />
          </strong>
        )}
      </p>
      {locked && (
        <p className="muted">
          <FormattedMessage {...m.lockedWhy} />
        </p>
      )}
      {suspended && (
        <p className="muted">
          <FormattedMessage {...m.suspendedWhy} />
        </p>
      )}
      {children}
    </Section>
  );
}

/** The failed sign-in attempts kept for the account, newest first. */
export function FailedAttempts({ a }: { a: AccountPage }) {
  return (
    <Section title={<FormattedMessage {...m.attempts} />} id="attempts">
      {a.failedAttempts.length === 0 ? (
        <p className="muted" data-testid="attempts-none">
          <FormattedMessage {...m.attemptsNone} />
        </p>
      ) : (
        <>
          <p className="muted">
            <FormattedMessage {...m.attemptsHelp} />
          </p>
          <ul className="events" data-testid="account-attempts">
            {a.failedAttempts.map((f, i) => (
              <li key={`${f.at}-${i}`}>
                <strong>
                  <FormattedMessage {...(ways[f.way] ?? ways.password)} />
                </strong>
                <span className="muted">
                  <When at={f.at} />
                  {' · '}
                  {f.ip ? <FormattedMessage {...m.address} values={{ ip: <code>{f.ip}</code> }} /> : <FormattedMessage {...m.noAddress} />}
                  {' · '}
                  {f.device ?? <FormattedMessage {...m.unknownDevice} />}
                  {f.country ? (
                    <>
                      {' · '}
                      <Place code={f.country} />
                    </>
                  ) : null}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </Section>
  );
}
