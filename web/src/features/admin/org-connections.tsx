// An organization's own sign-in connections in the console (docs/organizations-connections.md §5),
// the twin of "My company"'s (features/org/connections.tsx): viewers read the list (name, protocol,
// status, what it is pinned to (the issuer, the corp or the tenant) and its client, who may come in, the last passed test) and each verified domain's
// routing; operators act, each change with a reason (the organization's audit slice and the
// console's log record it): add or change a connection (OpenID Connect, WeCom, DingTalk or Feishu: the
// settings and their words are My company's, features/org/protocols.ts; the secret is write-only),
// test it (the answer is the identity provider's address, opened in a new tab whose way back is
// the server's page of what the provider said), turn it on or off, delete it, and route a verified
// domain to a connection that is on ("required" or not). Every refusal is the server's, said in
// its dialog (ReasonDialog).
import { Fragment, useId, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { When } from '../../components/when';
import { WithMessages } from '../../components/with-messages';
import { loadOrg } from '../org/messages';
import { clientOf, isProtocol, pinnedOf, PROTOCOLS, protocolWords, SECRET, type SettingKey, SETTINGS, settingsOf, settingValues, unreachable } from '../org/protocols';
import { SettingChoice } from '../org/setting-choice';
import type { Result } from '../../lib/api';
import { addOrgConnection, deleteOrgConnection, type OrgConnection, orgConnections, orgDomains, type OrgDomain, patchOrgConnection, setOrgDomainSignIn, testOrgConnection } from './api';
import { LoadStatus, Section, useConsole, useLoad, useMay } from './context';
import { named } from './labels';
import { OrgTable } from './org-kit';
import { ReasonDialog, T } from './widgets';

const m = defineMessages({
  heading: { id: 'admin.org.conn.heading', defaultMessage: 'Sign-in connections' },
  caption: { id: 'admin.org.conn.caption', defaultMessage: "The organization's own sign-in connections" },
  none: { id: 'admin.org.conn.none', defaultMessage: 'No sign-in connection.' },
  name: { id: 'admin.org.conn.col.name', defaultMessage: 'Name' },
  protocol: { id: 'admin.org.conn.col.protocol', defaultMessage: 'Protocol' },
  status: { id: 'admin.org.conn.col.status', defaultMessage: 'Status' },
  provider: { id: 'admin.org.conn.col.provider', defaultMessage: 'Issuer, corp or tenant, and client' },
  jit: { id: 'admin.org.conn.col.jit', defaultMessage: 'Who may come in' },
  actions: { id: 'admin.org.conn.col.actions', defaultMessage: 'Change' },
  draft: { id: 'admin.org.conn.draft', defaultMessage: 'Draft' },
  tested: { id: 'admin.org.conn.tested', defaultMessage: 'Tested' },
  on: { id: 'admin.org.conn.on', defaultMessage: 'On' },
  jitOff: { id: 'admin.org.conn.jitOff', defaultMessage: 'Members only' },
  jitJoin: { id: 'admin.org.conn.jitJoin', defaultMessage: 'Anybody it vouches for joins' },
  noSecret: { id: 'admin.org.conn.noSecret', defaultMessage: 'no secret set' },
  redirect: { id: 'admin.org.conn.redirect', defaultMessage: 'Redirect URI to register at the identity provider: {uri}' },
  add: { id: 'admin.org.conn.add', defaultMessage: 'Add a connection…' },
  addTitle: { id: 'admin.org.conn.addTitle', defaultMessage: 'Add an OpenID Connect sign-in connection?' },
  addText: { id: 'admin.org.conn.addText', defaultMessage: 'It is a draft until a test sign-in passes.' },
  addConfirm: { id: 'admin.org.conn.addConfirm', defaultMessage: 'Add the connection' },
  added: { id: 'admin.org.conn.added', defaultMessage: '{name} was added as a draft.' },
  edit: { id: 'admin.org.conn.edit', defaultMessage: 'Change…' },
  editOf: { id: 'admin.org.conn.editOf', defaultMessage: 'Change {name}' },
  editTitle: { id: 'admin.org.conn.editTitle', defaultMessage: 'Change {name}?' },
  editText: { id: 'admin.org.conn.editText', defaultMessage: 'A new issuer, client or secret is not what the last test proved: it has to be tested again.' },
  editConfirm: { id: 'admin.org.conn.editConfirm', defaultMessage: 'Save' },
  saved: { id: 'admin.org.conn.saved', defaultMessage: '{name} was saved.' },
  test: { id: 'admin.org.conn.test', defaultMessage: 'Test…' },
  testOf: { id: 'admin.org.conn.testOf', defaultMessage: 'Test {name}' },
  testTitle: { id: 'admin.org.conn.testTitle', defaultMessage: 'Start a test sign-in through {name}?' },
  testText: { id: 'admin.org.conn.testText', defaultMessage: 'You sign in at the identity provider in a new tab; its page says what the provider answered and signs nobody in. A passed test allows turning the connection on.' },
  testConfirm: { id: 'admin.org.conn.testConfirm', defaultMessage: 'Start the test' },
  testOpen: { id: 'admin.org.conn.testOpen', defaultMessage: 'Open the test sign-in of {name} (new tab, 10 minutes)' },
  testStarted: { id: 'admin.org.conn.testStarted', defaultMessage: 'The test sign-in of {name} is ready: open it below.' },
  reload: { id: 'admin.org.conn.reload', defaultMessage: 'See the result' },
  turnOn: { id: 'admin.org.conn.turnOn', defaultMessage: 'Turn on…' },
  turnOnOf: { id: 'admin.org.conn.turnOnOf', defaultMessage: 'Turn on {name}' },
  turnOnTitle: { id: 'admin.org.conn.turnOnTitle', defaultMessage: 'Turn {name} on?' },
  turnOnText: { id: 'admin.org.conn.turnOnText', defaultMessage: 'Only a tested connection can be turned on; then verified domains can be routed to it.' },
  turnOff: { id: 'admin.org.conn.turnOff', defaultMessage: 'Turn off…' },
  turnOffOf: { id: 'admin.org.conn.turnOffOf', defaultMessage: 'Turn off {name}' },
  turnOffTitle: { id: 'admin.org.conn.turnOffTitle', defaultMessage: 'Turn {name} off?' },
  turnOffText: { id: 'admin.org.conn.turnOffText', defaultMessage: 'The domains routed to it lose their routing: their people sign in with password and codes again.' },
  turnConfirm: { id: 'admin.org.conn.turnConfirm', defaultMessage: 'Confirm' },
  turnedOn: { id: 'admin.org.conn.turnedOn', defaultMessage: '{name} is on.' },
  turnedOff: { id: 'admin.org.conn.turnedOff', defaultMessage: '{name} is off.' },
  notTested: { id: 'admin.org.conn.notTested', defaultMessage: 'Test it first: only a connection whose test passed can be turned on.' },
  remove: { id: 'admin.org.conn.remove', defaultMessage: 'Delete…' },
  removeOf: { id: 'admin.org.conn.removeOf', defaultMessage: 'Delete {name}' },
  removeTitle: { id: 'admin.org.conn.removeTitle', defaultMessage: 'Delete {name}?' },
  removeText: { id: 'admin.org.conn.removeText', defaultMessage: 'Its secret goes with it and its domains lose their routing; the people who signed in through it keep their accounts and memberships.' },
  removeConfirm: { id: 'admin.org.conn.removeConfirm', defaultMessage: 'Delete' },
  removed: { id: 'admin.org.conn.removed', defaultMessage: '{name} was deleted.' },
  nameZh: { id: 'admin.org.conn.nameZh', defaultMessage: 'Name in Chinese' },
  nameEn: { id: 'admin.org.conn.nameEn', defaultMessage: 'Name in English' },
  secretKeep: { id: 'admin.org.conn.secretKeep', defaultMessage: 'A secret is set: leave the secret empty to keep it.' },
  routing: { id: 'admin.org.conn.routing', defaultMessage: 'Sign-in of the verified domains' },
  routingCaption: { id: 'admin.org.conn.routingCaption', defaultMessage: 'Verified domains and the connection their people sign in through' },
  domain: { id: 'admin.org.conn.col.domain', defaultMessage: 'Domain' },
  through: { id: 'admin.org.conn.col.through', defaultMessage: 'Sign in through' },
  required: { id: 'admin.org.conn.col.required', defaultMessage: 'Required' },
  noRouting: { id: 'admin.org.conn.noRouting', defaultMessage: 'No company sign-in' },
  noVerified: { id: 'admin.org.conn.noVerified', defaultMessage: 'No verified domain.' },
  throughOf: { id: 'admin.org.conn.throughOf', defaultMessage: 'Sign-in of {domain}' },
  requiredOf: { id: 'admin.org.conn.requiredOf', defaultMessage: '{domain} must use the company sign-in' },
  yes: { id: 'admin.org.conn.yes', defaultMessage: 'Yes' },
  no: { id: 'admin.org.conn.no', defaultMessage: 'No' },
  routeTitle: { id: 'admin.org.conn.routeTitle', defaultMessage: 'Change the sign-in of {domain}?' },
  routeText: { id: 'admin.org.conn.routeText', defaultMessage: 'A required company sign-in refuses the password and mail-code sign-ins of its addresses.' },
  routeConfirm: { id: 'admin.org.conn.routeConfirm', defaultMessage: 'Change the sign-in' },
  routed: { id: 'admin.org.conn.routed', defaultMessage: 'The sign-in of {domain} was changed.' },
});

const statuses: Record<string, MessageDescriptor> = { draft: m.draft, tested: m.tested, on: m.on };
const protocols: Record<string, MessageDescriptor> = protocolWords;
const jits: Record<string, MessageDescriptor> = { off: m.jitOff, join: m.jitJoin };

type Form = Record<SettingKey, string> & { nameZh: string; nameEn: string; protocol: string; secret: string; jit: string };
const blank: Form = { ...settingValues(null), nameZh: '', nameEn: '', protocol: 'oidc', secret: '', jit: 'off' };
const formOf = (c: OrgConnection): Form => ({ ...settingValues(c.settings), nameZh: c.nameZh, nameEn: c.nameEn, protocol: c.protocol, secret: '', jit: c.jit });

type Act =
  | { kind: 'add' }
  | { kind: 'edit' | 'test' | 'on' | 'off' | 'remove'; c: OrgConnection }
  | { kind: 'route'; d: OrgDomain; connId: string | null; required: boolean };

type Props = { orgId: string; active: boolean; onChanged: (text: string) => void };

/** The card, with My company's message bundle (the protocols' words are shared with its form). */
export function OrgConnections(props: Props) {
  return (
    <WithMessages bundle="org" load={loadOrg}>
      <Connections {...props} />
    </WithMessages>
  );
}

function Connections({ orgId, active, onChanged }: Props) {
  const intl = useIntl();
  const id = useId();
  const operator = useMay('operator') && active;
  const { guard } = useConsole();
  const conns = useLoad(() => orgConnections(orgId), [orgId]);
  const domains = useLoad(() => orgDomains(orgId), [orgId]);
  const [act, setAct] = useState<Act | null>(null);
  const [form, setForm] = useState<Form>(blank);
  const [testing, setTesting] = useState<{ c: OrgConnection; url: string } | null>(null);
  const word = (table: Record<string, MessageDescriptor>, v: string) => (table[v] ? intl.formatMessage(table[v]) : v);
  const zh = intl.locale === 'zh-CN';
  const nameOf = (c: { nameZh: string; nameEn: string }) => (zh ? c.nameZh || c.nameEn : c.nameEn || c.nameZh);
  // Lists (an answer of another shape shows nothing).
  const list = conns.loaded.state === 'ready' && Array.isArray(conns.loaded.data.connections) ? conns.loaded.data.connections : null;
  const verified = domains.loaded.state === 'ready' && Array.isArray(domains.loaded.data.domains) ? domains.loaded.data.domains.filter((d) => d.status === 'verified') : null;
  const reload = () => {
    conns.reload();
    domains.reload();
  };
  const open = (a: Act) => {
    if (a.kind === 'add') setForm(blank);
    if (a.kind === 'edit') setForm(formOf(a.c));
    setAct(a);
  };
  const body = () => {
    const t = (k: keyof Form) => form[k].trim();
    const settings = settingsOf(form.protocol, form);
    return { nameZh: t('nameZh') || null, nameEn: t('nameEn') || null, settings, jit: form.jit, secret: t('secret') };
  };
  const run = async (a: Act, reason: string): Promise<Result<unknown> | string | null> => {
    switch (a.kind) {
      case 'add':
        return guard(() => addOrgConnection(orgId, { ...body(), protocol: form.protocol, reason }));
      case 'edit': {
        const b = body();
        return guard(() => patchOrgConnection(orgId, a.c.connId, { ...b, secret: b.secret || null, reason }));
      }
      case 'test': {
        const r = await guard(() => testOrgConnection(orgId, a.c.connId, reason));
        if (r?.success) setTesting({ c: a.c, url: r.data.url });
        // An identity provider that did not answer: said in the connections' words, not the general outage's.
        if (r && !r.success && r.error.reason === 'SERVICE_UNAVAILABLE') return intl.formatMessage(unreachable, { name: nameOf(a.c) });
        return r;
      }
      case 'on':
      case 'off': {
        const r = await guard(() => patchOrgConnection(orgId, a.c.connId, { on: a.kind === 'on', reason }));
        if (r && !r.success && r.error.reason === 'INVALID_PARAMETER' && r.error.field === 'on') return intl.formatMessage(m.notTested);
        return r;
      }
      case 'remove':
        return guard(() => deleteOrgConnection(orgId, a.c.connId, reason));
      case 'route':
        return guard(() => setOrgDomainSignIn(orgId, a.d.domain, a.connId, a.required, reason));
    }
  };
  const said = (a: Act) => {
    if (a.kind === 'add') return intl.formatMessage(m.added, { name: form.nameEn.trim() && !zh ? form.nameEn.trim() : form.nameZh.trim() || form.nameEn.trim() });
    if (a.kind === 'route') return intl.formatMessage(m.routed, { domain: a.d.display });
    const v = { name: nameOf(a.c) };
    return intl.formatMessage({ edit: m.saved, test: m.testStarted, on: m.turnedOn, off: m.turnedOff, remove: m.removed }[a.kind], v);
  };
  const dialog: Record<Act['kind'], [MessageDescriptor, MessageDescriptor, MessageDescriptor]> = {
    add: [m.addTitle, m.addText, m.addConfirm],
    edit: [m.editTitle, m.editText, m.editConfirm],
    test: [m.testTitle, m.testText, m.testConfirm],
    on: [m.turnOnTitle, m.turnOnText, m.turnConfirm],
    off: [m.turnOffTitle, m.turnOffText, m.turnConfirm],
    remove: [m.removeTitle, m.removeText, m.removeConfirm],
    route: [m.routeTitle, m.routeText, m.routeConfirm],
  };
  const input = (k: keyof Form, label: MessageDescriptor, extra: { type?: string; autoFocus?: boolean } = {}) => (
    <>
      <label htmlFor={`${id}${k}`}>
        <FormattedMessage {...label} />
      </label>
      <input id={`${id}${k}`} name={k} type={extra.type ?? 'text'} data-autofocus={extra.autoFocus || undefined} autoComplete={k === 'secret' ? 'new-password' : 'off'} maxLength={512}
        value={form[k]} onChange={(e) => setForm((f) => ({ ...f, [k]: e.target.value }))} />
    </>
  );
  const protocol = isProtocol(form.protocol) ? form.protocol : 'oidc';
  const cols = operator ? [m.name, m.protocol, m.status, m.provider, m.jit, m.actions] : [m.name, m.protocol, m.status, m.provider, m.jit];
  const on = list?.filter((c) => c.status === 'on') ?? [];
  return (
    <Section title={<FormattedMessage {...m.heading} />} id="org-conns">
      <LoadStatus loaded={conns.loaded} onRetry={conns.reload} />
      {list?.length === 0 && (
        <p className="muted" data-testid="org-conns-none">
          <FormattedMessage {...m.none} />
        </p>
      )}
      {list && list.length > 0 && (
        <>
          <OrgTable caption={intl.formatMessage(m.caption)} cols={cols} testId="org-conns">
            {list.map((c) => (
              <tr key={c.connId} data-conn={c.connId} data-status={c.status}>
                <th scope="row">
                  {nameOf(c)} <span className="muted cell-note">({c.connId})</span>
                </th>
                <td>
                  <T msg={named(protocols, c.protocol)} />
                </td>
                <td>
                  <T msg={named(statuses, c.status)} />
                  {c.testedAt != null && (
                    <span className="muted cell-note">
                      {' '}
                      <When at={c.testedAt} />
                    </span>
                  )}
                </td>
                <td>
                  <code data-testid="org-conn-pinned">{pinnedOf(c)}</code> · <code>{clientOf(c)}</code>
                  {!c.hasSecret && (
                    <span className="muted cell-note">
                      {' '}
                      <FormattedMessage {...m.noSecret} />
                    </span>
                  )}
                </td>
                <td>
                  <T msg={named(jits, c.jit)} />
                </td>
                {operator && (
                  <td>
                    <div className="row-actions">
                      <button type="button" aria-label={intl.formatMessage(m.editOf, { name: nameOf(c) })} onClick={() => open({ kind: 'edit', c })}>
                        <FormattedMessage {...m.edit} />
                      </button>
                      <button type="button" aria-label={intl.formatMessage(m.testOf, { name: nameOf(c) })} onClick={() => open({ kind: 'test', c })}>
                        <FormattedMessage {...m.test} />
                      </button>
                      {c.status === 'on' ? (
                        <button type="button" aria-label={intl.formatMessage(m.turnOffOf, { name: nameOf(c) })} onClick={() => open({ kind: 'off', c })}>
                          <FormattedMessage {...m.turnOff} />
                        </button>
                      ) : (
                        <button type="button" aria-label={intl.formatMessage(m.turnOnOf, { name: nameOf(c) })} onClick={() => open({ kind: 'on', c })}>
                          <FormattedMessage {...m.turnOn} />
                        </button>
                      )}
                      <button type="button" className="danger" aria-label={intl.formatMessage(m.removeOf, { name: nameOf(c) })} onClick={() => open({ kind: 'remove', c })}>
                        <FormattedMessage {...m.remove} />
                      </button>
                    </div>
                  </td>
                )}
              </tr>
            ))}
          </OrgTable>
          <p className="muted">
            <FormattedMessage {...m.redirect} values={{ uri: <code data-testid="org-conn-redirect">{list[0]!.redirectUri}</code> }} />
          </p>
        </>
      )}
      {testing && (
        <p data-testid="org-conn-testing">
          <a href={testing.url} target="_blank" rel="noopener noreferrer" data-testid="org-conn-test-open">
            <FormattedMessage {...m.testOpen} values={{ name: nameOf(testing.c) }} />
          </a>{' '}
          <button type="button" onClick={reload} data-testid="org-conn-test-check">
            <FormattedMessage {...m.reload} />
          </button>
        </p>
      )}
      {operator && (
        <button type="button" onClick={() => open({ kind: 'add' })} data-testid="org-conn-add">
          <FormattedMessage {...m.add} />
        </button>
      )}
      <h3>
        <FormattedMessage {...m.routing} />
      </h3>
      <LoadStatus loaded={domains.loaded} onRetry={domains.reload} />
      {verified?.length === 0 && (
        <p className="muted" data-testid="org-conn-routing-none">
          <FormattedMessage {...m.noVerified} />
        </p>
      )}
      {verified && verified.length > 0 && list && (
        <OrgTable caption={intl.formatMessage(m.routingCaption)} cols={[m.domain, m.through, m.required]} testId="org-conn-routing">
          {verified.map((d) => {
            const current = d.signIn?.connId ?? '';
            const routedTo = list.find((c) => c.connId === current);
            const required = d.signIn?.required ?? false;
            return (
              <tr key={d.domain} data-domain={d.domain} data-conn={current}>
                <th scope="row">{d.display}</th>
                <td>
                  {operator ? (
                    <select aria-label={intl.formatMessage(m.throughOf, { domain: d.display })} value={current}
                      onChange={(e) => open({ kind: 'route', d, connId: e.target.value || null, required: e.target.value ? required : false })}>
                      <option value="">{intl.formatMessage(m.noRouting)}</option>
                      {[...on, ...(routedTo && routedTo.status !== 'on' ? [routedTo] : [])].map((c) => (
                        <option key={c.connId} value={c.connId}>
                          {nameOf(c)}
                        </option>
                      ))}
                    </select>
                  ) : routedTo ? (
                    nameOf(routedTo)
                  ) : current ? (
                    <code>{current}</code>
                  ) : (
                    <FormattedMessage {...m.noRouting} />
                  )}
                </td>
                <td>
                  {operator ? (
                    <input type="checkbox" aria-label={intl.formatMessage(m.requiredOf, { domain: d.display })} checked={required} disabled={!current}
                      onChange={(e) => open({ kind: 'route', d, connId: current, required: e.target.checked })} />
                  ) : (
                    <FormattedMessage {...(required ? m.yes : m.no)} />
                  )}
                </td>
              </tr>
            );
          })}
        </OrgTable>
      )}
      {act && (
        <ReasonDialog
          testId="org-conn-dialog"
          title={<FormattedMessage {...dialog[act.kind][0]} values={{ name: 'c' in act ? nameOf(act.c) : '', domain: act.kind === 'route' ? act.d.display : '' }} />}
          description={<FormattedMessage {...dialog[act.kind][1]} />}
          confirm={dialog[act.kind][2]}
          danger={act.kind === 'remove'}
          run={(reason) => run(act, reason)}
          onDone={(ok) => {
            const a = act;
            setAct(null);
            if (!ok) return;
            reload();
            onChanged(said(a));
          }}
        >
          {(act.kind === 'add' || act.kind === 'edit') && (
            <>
              {input('nameZh', m.nameZh, { autoFocus: true })}
              {input('nameEn', m.nameEn)}
              <label htmlFor={`${id}protocol`}>
                <FormattedMessage {...m.protocol} />
              </label>
              <select id={`${id}protocol`} name="protocol" value={form.protocol} disabled={act.kind === 'edit'} onChange={(e) => setForm((f) => ({ ...f, protocol: e.target.value }))}>
                {PROTOCOLS.map((p) => (
                  <option key={p} value={p}>
                    {word(protocols, p)}
                  </option>
                ))}
              </select>
              {SETTINGS[protocol].map((s) =>
                s.choices ? (
                  <SettingChoice key={s.key} setting={s} value={form[s.key]} onChange={(x) => setForm((f) => ({ ...f, [s.key]: x }))} />
                ) : (
                  <Fragment key={s.key}>{input(s.key, s.label, { type: s.type })}</Fragment>
                ),
              )}
              {input('secret', SECRET[protocol].label, { type: 'password' })}
              {act.kind === 'edit' && act.c.hasSecret && (
                <p className="muted">
                  <FormattedMessage {...m.secretKeep} />
                </p>
              )}
              <label htmlFor={`${id}jit`}>
                <FormattedMessage {...m.jit} />
              </label>
              <select id={`${id}jit`} name="jit" value={form.jit} onChange={(e) => setForm((f) => ({ ...f, jit: e.target.value }))}>
                <option value="off">{word(jits, 'off')}</option>
                <option value="join">{word(jits, 'join')}</option>
              </select>
            </>
          )}
        </ReasonDialog>
      )}
    </Section>
  );
}
