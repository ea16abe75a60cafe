// Organizations (/{lang}/admin/organizations; a chunk of its own, loaded when opened): the
// customers' pending requests with approve and refuse (each with a reason), a new organization
// (names, its first owner, names suggested from the companies written on accounts), and every
// organization, newest first, 50 a page (docs/organizations-design.md, docs/console-design.md §6).
import { type FormEvent, useId, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Link } from 'react-router';
import { Said, useSaid } from '../../components/said';
import { useTitle } from '../../components/use-title';
import { When } from '../../components/when';
import { errorText } from '../../lib/api';
import { adminPath } from '../../config/console-paths';
import { type CompanySuggestion, createOrg, decideOrg, listOrgs, type OrgListed, type OrgRequest, orgRequests, orgSuggestions } from './api';
import { LoadStatus, Section, useConsole, useLang, useLoad, useMay } from './context';
import { named } from './labels';
import { OrgTable, orgStatusNames, useOrgName } from './org-kit';
import { ReasonDialog, T } from './widgets';

const m = defineMessages({
  heading: { id: 'admin.orgs.heading', defaultMessage: 'Organizations' },
  requests: { id: 'admin.orgs.requests', defaultMessage: 'Pending requests' },
  requestsCaption: { id: 'admin.orgs.requestsCaption', defaultMessage: 'Organizations customers asked for' },
  noRequests: { id: 'admin.orgs.noRequests', defaultMessage: 'No request is waiting.' },
  name: { id: 'admin.orgs.col.name', defaultMessage: 'Name' },
  askedBy: { id: 'admin.orgs.col.askedBy', defaultMessage: 'Asked by' },
  askedAt: { id: 'admin.orgs.col.askedAt', defaultMessage: 'Asked' },
  decide: { id: 'admin.orgs.col.decide', defaultMessage: 'Decision' },
  approve: { id: 'admin.orgs.approve', defaultMessage: 'Approve' },
  refuse: { id: 'admin.orgs.refuse', defaultMessage: 'Refuse' },
  approveOf: { id: 'admin.orgs.approveOf', defaultMessage: 'Approve {name}' },
  refuseOf: { id: 'admin.orgs.refuseOf', defaultMessage: 'Refuse {name}' },
  approveTitle: { id: 'admin.orgs.approveTitle', defaultMessage: 'Approve {name}?' },
  approveText: { id: 'admin.orgs.approveText', defaultMessage: 'The organization becomes active and the customer who asked for it its owner.' },
  refuseTitle: { id: 'admin.orgs.refuseTitle', defaultMessage: 'Refuse {name}?' },
  refuseText: { id: 'admin.orgs.refuseText', defaultMessage: 'The request is deleted. The customer is not told; the audit log keeps your reason.' },
  approved: { id: 'admin.orgs.approved', defaultMessage: '{name} is approved and active.' },
  refused: { id: 'admin.orgs.refused', defaultMessage: 'The request for {name} is refused.' },
  all: { id: 'admin.orgs.all', defaultMessage: 'All organizations' },
  allCaption: { id: 'admin.orgs.allCaption', defaultMessage: 'Organizations, newest first' },
  none: { id: 'admin.orgs.none', defaultMessage: 'There is no organization yet.' },
  status: { id: 'admin.orgs.col.status', defaultMessage: 'Status' },
  created: { id: 'admin.orgs.col.created', defaultMessage: 'Created' },
  older: { id: 'admin.orgs.older', defaultMessage: 'Older organizations' },
  newest: { id: 'admin.orgs.newest', defaultMessage: 'Back to the newest' },
  create: { id: 'admin.orgs.create', defaultMessage: 'Create an organization' },
  nameZh: { id: 'admin.orgs.nameZh', defaultMessage: 'Chinese name' },
  nameEn: { id: 'admin.orgs.nameEn', defaultMessage: 'English name' },
  namesHint: { id: 'admin.orgs.namesHint', defaultMessage: 'At least one; the other is the same when left empty.' },
  owner: { id: 'admin.orgs.owner', defaultMessage: 'First owner’s user id (optional)' },
  ownerHint: { id: 'admin.orgs.ownerHint', defaultMessage: 'Empty: the organization starts without members; invite its owner from its page.' },
  createButton: { id: 'admin.orgs.createButton', defaultMessage: 'Create…' },
  createTitle: { id: 'admin.orgs.createTitle', defaultMessage: 'Create {name}?' },
  createText: { id: 'admin.orgs.createText', defaultMessage: 'It is active at once.' },
  createConfirm: { id: 'admin.orgs.createConfirm', defaultMessage: 'Create' },
  createdSay: { id: 'admin.orgs.created', defaultMessage: '{name} is created.' },
  namesRequired: { id: 'admin.orgs.namesRequired', defaultMessage: 'Give a name in at least one language' },
  suggest: { id: 'admin.orgs.suggest', defaultMessage: 'Companies written on accounts' },
  prefix: { id: 'admin.orgs.prefix', defaultMessage: 'Beginning of a company name' },
  suggestButton: { id: 'admin.orgs.suggestButton', defaultMessage: 'Suggest' },
  suggestCaption: { id: 'admin.orgs.suggestCaption', defaultMessage: 'Companies starting with {prefix}' },
  noSuggestion: { id: 'admin.orgs.noSuggestion', defaultMessage: 'No account wrote a company starting with {prefix}.' },
  company: { id: 'admin.orgs.col.company', defaultMessage: 'Company' },
  accounts: { id: 'admin.orgs.col.accounts', defaultMessage: 'Accounts' },
  use: { id: 'admin.orgs.col.use', defaultMessage: 'Use' },
  useName: { id: 'admin.orgs.useName', defaultMessage: 'Use as the name: “{company}”' },
  useButton: { id: 'admin.orgs.useButton', defaultMessage: 'Use as the name' },
  suggestHint: { id: 'admin.orgs.suggestHint', defaultMessage: 'Nothing is merged: create the organization, then invite the people.' },
});

