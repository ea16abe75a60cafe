// One organization (/{lang}/admin/organizations/{orgId}; a chunk of its own): its numbers
// (members, owners, pending invitations: read from the page's own answer, no call of their own,
// docs/cost.md), its status (approve or refuse a request, suspend, reactivate), its names and
// settings (second factor, sign-in methods, default role, the apps that hear its events), its
// members, invitations and audit slice (org-people.tsx), its domains (org-domains.tsx) and its
// own sign-in connections (org-connections.tsx). Every change asks for a reason.
import { type FormEvent, useId, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Said, useSaid } from '../../components/said';
import { useTitle } from '../../components/use-title';
import { When } from '../../components/when';
import { decideOrg, getOrg, listApps, type OrgChange, type OrgDetail, type Organization, ORG_ROLES, patchOrg } from './api';
import { LoadStatus, Section, useConsole, useLang, useLoad, useMay } from './context';
import { methodNames, named } from './labels';
import { orgRoleNames, orgStatusNames, useOrgName } from './org-kit';
import { OrgConnections } from './org-connections';
import { OrgDomains } from './org-domains';
import { OrgAuditSlice, OrgInvitations, OrgMembers } from './org-people';
import { ReasonDialog, T } from './widgets';

const m = defineMessages({
  heading: { id: 'admin.org.heading', defaultMessage: 'Organization' },
  idIs: { id: 'admin.org.id', defaultMessage: 'Id {id} · created {at}' },
  numbers: { id: 'admin.org.numbers', defaultMessage: 'Numbers' },
  members: { id: 'admin.org.numbers.members', defaultMessage: 'Members' },
  owners: { id: 'admin.org.numbers.owners', defaultMessage: 'Owners' },
  pending: { id: 'admin.org.numbers.pending', defaultMessage: 'Pending invitations' },
  status: { id: 'admin.org.statusHeading', defaultMessage: 'Status' },
  statusIs: { id: 'admin.org.statusIs', defaultMessage: 'Status: {status}' },
  requestedText: { id: 'admin.org.requestedText', defaultMessage: 'A customer asked for this organization; no operator has decided yet.' },
  suspendedText: { id: 'admin.org.suspendedText', defaultMessage: 'Nobody can manage it or join it until it is reactivated; its members keep their accounts.' },
  suspend: { id: 'admin.org.suspend', defaultMessage: 'Suspend' },
  reactivate: { id: 'admin.org.reactivate', defaultMessage: 'Reactivate' },
  approve: { id: 'admin.orgs.approve', defaultMessage: 'Approve' },
  refuse: { id: 'admin.orgs.refuse', defaultMessage: 'Refuse' },
  suspendTitle: { id: 'admin.org.suspendTitle', defaultMessage: 'Suspend {name}?' },
  reactivateTitle: { id: 'admin.org.reactivateTitle', defaultMessage: 'Reactivate {name}?' },
  approveTitle: { id: 'admin.orgs.approveTitle', defaultMessage: 'Approve {name}?' },
  approveText: { id: 'admin.orgs.approveText', defaultMessage: 'The organization becomes active and the customer who asked for it its owner.' },
  refuseTitle: { id: 'admin.orgs.refuseTitle', defaultMessage: 'Refuse {name}?' },
  refuseText: { id: 'admin.orgs.refuseText', defaultMessage: 'The request is deleted. The customer is not told; the audit log keeps your reason.' },
  reactivateText: { id: 'admin.org.reactivateText', defaultMessage: 'Its admins can manage it again and its invitations can be accepted.' },
  nowIs: { id: 'admin.org.nowIs', defaultMessage: '{name} is now {status}.' },
  refused: { id: 'admin.orgs.refused', defaultMessage: 'The request for {name} is refused.' },
  settings: { id: 'admin.org.settings', defaultMessage: 'Names and settings' },
  nameZh: { id: 'admin.orgs.nameZh', defaultMessage: 'Chinese name' },
  nameEn: { id: 'admin.orgs.nameEn', defaultMessage: 'English name' },
  mfa: { id: 'admin.org.mfa', defaultMessage: 'Members must use two-factor authentication' },
  methods: { id: 'admin.org.methods', defaultMessage: 'Sign-in methods members may use (none ticked: all)' },
  defaultRole: { id: 'admin.org.defaultRole', defaultMessage: 'Role an invitation gives when it names none' },
  eventApps: { id: 'admin.org.eventApps', defaultMessage: 'Apps that hear its events (members joining and leaving, invitations accepted)' },
  noApps: { id: 'admin.org.noApps', defaultMessage: 'No partner app is registered.' },
  save: { id: 'admin.org.save', defaultMessage: 'Save…' },
  saveTitle: { id: 'admin.org.saveTitle', defaultMessage: 'Save the changes to {name}?' },
  saveText: { id: 'admin.org.saveText', defaultMessage: 'Recorded in the audit log and in the organization’s own log.' },
  saveConfirm: { id: 'admin.org.saveConfirm', defaultMessage: 'Save' },
  saved: { id: 'admin.org.saved', defaultMessage: 'The changes to {name} are saved.' },
  nothing: { id: 'admin.org.nothing', defaultMessage: 'Nothing has changed.' },
  notActive: { id: 'admin.org.notActive', defaultMessage: 'Names and settings change only while the organization is active.' },
});

