// The organization's audit log (GET /org/{orgId}/audit), for its owners and admins: what happened,
// by whom (their role, and an operator's reason), newest first, 50 a page ("Older entries" asks
// for the next with the last entry's cursor).
import { useEffect, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { When } from '../../components/when';
import { handleError } from '../../lib/api';
import type { OrgAuditEntry } from '../../lib/api-types.gen';
import { auditPage } from './api';
import { Card } from './card';
import { actionName, roleName } from './labels';
import { Pending } from './load';

/** Entries a full page holds: a shorter page is the last. */
const PAGE = 50;

const m = defineMessages({
  heading: { id: 'org.audit.heading', defaultMessage: 'Audit log' },
  loading: { id: 'org.audit.loading', defaultMessage: 'Loading the audit log…' },
  loadFailed: { id: 'org.audit.loadFailed', defaultMessage: 'The audit log could not be loaded.' },
  retry: { id: 'org.audit.retry', defaultMessage: 'Try again' },
  none: { id: 'org.audit.none', defaultMessage: 'Nothing recorded yet.' },
  by: { id: 'org.audit.by', defaultMessage: 'By {actor} ({role})' },
  on: { id: 'org.audit.on', defaultMessage: 'On {target}' },
  reason: { id: 'org.audit.reason', defaultMessage: 'Reason: {reason}' },
  older: { id: 'org.audit.older', defaultMessage: 'Older entries' },
});

export function AuditLog({ orgId }: { orgId: string }) {
  const intl = useIntl();
  const [entries, setEntries] = useState<OrgAuditEntry[] | 'failed' | null>(null);
  const [more, setMore] = useState(false);
  const [busy, setBusy] = useState(false);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let alive = true;
    void auditPage(orgId).then((r) => {
      if (!alive) return;
      if (r.success) {
        setEntries(r.data.entries);
        setMore(r.data.entries.length === PAGE);
      } else setEntries('failed');
    });
    return () => {
      alive = false;
    };
  }, [orgId, attempt]);
  const older = async () => {
    if (!Array.isArray(entries) || !entries.length) return;
    setBusy(true);
    const r = await auditPage(orgId, entries[entries.length - 1]!.cursor);
    setBusy(false);
    if (!r.success) return handleError(r.error);
    setEntries([...entries, ...r.data.entries]);
    setMore(r.data.entries.length === PAGE);
  };
  return (
    <Card id="org-audit" testId="org-audit">
      <h2 id="org-audit-title">
        <FormattedMessage {...m.heading} />
      </h2>
      {!Array.isArray(entries) ? (
        <Pending failed={entries === 'failed'} onRetry={() => setAttempt((n) => n + 1)} said={m} />
      ) : entries.length === 0 ? (
        <p className="muted">
          <FormattedMessage {...m.none} />
        </p>
      ) : (
        <ul className="events" aria-labelledby="org-audit-title">
          {entries.map((e) => (
            <li key={e.cursor} data-testid="org-audit-entry" data-action={e.action}>
              <div>
                <strong>{actionName(intl, e.action)}</strong>
                <p className="muted">
                  <When at={e.at} /> · <FormattedMessage {...m.by} values={{ actor: e.actor, role: roleName(intl, e.actorRole) }} />
                  {e.target && (
                    <>
                      {' · '}
                      <FormattedMessage {...m.on} values={{ target: e.target }} />
                    </>
                  )}
                </p>
                {e.detail && <p className="muted">{e.detail}</p>}
                {e.reason && (
                  <p className="muted">
                    <FormattedMessage {...m.reason} values={{ reason: e.reason }} />
                  </p>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
      {more && (
        <button type="button" disabled={busy} onClick={() => void older()} data-testid="org-audit-older">
          <FormattedMessage {...m.older} />
        </button>
      )}
    </Card>
  );
}
