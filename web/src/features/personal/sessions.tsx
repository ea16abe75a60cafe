// Where the account is signed in (GET /auth/sessions, each revocable with DELETE
// /auth/sessions/{id}; revoking this one signs out here) and the security activity
// (GET /auth/activity), each with device, country or region, and local date and time.
import { useCallback, useEffect, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { useNavigate } from 'react-router';
import { paths } from '../../config/paths';
import { asLocale } from '../../i18n/locale';
import { type Answer, handleError, type Result } from '../../lib/api';
import { listActivity, listSessions, revokeSession } from './api';
import { regionName } from '../../lib/countries';
import { providerName } from './linked-accounts';
import * as session from '../../lib/session';
import { Said, useSaid } from '../../components/said';
import { Dialog } from '../../components/dialog';
import { When } from '../../components/when';
import { hasReason } from '../../lib/reasons';

const m = defineMessages({
  sessionsHeading: { id: 'secure.sessions.heading', defaultMessage: 'Where you are signed in' },
  sessionsIntro: { id: 'secure.sessions.intro', defaultMessage: 'Sign out of any device you do not recognise, then change your password.' },
  thisDevice: { id: 'secure.sessions.this', defaultMessage: 'This device' },
  unknownDevice: { id: 'secure.sessions.unknownDevice', defaultMessage: 'Unknown device' },
  unknownPlace: { id: 'secure.sessions.unknownPlace', defaultMessage: 'Unknown location' },
  signedIn: { id: 'secure.sessions.signedIn', defaultMessage: 'Signed in {when}' },
  lastSeen: { id: 'secure.sessions.lastSeen', defaultMessage: 'Last active {when}' },
  revoke: { id: 'secure.sessions.revoke', defaultMessage: 'Sign out' },
  revokeHere: { id: 'secure.sessions.revokeHere', defaultMessage: 'Sign out here' },
  revoked: { id: 'secure.sessions.revoked', defaultMessage: 'That device has been signed out' },
  revokeTitle: { id: 'secure.sessions.revokeTitle', defaultMessage: 'Sign out of this device?' },
  revokeHereTitle: { id: 'secure.sessions.revokeHereTitle', defaultMessage: 'Sign out here?' },
  revokeText: { id: 'secure.sessions.revokeText', defaultMessage: 'Whoever uses it will have to sign in again.' },
  revokeHereText: { id: 'secure.sessions.revokeHereText', defaultMessage: 'You will go back to the sign-in page.' },
  others: { id: 'secure.sessions.others', defaultMessage: 'Sign out of all other devices' },
  othersTitle: { id: 'secure.sessions.othersTitle', defaultMessage: 'Sign out of all other devices?' },
  othersText: { id: 'secure.sessions.othersText', defaultMessage: 'Every device except this one will have to sign in again.' },
  othersDone: { id: 'secure.sessions.othersDone', defaultMessage: 'All other devices have been signed out' },
  cancel: { id: 'secure.sessions.cancel', defaultMessage: 'Cancel' },
  activityHeading: { id: 'secure.activity.heading', defaultMessage: 'Security activity' },
  activityIntro: { id: 'secure.activity.intro', defaultMessage: 'Recent sign-ins and changes to your account security.' },
  none: { id: 'secure.activity.none', defaultMessage: 'Nothing to show yet.' },
  loading: { id: 'secure.sessions.loading', defaultMessage: 'Loading…' },
  failed: { id: 'secure.sessions.failed', defaultMessage: 'This list could not be loaded.' },
  retry: { id: 'secure.sessions.retry', defaultMessage: 'Try again' },
});

/** One event of the activity, as GET /auth/activity gives it. */
type EventView = Answer<'GET /auth/activity'>['events'][number];

/** The words of each activity kind: a kind the document adds fails the type check until it has its words. */
const KIND: Record<EventView['kind'], MessageDescriptor> = defineMessages({
  signIn: { id: 'secure.activity.signIn', defaultMessage: 'Signed in' },
  passwordChanged: { id: 'secure.activity.passwordChanged', defaultMessage: 'Password changed' },
  passwordReset: { id: 'secure.activity.passwordReset', defaultMessage: 'Password reset with a verification code' },
  totpEnabled: { id: 'secure.activity.totpEnabled', defaultMessage: 'Two-factor authentication turned on' },
  totpDisabled: { id: 'secure.activity.totpDisabled', defaultMessage: 'Two-factor authentication turned off' },
  backupCodesRegenerated: { id: 'secure.activity.backupCodesRegenerated', defaultMessage: 'Backup codes regenerated' },
  mailChanged: { id: 'secure.activity.mailChanged', defaultMessage: 'E-mail address changed' },
  phoneChanged: { id: 'secure.activity.phoneChanged', defaultMessage: 'Mobile number changed' },
  appRevoked: { id: 'secure.activity.appRevoked', defaultMessage: "An app's access was revoked" },
  passkeyAdded: { id: 'secure.activity.passkeyAdded', defaultMessage: 'Passkey added: {name}' },
  passkeyRemoved: { id: 'secure.activity.passkeyRemoved', defaultMessage: 'Passkey removed: {name}' },
  passkeyCloneSuspected: {
    id: 'secure.activity.passkeyCloneSuspected',
    defaultMessage: 'Passkey refused, it may have been copied: {name}',
  },
  unlockedBySupport: { id: 'secure.activity.unlockedBySupport', defaultMessage: 'Unlocked by support' },
  sessionsEndedBySupport: { id: 'secure.activity.sessionsEndedBySupport', defaultMessage: 'Signed out everywhere by support' },
  twoFactorResetBySupport: {
    id: 'secure.activity.twoFactorResetBySupport',
    defaultMessage: 'Two-factor authentication turned off by support',
  },
  resetCodeSentBySupport: {
    id: 'secure.activity.resetCodeSentBySupport',
    defaultMessage: 'Password reset code sent by support',
  },
  suspendedBySupport: { id: 'secure.activity.suspendedBySupport', defaultMessage: 'Account suspended by support' },
  reactivatedBySupport: { id: 'secure.activity.reactivatedBySupport', defaultMessage: 'Account reactivated by support' },
  passkeysResetBySupport: {
    id: 'secure.activity.passkeysResetBySupport',
    defaultMessage: 'Every passkey removed by support',
  },
  identityReplacedBySupport: {
    id: 'secure.activity.identityReplacedBySupport',
    defaultMessage: 'Mail or phone replaced by support',
  },
  identityLinked: { id: 'secure.activity.identityLinked', defaultMessage: 'Account linked: {name}' },
  identityUnlinked: { id: 'secure.activity.identityUnlinked', defaultMessage: 'Linked account removed: {name}' },
  identityUnlinkedBySupport: {
    id: 'secure.activity.identityUnlinkedBySupport',
    defaultMessage: 'Linked account removed by support: {name}',
  },
});

type SessionView = Answer<'GET /auth/sessions'>['sessions'][number];

/** A list loaded once (skipping the default error handling except for a lost session). */
function useList<T>(get: () => Promise<Result<unknown>>, pick: (data: unknown) => T[] | undefined) {
  const [items, setItems] = useState<T[] | null>(null);
  const [failed, setFailed] = useState(false);
  const load = useCallback(async () => {
    setFailed(false);
    const res = await get();
    if (res.success) setItems(pick(res.data) ?? []);
    else {
      if (hasReason(res.error, 'AUTHORIZATION_FAILED')) handleError(res.error);
      setFailed(true);
    }
  }, [get, pick]);
  useEffect(() => void load(), [load]);
  return { items, setItems, failed, load };
}

function Status({ failed, onRetry }: { failed: boolean; onRetry: () => void }) {
  return failed ? (
    <div role="alert">
      <p>
        <FormattedMessage {...m.failed} />
      </p>
      <button type="button" onClick={onRetry}>
        <FormattedMessage {...m.retry} />
      </button>
    </div>
  ) : (
    <p className="muted" aria-live="polite">
      <FormattedMessage {...m.loading} />
    </p>
  );
}

function Place({ device, country }: { device: string | null; country: string | null }) {
  const intl = useIntl();
  return (
    <>
      {device || intl.formatMessage(m.unknownDevice)} · {country ? regionName(country, intl.locale) : intl.formatMessage(m.unknownPlace)}
    </>
  );
}

const pickSessions = (d: unknown) => (d as { sessions?: SessionView[] })?.sessions?.filter((s) => s && typeof s.id === 'string');
const pickEvents = (d: unknown) => (d as { events?: EventView[] })?.events?.filter((e) => e && typeof e.kind === 'string');

export function Sessions() {
  const intl = useIntl();
  const navigate = useNavigate();
  const { items, setItems, failed, load } = useList<SessionView>(listSessions, pickSessions);
  const [busy, setBusy] = useState<string | null>(null);
  // Said under the list, with the focus: the ended session's row (and its button) goes away.
  const said = useSaid();
  // What the confirmation dialog asks about: one session, or every session but this one.
  const [asking, setAsking] = useState<SessionView | 'others' | null>(null);
  /** Ends one session; false when the server refused (already said by the default handling). */
  const end = async (s: SessionView) => {
    const res = await revokeSession(s.id);
    // NOT_FOUND: that session has ended already, which is what was asked.
    if (!res.success && !hasReason(res.error, 'NOT_FOUND')) {
      handleError(res.error);
      return false;
    }
    setItems((list) => list?.filter((x) => x.id !== s.id) ?? null);
    return true;
  };
  const revoke = async (s: SessionView) => {
    setBusy(s.id);
    const ok = await end(s);
    setBusy(null);
    if (!ok) return;
    if (s.current) {
      session.clear();
      navigate(paths.signin(asLocale(intl.locale) ?? 'zh-CN'), { replace: true });
      return;
    }
    said.say(intl.formatMessage(m.revoked));
  };
  const revokeOthers = async () => {
    setBusy('others');
    let ok = true;
    for (const s of items?.filter((x) => !x.current) ?? []) ok = (await end(s)) && ok;
    setBusy(null);
    if (ok) said.say(intl.formatMessage(m.othersDone));
  };
  const confirm = () => {
    const what = asking;
    setAsking(null);
    if (what === 'others') void revokeOthers();
    else if (what) void revoke(what);
  };
  const others = items?.filter((s) => !s.current).length ?? 0;
  return (
    <section className="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">
        <FormattedMessage {...m.sessionsHeading} />
      </h2>
      <p className="muted">
        <FormattedMessage {...m.sessionsIntro} />
      </p>
      {items ? (
        <ul className="items" data-testid="sessions">
          {items.map((s) => (
            <li key={s.id} data-current={s.current || undefined}>
              <div>
                <strong id={`session-${s.id}`}>
                  <Place device={s.device} country={s.country} />
                </strong>
                {s.current && (
                  <span className="badge">
                    <FormattedMessage {...m.thisDevice} />
                  </span>
                )}
                <p className="muted">
                  <FormattedMessage {...m.signedIn} values={{ when: <When at={s.createdAt} /> }} />
                  <br />
                  <FormattedMessage {...m.lastSeen} values={{ when: <When at={s.lastSeen} /> }} />
                </p>
              </div>
              <button type="button" className="danger" aria-describedby={`session-${s.id}`} disabled={busy !== null} onClick={() => setAsking(s)}>
                <FormattedMessage {...(s.current ? m.revokeHere : m.revoke)} />
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <Status failed={failed} onRetry={() => void load()} />
      )}
      <Said said={said.said} testId="sessions-said" focus />
      {others > 1 && (
        <p>
          <button type="button" className="danger" data-testid="sessions-revoke-others" disabled={busy !== null} onClick={() => setAsking('others')}>
            <FormattedMessage {...m.others} />
          </button>
        </p>
      )}
      {asking && (
        <Dialog
          testId="session-revoke-dialog"
          title={<FormattedMessage {...(asking === 'others' ? m.othersTitle : asking.current ? m.revokeHereTitle : m.revokeTitle)} />}
          description={
            asking === 'others' ? (
              <FormattedMessage {...m.othersText} />
            ) : (
              <>
                <Place device={asking.device} country={asking.country} />
                <br />
                <FormattedMessage {...(asking.current ? m.revokeHereText : m.revokeText)} />
              </>
            )
          }
          onCancel={() => setAsking(null)}
        >
          <div className="actions">
            <button type="button" data-autofocus onClick={() => setAsking(null)}>
              <FormattedMessage {...m.cancel} />
            </button>
            <button type="button" className="primary danger" data-testid="session-revoke-confirm" onClick={confirm}>
              <FormattedMessage {...(asking === 'others' ? m.others : asking.current ? m.revokeHere : m.revoke)} />
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}

export function Activity() {
  const intl = useIntl();
  const { items, failed, load } = useList<EventView>(listActivity, pickEvents);
  return (
    <section className="card" aria-labelledby="activity-title">
      <h2 id="activity-title">
        <FormattedMessage {...m.activityHeading} />
      </h2>
      <p className="muted">
        <FormattedMessage {...m.activityIntro} />
      </p>
      {items ? (
        items.length === 0 ? (
          <p className="muted">
            <FormattedMessage {...m.none} />
          </p>
        ) : (
          <ul className="events" data-testid="activity">
            {items.map((e, i) => (
              <li key={`${e.at}-${i}`} data-kind={e.kind}>
                <strong>{Object.prototype.hasOwnProperty.call(KIND, e.kind) ? intl.formatMessage(KIND[e.kind], { name: e.kind.startsWith('identity') && e.name ? providerName(intl, e.name) : (e.name ?? '') }) : e.kind}</strong>
                <span className="muted">
                  <When at={e.at} /> · <Place device={e.device} country={e.country} />
                </span>
              </li>
            ))}
          </ul>
        )
      ) : (
        <Status failed={failed} onRetry={() => void load()} />
      )}
    </section>
  );
}
