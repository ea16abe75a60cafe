// The verified domains of an organization in "My company" (docs/organizations-domains.md §5), for
// its owners and admins (the server refuses members: ORG_ROLE_FORBIDDEN, so org-detail.tsx shows
// this card to admins only): the claims with their status, method, enrolment and date; a new claim
// with its method; the proof of a pending one (domain-proof.tsx: the TXT record and "Check now", or
// a code to an administrative mailbox); the enrolment; removal after a confirmation. Every refusal
// is the server's reason in words: at the field it concerns, else in the card (FormError).
import { type FormEvent, useCallback, useEffect, useId, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, type IntlShape, type MessageDescriptor, useIntl } from 'react-intl';
import { Dialog } from '../../components/dialog';
import { Field, FormAlert } from '../../components/field';
import { Said, useSaid } from '../../components/said';
import { useForm } from '../../components/use-form';
import { When } from '../../components/when';
import { errorText, handleError } from '../../lib/api';
import type { OrgDomain } from '../../lib/api-types.gen';
import { hasReason } from '../../lib/reasons';
import { addDomain, listDomains, removeDomain, setEnrolment } from './api';
import { Card } from './card';
import { DnsProof, MailProof } from './domain-proof';
import { Pending } from './load';

const m = defineMessages({
  heading: { id: 'org.domains.heading', defaultMessage: 'Domains' },
  intro: {
    id: 'org.domains.intro',
    defaultMessage:
      "Claim the mail domains your company's people use and prove the company controls them. A verified domain belongs to this organization alone, and can bring the people who prove an address there into it.",
  },
  loading: { id: 'org.domains.loading', defaultMessage: 'Loading the domains…' },
  loadFailed: { id: 'org.domains.loadFailed', defaultMessage: 'The domains could not be loaded.' },
  retry: { id: 'org.domains.retry', defaultMessage: 'Try again' },
  none: { id: 'org.domains.none', defaultMessage: 'No domain claimed yet.' },
  listLabel: { id: 'org.domains.listLabel', defaultMessage: "The organization's domains" },
  pending: { id: 'org.domains.pending', defaultMessage: 'Waiting for proof' },
  verified: { id: 'org.domains.verified', defaultMessage: 'Verified' },
  byDns: { id: 'org.domains.byDns', defaultMessage: 'DNS record' },
  byMail: { id: 'org.domains.byMail', defaultMessage: 'Administrative mailbox' },
  added: { id: 'org.domains.added', defaultMessage: 'Added {when}' },
  verifiedAt: { id: 'org.domains.verifiedAt', defaultMessage: 'Verified {when}' },
  expires: { id: 'org.domains.expires', defaultMessage: 'The claim goes away {when} unless it is proven' },
  enrolment: { id: 'org.domains.enrolment', defaultMessage: 'Enrolment' },
  enrolmentHelp: { id: 'org.domains.enrolmentHelp', defaultMessage: 'What enrolment does (once the domain is verified):' },
  off: { id: 'org.domains.off', defaultMessage: 'Off' },
  offText: { id: 'org.domains.offText', defaultMessage: 'Nothing happens when someone proves an address at the domain.' },
  suggest: { id: 'org.domains.suggest', defaultMessage: 'Suggest' },
  suggestText: { id: 'org.domains.suggestText', defaultMessage: 'Whoever proves an address at the domain is offered to join; they choose.' },
  automatic: { id: 'org.domains.automatic', defaultMessage: 'Automatic' },
  automaticText: { id: 'org.domains.automaticText', defaultMessage: "Whoever proves an address at the domain joins at once with the organization's default role." },
  enrolmentSet: { id: 'org.domains.enrolmentSet', defaultMessage: 'Enrolment of {domain}: {enrolment}.' },
  remove: { id: 'org.domains.remove', defaultMessage: 'Remove' },
  removeFor: { id: 'org.domains.removeFor', defaultMessage: 'Remove {domain}' },
  confirmRemove: { id: 'org.domains.confirmRemove', defaultMessage: 'Remove {domain}?' },
  confirmRemoveText: {
    id: 'org.domains.confirmRemoveText',
    defaultMessage: 'People who joined through it stay members. Once removed, another organization may claim it.',
  },
  removed: { id: 'org.domains.removed', defaultMessage: '{domain} was removed.' },
  cancel: { id: 'org.domains.cancel', defaultMessage: 'Cancel' },
  addHeading: { id: 'org.domains.addHeading', defaultMessage: 'Add a domain' },
  domain: { id: 'org.domains.domain', defaultMessage: 'Domain' },
  domainHint: { id: 'org.domains.domainHint', defaultMessage: 'For example acme.com. A subdomain such as eu.acme.com is claimed on its own.' },
  domainEmpty: { id: 'org.domains.domainEmpty', defaultMessage: 'Give the domain, for example acme.com' },
  method: { id: 'org.domains.method', defaultMessage: 'How will you prove it?' },
  dnsChoice: { id: 'org.domains.dnsChoice', defaultMessage: "A TXT record in the domain's DNS (your IT department or DNS provider publishes it)" },
  mailChoice: { id: 'org.domains.mailChoice', defaultMessage: 'A code sent to an administrative mailbox: admin@, administrator@, webmaster@, hostmaster@ or postmaster@' },
  add: { id: 'org.domains.add', defaultMessage: 'Add domain' },
  addedSay: { id: 'org.domains.addedSay', defaultMessage: '{domain} was added: prove it below.' },
  verifiedSay: { id: 'org.domains.verifiedSay', defaultMessage: '{domain} is verified.' },
});

