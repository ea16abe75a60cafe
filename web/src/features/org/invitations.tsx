// The invitations of an organization, for its owners and admins: invite a colleague by mail or
// mainland mobile number with a role (POST /org/{orgId}/invitations: the link goes by mail or SMS,
// valid 7 days, once), and the invitations not yet expired with their state; a waiting one can be
// withdrawn, after a confirmation.
import { type FormEvent, useId, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Dialog } from '../../components/dialog';
import { Field, FormAlert } from '../../components/field';
import { Said, useSaid } from '../../components/said';
import { useForm } from '../../components/use-form';
import { When } from '../../components/when';
import { errorText, handleError } from '../../lib/api';
import type { Invitation } from '../../lib/api-types.gen';
import { hasReason } from '../../lib/reasons';
import * as v from '../../lib/validate';
import { invite, revokeInvitation } from './api';
import { Card } from './card';
import { invitationState, roleName } from './labels';
import { invitable } from './roles';

const m = defineMessages({
  heading: { id: 'org.invitations.heading', defaultMessage: 'Invitations' },
  intro: {
    id: 'org.invitations.intro',
    defaultMessage: 'The invitation goes by mail or SMS with a link valid for 7 days. Whoever accepts it signs in with that e-mail address or phone number.',
  },
  to: { id: 'org.invitations.to', defaultMessage: 'E-mail address or mainland mobile number' },
  role: { id: 'org.invitations.role', defaultMessage: 'Role' },
  send: { id: 'org.invitations.send', defaultMessage: 'Send invitation' },
  sent: { id: 'org.invitations.sent', defaultMessage: 'The invitation to {to} was sent.' },
  none: { id: 'org.invitations.none', defaultMessage: 'No invitations in the last 7 days.' },
  expires: { id: 'org.invitations.expires', defaultMessage: 'Valid until {when}' },
  revoke: { id: 'org.invitations.revoke', defaultMessage: 'Withdraw' },
  revokeFor: { id: 'org.invitations.revokeFor', defaultMessage: 'Withdraw the invitation to {to}' },
  confirmRevoke: { id: 'org.invitations.confirmRevoke', defaultMessage: 'Withdraw the invitation to {to}?' },
  confirmRevokeText: { id: 'org.invitations.confirmRevokeText', defaultMessage: 'Its link stops working at once.' },
  revoked: { id: 'org.invitations.revoked', defaultMessage: 'The invitation to {to} was withdrawn.' },
  cancel: { id: 'org.invitations.cancel', defaultMessage: 'Cancel' },
});

export function Invitations({ orgId, role, list: first, onChanged }: { orgId: string; role: string; list: Invitation[]; onChanged: () => void }) {
  const intl = useIntl();
  const roles = invitable(role);
  const f = useForm<{ to: string; role: string }>({ to: '', role: roles.includes('member') ? 'member' : (roles[0] ?? 'member') });
  const [list, setList] = useState(first);
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState<Invitation | null>(null);
  const { said, say } = useSaid();
  const heading = useRef<HTMLHeadingElement>(null);
  const roleId = useId();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const to = f.values.to.trim();
    if (!f.check({ to: v.identity(to) })) return;
    setBusy(true);
    const r = await invite(orgId, to, f.values.role);
    setBusy(false);
    if (!r.success) {
      if (hasReason(r.error, 'INVALID_MAIL', 'INVALID_PHONE')) return f.flag('to', errorText(r.error));
      return f.refuse(r.error);
    }
    setList((l) => [r.data, ...l]);
    f.set('to', '');
    say(intl.formatMessage(m.sent, { to: r.data.to }));
    onChanged();
  };
  const revoke = async (inv: Invitation) => {
    setAsking(null);
    setBusy(true);
    const r = await revokeInvitation(orgId, inv.invId);
    setBusy(false);
    if (!r.success) return handleError(r.error);
    setList((l) => l.map((x) => (x.invId === inv.invId ? { ...x, status: 'revoked' } : x)));
    say(intl.formatMessage(m.revoked, { to: inv.to }));
    heading.current?.focus();
    onChanged();
  };

  return (
    <Card id="org-invitations" testId="org-invitations">
      <h2 id="org-invitations-title" ref={heading} tabIndex={-1}>
        <FormattedMessage {...m.heading} />
      </h2>
      <p className="muted">
        <FormattedMessage {...m.intro} />
      </p>
      <form ref={f.ref} onSubmit={(e) => void submit(e)} noValidate data-testid="org-invite-form">
        <FormAlert {...f.alert} />
        <Field {...f.bind('to')} label={m.to} autoComplete="off" inputMode="email" maxLength={254} required />
        <label htmlFor={roleId}>
          <FormattedMessage {...m.role} />
        </label>
        <select id={roleId} name="role" value={f.values.role} onChange={(e) => f.set('role', e.target.value)}>
          {roles.map((r) => (
            <option key={r} value={r}>
              {roleName(intl, r)}
            </option>
          ))}
        </select>
        <button type="submit" className="primary" disabled={busy} data-testid="org-invite-send">
          <FormattedMessage {...m.send} />
        </button>
      </form>
      <Said said={said} testId="org-invitations-said" />
      {list.length === 0 ? (
        <p className="muted">
          <FormattedMessage {...m.none} />
        </p>
      ) : (
        <ul className="items" aria-labelledby="org-invitations-title">
          {list.map((inv) => (
            <li key={inv.invId} data-testid="org-invitation" data-status={inv.status}>
              <div>
                <strong>{inv.to}</strong> · {roleName(intl, inv.role)} · {invitationState(intl, inv.status)}
                {inv.status === 'pending' && (
                  <p className="muted">
                    <FormattedMessage {...m.expires} values={{ when: <When at={inv.expiresAt} /> }} />
                  </p>
                )}
              </div>
              {inv.status === 'pending' && (
                <button
                  type="button"
                  className="danger"
                  disabled={busy}
                  aria-label={intl.formatMessage(m.revokeFor, { to: inv.to })}
                  data-testid="org-invitation-revoke"
                  onClick={() => setAsking(inv)}
                >
                  <FormattedMessage {...m.revoke} />
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {asking && (
        <Dialog
          testId="org-invitation-dialog"
          title={intl.formatMessage(m.confirmRevoke, { to: asking.to })}
          description={intl.formatMessage(m.confirmRevokeText)}
          onCancel={() => setAsking(null)}
        >
          <div className="actions">
            <button type="button" data-autofocus onClick={() => setAsking(null)}>
              <FormattedMessage {...m.cancel} />
            </button>
            <button type="button" className="primary danger" data-testid="org-invitation-confirm" onClick={() => void revoke(asking)}>
              <FormattedMessage {...m.revoke} />
            </button>
          </div>
        </Dialog>
      )}
    </Card>
  );
}
