// The people of one organization in the console: its members (a role changed or a member removed,
// each with a reason; the last owner is kept by the server), its invitations (a new one to a mail
// or phone, with a reason) and its audit slice (the organization's own log, newest first).
import { type FormEvent, useId, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link } from 'react-router';
import { When } from '../../components/when';
import { errorText } from '../../lib/api';
import { adminPath } from '../../config/console-paths';
import { changeOrgMember, inviteToOrg, type OrgDetail, type OrgInvitation, type OrgMember, type OrgRole, ORG_ROLES, revokeOrgInvitation } from './api';
import { Section, useConsole, useLang, useMay } from './context';
import { named } from './labels';
import { OrgTable, orgRoleNames } from './org-kit';
import { ReasonDialog, T } from './widgets';

const m = defineMessages({
  members: { id: 'admin.org.members', defaultMessage: 'Members' },
  membersCaption: { id: 'admin.org.membersCaption', defaultMessage: 'Members, by user id' },
  noMembers: { id: 'admin.org.noMembers', defaultMessage: 'No members yet: invite its owner below.' },
  who: { id: 'admin.org.col.who', defaultMessage: 'Account' },
  role: { id: 'admin.org.col.role', defaultMessage: 'Role' },
  joined: { id: 'admin.org.col.joined', defaultMessage: 'Joined' },
  change: { id: 'admin.org.col.change', defaultMessage: 'Change' },
  roleOf: { id: 'admin.org.roleOf', defaultMessage: 'Role of {who}' },
  remove: { id: 'admin.org.remove', defaultMessage: 'Remove' },
  removeOf: { id: 'admin.org.removeOf', defaultMessage: 'Remove {who}' },
  removeTitle: { id: 'admin.org.removeTitle', defaultMessage: 'Remove {who} from the organization?' },
  removeText: { id: 'admin.org.removeText', defaultMessage: 'Their account stays; they are no longer a member. The apps that hear the organization’s events are told.' },
  removed: { id: 'admin.org.removed', defaultMessage: '{who} is no longer a member.' },
  roleTitle: { id: 'admin.org.roleTitle', defaultMessage: 'Make {who} {role}?' },
  roleText: { id: 'admin.org.roleText', defaultMessage: 'An organization always keeps one owner at least.' },
  roleConfirm: { id: 'admin.org.roleConfirm', defaultMessage: 'Change the role' },
  roleDone: { id: 'admin.org.roleDone', defaultMessage: '{who} is now {role}.' },
  more: { id: 'admin.org.more', defaultMessage: 'More members' },
  invitations: { id: 'admin.org.invitations', defaultMessage: 'Invitations' },
  invCaption: { id: 'admin.org.invCaption', defaultMessage: 'Invitations not yet expired' },
  noInvitations: { id: 'admin.org.noInvitations', defaultMessage: 'No invitation in the last 7 days.' },
  to: { id: 'admin.org.col.to', defaultMessage: 'Sent to' },
  state: { id: 'admin.org.col.state', defaultMessage: 'State' },
  sent: { id: 'admin.org.col.sent', defaultMessage: 'Sent' },
  expires: { id: 'admin.org.col.expires', defaultMessage: 'Expires' },
  pending: { id: 'admin.org.inv.pending', defaultMessage: 'Pending' },
  used: { id: 'admin.org.inv.used', defaultMessage: 'Accepted' },
  revoked: { id: 'admin.org.inv.revoked', defaultMessage: 'Revoked' },
  revoke: { id: 'admin.org.revoke', defaultMessage: 'Revoke' },
  revokeOf: { id: 'admin.org.revokeOf', defaultMessage: 'Revoke the invitation to {to}' },
  revokeTitle: { id: 'admin.org.revokeTitle', defaultMessage: 'Revoke the invitation to {to}?' },
  revokeText: { id: 'admin.org.revokeText', defaultMessage: 'Its link stops working at once; whoever opens it is told it was revoked.' },
  revoked2: { id: 'admin.org.revokedSay', defaultMessage: 'The invitation to {to} is revoked.' },
  act: { id: 'admin.org.col.act', defaultMessage: 'Revoke' },
  invite: { id: 'admin.org.invite', defaultMessage: 'Invite someone' },
  inviteTo: { id: 'admin.org.inviteTo', defaultMessage: 'Mail or mainland phone number' },
  inviteRole: { id: 'admin.org.inviteRole', defaultMessage: 'Role' },
  defaultRole: { id: 'admin.org.inviteDefault', defaultMessage: 'The organization’s default' },
  inviteButton: { id: 'admin.org.inviteButton', defaultMessage: 'Invite…' },
  inviteTitle: { id: 'admin.org.inviteTitle', defaultMessage: 'Invite {to}?' },
  inviteText: { id: 'admin.org.inviteText', defaultMessage: 'A link valid for 7 days is sent; whoever accepts must sign in with this mail or phone.' },
  inviteConfirm: { id: 'admin.org.inviteConfirm', defaultMessage: 'Send the invitation' },
  invited: { id: 'admin.org.invited', defaultMessage: 'An invitation is sent to {to}.' },
  toRequired: { id: 'admin.org.toRequired', defaultMessage: 'Give a mail or a phone number' },
  audit: { id: 'admin.org.audit', defaultMessage: 'The organization’s log' },
  auditCaption: { id: 'admin.org.auditCaption', defaultMessage: 'Changes to the organization, newest first' },
  noAudit: { id: 'admin.org.noAudit', defaultMessage: 'Nothing recorded.' },
  at: { id: 'admin.org.col.at', defaultMessage: 'Time' },
  actor: { id: 'admin.org.col.actor', defaultMessage: 'By' },
  action: { id: 'admin.org.col.action', defaultMessage: 'What' },
  target: { id: 'admin.org.col.target', defaultMessage: 'On' },
  reason: { id: 'admin.org.col.reason', defaultMessage: 'Reason' },
});