/** The sign-in methods an organization may allow (the server's `org::policy::METHODS`). */
const METHODS = ['password', 'code', 'passkey', 'wechat', 'wecom', 'dingtalk', 'feishu', 'organization'] as const;

export default function OrgPage({ orgId }: { orgId: string }) {
  const nameOf = useOrgName();
  const done = useSaid();
  const [after, setAfter] = useState<string | undefined>(undefined);
  const { loaded, reload } = useLoad(() => getOrg(orgId, after), [orgId, after]);
  const d = loaded.state === 'ready' ? loaded.data : null;
  useTitle(m.heading);
  const changed = (text: string) => {
    done.say(text);
    reload();
  };
  return (
    <div className="console-screen">
      <h1 data-testid="org-name">{d ? nameOf(d.organization) : <FormattedMessage {...m.heading} />}</h1>
      <Said said={done.said} testId="org-done" focus />
      <LoadStatus loaded={loaded} onRetry={reload} />
      {d && (
        <>
          <p className="muted">
            <FormattedMessage {...m.idIs} values={{ id: <code>{d.organization.orgId}</code>, at: <When at={d.organization.createdAt} /> }} />
          </p>
          <Numbers d={d} />
          <Status o={d.organization} onChanged={changed} />
          <Settings key={JSON.stringify(d.organization)} o={d.organization} onChanged={changed} />
          <OrgMembers d={d} onChanged={changed} onPage={setAfter} />
          <OrgInvitations d={d} onChanged={changed} />
          <OrgDomains orgId={orgId} active={d.organization.status === 'active'} onChanged={done.say} />
          <OrgConnections orgId={orgId} active={d.organization.status === 'active'} onChanged={done.say} />
          <OrgAuditSlice d={d} />
        </>
      )}
    </div>
  );
}

/** The organization's numbers: its own counters and the pending invitations of its answer. */
function Numbers({ d }: { d: OrgDetail }) {
  const intl = useIntl();
  const pending = d.invitations.filter((i) => i.status === 'pending').length;
  const rows: [typeof m.members, number][] = [
    [m.members, d.organization.members],
    [m.owners, d.organization.owners],
    [m.pending, pending],
  ];
  return (
    <Section title={<FormattedMessage {...m.numbers} />}>
      <dl className="org-numbers" data-testid="org-numbers">
        {rows.map(([label, n]) => (
          <div key={label.id}>
            <dt>
              <FormattedMessage {...label} />
            </dt>
            <dd>{intl.formatNumber(n)}</dd>
          </div>
        ))}
      </dl>
    </Section>
  );
}

type Decision = 'approve' | 'refuse' | 'suspend' | 'reactivate';

