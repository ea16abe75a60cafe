// One organization of "My company" (GET /org/{orgId}): its names, my role, and for its owners and
// admins its members (members.tsx), invitations (invitations.tsx), verified domains (domains.tsx),
// own sign-in connections (connections.tsx) and audit log (audit.tsx); a
// member without admin rights sees a read-only view. Each card says the errors of what was used in
// it (FormError, as the account centre's sections do).
import { useCallback, useEffect, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { asLocale } from '../../i18n/locale';
import { handleError } from '../../lib/api';
import type { OrgPage } from '../../lib/api-types.gen';
import { hasReason } from '../../lib/reasons';
import { useUserInfo } from '../../components/use-user-info';
import { getOrganization } from './api';
import { Pending } from './load';
import { AuditLog } from './audit';
import { Card } from './card';
import { Connections } from './connections';
import { Domains } from './domains';
import { Invitations } from './invitations';
import { orgName, roleName } from './labels';
import { Members } from './members';
import { manages } from './roles';

const m = defineMessages({
  loading: { id: 'org.detail.loading', defaultMessage: 'Loading the organization…' },
  loadFailed: { id: 'org.detail.loadFailed', defaultMessage: 'The organization could not be loaded.' },
  retry: { id: 'org.detail.retry', defaultMessage: 'Try again' },
  role: { id: 'org.detail.role', defaultMessage: 'Your role' },
  members: { id: 'org.detail.members', defaultMessage: 'Members' },
  status: { id: 'org.detail.status', defaultMessage: 'Status' },
  active: { id: 'org.detail.active', defaultMessage: 'Active' },
  suspended: { id: 'org.detail.suspended', defaultMessage: 'Suspended by Ciam: nothing can be changed' },
  readOnly: {
    id: 'org.detail.readOnly',
    defaultMessage: "Only the organization's owners and admins see its members, invitations, domains and audit log.",
  },
});

export function OrgDetail({ orgId, onChanged }: { orgId: string; onChanged: () => void }) {
  const intl = useIntl();
  const lang = asLocale(intl.locale) ?? 'zh-CN';
  // Who I am: my own row has no controls.
  const me = useUserInfo().info?.userId ?? null;
  const [page, setPage] = useState<OrgPage | 'failed' | null>(null);
  const [attempt, setAttempt] = useState(0);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  useEffect(() => {
    let alive = true;
    void getOrganization(orgId).then((r) => {
      if (!alive) return;
      if (r.success) setPage(r.data);
      else {
        if (hasReason(r.error, 'AUTHORIZATION_FAILED')) handleError(r.error);
        setPage('failed');
      }
    });
    return () => {
      alive = false;
    };
  }, [orgId, attempt]);
  if (page === null || page === 'failed') {
    return (
      <section className="card">
        <Pending failed={page === 'failed'} onRetry={reload} said={m} />
      </section>
    );
  }
  const o = page.organization;
  const admin = manages(page.role);
  // A change that may change what the list of organizations says (a role, a membership).
  const changed = () => {
    reload();
    onChanged();
  };
  return (
    <>
      <Card id="org" testId="org-detail" data-role={page.role}>
        <h2 id="org-title">{orgName(o, lang)}</h2>
        <dl className="facts">
          <div>
            <dt>
              <FormattedMessage {...m.role} />
            </dt>
            <dd data-testid="org-role">{roleName(intl, page.role)}</dd>
          </div>
          <div>
            <dt>
              <FormattedMessage {...m.members} />
            </dt>
            <dd>{intl.formatNumber(o.members)}</dd>
          </div>
          <div>
            <dt>
              <FormattedMessage {...m.status} />
            </dt>
            <dd>
              <FormattedMessage {...(o.status === 'active' ? m.active : m.suspended)} />
            </dd>
          </div>
        </dl>
        {!admin && (
          <p className="muted" data-testid="org-read-only">
            <FormattedMessage {...m.readOnly} />
          </p>
        )}
      </Card>
      {admin && (
        <>
          <Members orgId={orgId} role={page.role} me={me} first={page.members} next={page.next} onChanged={changed} />
          <Invitations orgId={orgId} role={page.role} list={page.invitations} onChanged={reload} />
          <Domains orgId={orgId} active={o.status === 'active'} />
          <Connections orgId={orgId} active={o.status === 'active'} />
          <AuditLog orgId={orgId} key={attempt} />
        </>
      )}
    </>
  );
}
