// "Sign in through", per verified domain, in "My company"'s sign-in connections
// (docs/organizations-connections.md §0.4–0.5): the connection (one that is on) its people are
// offered on the sign-in page when they type an address there, or none; and "required" (the
// server then refuses their password and mail-code sign-ins). Each change is sent at once
// (PUT /org/{orgId}/domains/{domain}/sign-in); a refusal is the server's reason in words, in the card.
import { useId, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Said, useSaid } from '../../components/said';
import { errorText, handleError } from '../../lib/api';
import type { OrgConnection, OrgDomain } from '../../lib/api-types.gen';
import { hasReason } from '../../lib/reasons';
import { setDomainSignIn } from './api';

const m = defineMessages({
  heading: { id: 'org.conn.routing.heading', defaultMessage: 'Sign-in of your verified domains' },
  intro: {
    id: 'org.conn.routing.intro',
    defaultMessage: 'Someone who types an address at a routed domain on the sign-in page is offered to continue with its connection. Only a connection that is on can be chosen.',
  },
  none: { id: 'org.conn.routing.none', defaultMessage: 'No verified domain yet: verify one in Domains first.' },
  through: { id: 'org.conn.routing.through', defaultMessage: 'Sign in through' },
  nobody: { id: 'org.conn.routing.nobody', defaultMessage: 'No company sign-in (password and codes)' },
  required: { id: 'org.conn.routing.required', defaultMessage: 'Required: its addresses may only sign in through the connection' },
  routed: { id: 'org.conn.routing.routed', defaultMessage: '{domain} signs in through {name}.' },
  routedRequired: { id: 'org.conn.routing.routedRequired', defaultMessage: '{domain} must sign in through {name}.' },
  cleared: { id: 'org.conn.routing.cleared', defaultMessage: '{domain} signs in with password and codes again.' },
});

interface Props {
  orgId: string;
  active: boolean;
  conns: OrgConnection[];
  domains: OrgDomain[];
  onRouted: (d: OrgDomain) => void;
}

export function DomainRouting({ orgId, active, conns, domains, onRouted }: Props) {
  const intl = useIntl();
  const hid = useId();
  const [busy, setBusy] = useState(false);
  const { said, say } = useSaid();
  // A refusal of a change here, in its words, beside the choices (a select's change is no click, so
  // the card's FormError would not know it was used).
  const [refused, setRefused] = useState<string | null>(null);
  const verified = domains.filter((d) => d.status === 'verified');
  const on = conns.filter((c) => c.status === 'on');
  const nameOf = (connId: string) => {
    const c = conns.find((x) => x.connId === connId);
    return c ? (intl.locale === 'zh-CN' ? c.nameZh || c.nameEn : c.nameEn || c.nameZh) : connId;
  };
  const route = async (d: OrgDomain, connId: string | null, required: boolean) => {
    setBusy(true);
    setRefused(null);
    const r = await setDomainSignIn(orgId, d.domain, connId, connId !== null && required);
    setBusy(false);
    if (!r.success) {
      const mine = hasReason(r.error, 'CONNECTION_NOT_FOUND', 'CONNECTION_NOT_ON', 'DOMAIN_NOT_FOUND', 'DOMAIN_NOT_VERIFIED', 'ORG_NOT_ACTIVE', 'ORG_ROLE_FORBIDDEN', 'INVALID_PARAMETER');
      return mine ? setRefused(errorText(r.error)) : handleError(r.error);
    }
    onRouted(r.data);
    const s = r.data.signIn;
    say(s ? intl.formatMessage(s.required ? m.routedRequired : m.routed, { domain: d.display, name: nameOf(s.connId) }) : intl.formatMessage(m.cleared, { domain: d.display }));
  };
  return (
    <section className="conn-routing" aria-labelledby={`${hid}h`} data-testid="org-conn-routing">
      <h3 id={`${hid}h`}>
        <FormattedMessage {...m.heading} />
      </h3>
      <p className="muted">
        <FormattedMessage {...m.intro} />
      </p>
      <Said said={said} testId="org-conn-routing-said" />
      <p role="alert" className="field-error" data-testid="org-conn-routing-error">
        {refused}
      </p>
      {verified.length === 0 ? (
        <p className="muted" data-testid="org-conn-routing-none">
          <FormattedMessage {...m.none} />
        </p>
      ) : (
        <ul className="items">
          {verified.map((d) => {
            const current = d.signIn?.connId ?? '';
            // The routed connection is on (the server keeps it so); listed even if this page's list is older.
            const choices = current && !on.some((c) => c.connId === current) ? [...on, ...conns.filter((c) => c.connId === current)] : on;
            return (
              <li key={d.domain} data-testid="org-conn-route" data-domain={d.domain} data-conn={current}>
                <strong id={`${hid}${d.domain}n`}>{d.display}</strong>
                <div className="row-actions">
                  <label id={`${hid}${d.domain}l`} htmlFor={`${hid}${d.domain}s`}>
                    <FormattedMessage {...m.through} />
                  </label>
                  <select id={`${hid}${d.domain}s`} aria-labelledby={`${hid}${d.domain}l ${hid}${d.domain}n`} value={current} disabled={!active || busy} data-testid="org-conn-route-select"
                    onChange={(e) => void route(d, e.target.value || null, d.signIn?.required ?? false)}>
                    <option value="">{intl.formatMessage(m.nobody)}</option>
                    {choices.map((c) => (
                      <option key={c.connId} value={c.connId}>
                        {nameOf(c.connId)}
                      </option>
                    ))}
                  </select>
                  <label className="check">
                    <input type="checkbox" checked={d.signIn?.required ?? false} disabled={!active || busy || !current} data-testid="org-conn-route-required"
                      aria-describedby={`${hid}${d.domain}n`} onChange={(e) => void route(d, current, e.target.checked)} /> <FormattedMessage {...m.required} />
                  </label>
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