function Status({ o, onChanged }: { o: Organization; onChanged: (text: string) => void }) {
  const intl = useIntl();
  const nameOf = useOrgName();
  const operator = useMay('operator');
  const { guard } = useConsole();
  const [deciding, setDeciding] = useState<Decision | null>(null);
  const choices: Decision[] = o.status === 'requested' ? ['approve', 'refuse'] : o.status === 'suspended' ? ['reactivate'] : ['suspend'];
  const label = { approve: m.approve, refuse: m.refuse, suspend: m.suspend, reactivate: m.reactivate };
  const title = { approve: m.approveTitle, refuse: m.refuseTitle, suspend: m.suspendTitle, reactivate: m.reactivateTitle };
  const text = { approve: m.approveText, refuse: m.refuseText, suspend: m.suspendedText, reactivate: m.reactivateText };
  const run = (how: Decision, reason: string) =>
    how === 'approve' || how === 'refuse'
      ? guard(() => decideOrg(o.orgId, how, reason))
      : guard(() => patchOrg(o.orgId, { status: how === 'suspend' ? 'suspended' : 'active' }, reason));
  const after = { approve: 'active', refuse: 'refused', suspend: 'suspended', reactivate: 'active' } as const;
  return (
    <Section title={<FormattedMessage {...m.status} />}>
      <p data-testid="org-status">
        <FormattedMessage {...m.statusIs} values={{ status: <strong><T msg={named(orgStatusNames, o.status)} /></strong> }} />
      </p>
      {o.status === 'requested' && (
        <p className="muted">
          <FormattedMessage {...m.requestedText} />
        </p>
      )}
      {o.status === 'suspended' && (
        <p className="muted">
          <FormattedMessage {...m.suspendedText} />
        </p>
      )}
      {operator && (
        <div className="row-actions">
          {choices.map((c) => (
            <button key={c} type="button" className={c === 'refuse' || c === 'suspend' ? 'danger' : 'primary'} data-testid={`org-${c}`} onClick={() => setDeciding(c)}>
              <FormattedMessage {...label[c]} />
            </button>
          ))}
        </div>
      )}
      {deciding && (
        <ReasonDialog
          testId="org-status-dialog"
          title={<FormattedMessage {...title[deciding]} values={{ name: nameOf(o) }} />}
          description={<FormattedMessage {...text[deciding]} />}
          confirm={label[deciding]}
          danger={deciding === 'refuse' || deciding === 'suspend'}
          run={(reason) => run(deciding, reason)}
          onDone={(ok) => {
            const how = deciding;
            setDeciding(null);
            if (!ok) return;
            const name = nameOf(o);
            const next = after[how];
            onChanged(next === 'refused' ? intl.formatMessage(m.refused, { name }) : intl.formatMessage(m.nowIs, { name, status: intl.formatMessage(orgStatusNames[next]!) }));
          }}
        />
      )}
    </Section>
  );
}