export const ENROLMENTS = ['off', 'suggest', 'automatic'] as const;
const ENROLMENT_WORDS: Record<string, [MessageDescriptor, MessageDescriptor]> = {
  off: [m.off, m.offText],
  suggest: [m.suggest, m.suggestText],
  automatic: [m.automatic, m.automaticText],
};

const word = (intl: IntlShape, table: Record<string, MessageDescriptor>, v: string) => (Object.hasOwn(table, v) ? intl.formatMessage(table[v]!) : v);
const statusName = (intl: IntlShape, s: string) => word(intl, { pending: m.pending, verified: m.verified }, s);
const methodName = (intl: IntlShape, s: string) => word(intl, { dns: m.byDns, mail: m.byMail }, s);
const enrolmentName = (intl: IntlShape, s: string) => (ENROLMENT_WORDS[s] ? intl.formatMessage(ENROLMENT_WORDS[s][0]) : s);

/** The list by domain, with `d` put in (replacing the same domain's). */
const upsert = (list: OrgDomain[], d: OrgDomain) => [...list.filter((x) => x.domain !== d.domain), d].sort((a, b) => a.domain.localeCompare(b.domain));

export function Domains({ orgId, active }: { orgId: string; active: boolean }) {
  const intl = useIntl();
  const [list, setList] = useState<OrgDomain[] | 'failed' | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [fresh, setFresh] = useState<string | null>(null);
  const [asking, setAsking] = useState<OrgDomain | null>(null);
  const [busy, setBusy] = useState(false);
  const { said, say } = useSaid();
  const heading = useRef<HTMLHeadingElement>(null);
  const helpId = useId();
  useEffect(() => {
    let alive = true;
    void listDomains(orgId).then((r) => {
      if (!alive) return;
      if (r.success) setList(r.data.domains);
      else {
        handleError(r.error);
        setList('failed');
      }
    });
    return () => {
      alive = false;
    };
  }, [orgId, attempt]);
  const put = useCallback((d: OrgDomain) => setList((l) => upsert(Array.isArray(l) ? l : [], d)), []);
  const verified = useCallback(
    (d: OrgDomain) => {
      put(d);
      say(intl.formatMessage(m.verifiedSay, { domain: d.display }));
    },
    [put, say, intl],
  );
  const enrol = async (d: OrgDomain, enrolment: string) => {
    setBusy(true);
    const r = await setEnrolment(orgId, d.domain, enrolment);
    setBusy(false);
    if (!r.success) return handleError(r.error);
    put(r.data);
    say(intl.formatMessage(m.enrolmentSet, { domain: d.display, enrolment: enrolmentName(intl, r.data.enrolment) }));
  };
  const remove = async (d: OrgDomain) => {
    setAsking(null);
    setBusy(true);
    const r = await removeDomain(orgId, d.domain);
    setBusy(false);
    heading.current?.focus();
    if (!r.success) return handleError(r.error);
    setList((l) => (Array.isArray(l) ? l.filter((x) => x.domain !== d.domain) : l));
    say(intl.formatMessage(m.removed, { domain: d.display }));
  };
  const added = (d: OrgDomain) => {
    put(d);
    setFresh(d.domain);
    say(intl.formatMessage(m.addedSay, { domain: d.display }));
  };

  return (
    <Card id="org-domains" testId="org-domains">
      <h2 id="org-domains-title" ref={heading} tabIndex={-1}>
        <FormattedMessage {...m.heading} />
      </h2>
      <p className="muted">
        <FormattedMessage {...m.intro} />
      </p>
      <Said said={said} testId="org-domains-said" />
      {!Array.isArray(list) ? (
        <Pending failed={list === 'failed'} onRetry={() => setAttempt((n) => n + 1)} said={m} />
      ) : (
        <>
          <div id={helpId} className="muted enrolment-help">
            <p>
              <FormattedMessage {...m.enrolmentHelp} />
            </p>
            <dl className="facts">
              {ENROLMENTS.map((e) => (
                <div key={e}>
                  <dt>
                    <FormattedMessage {...ENROLMENT_WORDS[e]![0]} />
                  </dt>
                  <dd>
                    <FormattedMessage {...ENROLMENT_WORDS[e]![1]} />
                  </dd>
                </div>
              ))}
            </dl>
          </div>
          {list.length === 0 ? (
            <p className="muted" data-testid="org-domains-none">
              <FormattedMessage {...m.none} />
            </p>
          ) : (
            <ul className="items domains" aria-label={intl.formatMessage(m.listLabel)}>
              {list.map((d) => (
                <DomainItem key={d.domain} orgId={orgId} d={d} active={active} busy={busy} helpId={helpId} fresh={fresh === d.domain}
                  onEnrol={(e) => void enrol(d, e)} onRemove={() => setAsking(d)} onVerified={verified} />
              ))}
            </ul>
          )}
          {active && <AddDomain orgId={orgId} onAdded={added} />}
        </>
      )}
      {asking && (
        <Dialog
          testId="org-domain-dialog"
          title={intl.formatMessage(m.confirmRemove, { domain: asking.display })}
          description={intl.formatMessage(m.confirmRemoveText)}
          onCancel={() => setAsking(null)}
        >
          <div className="actions">
            <button type="button" data-autofocus onClick={() => setAsking(null)}>
              <FormattedMessage {...m.cancel} />
            </button>
            <button type="button" className="primary danger" data-testid="org-domain-confirm" onClick={() => void remove(asking)}>
              <FormattedMessage {...m.remove} />
            </button>
          </div>
        </Dialog>
      )}
    </Card>
  );
}