export default function Organizations() {
  useTitle(m.heading);
  const done = useSaid();
  const [stamp, setStamp] = useState(0);
  const changed = (text: string) => {
    done.say(text);
    setStamp((n) => n + 1);
  };
  return (
    <div className="console-screen">
      <h1>
        <FormattedMessage {...m.heading} />
      </h1>
      <Said said={done.said} testId="orgs-done" focus />
      <Requests stamp={stamp} onChanged={changed} />
      <CreateOrg onChanged={changed} />
      <AllOrgs stamp={stamp} />
    </div>
  );
}

function Requests({ stamp, onChanged }: { stamp: number; onChanged: (text: string) => void }) {
  const intl = useIntl();
  const lang = useLang();
  const nameOf = useOrgName();
  const operator = useMay('operator');
  const { guard } = useConsole();
  const { loaded, reload } = useLoad(orgRequests, [stamp]);
  const [deciding, setDeciding] = useState<{ r: OrgRequest; how: 'approve' | 'refuse' } | null>(null);
  const requests = loaded.state === 'ready' ? loaded.data.requests : null;
  return (
    <Section title={<FormattedMessage {...m.requests} />}>
      <LoadStatus loaded={loaded} onRetry={reload} />
      {requests &&
        (requests.length === 0 ? (
          <p className="muted" data-testid="no-org-requests">
            <FormattedMessage {...m.noRequests} />
          </p>
        ) : (
          <OrgTable caption={intl.formatMessage(m.requestsCaption)} cols={operator ? [m.name, m.askedBy, m.askedAt, m.decide] : [m.name, m.askedBy, m.askedAt]} testId="org-requests">
            {requests.map((r) => (
              <tr key={r.orgId}>
                <th scope="row">
                  <Link to={adminPath(lang, 'organization', r.orgId)}>{nameOf(r)}</Link>
                </th>
                <td>
                  <Link to={adminPath(lang, 'account', r.requestedBy)}>{r.requestedBy}</Link>
                </td>
                <td>
                  <When at={r.createdAt} />
                </td>
                {operator && (
                  <td>
                    <div className="row-actions">
                      <button type="button" className="primary" aria-label={intl.formatMessage(m.approveOf, { name: nameOf(r) })} onClick={() => setDeciding({ r, how: 'approve' })}>
                        <FormattedMessage {...m.approve} />
                      </button>
                      <button type="button" className="danger" aria-label={intl.formatMessage(m.refuseOf, { name: nameOf(r) })} onClick={() => setDeciding({ r, how: 'refuse' })}>
                        <FormattedMessage {...m.refuse} />
                      </button>
                    </div>
                  </td>
                )}
              </tr>
            ))}
          </OrgTable>
        ))}
      {deciding && (
        <ReasonDialog
          testId="org-decide-dialog"
          title={<FormattedMessage {...(deciding.how === 'approve' ? m.approveTitle : m.refuseTitle)} values={{ name: nameOf(deciding.r) }} />}
          description={<FormattedMessage {...(deciding.how === 'approve' ? m.approveText : m.refuseText)} />}
          confirm={deciding.how === 'approve' ? m.approve : m.refuse}
          danger={deciding.how === 'refuse'}
          run={(reason) => guard(() => decideOrg(deciding.r.orgId, deciding.how, reason))}
          onDone={(ok) => {
            const { r, how } = deciding;
            setDeciding(null);
            if (ok) onChanged(intl.formatMessage(how === 'approve' ? m.approved : m.refused, { name: nameOf(r) }));
          }}
        />
      )}
    </Section>
  );
}