function Settings({ o, onChanged }: { o: Organization; onChanged: (text: string) => void }) {
  const intl = useIntl();
  const id = useId();
  const lang = useLang();
  const nameOf = useOrgName();
  const operator = useMay('operator');
  const { guard } = useConsole();
  const apps = useLoad(listApps, []);
  const [nameZh, setNameZh] = useState(o.nameZh);
  const [nameEn, setNameEn] = useState(o.nameEn);
  const [mfa, setMfa] = useState(o.settings.mfaRequired);
  const [methods, setMethods] = useState<string[]>(o.settings.allowedMethods);
  const [role, setRole] = useState<string>(o.settings.defaultRole);
  const [eventApps, setEventApps] = useState<string[]>(o.settings.eventApps);
  const [change, setChange] = useState<OrgChange | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const active = o.status === 'active';
  const same = (a: string[], b: string[]) => [...a].sort().join() === [...b].sort().join();
  const toggle = (list: string[], v: string, on: boolean) => (on ? [...list, v] : list.filter((x) => x !== v));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const c: OrgChange = {};
    if (nameZh.trim() !== o.nameZh || nameEn.trim() !== o.nameEn) Object.assign(c, { nameZh: nameZh.trim() || null, nameEn: nameEn.trim() || null });
    if (mfa !== o.settings.mfaRequired) c.mfaRequired = mfa;
    if (!same(methods, o.settings.allowedMethods)) c.allowedMethods = methods;
    if (role !== o.settings.defaultRole) c.defaultRole = role;
    if (!same(eventApps, o.settings.eventApps)) c.eventApps = eventApps;
    if (Object.keys(c).length === 0) return setSaid(intl.formatMessage(m.nothing));
    setSaid(null);
    setChange(c);
  };
  const appList = apps.loaded.state === 'ready' ? apps.loaded.data.apps : null;
  const off = !operator || !active;
  return (
    <Section title={<FormattedMessage {...m.settings} />}>
      {!active && (
        <p className="muted">
          <FormattedMessage {...m.notActive} />
        </p>
      )}
      <form className="console-form" data-testid="org-settings" onSubmit={submit} noValidate>
        <fieldset disabled={off}>
          <label htmlFor={`${id}zh`}>
            <FormattedMessage {...m.nameZh} />
          </label>
          <input id={`${id}zh`} maxLength={100} value={nameZh} onChange={(e) => setNameZh(e.target.value)} />
          <label htmlFor={`${id}en`}>
            <FormattedMessage {...m.nameEn} />
          </label>
          <input id={`${id}en`} maxLength={100} value={nameEn} onChange={(e) => setNameEn(e.target.value)} />
          <label className="radio">
            <input type="checkbox" checked={mfa} onChange={(e) => setMfa(e.target.checked)} /> <FormattedMessage {...m.mfa} />
          </label>
          <fieldset className="choice">
            <legend>
              <FormattedMessage {...m.methods} />
            </legend>
            {METHODS.map((x) => (
              <label key={x} className="radio">
                <input type="checkbox" checked={methods.includes(x)} onChange={(e) => setMethods(toggle(methods, x, e.target.checked))} /> <T msg={named(methodNames, x)} />
              </label>
            ))}
          </fieldset>
          <label htmlFor={`${id}r`}>
            <FormattedMessage {...m.defaultRole} />
          </label>
          <select id={`${id}r`} value={role} onChange={(e) => setRole(e.target.value)}>
            {ORG_ROLES.map((r) => (
              <option key={r} value={r}>
                {intl.formatMessage(orgRoleNames[r]!)}
              </option>
            ))}
          </select>
          <fieldset className="choice" data-testid="org-event-apps">
            <legend>
              <FormattedMessage {...m.eventApps} />
            </legend>
            <LoadStatus loaded={apps.loaded} onRetry={apps.reload} />
            {appList?.length === 0 && (
              <p className="muted">
                <FormattedMessage {...m.noApps} />
              </p>
            )}
            {appList?.map((a) => (
              <label key={a.appId} className="radio">
                <input type="checkbox" checked={eventApps.includes(a.appId)} onChange={(e) => setEventApps(toggle(eventApps, a.appId, e.target.checked))} /> {a.name[lang] || a.name['zh-CN']}
              </label>
            ))}
          </fieldset>
          <p className="muted" role="status">
            {said}
          </p>
          <button type="submit" className="primary">
            <FormattedMessage {...m.save} />
          </button>
        </fieldset>
      </form>
      {change && (
        <ReasonDialog
          testId="org-settings-dialog"
          title={<FormattedMessage {...m.saveTitle} values={{ name: nameOf(o) }} />}
          description={<FormattedMessage {...m.saveText} />}
          confirm={m.saveConfirm}
          run={(reason) => guard(() => patchOrg(o.orgId, change, reason))}
          onDone={(ok) => {
            setChange(null);
            if (ok) onChanged(intl.formatMessage(m.saved, { name: nameOf(o) }));
          }}
        />
      )}
    </Section>
  );
}