interface ItemProps {
  orgId: string;
  d: OrgDomain;
  active: boolean;
  busy: boolean;
  helpId: string;
  fresh: boolean;
  onEnrol: (enrolment: string) => void;
  onRemove: () => void;
  onVerified: (d: OrgDomain) => void;
}

function DomainItem({ orgId, d, active, busy, helpId, fresh, onEnrol, onRemove, onVerified }: ItemProps) {
  const intl = useIntl();
  const id = useId();
  const pending = d.status !== 'verified';
  return (
    <li data-testid="org-domain" data-domain={d.domain} data-status={d.status} data-enrolment={d.enrolment}>
      <div>
        <strong id={`${id}n`} data-testid="org-domain-name">
          {d.display}
        </strong>{' '}
        · <span data-testid="org-domain-status">{statusName(intl, d.status)}</span> · {methodName(intl, d.method)}
        <p className="muted">
          <FormattedMessage {...m.added} values={{ when: <When at={d.addedAt} /> }} />
          {d.verifiedAt != null && (
            <>
              {' · '}
              <FormattedMessage {...m.verifiedAt} values={{ when: <When at={d.verifiedAt} /> }} />
            </>
          )}
          {pending && d.expiresAt != null && (
            <>
              {' · '}
              <FormattedMessage {...m.expires} values={{ when: <When at={d.expiresAt} /> }} />
            </>
          )}
        </p>
        {pending && active && (d.method === 'mail' ? <MailProof orgId={orgId} d={d} fresh={fresh} onVerified={onVerified} /> : <DnsProof orgId={orgId} d={d} fresh={fresh} onVerified={onVerified} />)}
      </div>
      <div className="row-actions">
        <label id={`${id}l`} htmlFor={`${id}s`}>
          <FormattedMessage {...m.enrolment} />
        </label>
        <select id={`${id}s`} aria-labelledby={`${id}l ${id}n`} aria-describedby={helpId} value={d.enrolment} disabled={!active || busy}
          data-testid="org-domain-enrolment" onChange={(e) => onEnrol(e.target.value)}>
          {ENROLMENTS.map((e) => (
            <option key={e} value={e}>
              {enrolmentName(intl, e)}
            </option>
          ))}
        </select>
        {active && (
          <button type="button" className="danger" disabled={busy} aria-label={intl.formatMessage(m.removeFor, { domain: d.display })} data-testid="org-domain-remove" onClick={onRemove}>
            <FormattedMessage {...m.remove} />
          </button>
        )}
      </div>
    </li>
  );
}

