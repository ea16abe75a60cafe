// An organization's verified domains in the console (docs/organizations-domains.md §5), the twin
// of "My company"'s (features/org/domains.tsx): viewers read the claims (status, method, the TXT
// record of a pending `dns` one, enrolment, date); operators act, each change with a reason (the
// organization's audit slice and the console's log record it): add a claim, check its TXT record,
// send a code to an administrative mailbox and verify it, set the enrolment, remove. Every refusal
// is the server's, said in its dialog (ReasonDialog). Its sign-in connections: org-connections.tsx.
import { type FormEvent, useId, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { useCaptcha } from '../../components/code-field';
import { When } from '../../components/when';
import type { Result } from '../../lib/api';
import { addOrgDomain, orgDomains, type OrgDomain, removeOrgDomain, sendOrgDomainCode, setOrgDomainEnrolment, verifyOrgDomain } from './api';
import { LoadStatus, Section, useConsole, useLoad, useMay } from './context';
import { named } from './labels';
import { OrgTable } from './org-kit';
import { ReasonDialog, T } from './widgets';

const m = defineMessages({
  heading: { id: 'admin.org.domains', defaultMessage: 'Domains' },
  caption: { id: 'admin.org.domainsCaption', defaultMessage: 'Domains the organization claimed, by domain' },
  none: { id: 'admin.org.noDomains', defaultMessage: 'No domain claimed.' },
  domain: { id: 'admin.org.col.domain', defaultMessage: 'Domain' },
  status: { id: 'admin.org.col.domainStatus', defaultMessage: 'Status' },
  method: { id: 'admin.org.col.method', defaultMessage: 'Proof' },
  enrolment: { id: 'admin.org.col.enrolment', defaultMessage: 'Enrolment' },
  added: { id: 'admin.org.col.added', defaultMessage: 'Added' },
  actions: { id: 'admin.org.col.domainActions', defaultMessage: 'Change' },
  pending: { id: 'admin.org.domain.pending', defaultMessage: 'Pending' },
  verified: { id: 'admin.org.domain.verified', defaultMessage: 'Verified' },
  dns: { id: 'admin.org.domain.dns', defaultMessage: 'DNS TXT record' },
  mail: { id: 'admin.org.domain.mail', defaultMessage: 'Administrative mailbox' },
  off: { id: 'admin.org.domain.off', defaultMessage: 'Off' },
  suggest: { id: 'admin.org.domain.suggest', defaultMessage: 'Suggest' },
  automatic: { id: 'admin.org.domain.automatic', defaultMessage: 'Automatic' },
  enrolmentText: {
    id: 'admin.org.domain.enrolmentText',
    defaultMessage:
      'Enrolment of a verified domain: off, nothing happens; suggest, whoever proves an address there is offered to join; automatic, they join with the default role.',
  },
  enrolmentOf: { id: 'admin.org.domain.enrolmentOf', defaultMessage: 'Enrolment of {domain}' },
  enrolmentTitle: { id: 'admin.org.domain.enrolmentTitle', defaultMessage: 'Set the enrolment of {domain} to {enrolment}?' },
  enrolmentConfirm: { id: 'admin.org.domain.enrolmentConfirm', defaultMessage: 'Set the enrolment' },
  enrolmentDone: { id: 'admin.org.domain.enrolmentDone', defaultMessage: 'Enrolment of {domain}: {enrolment}.' },
  record: { id: 'admin.org.domain.record', defaultMessage: 'TXT record {name}: {value}' },
  check: { id: 'admin.org.domain.check', defaultMessage: 'Check DNS…' },
  checkOf: { id: 'admin.org.domain.checkOf', defaultMessage: 'Check the DNS record of {domain}' },
  checkTitle: { id: 'admin.org.domain.checkTitle', defaultMessage: 'Check the TXT record of {domain} now?' },
  checkText: { id: 'admin.org.domain.checkText', defaultMessage: 'One lookup; when the record is there, the domain is verified for the organization.' },
  checkConfirm: { id: 'admin.org.domain.checkConfirm', defaultMessage: 'Check now' },
  notFound: { id: 'admin.org.domain.notFound', defaultMessage: 'Not found yet: {record}. The customer publishes it; check again once DNS has it.' },
  sendCode: { id: 'admin.org.domain.sendCode', defaultMessage: 'Send code…' },
  sendCodeOf: { id: 'admin.org.domain.sendCodeOf', defaultMessage: 'Send a code for {domain}' },
  sendTitle: { id: 'admin.org.domain.sendTitle', defaultMessage: 'Send a code for {domain}?' },
  sendText: { id: 'admin.org.domain.sendText', defaultMessage: 'A 6-digit code, valid 10 minutes, goes to the administrative address (admin, administrator, webmaster, hostmaster or postmaster).' },
  sendConfirm: { id: 'admin.org.domain.sendConfirm', defaultMessage: 'Send the code' },
  sent: { id: 'admin.org.domain.sent', defaultMessage: 'A code for {domain} was sent to {mail}.' },
  verify: { id: 'admin.org.domain.verify', defaultMessage: 'Verify code…' },
  verifyOf: { id: 'admin.org.domain.verifyOf', defaultMessage: 'Verify the code for {domain}' },
  verifyTitle: { id: 'admin.org.domain.verifyTitle', defaultMessage: 'Verify {domain} with its code?' },
  verifyText: { id: 'admin.org.domain.verifyText', defaultMessage: 'The code sent to the administrative address proves the domain.' },
  verifyConfirm: { id: 'admin.org.domain.verifyConfirm', defaultMessage: 'Verify' },
  verifiedSay: { id: 'admin.org.domain.verifiedSay', defaultMessage: '{domain} is verified.' },
  address: { id: 'admin.org.domain.address', defaultMessage: 'Administrative address' },
  code: { id: 'admin.org.domain.code', defaultMessage: 'Code' },
  noCaptcha: { id: 'admin.org.domain.noCaptcha', defaultMessage: 'The robot check could not be done; try again.' },
  remove: { id: 'admin.org.domain.remove', defaultMessage: 'Remove…' },
  removeOf: { id: 'admin.org.domain.removeOf', defaultMessage: 'Remove {domain}' },
  removeTitle: { id: 'admin.org.domain.removeTitle', defaultMessage: 'Remove {domain} from the organization?' },
  removeText: { id: 'admin.org.domain.removeText', defaultMessage: 'Its members stay; once removed, another organization may claim it.' },
  removeConfirm: { id: 'admin.org.domain.removeConfirm', defaultMessage: 'Remove' },
  removed: { id: 'admin.org.domain.removed', defaultMessage: '{domain} was removed.' },
  add: { id: 'admin.org.domain.add', defaultMessage: 'Add a domain' },
  addDomain: { id: 'admin.org.domain.addDomain', defaultMessage: 'Domain' },
  addMethod: { id: 'admin.org.domain.addMethod', defaultMessage: 'Proof' },
  addButton: { id: 'admin.org.domain.addButton', defaultMessage: 'Add…' },
  addTitle: { id: 'admin.org.domain.addTitle', defaultMessage: 'Add {domain} to the organization?' },
  addText: { id: 'admin.org.domain.addText', defaultMessage: 'The claim is pending until it is proven (30 days at most).' },
  addConfirm: { id: 'admin.org.domain.addConfirm', defaultMessage: 'Add the domain' },
  addedSay: { id: 'admin.org.domain.addedSay', defaultMessage: '{domain} was added, pending its proof.' },
  domainRequired: { id: 'admin.org.domain.required', defaultMessage: 'Give a domain, e.g. acme.com' },
});

const statuses: Record<string, MessageDescriptor> = { pending: m.pending, verified: m.verified };
const methods: Record<string, MessageDescriptor> = { dns: m.dns, mail: m.mail };
const enrolments: Record<string, MessageDescriptor> = { off: m.off, suggest: m.suggest, automatic: m.automatic };
const ENROLMENTS = ['off', 'suggest', 'automatic'];

type Act =
  | { kind: 'enrol'; d: OrgDomain; to: string }
  | { kind: 'check' | 'send' | 'verify' | 'remove'; d: OrgDomain };

export function OrgDomains({ orgId, active, onChanged }: { orgId: string; active: boolean; onChanged: (text: string) => void }) {
  const intl = useIntl();
  const id = useId();
  const operator = useMay('operator') && active;
  const { guard } = useConsole();
  const { loaded, reload } = useLoad(() => orgDomains(orgId), [orgId]);
  const [act, setAct] = useState<Act | null>(null);
  const [mail, setMail] = useState('');
  const [code, setCode] = useState('');
  const [domain, setDomain] = useState('');
  const [method, setMethod] = useState('dns');
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const captcha = useCaptcha();
  const word = (table: Record<string, MessageDescriptor>, v: string) => (table[v] ? intl.formatMessage(table[v]) : v);
  const list = loaded.state === 'ready' ? loaded.data.domains : null;
  const done = (text: string) => {
    reload();
    onChanged(text);
  };
  const open = (a: Act) => {
    if (a.kind === 'send' || a.kind === 'verify') {
      if (a.kind === 'send') void captcha.start();
      setMail((x) => x || `admin@${a.d.display}`);
      setCode('');
    }
    setAct(a);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!domain.trim()) return setError(intl.formatMessage(m.domainRequired));
    setError(null);
    setAdding(true);
  };
  const run = async (a: Act, reason: string): Promise<Result<unknown> | null> => {
    const o = orgId;
    const d = a.d.domain;
    switch (a.kind) {
      case 'enrol':
        return guard(() => setOrgDomainEnrolment(o, d, a.to, reason));
      case 'check': {
        // The server names the record it looked for: said in the console's words around it.
        const r = await guard(() => verifyOrgDomain(o, d, reason));
        if (r && !r.success && r.error.reason === 'DOMAIN_TXT_NOT_FOUND') return { ...r, error: { ...r.error, message: intl.formatMessage(m.notFound, { record: r.error.message }) } };
        return r;
      }
      case 'verify':
        return guard(() => verifyOrgDomain(o, d, reason, { mail: mail.trim(), code: code.trim() }));
      case 'remove':
        return guard(() => removeOrgDomain(o, d, reason));
      case 'send': {
        const proof = await captcha.take();
        if (!proof) return { success: false, error: { reason: 'VERIFYCAPTCHA_NOT_FOUND', message: intl.formatMessage(m.noCaptcha), code: 400 } };
        return guard(() => sendOrgDomainCode(o, d, mail.trim(), proof, reason));
      }
    }
  };
  const said = (a: Act) => {
    const v = { domain: a.d.display };
    if (a.kind === 'enrol') return intl.formatMessage(m.enrolmentDone, { ...v, enrolment: word(enrolments, a.to) });
    if (a.kind === 'send') return intl.formatMessage(m.sent, { ...v, mail: mail.trim() });
    if (a.kind === 'remove') return intl.formatMessage(m.removed, v);
    return intl.formatMessage(m.verifiedSay, v);
  };
  const dialog: Record<Act['kind'], [MessageDescriptor, MessageDescriptor, MessageDescriptor]> = {
    enrol: [m.enrolmentTitle, m.enrolmentText, m.enrolmentConfirm],
    check: [m.checkTitle, m.checkText, m.checkConfirm],
    send: [m.sendTitle, m.sendText, m.sendConfirm],
    verify: [m.verifyTitle, m.verifyText, m.verifyConfirm],
    remove: [m.removeTitle, m.removeText, m.removeConfirm],
  };
  const cols = operator ? [m.domain, m.status, m.method, m.enrolment, m.added, m.actions] : [m.domain, m.status, m.method, m.enrolment, m.added];
  return (
    <>
      <Section title={<FormattedMessage {...m.heading} />} id="org-domains">
        <p className="muted">
          <FormattedMessage {...m.enrolmentText} />
        </p>
        <LoadStatus loaded={loaded} onRetry={reload} />
        {list?.length === 0 && (
          <p className="muted" data-testid="org-domains-none">
            <FormattedMessage {...m.none} />
          </p>
        )}
        {list && list.length > 0 && (
          <OrgTable caption={intl.formatMessage(m.caption)} cols={cols} testId="org-domains">
            {list.map((d) => (
              <tr key={d.domain} data-domain={d.domain} data-status={d.status}>
                <th scope="row">
                  {d.display}
                  {d.display !== d.domain && <span className="muted cell-note"> ({d.domain})</span>}
                </th>
                <td>
                  <T msg={named(statuses, d.status)} />
                  {d.verifiedAt != null && (
                    <span className="muted cell-note">
                      {' '}
                      <When at={d.verifiedAt} />
                    </span>
                  )}
                </td>
                <td>
                  <T msg={named(methods, d.method)} />
                  {d.record && d.status !== 'verified' && (
                    <span className="muted cell-note" data-testid="org-domain-record">
                      {' '}
                      <FormattedMessage {...m.record} values={{ name: <code>{d.record.name}</code>, value: <code>{d.record.value}</code> }} />
                    </span>
                  )}
                </td>
                <td>
                  {operator ? (
                    <select aria-label={intl.formatMessage(m.enrolmentOf, { domain: d.display })} value={d.enrolment} onChange={(e) => open({ kind: 'enrol', d, to: e.target.value })}>
                      {ENROLMENTS.map((x) => (
                        <option key={x} value={x}>
                          {word(enrolments, x)}
                        </option>
                      ))}
                    </select>
                  ) : (
                    <T msg={named(enrolments, d.enrolment)} />
                  )}
                </td>
                <td>
                  <When at={d.addedAt} />
                </td>
                {operator && (
                  <td>
                    <div className="row-actions">
                      {d.status !== 'verified' && d.method === 'dns' && (
                        <button type="button" aria-label={intl.formatMessage(m.checkOf, { domain: d.display })} onClick={() => open({ kind: 'check', d })}>
                          <FormattedMessage {...m.check} />
                        </button>
                      )}
                      {d.status !== 'verified' && d.method === 'mail' && (
                        <>
                          <button type="button" aria-label={intl.formatMessage(m.sendCodeOf, { domain: d.display })} onClick={() => open({ kind: 'send', d })}>
                            <FormattedMessage {...m.sendCode} />
                          </button>
                          <button type="button" aria-label={intl.formatMessage(m.verifyOf, { domain: d.display })} onClick={() => open({ kind: 'verify', d })}>
                            <FormattedMessage {...m.verify} />
                          </button>
                        </>
                      )}
                      <button type="button" className="danger" aria-label={intl.formatMessage(m.removeOf, { domain: d.display })} onClick={() => open({ kind: 'remove', d })}>
                        <FormattedMessage {...m.remove} />
                      </button>
                    </div>
                  </td>
                )}
              </tr>
            ))}
          </OrgTable>
        )}
        {operator && (
          <form className="console-form" data-testid="org-domain-add" onSubmit={submit} noValidate>
            <h3>
              <FormattedMessage {...m.add} />
            </h3>
            <label htmlFor={`${id}d`}>
              <FormattedMessage {...m.addDomain} />
            </label>
            <input id={`${id}d`} name="domain" maxLength={253} autoComplete="off" value={domain} aria-invalid={!!error} aria-describedby={`${id}e`} onChange={(e) => setDomain(e.target.value)} />
            <p id={`${id}e`} className="field-error" role="alert">
              {error}
            </p>
            <label htmlFor={`${id}m`}>
              <FormattedMessage {...m.addMethod} />
            </label>
            <select id={`${id}m`} name="method" value={method} onChange={(e) => setMethod(e.target.value)}>
              <option value="dns">{intl.formatMessage(m.dns)}</option>
              <option value="mail">{intl.formatMessage(m.mail)}</option>
            </select>
            <button type="submit" className="primary">
              <FormattedMessage {...m.addButton} />
            </button>
          </form>
        )}
        {act && (
          <ReasonDialog
            testId="org-domain-dialog"
            title={<FormattedMessage {...dialog[act.kind][0]} values={{ domain: act.d.display, enrolment: act.kind === 'enrol' ? word(enrolments, act.to) : '' }} />}
            description={<FormattedMessage {...dialog[act.kind][1]} />}
            confirm={dialog[act.kind][2]}
            danger={act.kind === 'remove'}
            run={(reason) => run(act, reason)}
            onDone={(ok) => {
              const a = act;
              setAct(null);
              if (ok) done(said(a));
            }}
          >
            {(act.kind === 'send' || act.kind === 'verify') && (
              <>
                <label htmlFor={`${id}a`}>
                  <FormattedMessage {...m.address} />
                </label>
                <input id={`${id}a`} name="mail" type="email" data-autofocus maxLength={254} autoComplete="off" value={mail} onChange={(e) => setMail(e.target.value)} />
                {act.kind === 'verify' && (
                  <>
                    <label htmlFor={`${id}c`}>
                      <FormattedMessage {...m.code} />
                    </label>
                    <input id={`${id}c`} name="code" inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={code} onChange={(e) => setCode(e.target.value)} />
                  </>
                )}
              </>
            )}
          </ReasonDialog>
        )}
        {adding && (
          <ReasonDialog
            testId="org-domain-add-dialog"
            title={<FormattedMessage {...m.addTitle} values={{ domain: domain.trim() }} />}
            description={<FormattedMessage {...m.addText} />}
            confirm={m.addConfirm}
            run={(reason) => guard(() => addOrgDomain(orgId, domain.trim(), method, reason))}
            onDone={(ok) => {
              setAdding(false);
              if (!ok) return;
              done(intl.formatMessage(m.addedSay, { domain: domain.trim() }));
              setDomain('');
            }}
          />
        )}
      </Section>
    </>
  );
}
