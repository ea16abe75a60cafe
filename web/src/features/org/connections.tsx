// The organization's own sign-in connections in "My company" (docs/organizations-connections.md
// §5), for its owners and admins: the list with each one's status (draft, tested, on), protocol and
// name; a new one or a change of one (connection-form.tsx); "Test" (the server answers the
// identity provider's address: opened in a new tab, whose way back is the server's page of what
// the provider said; coming back here reloads the list, so a passed test shows as "tested");
// "Turn on" / "Turn off"; deletion after a confirmation; and per verified domain "Sign in
// through" one of the connections that are on, with the "required" switch
// (connection-routing.tsx). Every refusal is the server's reason in words, in the card.
import { useCallback, useEffect, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, useIntl } from 'react-intl';
import { Dialog } from '../../components/dialog';
import { Said, useSaid } from '../../components/said';
import { When } from '../../components/when';
import { handleError } from '../../lib/api';
import type { OrgConnection, OrgDomain } from '../../lib/api-types.gen';
import { deleteConnection, listConnections, listDomains, patchConnection, testConnection } from './api';
import { Card } from './card';
import { ConnectionForm, jitWords, RedirectUri } from './connection-form';
import { isProtocol, pinnedOf, protocolWords, unreachable as unreachableText } from './protocols';
import { DomainRouting } from './connection-routing';
import { Pending } from './load';

const m = defineMessages({
  heading: { id: 'org.conn.heading', defaultMessage: 'Sign-in connections' },
  intro: {
    id: 'org.conn.intro',
    defaultMessage:
      "Let your company's people sign in with the company's own accounts (your identity provider, through OpenID Connect). Add a connection, test it, turn it on, then route a verified domain to it.",
  },
  loading: { id: 'org.conn.loading', defaultMessage: 'Loading the sign-in connections…' },
  loadFailed: { id: 'org.conn.loadFailed', defaultMessage: 'The sign-in connections could not be loaded.' },
  retry: { id: 'org.conn.retry', defaultMessage: 'Try again' },
  none: { id: 'org.conn.none', defaultMessage: 'No sign-in connection yet.' },
  listLabel: { id: 'org.conn.listLabel', defaultMessage: "The organization's sign-in connections" },
  draft: { id: 'org.conn.status.draft', defaultMessage: 'Draft: not tested yet' },
  tested: { id: 'org.conn.status.tested', defaultMessage: 'Tested: ready to turn on' },
  on: { id: 'org.conn.status.on', defaultMessage: 'On' },
  testedAt: { id: 'org.conn.testedAt', defaultMessage: 'Last test passed {when}' },
  secretSet: { id: 'org.conn.secretSet', defaultMessage: 'A secret is set' },
  noSecret: { id: 'org.conn.noSecret', defaultMessage: 'No secret set' },
  add: { id: 'org.conn.add', defaultMessage: 'Add a connection' },
  edit: { id: 'org.conn.edit', defaultMessage: 'Change' },
  editFor: { id: 'org.conn.editFor', defaultMessage: 'Change {name}' },
  test: { id: 'org.conn.test', defaultMessage: 'Test' },
  testFor: { id: 'org.conn.testFor', defaultMessage: 'Test {name}' },
  testOpen: { id: 'org.conn.testOpen', defaultMessage: 'Open the test sign-in of {name} (new tab)' },
  testText: {
    id: 'org.conn.testText',
    defaultMessage:
      "Sign in at your identity provider in the new tab: its page then says what the provider answered, and signs nobody in. Come back here to see whether the test passed (the address works for 10 minutes).",
  },
  testCheck: { id: 'org.conn.testCheck', defaultMessage: 'See the result' },
  turnOn: { id: 'org.conn.turnOn', defaultMessage: 'Turn on' },
  turnOnFor: { id: 'org.conn.turnOnFor', defaultMessage: 'Turn on {name}' },
  turnOff: { id: 'org.conn.turnOff', defaultMessage: 'Turn off' },
  turnOffFor: { id: 'org.conn.turnOffFor', defaultMessage: 'Turn off {name}' },
  notTested: { id: 'org.conn.notTested', defaultMessage: 'Test {name} first: only a connection whose test passed can be turned on.' },
  turnedOn: { id: 'org.conn.turnedOn', defaultMessage: '{name} is on: route a verified domain to it below.' },
  turnedOff: { id: 'org.conn.turnedOff', defaultMessage: '{name} is off; the domains routed to it sign in as before.' },
  remove: { id: 'org.conn.remove', defaultMessage: 'Delete' },
  removeFor: { id: 'org.conn.removeFor', defaultMessage: 'Delete {name}' },
  confirmRemove: { id: 'org.conn.confirmRemove', defaultMessage: 'Delete {name}?' },
  confirmRemoveText: {
    id: 'org.conn.confirmRemoveText',
    defaultMessage: 'Its secret goes with it and the domains routed to it lose their routing. The people who signed in through it keep their accounts and memberships.',
  },
  cancel: { id: 'org.conn.cancel', defaultMessage: 'Cancel' },
  removed: { id: 'org.conn.removed', defaultMessage: '{name} was deleted.' },
  created: { id: 'org.conn.created', defaultMessage: '{name} was added as a draft: register the redirect URI at your identity provider, then test it.' },
  saved: { id: 'org.conn.saved', defaultMessage: '{name} was saved.' },
});

