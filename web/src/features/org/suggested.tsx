// "My company"'s suggested organizations (GET /org/suggested, docs/organizations-domains.md §4,
// enrolment `suggest`): "Your address at acme.com lets you join Acme", with Join (POST
// /org/suggested/{orgId} {accept: true}: a member with the organization's default role) and Not
// now ({accept: false}: the server does not suggest it again, which the card says). Nothing is
// shown while there is no suggestion, nor when the list could not be read (the rest of the page
// does not depend on it). A refusal is said in the card (DOMAIN_NOT_FOUND: the suggestion is gone).
import { useEffect, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { errorText, handleError } from '../../lib/api';
import type { Suggested } from '../../lib/api-types.gen';
import { asLocale } from '../../i18n/locale';
import { hasReason } from '../../lib/reasons';
import { answerSuggestion, suggestedOrganizations } from './api';
import { orgName } from './labels';

const m = defineMessages({
  heading: { id: 'org.suggested.heading', defaultMessage: 'Organizations you can join' },
  lead: { id: 'org.suggested.lead', defaultMessage: 'Your address at {domain} lets you join {org}.' },
  join: { id: 'org.suggested.join', defaultMessage: 'Join' },
  notNow: { id: 'org.suggested.notNow', defaultMessage: 'Not now' },
  joinLabel: { id: 'org.suggested.joinLabel', defaultMessage: 'Join {org}' },
  notNowLabel: { id: 'org.suggested.notNowLabel', defaultMessage: 'Not now: do not suggest {org} again' },
  hint: { id: 'org.suggested.hint', defaultMessage: '“Not now” stops this suggestion; the organization’s administrators can still invite you.' },
  gone: { id: 'org.suggested.gone', defaultMessage: 'This suggestion is no longer open.' },
  declined: { id: 'org.suggested.declined', defaultMessage: '{org} will not be suggested again.' },
});

export function SuggestedOrganizations({ onJoined }: { onJoined: (orgId: string) => void }) {
  const intl = useIntl();
  const lang = asLocale(intl.locale) ?? 'zh-CN';
  const [list, setList] = useState<Suggested[]>([]);
  const [busy, setBusy] = useState<string | null>(null);
  const [said, setSaid] = useState<{ text: string; error: boolean } | null>(null);
  useEffect(() => {
    let alive = true;
    void suggestedOrganizations().then((r) => {
      if (!alive) return;
      if (r.success) setList(r.data.suggestions ?? []);
      else if (hasReason(r.error, 'AUTHORIZATION_FAILED')) handleError(r.error);
    });
    return () => {
      alive = false;
    };
  }, []);
  const answer = async (s: Suggested, accept: boolean) => {
    setBusy(s.orgId);
    const r = await answerSuggestion(s.orgId, accept);
    setBusy(null);
    if (!r.success) {
      if (hasReason(r.error, 'AUTHORIZATION_FAILED')) return handleError(r.error);
      // The suggestion is gone (declined elsewhere, the organization suspended): off the list.
      const gone = hasReason(r.error, 'DOMAIN_NOT_FOUND');
      if (gone) setList((l) => l.filter((x) => x.orgId !== s.orgId));
      return setSaid({ text: gone ? intl.formatMessage(m.gone) : errorText(r.error), error: true });
    }
    setList((l) => l.filter((x) => x.orgId !== s.orgId));
    if (accept) onJoined(s.orgId);
    else setSaid({ text: intl.formatMessage(m.declined, { org: orgName(s, lang) }), error: false });
  };
  if (!list.length && !said) return null;
  return (
    <section className="card" aria-labelledby="org-suggested-title" data-testid="org-suggested">
      <h2 id="org-suggested-title">
        <FormattedMessage {...m.heading} />
      </h2>
      <p role={said?.error ? 'alert' : 'status'} className={said ? (said.error ? 'form-alert on' : 'notice') : 'sr-only'} data-testid="org-suggested-said">
        {said?.text}
      </p>
      {list.length > 0 && (
        <>
          <ul className="items">
            {list.map((s) => {
              const org = orgName(s, lang);
              return (
                <li key={s.orgId} data-testid="org-suggestion" data-org-id={s.orgId}>
                  <p>
                    <FormattedMessage {...m.lead} values={{ domain: <strong>{s.domain}</strong>, org: <strong>{org}</strong> }} />
                  </p>
                  <div className="actions">
                    <button type="button" onClick={() => void answer(s, false)} disabled={busy !== null}
                      aria-label={intl.formatMessage(m.notNowLabel, { org })} data-testid="org-suggestion-decline">
                      <FormattedMessage {...m.notNow} />
                    </button>
                    <button type="button" className="primary" onClick={() => void answer(s, true)} disabled={busy !== null}
                      aria-label={intl.formatMessage(m.joinLabel, { org })} data-testid="org-suggestion-join">
                      <FormattedMessage {...m.join} />
                    </button>
                  </div>
                </li>
              );
            })}
          </ul>
          <p className="muted">
            <FormattedMessage {...m.hint} />
          </p>
        </>
      )}
    </section>
  );
}
