// The members of an organization, for its owners and admins: each with their role and when they
// joined; a role can be changed, or the member removed, where roles.ts says the caller may (the
// server decides: ORG_ROLE_FORBIDDEN, ORG_LAST_OWNER), each after a confirmation. 50 a page.
import { useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Dialog } from '../../components/dialog';
import { Said, useSaid } from '../../components/said';
import { When } from '../../components/when';
import { handleError } from '../../lib/api';
import type { Membership } from '../../lib/api-types.gen';
import { getOrganization, removeMember, setRole } from './api';
import { Card } from './card';
import { roleName } from './labels';
import { assignable, removable } from './roles';

const m = defineMessages({
  heading: { id: 'org.members.heading', defaultMessage: 'Members' },
  you: { id: 'org.members.you', defaultMessage: 'You' },
  joined: { id: 'org.members.joined', defaultMessage: 'Joined {when}' },
  roleOf: { id: 'org.members.roleOf', defaultMessage: 'Role of {who}' },
  change: { id: 'org.members.change', defaultMessage: 'Change role' },
  changeFor: { id: 'org.members.changeFor', defaultMessage: 'Change role of {who}' },
  remove: { id: 'org.members.remove', defaultMessage: 'Remove' },
  removeFor: { id: 'org.members.removeFor', defaultMessage: 'Remove {who}' },
  more: { id: 'org.members.more', defaultMessage: 'More members' },
  cancel: { id: 'org.members.cancel', defaultMessage: 'Cancel' },
  confirmRole: { id: 'org.members.confirmRole', defaultMessage: 'Make {who} {role}?' },
  confirmRoleText: { id: 'org.members.confirmRoleText', defaultMessage: 'Their rights in the organization change at once.' },
  confirmRemove: { id: 'org.members.confirmRemove', defaultMessage: 'Remove {who} from the organization?' },
  confirmRemoveText: {
    id: 'org.members.confirmRemoveText',
    defaultMessage: 'They leave the organization at once; their Ciam account stays. Invite them again to bring them back.',
  },
  roleChanged: { id: 'org.members.roleChanged', defaultMessage: '{who} is now {role}.' },
  removed: { id: 'org.members.removed', defaultMessage: '{who} was removed from the organization.' },
});

type Asking = { kind: 'role'; member: Membership; role: string } | { kind: 'remove'; member: Membership };

export function Members({ orgId, role, me, first, next: firstNext, onChanged }: {
  orgId: string;
  role: string;
  me: string | null;
  first: Membership[];
  next: string | null;
  onChanged: () => void;
}) {
  const intl = useIntl();
  const [list, setList] = useState(first);
  const [next, setNext] = useState(firstNext);
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const [asking, setAsking] = useState<Asking | null>(null);
  const [busy, setBusy] = useState(false);
  const { said, say } = useSaid();
  const heading = useRef<HTMLHeadingElement>(null);
  const who = (x: Membership) => (x.userId === me ? intl.formatMessage(m.you) : x.userId);

  const more = async () => {
    if (!next) return;
    setBusy(true);
    const r = await getOrganization(orgId, next);
    setBusy(false);
    if (!r.success) return handleError(r.error);
    setList((l) => [...l, ...r.data.members.filter((x) => !l.some((y) => y.userId === x.userId))]);
    setNext(r.data.next);
  };
  const act = async (a: Asking) => {
    setAsking(null);
    setBusy(true);
    const r = a.kind === 'role' ? await setRole(orgId, a.member.userId, a.role) : await removeMember(orgId, a.member.userId);
    setBusy(false);
    if (!r.success) return handleError(r.error);
    if (a.kind === 'role') {
      setList((l) => l.map((x) => (x.userId === a.member.userId ? { ...x, role: a.role } : x)));
      say(intl.formatMessage(m.roleChanged, { who: who(a.member), role: roleName(intl, a.role) }));
    } else {
      setList((l) => l.filter((x) => x.userId !== a.member.userId));
      say(intl.formatMessage(m.removed, { who: who(a.member) }));
      // Its row is gone with its buttons: the focus stays in the card.
      heading.current?.focus();
    }
    onChanged();
  };

  return (
    <Card id="org-members" testId="org-members">
      <h2 id="org-members-title" ref={heading} tabIndex={-1}>
        <FormattedMessage {...m.heading} />
      </h2>
      <Said said={said} testId="org-members-said" />
      <ul className="items" aria-labelledby="org-members-title">
        {list.map((x) => {
          const self = x.userId === me;
          const roles = assignable(role, x.role, self);
          const pick = chosen[x.userId] ?? x.role;
          const name = who(x);
          return (
            <li key={x.userId} data-testid="org-member" data-user-id={x.userId} data-role={x.role}>
              <div>
                <strong className={self ? undefined : 'mono'}>{name}</strong> · {roleName(intl, x.role)}
                <p className="muted">
                  <FormattedMessage {...m.joined} values={{ when: <When at={x.joinedAt} dateOnly /> }} />
                </p>
              </div>
              {(roles.length > 0 || removable(role, x.role, self)) && (
                <div className="row-actions">
                  {roles.length > 0 && (
                    <>
                      <select
                        aria-label={intl.formatMessage(m.roleOf, { who: name })}
                        value={pick}
                        data-testid="org-member-role"
                        onChange={(e) => setChosen((c) => ({ ...c, [x.userId]: e.target.value }))}
                      >
                        {roles.map((r) => (
                          <option key={r} value={r}>
                            {roleName(intl, r)}
                          </option>
                        ))}
                      </select>
                      <button
                        type="button"
                        disabled={busy || pick === x.role}
                        aria-label={intl.formatMessage(m.changeFor, { who: name })}
                        data-testid="org-member-change"
                        onClick={() => setAsking({ kind: 'role', member: x, role: pick })}
                      >
                        <FormattedMessage {...m.change} />
                      </button>
                    </>
                  )}
                  {removable(role, x.role, self) && (
                    <button
                      type="button"
                      className="danger"
                      disabled={busy}
                      aria-label={intl.formatMessage(m.removeFor, { who: name })}
                      data-testid="org-member-remove"
                      onClick={() => setAsking({ kind: 'remove', member: x })}
                    >
                      <FormattedMessage {...m.remove} />
                    </button>
                  )}
                </div>
              )}
            </li>
          );
        })}
      </ul>
      {next && (
        <button type="button" disabled={busy} onClick={() => void more()} data-testid="org-members-more">
          <FormattedMessage {...m.more} />
        </button>
      )}
      {asking && (
        <Dialog
          testId="org-member-dialog"
          title={
            asking.kind === 'role'
              ? intl.formatMessage(m.confirmRole, { who: who(asking.member), role: roleName(intl, asking.role) })
              : intl.formatMessage(m.confirmRemove, { who: who(asking.member) })
          }
          description={intl.formatMessage(asking.kind === 'role' ? m.confirmRoleText : m.confirmRemoveText)}
          onCancel={() => setAsking(null)}
        >
          <div className="actions">
            <button type="button" data-autofocus onClick={() => setAsking(null)}>
              <FormattedMessage {...m.cancel} />
            </button>
            <button
              type="button"
              className={asking.kind === 'remove' ? 'primary danger' : 'primary'}
              data-testid="org-member-confirm"
              onClick={() => void act(asking)}
            >
              <FormattedMessage {...(asking.kind === 'role' ? m.change : m.remove)} />
            </button>
          </div>
        </Dialog>
      )}
    </Card>
  );
}