export const statusWords = { draft: m.draft, tested: m.tested, on: m.on };

/** The connection's name in the page's language (the other one when empty). */
export const connName = (c: { nameZh: string; nameEn: string }, lang: string) => (lang === 'zh-CN' ? c.nameZh || c.nameEn : c.nameEn || c.nameZh);

const upsert = (list: OrgConnection[], c: OrgConnection) => [...list.filter((x) => x.connId !== c.connId), c].sort((a, b) => a.connId.localeCompare(b.connId));

type Loaded = { conns: OrgConnection[]; domains: OrgDomain[] };

export function Connections({ orgId, active }: { orgId: string; active: boolean }) {
  const intl = useIntl();
  const lang = intl.locale;
  const [data, setData] = useState<Loaded | 'failed' | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [editing, setEditing] = useState<OrgConnection | 'new' | null>(null);
  const [asking, setAsking] = useState<OrgConnection | null>(null);
  const [testing, setTesting] = useState<{ c: OrgConnection; url: string } | null>(null);
  const [busy, setBusy] = useState(false);
  // A test whose identity provider did not answer (SERVICE_UNAVAILABLE): said in this card's words.
  const [unreachable, setUnreachable] = useState<string | null>(null);
  const { said, say } = useSaid();
  const heading = useRef<HTMLHeadingElement>(null);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  useEffect(() => {
    let alive = true;
    void Promise.all([listConnections(orgId), listDomains(orgId)]).then(([c, d]) => {
      if (!alive) return;
      if (!c.success) handleError(c.error);
      else if (!d.success) handleError(d.error);
      // Lists, or the card says it could not load them (an answer of another shape too).
      setData(c.success && d.success && Array.isArray(c.data.connections) && Array.isArray(d.data.domains) ? { conns: c.data.connections, domains: d.data.domains } : 'failed');
    });
    return () => {
      alive = false;
    };
  }, [orgId, attempt]);
  // Coming back from the test's tab: its outcome is on the connection.
  useEffect(() => {
    if (!testing) return;
    const back = () => {
      if (document.visibilityState === 'visible') reload();
    };
    document.addEventListener('visibilitychange', back);
    return () => document.removeEventListener('visibilitychange', back);
  }, [testing, reload]);
  const put = (c: OrgConnection) => setData((d) => (d && d !== 'failed' ? { ...d, conns: upsert(d.conns, c) } : d));
  const name = (c: OrgConnection) => connName(c, lang);
  const startTest = async (c: OrgConnection) => {
    setBusy(true);
    setUnreachable(null);
    const r = await testConnection(orgId, c.connId);
    setBusy(false);
    if (!r.success) {
      if (r.error.reason === 'SERVICE_UNAVAILABLE') return setUnreachable(intl.formatMessage(unreachableText, { name: name(c) }));
      return handleError(r.error);
    }
    setTesting({ c, url: r.data.url });
  };
  const turn = async (c: OrgConnection, on: boolean) => {
    setBusy(true);
    const r = await patchConnection(orgId, c.connId, { on });
    setBusy(false);
    if (!r.success) {
      if (r.error.reason === 'INVALID_PARAMETER' && r.error.field === 'on') return say(intl.formatMessage(m.notTested, { name: name(c) }));
      return handleError(r.error);
    }
    put(r.data);
    // Turning off clears the routing of its domains (the server's transaction): read them again.
    if (!on) reload();
    say(intl.formatMessage(on ? m.turnedOn : m.turnedOff, { name: name(r.data) }));
  };
  const remove = async (c: OrgConnection) => {
    setAsking(null);
    setBusy(true);
    const r = await deleteConnection(orgId, c.connId);
    setBusy(false);
    heading.current?.focus();
    if (!r.success) return handleError(r.error);
    reload();
    say(intl.formatMessage(m.removed, { name: name(c) }));
  };
  const saved = (c: OrgConnection, created: boolean) => {
    setEditing(null);
    put(c);
    say(intl.formatMessage(created ? m.created : m.saved, { name: name(c) }));
    heading.current?.focus();
  };
  const list = data && data !== 'failed' ? data : null;
  const redirectUri = list?.conns[0]?.redirectUri ?? null;
  return (
    <Card id="org-conns" testId="org-conns">
      <h2 id="org-conns-title" ref={heading} tabIndex={-1}>
        <FormattedMessage {...m.heading} />
      </h2>
      <p className="muted">
        <FormattedMessage {...m.intro} />
      </p>
      <Said said={said} testId="org-conns-said" />
      <p role="alert" className="field-error" data-testid="org-conns-unreachable">
        {unreachable}
      </p>
      {!list ? (
        <Pending failed={data === 'failed'} onRetry={reload} said={m} />
      ) : (
        <>
          {list.conns.length === 0 ? (
            <p className="muted" data-testid="org-conns-none">
              <FormattedMessage {...m.none} />
            </p>
          ) : (
            <ul className="items conns" aria-label={intl.formatMessage(m.listLabel)}>
              {list.conns.map((c) => (
                <li key={c.connId} data-testid="org-conn" data-conn={c.connId} data-status={c.status}>
                  <div>
                    <strong data-testid="org-conn-name">{name(c)}</strong> · {isProtocol(c.protocol) ? intl.formatMessage(protocolWords[c.protocol]) : c.protocol} ·{' '}
                    <span data-testid="org-conn-status">{intl.formatMessage(statusWords[c.status])}</span>
                    <p className="muted">
                      {pinnedOf(c) && (
                        <>
                          <code data-testid="org-conn-pinned">{pinnedOf(c)}</code>
                          {' · '}
                        </>
                      )}
                      {intl.formatMessage(jitWords[c.jit as 'off'] ?? jitWords.off)} · <FormattedMessage {...(c.hasSecret ? m.secretSet : m.noSecret)} />
                      {c.testedAt != null && (
                        <>
                          {' · '}
                          <FormattedMessage {...m.testedAt} values={{ when: <When at={c.testedAt} /> }} />
                        </>
                      )}
                    </p>
                    {testing?.c.connId === c.connId && (
                      <div className="conn-test" data-testid="org-conn-testing">
                        <p>
                          <a href={testing.url} target="_blank" rel="noopener noreferrer" data-testid="org-conn-test-open">
                            <FormattedMessage {...m.testOpen} values={{ name: name(c) }} />
                          </a>
                        </p>
                        <p className="muted">
                          <FormattedMessage {...m.testText} />
                        </p>
                        <button type="button" onClick={reload} data-testid="org-conn-test-check">
                          <FormattedMessage {...m.testCheck} />
                        </button>
                      </div>
                    )}
                  </div>
                  {active && (
                    <div className="row-actions">
                      <button type="button" disabled={busy} aria-label={intl.formatMessage(m.editFor, { name: name(c) })} onClick={() => setEditing(c)} data-testid="org-conn-edit">
                        <FormattedMessage {...m.edit} />
                      </button>
                      <button type="button" disabled={busy} aria-label={intl.formatMessage(m.testFor, { name: name(c) })} onClick={() => void startTest(c)} data-testid="org-conn-test">
                        <FormattedMessage {...m.test} />
                      </button>
                      {c.status === 'on' ? (
                        <button type="button" disabled={busy} aria-label={intl.formatMessage(m.turnOffFor, { name: name(c) })} onClick={() => void turn(c, false)} data-testid="org-conn-off">
                          <FormattedMessage {...m.turnOff} />
                        </button>
                      ) : (
                        <button type="button" disabled={busy} aria-label={intl.formatMessage(m.turnOnFor, { name: name(c) })} onClick={() => void turn(c, true)} data-testid="org-conn-on">
                          <FormattedMessage {...m.turnOn} />
                        </button>
                      )}
                      <button type="button" className="danger" disabled={busy} aria-label={intl.formatMessage(m.removeFor, { name: name(c) })} onClick={() => setAsking(c)} data-testid="org-conn-remove">
                        <FormattedMessage {...m.remove} />
                      </button>
                    </div>
                  )}
                </li>
              ))}
            </ul>
          )}
          {redirectUri && !editing && <RedirectUri uri={redirectUri} />}
          {active && editing && (
            <ConnectionForm key={editing === 'new' ? 'new' : editing.connId} orgId={orgId} conn={editing === 'new' ? null : editing} redirectUri={redirectUri} onSaved={saved}
              onCancel={() => {
                setEditing(null);
                heading.current?.focus();
              }} />
          )}
          {active && !editing && (
            <button type="button" className="primary" onClick={() => setEditing('new')} data-testid="org-conn-add">
              <FormattedMessage {...m.add} />
            </button>
          )}
          <DomainRouting orgId={orgId} active={active} conns={list.conns} domains={list.domains} onRouted={(d) => setData((x) => (x && x !== 'failed' ? { ...x, domains: x.domains.map((y) => (y.domain === d.domain ? d : y)) } : x))} />
        </>
      )}
      {asking && (
        <Dialog testId="org-conn-dialog" title={intl.formatMessage(m.confirmRemove, { name: name(asking) })} description={intl.formatMessage(m.confirmRemoveText)} onCancel={() => setAsking(null)}>
          <div className="actions">
            <button type="button" data-autofocus onClick={() => setAsking(null)}>
              <FormattedMessage {...m.cancel} />
            </button>
            <button type="button" className="primary danger" data-testid="org-conn-confirm" onClick={() => void remove(asking)}>
              <FormattedMessage {...m.remove} />
            </button>
          </div>
        </Dialog>
      )}
    </Card>
  );
}