function CreateOrg({ onChanged }: { onChanged: (text: string) => void }) {
  const intl = useIntl();
  const id = useId();
  const operator = useMay('operator');
  const { guard } = useConsole();
  const [nameZh, setNameZh] = useState('');
  const [nameEn, setNameEn] = useState('');
  const [owner, setOwner] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  if (!operator) return null;
  const name = nameZh.trim() || nameEn.trim();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name) return setError(intl.formatMessage(m.namesRequired));
    setError(null);
    setAsking(true);
  };
  return (
    <Section title={<FormattedMessage {...m.create} />}>
      <Suggestions
        onUse={(company) => {
          setNameZh(company);
          setNameEn(company);
        }}
      />
      <form className="console-form" data-testid="org-create" onSubmit={submit} noValidate>
        <label htmlFor={`${id}zh`}>
          <FormattedMessage {...m.nameZh} />
        </label>
        <input id={`${id}zh`} name="nameZh" maxLength={100} value={nameZh} aria-describedby={`${id}h`} onChange={(e) => setNameZh(e.target.value)} />
        <label htmlFor={`${id}en`}>
          <FormattedMessage {...m.nameEn} />
        </label>
        <input id={`${id}en`} name="nameEn" maxLength={100} value={nameEn} aria-describedby={`${id}h`} onChange={(e) => setNameEn(e.target.value)} />
        <p id={`${id}h`} className="hint muted">
          <FormattedMessage {...m.namesHint} />
        </p>
        <label htmlFor={`${id}o`}>
          <FormattedMessage {...m.owner} />
        </label>
        <input id={`${id}o`} name="ownerId" value={owner} aria-describedby={`${id}oh`} onChange={(e) => setOwner(e.target.value)} />
        <p id={`${id}oh`} className="hint muted">
          <FormattedMessage {...m.ownerHint} />
        </p>
        <p className="field-error" role="alert" data-testid="org-create-error">
          {error}
        </p>
        <button type="submit" className="primary">
          <FormattedMessage {...m.createButton} />
        </button>
      </form>
      {asking && (
        <ReasonDialog
          testId="org-create-dialog"
          title={<FormattedMessage {...m.createTitle} values={{ name }} />}
          description={<FormattedMessage {...m.createText} />}
          confirm={m.createConfirm}
          run={async (reason) => {
            const fields = { nameZh: nameZh.trim() || null, nameEn: nameEn.trim() || null, ownerId: owner.trim() || null };
            const r = await guard(() => createOrg(fields, reason));
            // A refusal of the form's fields is said at the form; the dialog keeps the reason's.
            if (r && !r.success && r.error.field !== 'reason') {
              setError(errorText(r.error));
              return { success: true, data: null };
            }
            if (r?.success) {
              setNameZh('');
              setNameEn('');
              setOwner('');
              onChanged(intl.formatMessage(m.createdSay, { name }));
            }
            return r;
          }}
          onDone={() => setAsking(false)}
        />
      )}
    </Section>
  );
}