const invStates: Record<string, typeof m.pending> = { pending: m.pending, used: m.used, revoked: m.revoked };

type Change = { member: OrgMember; to: OrgRole | 'remove' };

export function OrgMembers({ d, onChanged, onPage }: { d: OrgDetail; onChanged: (text: string) => void; onPage: (after: string | undefined) => void }) {
  const intl = useIntl();
  const lang = useLang();
  const operator = useMay('operator') && d.organization.status === 'active';
  const { guard } = useConsole();
  const [change, setChange] = useState<Change | null>(null);
  const roleName = (r: string) => (orgRoleNames[r] ? intl.formatMessage(orgRoleNames[r]) : r);
  const full = d.members.length === 50;
  const cols = operator ? [m.who, m.role, m.joined, m.change] : [m.who, m.role, m.joined];
  return (
    <Section title={<FormattedMessage {...m.members} />}>
      {d.members.length === 0 ? (
        <p className="muted">
          <FormattedMessage {...m.noMembers} />
        </p>
      ) : (
        <OrgTable caption={intl.formatMessage(m.membersCaption)} cols={cols} testId="org-members">
          {d.members.map((x) => (
            <tr key={x.userId}>
              <th scope="row">
                <Link to={adminPath(lang, 'account', x.userId)}>{x.userId}</Link>
              </th>
              <td>
                <T msg={named(orgRoleNames, x.role)} />
              </td>
              <td>
                <When at={x.joinedAt} />
              </td>
              {operator && (
                <td>
                  <div className="row-actions">
                    <select aria-label={intl.formatMessage(m.roleOf, { who: x.userId })} value={x.role} onChange={(e) => setChange({ member: x, to: e.target.value })}>
                      {ORG_ROLES.map((r) => (
                        <option key={r} value={r}>
                          {roleName(r)}
                        </option>
                      ))}
                    </select>
                    <button type="button" className="danger" aria-label={intl.formatMessage(m.removeOf, { who: x.userId })} onClick={() => setChange({ member: x, to: 'remove' })}>
                      <FormattedMessage {...m.remove} />
                    </button>
                  </div>
                </td>
              )}
            </tr>
          ))}
        </OrgTable>
      )}
      <div className="actions">
        {full && (
          <button type="button" onClick={() => onPage(d.members[d.members.length - 1]?.userId)}>
            <FormattedMessage {...m.more} />
          </button>
        )}
      </div>
      {change && (
        <ReasonDialog
          testId="org-member-dialog"
          title={
            change.to === 'remove' ? (
              <FormattedMessage {...m.removeTitle} values={{ who: change.member.userId }} />
            ) : (
              <FormattedMessage {...m.roleTitle} values={{ who: change.member.userId, role: roleName(change.to) }} />
            )
          }
          description={<FormattedMessage {...(change.to === 'remove' ? m.removeText : m.roleText)} />}
          confirm={change.to === 'remove' ? m.remove : m.roleConfirm}
          danger={change.to === 'remove'}
          run={(reason) => guard(() => changeOrgMember(d.organization.orgId, change.member.userId, change.to === 'remove' ? { remove: true } : { role: change.to }, reason))}
          onDone={(ok) => {
            const c = change;
            setChange(null);
            if (!ok) return;
            const who = c.member.userId;
            onChanged(c.to === 'remove' ? intl.formatMessage(m.removed, { who }) : intl.formatMessage(m.roleDone, { who, role: roleName(c.to) }));
          }}
        />
      )}
    </Section>
  );
}