/** The form of a new claim: the domain and its method. */
function AddDomain({ orgId, onAdded }: { orgId: string; onAdded: (d: OrgDomain) => void }) {
  const intl = useIntl();
  const f = useForm<{ domain: string; method: string }>({ domain: '', method: 'dns' });
  const [busy, setBusy] = useState(false);
  const legend = useId();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const domain = f.values.domain.trim();
    if (!f.check({ domain: domain ? null : m.domainEmpty })) return;
    setBusy(true);
    const r = await addDomain(orgId, domain, f.values.method);
    setBusy(false);
    if (!r.success) {
      if (hasReason(r.error, 'DOMAIN_INVALID', 'DOMAIN_PUBLIC', 'DOMAIN_ALREADY_VERIFIED', 'DOMAIN_LIMIT')) return f.flag('domain', errorText(r.error));
      return f.refuse(r.error);
    }
    f.set('domain', '');
    onAdded(r.data);
  };
  return (
    <form ref={f.ref} onSubmit={(e) => void submit(e)} noValidate data-testid="org-domain-add" aria-labelledby={`${legend}h`}>
      <h3 id={`${legend}h`}>
        <FormattedMessage {...m.addHeading} />
      </h3>
      <FormAlert {...f.alert} />
      <Field {...f.bind('domain')} label={m.domain} hint={m.domainHint} autoComplete="off" inputMode="url" maxLength={253} required />
      <fieldset className="choice">
        <legend>
          <FormattedMessage {...m.method} />
        </legend>
        {(['dns', 'mail'] as const).map((x) => (
          <label key={x} className="radio">
            <input type="radio" name="method" value={x} checked={f.values.method === x} onChange={() => f.set('method', x)} data-testid={`org-domain-method-${x}`} />{' '}
            {intl.formatMessage(x === 'dns' ? m.dnsChoice : m.mailChoice)}
          </label>
        ))}
      </fieldset>
      <button type="submit" className="primary" disabled={busy} data-testid="org-domain-add-submit">
        <FormattedMessage {...m.add} />
      </button>
    </form>
  );
}
