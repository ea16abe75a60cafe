// The organization step of the authorize flow (issue 35 item 5, docs/oidc.md "Organizations"),
// loaded only when a request asks for an organization: the picker (a person in several
// organizations chooses the one the app gets as org_id / org_roles) and the refusal (an app that
// requires an organization the person lacks, or a request naming one that is not theirs). The
// refusal never sends a token: "Back to the app" is the request's cancel address (OpenID Connect's
// error=access_denied, a ticket app's cError=access_denied).
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor } from 'react-intl';
import type { ConsentContext, OrgStep } from '../../lib/partner';

const m = defineMessages({
  pickTitle: { id: 'authorize.org.pickTitle', defaultMessage: 'Which organization?' },
  pickLead: { id: 'authorize.org.pickLead', defaultMessage: '{app} works with one of your organizations. Choose the one to use now; {app} will see it and your role in it.' },
  pickLegend: { id: 'authorize.org.pickLegend', defaultMessage: 'Your organizations' },
  choice: { id: 'authorize.org.choice', defaultMessage: '{name} ({role})' },
  next: { id: 'authorize.org.next', defaultMessage: 'Continue' },
  cancel: { id: 'authorize.org.cancel', defaultMessage: 'Cancel' },
  refusedTitle: { id: 'authorize.org.refusedTitle', defaultMessage: '{app} needs an organization' },
  required: {
    id: 'authorize.org.required',
    defaultMessage: '{app} is only for members of an organization, and this account is not an active member of any. Ask your company’s administrator to invite you, then try again.',
  },
  notMember: {
    id: 'authorize.org.notMember',
    defaultMessage: '{app} asked for an organization this account is not an active member of. Use the account your organization invited, or ask its administrator.',
  },
  back: { id: 'authorize.org.back', defaultMessage: 'Back to {app}' },
  switch: { id: 'authorize.org.switch', defaultMessage: 'Use another account' },
  owner: { id: 'authorize.org.role.owner', defaultMessage: 'owner' },
  admin: { id: 'authorize.org.role.admin', defaultMessage: 'administrator' },
  member: { id: 'authorize.org.role.member', defaultMessage: 'member' },
});

const roles: Record<string, MessageDescriptor> = { owner: m.owner, admin: m.admin, member: m.member };

interface Props {
  ctx: ConsentContext;
  step: OrgStep;
  busy: boolean;
  onCancel: () => void;
}

/** Several organizations: the person picks the one the app gets. */
export function OrgPicker({ ctx, step, busy, onCancel, onPick }: Props & { onPick: (orgId: string) => void }) {
  const id = useId();
  const [picked, setPicked] = useState(step.choices[0]?.orgId ?? '');
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (picked) onPick(picked);
  };
  const app = <strong>{ctx.name}</strong>;
  return (
    <div className="card" data-testid="org-picker">
      <h1 ref={heading} tabIndex={-1}>
        <FormattedMessage {...m.pickTitle} />
      </h1>
      <p id={`${id}lead`}>
        <FormattedMessage {...m.pickLead} values={{ app }} />
      </p>
      <form onSubmit={submit} aria-describedby={`${id}lead`}>
        <fieldset className="choice">
          <legend>
            <FormattedMessage {...m.pickLegend} />
          </legend>
          {step.choices.map((c) => (
            <label key={c.orgId} className="radio">
              <input type="radio" name="organization" value={c.orgId} checked={picked === c.orgId} onChange={() => setPicked(c.orgId)} data-testid="org-choice" />
              <FormattedMessage {...m.choice} values={{ name: c.name, role: <FormattedMessage {...(roles[c.role] ?? m.member)} /> }} />
            </label>
          ))}
        </fieldset>
        <div className="actions">
          <button type="button" onClick={onCancel} disabled={busy} data-testid="org-cancel">
            <FormattedMessage {...m.cancel} />
          </button>
          <button type="submit" className="primary" disabled={busy || !picked} data-testid="org-next">
            <FormattedMessage {...m.next} />
          </button>
        </div>
      </form>
    </div>
  );
}

/** The person cannot go on: why, and the ways out (no token is ever sent). */
export function OrgRefused({ ctx, step, busy, onCancel, onSwitch }: Props & { onSwitch: () => void }) {
  const app = ctx.name;
  return (
    <div className="card" data-testid="org-refused">
      <h1>
        <FormattedMessage {...m.refusedTitle} values={{ app }} />
      </h1>
      <p role="alert" data-testid="org-refused-why">
        <FormattedMessage {...(step.refused === 'notMember' ? m.notMember : m.required)} values={{ app: <strong>{app}</strong> }} />
      </p>
      <div className="actions">
        <button type="button" onClick={onSwitch} disabled={busy} data-testid="org-switch">
          <FormattedMessage {...m.switch} />
        </button>
        <button type="button" className="primary" onClick={onCancel} disabled={busy} data-testid="org-back">
          <FormattedMessage {...m.back} values={{ app }} />
        </button>
      </div>
    </div>
  );
}