function Suggestions({ onUse }: { onUse: (company: string) => void }) {
  const intl = useIntl();
  const id = useId();
  const { guard } = useConsole();
  const [prefix, setPrefix] = useState('');
  const [found, setFound] = useState<{ prefix: string; companies: CompanySuggestion[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ask = async (e: FormEvent) => {
    e.preventDefault();
    const p = prefix.trim();
    const r = await guard(() => orgSuggestions(p));
    if (!r) return;
    if (!r.success) return setError(errorText(r.error));
    setError(null);
    setFound({ prefix: p, companies: r.data.companies });
  };
  return (
    <div className="org-suggest">
      <h3>
        <FormattedMessage {...m.suggest} />
      </h3>
      <form className="row" role="search" data-testid="org-suggest" onSubmit={(e) => void ask(e)} noValidate>
        <label htmlFor={`${id}p`}>
          <FormattedMessage {...m.prefix} />
        </label>
        <input id={`${id}p`} name="q" value={prefix} aria-describedby={`${id}e ${id}h`} onChange={(e) => setPrefix(e.target.value)} />
        <button type="submit">
          <FormattedMessage {...m.suggestButton} />
        </button>
      </form>
      <p id={`${id}h`} className="hint muted">
        <FormattedMessage {...m.suggestHint} />
      </p>
      <p id={`${id}e`} className="field-error" role="alert">
        {error}
      </p>
      {found &&
        (found.companies.length === 0 ? (
          <p className="muted" role="status">
            <FormattedMessage {...m.noSuggestion} values={{ prefix: found.prefix }} />
          </p>
        ) : (
          <OrgTable caption={intl.formatMessage(m.suggestCaption, { prefix: found.prefix })} cols={[m.company, m.accounts, m.use]} testId="org-suggestions">
            {found.companies.map((c) => (
              <tr key={c.company}>
                <th scope="row">{c.company}</th>
                <td>{intl.formatNumber(c.accounts)}</td>
                <td>
                  <button type="button" aria-label={intl.formatMessage(m.useName, { company: c.company })} onClick={() => onUse(c.company)}>
                    <FormattedMessage {...m.useButton} />
                  </button>
                </td>
              </tr>
            ))}
          </OrgTable>
        ))}
    </div>
  );
}

function AllOrgs({ stamp }: { stamp: number }) {
  const intl = useIntl();
  const lang = useLang();
  const nameOf = useOrgName();
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const { loaded, reload } = useLoad(() => listOrgs(cursor), [cursor, stamp]);
  const orgs: OrgListed[] | null = loaded.state === 'ready' ? loaded.data.organizations : null;
  const last = orgs && orgs.length === 50 ? orgs[orgs.length - 1] : undefined;
  return (
    <Section title={<FormattedMessage {...m.all} />}>
      <LoadStatus loaded={loaded} onRetry={reload} />
      {orgs &&
        (orgs.length === 0 ? (
          <p className="muted">
            <FormattedMessage {...m.none} />
          </p>
        ) : (
          <OrgTable caption={intl.formatMessage(m.allCaption)} cols={[m.name, m.status, m.created]} testId="orgs">
            {orgs.map((o) => (
              <tr key={o.orgId} data-testid={`org-row-${o.orgId}`}>
                <th scope="row">
                  <Link to={adminPath(lang, 'organization', o.orgId)}>{nameOf(o)}</Link>
                </th>
                <td>
                  <T msg={named(orgStatusNames, o.status)} />
                </td>
                <td>
                  <When at={o.createdAt} />
                </td>
              </tr>
            ))}
          </OrgTable>
        ))}
      <div className="actions">
        {cursor && (
          <button type="button" onClick={() => setCursor(undefined)}>
            <FormattedMessage {...m.newest} />
          </button>
        )}
        {last && (
          <button type="button" onClick={() => setCursor(last.cursor)}>
            <FormattedMessage {...m.older} />
          </button>
        )}
      </div>
    </Section>
  );
}