export function OrgInvitations({ d, onChanged }: { d: OrgDetail; onChanged: (text: string) => void }) {
  const intl = useIntl();
  const id = useId();
  const operator = useMay('operator') && d.organization.status === 'active';
  const { guard } = useConsole();
  const [to, setTo] = useState('');
  const [role, setRole] = useState<OrgRole | ''>('');
  const [error, setError] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const [revoking, setRevoking] = useState<OrgInvitation | null>(null);
  const roleName = (r: string) => (orgRoleNames[r] ? intl.formatMessage(orgRoleNames[r]) : r);
  const mayRevoke = useMay('operator');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!to.trim()) return setError(intl.formatMessage(m.toRequired));
    setError(null);
    setAsking(true);
  };
  return (
    <Section title={<FormattedMessage {...m.invitations} />}>
      {d.invitations.length === 0 ? (
        <p className="muted">
          <FormattedMessage {...m.noInvitations} />
        </p>
      ) : (
        <OrgTable caption={intl.formatMessage(m.invCaption)} cols={mayRevoke ? [m.to, m.role, m.state, m.sent, m.expires, m.act] : [m.to, m.role, m.state, m.sent, m.expires]} testId="org-invitations">
          {d.invitations.map((i) => (
            <tr key={i.invId}>
              <th scope="row">{i.to}</th>
              <td>{roleName(i.role)}</td>
              <td>
                <T msg={named(invStates, i.status)} />
              </td>
              <td>
                <When at={i.createdAt} />
              </td>
              <td>
                <When at={i.expiresAt} />
              </td>
              {mayRevoke && (
                <td>
                  {i.status === 'pending' && (
                    <button type="button" className="danger" aria-label={intl.formatMessage(m.revokeOf, { to: i.to })} onClick={() => setRevoking(i)}>
                      <FormattedMessage {...m.revoke} />
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </OrgTable>
      )}
      {revoking && (
        <ReasonDialog
          testId="org-revoke-dialog"
          title={<FormattedMessage {...m.revokeTitle} values={{ to: revoking.to }} />}
          description={<FormattedMessage {...m.revokeText} />}
          confirm={m.revoke}
          danger
          run={(reason) => guard(() => revokeOrgInvitation(d.organization.orgId, revoking.invId, reason))}
          onDone={(ok) => {
            const i = revoking;
            setRevoking(null);
            if (ok) onChanged(intl.formatMessage(m.revoked2, { to: i.to }));
          }}
        />
      )}
      {operator && (
        <form className="console-form" data-testid="org-invite" onSubmit={submit} noValidate>
          <h3>
            <FormattedMessage {...m.invite} />
          </h3>
          <label htmlFor={`${id}t`}>
            <FormattedMessage {...m.inviteTo} />
          </label>
          <input id={`${id}t`} name="to" maxLength={254} value={to} aria-invalid={!!error} aria-describedby={`${id}e`} onChange={(e) => setTo(e.target.value)} />
          <p id={`${id}e`} className="field-error" role="alert">
            {error}
          </p>
          <label htmlFor={`${id}r`}>
            <FormattedMessage {...m.inviteRole} />
          </label>
          <select id={`${id}r`} value={role} onChange={(e) => setRole(e.target.value)}>
            <option value="">{intl.formatMessage(m.defaultRole)}</option>
            {ORG_ROLES.map((r) => (
              <option key={r} value={r}>
                {roleName(r)}
              </option>
            ))}
          </select>
          <button type="submit" className="primary">
            <FormattedMessage {...m.inviteButton} />
          </button>
        </form>
      )}
      {asking && (
        <ReasonDialog
          testId="org-invite-dialog"
          title={<FormattedMessage {...m.inviteTitle} values={{ to: to.trim() }} />}
          description={<FormattedMessage {...m.inviteText} />}
          confirm={m.inviteConfirm}
          run={async (reason) => {
            const r = await guard(() => inviteToOrg(d.organization.orgId, to.trim(), role || undefined, reason));
            if (r && !r.success && r.error.field !== 'reason') {
              setError(errorText(r.error));
              return { success: true, data: null };
            }
            if (r?.success) {
              onChanged(intl.formatMessage(m.invited, { to: to.trim() }));
              setTo('');
            }
            return r;
          }}
          onDone={() => setAsking(false)}
        />
      )}
    </Section>
  );
}

export function OrgAuditSlice({ d }: { d: OrgDetail }) {
  const intl = useIntl();
  const lang = useLang();
  return (
    <Section title={<FormattedMessage {...m.audit} />}>
      {d.audit.length === 0 ? (
        <p className="muted">
          <FormattedMessage {...m.noAudit} />
        </p>
      ) : (
        <OrgTable caption={intl.formatMessage(m.auditCaption)} cols={[m.at, m.actor, m.action, m.target, m.reason]} testId="org-audit">
          {d.audit.map((e) => (
            <tr key={e.cursor}>
              <th scope="row">
                <When at={e.at} />
              </th>
              <td>
                <Link to={adminPath(lang, 'account', e.actor)}>{e.actor}</Link> <span className="muted cell-note">({e.actorRole})</span>
              </td>
              <td>
                <code>{e.action}</code>
                {e.detail && <span className="muted cell-note"> {e.detail}</span>}
              </td>
              <td>{e.target}</td>
              <td>{e.reason}</td>
            </tr>
          ))}
        </OrgTable>
      )}
    </Section>
  );
}
