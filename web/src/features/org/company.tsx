// "My company" (/{lang}/personal/company, docs/web-experience.md "My company"): the organizations
// I belong to, with my role (GET /org/mine); one of them (`?org=`, else the first) in detail
// (org-detail.tsx); the organizations my proven mail's domain suggests (suggested.tsx); and "Ask
// for an organization" (ask.tsx). In the lazy chunk of org-screens.tsx.
import { useCallback, useEffect, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link, useLocation, useNavigate } from 'react-router';
import { useTitle } from '../../components/use-title';
import { orgPaths } from '../../config/org-paths';
import { asLocale } from '../../i18n/locale';
import { handleError } from '../../lib/api';
import type { MyOrganization } from '../../lib/api-types.gen';
import { hasReason } from '../../lib/reasons';
import { myOrganizations } from './api';
import { AskForOrganization } from './ask';
import { Pending } from './load';
import { OrgNav } from './nav';
import { orgName, roleName } from './labels';
import { OrgDetail } from './org-detail';
import { SuggestedOrganizations } from './suggested';
import './org.css';

const m = defineMessages({
  pageTitle: { id: 'org.pageTitle', defaultMessage: 'My company' },
  mine: { id: 'org.mine', defaultMessage: 'Your organizations' },
  none: {
    id: 'org.none',
    defaultMessage: 'You do not belong to an organization yet. Your company can invite you, or you can ask for an organization for it below.',
  },
  loading: { id: 'org.loading', defaultMessage: 'Loading your organizations…' },
  loadFailed: { id: 'org.loadFailed', defaultMessage: 'Your organizations could not be loaded.' },
  retry: { id: 'org.retry', defaultMessage: 'Try again' },
  yourRole: { id: 'org.yourRole', defaultMessage: 'Your role: {role}' },
  joined: { id: 'org.joined', defaultMessage: 'You joined {org}.' },
});

export default function Company() {
  useTitle(m.pageTitle);
  const intl = useIntl();
  const lang = asLocale(intl.locale) ?? 'zh-CN';
  const { search, state } = useLocation();
  const navigate = useNavigate();
  const wanted = new URLSearchParams(search).get('org');
  const joined = (state as { joined?: unknown } | null)?.joined === true;
  const [orgs, setOrgs] = useState<MyOrganization[] | 'failed' | null>(null);
  const [attempt, setAttempt] = useState(0);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  useEffect(() => {
    let alive = true;
    void myOrganizations().then((r) => {
      if (!alive) return;
      if (r.success) setOrgs(r.data.organizations);
      else {
        if (hasReason(r.error, 'AUTHORIZATION_FAILED')) handleError(r.error);
        setOrgs('failed');
      }
    });
    return () => {
      alive = false;
    };
  }, [attempt]);
  const list = Array.isArray(orgs) ? orgs : [];
  // A suggestion joined: the page shows that organization, saying so (as the invitation does).
  const joinedSuggested = (orgId: string) => {
    navigate(orgPaths.company(lang, orgId), { state: { joined: true } });
    reload();
  };
  const current = list.find((o) => o.organization.orgId === wanted) ?? list[0];
  return (
    <div className="org-page company">
      <OrgNav />
      <h1>
        <FormattedMessage {...m.pageTitle} />
      </h1>
      {joined && current && (!wanted || current.organization.orgId === wanted) && (
        <p className="notice" role="status" data-testid="org-joined">
          <FormattedMessage {...m.joined} values={{ org: orgName(current.organization, lang) }} />
        </p>
      )}
      <SuggestedOrganizations onJoined={joinedSuggested} />
      <section className="card" aria-labelledby="org-mine-title" data-testid="org-mine">
        <h2 id="org-mine-title">
          <FormattedMessage {...m.mine} />
        </h2>
        {orgs === null || orgs === 'failed' ? (
          <Pending failed={orgs === 'failed'} onRetry={reload} said={m} />
        ) : list.length === 0 ? (
          <p className="muted" data-testid="org-none">
            <FormattedMessage {...m.none} />
          </p>
        ) : (
          <ul className="items">
            {list.map(({ organization: o, role }) => (
              <li key={o.orgId} data-testid="org-item" data-org-id={o.orgId}>
                <div>
                  <Link to={orgPaths.company(lang, o.orgId)} aria-current={o.orgId === current?.organization.orgId ? 'page' : undefined}>
                    {orgName(o, lang)}
                  </Link>
                  <p className="muted">
                    <FormattedMessage {...m.yourRole} values={{ role: roleName(intl, role) }} />
                  </p>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
      {current && <OrgDetail key={current.organization.orgId} orgId={current.organization.orgId} onChanged={reload} />}
      <AskForOrganization />
    </div>
  );
}
