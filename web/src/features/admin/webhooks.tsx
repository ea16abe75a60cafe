// Over 500 lines because the endpoint list, its item and its form share one message catalogue and the kind list (to split with the typed client, issue 31 item 2).
// The app page's webhooks (issue 23, docs/events-design.md §3; issue 30: the console's gate):
// the app's endpoints over the console's routes (/admin/apps/{appId}/webhooks...). Every console
// role reads them (URL, events, enabled or disabled and why) and their delivery logs
// (webhook-log.tsx). An admin adds one (its whsec_ secret shown once), changes it, enables or
// disables it, rotates its secret (the new one shown once, the old one verifying until the time
// the answer gives), removes it, and replays deliveries: each change asks for the reason the
// audit log records (ReasonDialog, as every other console change) and may ask for a fresh proof
// (the console's guard). A failure to load stays inside the section.
import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { ErrorText } from '../../components/field';
import { When } from '../../components/when';
import { errorText } from '../../lib/api';
import { Said, useSaid } from '../../components/said';
import {
  createWebhook,
  deleteWebhook,
  type Endpoint,
  type EndpointFields,
  type EndpointWithSecret,
  type EventKind,
  listWebhooks,
  patchWebhook,
} from './api';
import type { FieldError } from './app-form';
import { LoadStatus, Section, useConsole, useLoad, useMay } from './context';
import { eventNames } from './labels';
import { DeliveryLog } from './webhook-log';
import { adminsOnly, KindName } from './webhook-kit';
import { ReasonDialog, SecretOnce } from './widgets';

const m = defineMessages({
  heading: { id: 'admin.webhooks.heading', defaultMessage: 'Webhooks' },
  help: {
    id: 'admin.webhooks.help',
    defaultMessage:
      'Addresses of the partner that hear what happens to the app’s users (signed with Standard Webhooks). Only users who consented to the app are announced, with what their consent covers.',
  },
  none: { id: 'admin.webhooks.none', defaultMessage: 'No endpoint yet: the app hears no events.' },
  add: { id: 'admin.webhooks.add', defaultMessage: 'Add an endpoint…' },
  addHeading: { id: 'admin.webhooks.addHeading', defaultMessage: 'New endpoint' },
  editHeading: { id: 'admin.webhooks.editHeading', defaultMessage: 'Change the endpoint' },
  edit: { id: 'admin.webhooks.edit', defaultMessage: 'Change…' },
  save: { id: 'admin.app.save', defaultMessage: 'Save' },
  saved: { id: 'admin.webhooks.saved', defaultMessage: 'The endpoint is saved.' },
  url: { id: 'admin.webhooks.url', defaultMessage: 'URL' },
  urlHint: {
    id: 'admin.webhooks.urlHint',
    defaultMessage: 'An https address of the partner, e.g. https://shop.example.com/ciam/events. No private or internal addresses.',
  },
  events: { id: 'admin.webhooks.events', defaultMessage: 'Events' },
  eventsRequired: { id: 'admin.webhooks.eventsRequired', defaultMessage: 'Pick at least one event' },
  description: { id: 'admin.webhooks.description', defaultMessage: 'Description (optional)' },
  required: { id: 'admin.appForm.required', defaultMessage: 'Required' },
  create: { id: 'admin.webhooks.create', defaultMessage: 'Add the endpoint' },
  cancel: { id: 'admin.cancel', defaultMessage: 'Cancel' },
  createDialog: { id: 'admin.webhooks.createDialog', defaultMessage: 'Add {url}? Its signing secret is shown once, next.' },
  saveDialog: { id: 'admin.webhooks.saveDialog', defaultMessage: 'Save the changes to {url}?' },
  secretLabel: { id: 'admin.webhooks.secretLabel', defaultMessage: 'Signing secret of {url}' },
  previousUntil: {
    id: 'admin.webhooks.previousUntil',
    defaultMessage: 'The previous secret keeps verifying until {time}: each delivery is signed with both until then.',
  },
  enabled: { id: 'admin.webhooks.enabled', defaultMessage: 'Enabled' },
  disabled: { id: 'admin.webhooks.disabled', defaultMessage: 'Disabled' },
  failing: {
    id: 'admin.webhooks.failing',
    defaultMessage: 'Deliveries failing since {time}: they are retried, and after 3 days without a success the endpoint is disabled.',
  },
  byAdmin: { id: 'admin.webhooks.byAdmin', defaultMessage: 'Disabled by an administrator on {time}.' },
  gone: { id: 'admin.webhooks.gone', defaultMessage: 'Disabled on {time}: it answered 410 Gone (the partner removed it).' },
  afterDays: { id: 'admin.webhooks.afterDays', defaultMessage: 'Disabled on {time}: no delivery succeeded for 3 days.' },
  afterFailure: {
    id: 'admin.webhooks.afterFailure',
    defaultMessage: 'Disabled on {time} after failed deliveries since {since} (an answer 410 Gone disables it at once; the delivery log shows the answers).',
  },
  ownerTold: { id: 'admin.webhooks.ownerTold', defaultMessage: 'The app’s owner ({mail}) was told by mail.' },
  noOwner: {
    id: 'admin.webhooks.noOwner',
    defaultMessage: 'Nobody was told: the app has no owner’s e-mail (add one in the registry entry to be told next time).',
  },
  descriptionFact: { id: 'admin.webhooks.descriptionFact', defaultMessage: 'Description' },
  createdFact: { id: 'admin.webhooks.createdFact', defaultMessage: 'Added' },
  lastSuccess: { id: 'admin.webhooks.lastSuccess', defaultMessage: 'Last delivered' },
  never: { id: 'admin.app.never', defaultMessage: 'Never' },
  noDescription: { id: 'admin.app.none', defaultMessage: 'None' },
  previousFact: { id: 'admin.webhooks.previousFact', defaultMessage: 'Previous secret verifies until' },
  log: { id: 'admin.webhooks.log', defaultMessage: 'Delivery log' },
  enable: { id: 'admin.webhooks.enable', defaultMessage: 'Enable…' },
  disable: { id: 'admin.webhooks.disable', defaultMessage: 'Disable…' },
  rotate: { id: 'admin.webhooks.rotate', defaultMessage: 'New secret…' },
  remove: { id: 'admin.webhooks.remove', defaultMessage: 'Remove…' },
  enabledDone: { id: 'admin.webhooks.enabledDone', defaultMessage: 'The endpoint is enabled; its failures are forgotten.' },
  enableTitle: { id: 'admin.webhooks.enableTitle', defaultMessage: 'Enable {url}?' },
  enableHelp: {
    id: 'admin.webhooks.enableHelp',
    defaultMessage: 'Events are sent to it again from the next one on, and its failures are forgotten (what it missed meanwhile can be replayed from the log).',
  },
  enableConfirm: { id: 'admin.webhooks.enableConfirm', defaultMessage: 'Enable' },
  disableTitle: { id: 'admin.webhooks.disableTitle', defaultMessage: 'Disable {url}?' },
  disableHelp: {
    id: 'admin.webhooks.disableHelp',
    defaultMessage:
      'Nothing is sent to it until it is enabled again: events that happen meanwhile are not sent to it, and deliveries waiting for a retry fail (they can be replayed from the log).',
  },
  disableConfirm: { id: 'admin.webhooks.disableConfirm', defaultMessage: 'Disable' },
  disabledDone: { id: 'admin.webhooks.disabledDone', defaultMessage: 'The endpoint is disabled.' },
  rotateTitle: { id: 'admin.webhooks.rotateTitle', defaultMessage: 'A new signing secret for {url}?' },
  rotateHelp: {
    id: 'admin.webhooks.rotateHelp',
    defaultMessage:
      'A new secret is made and shown once. The current one keeps verifying for a while (the answer says until when): deliveries are signed with both meanwhile, so the partner can switch without a failed verification.',
  },
  rotateConfirm: { id: 'admin.webhooks.rotateConfirm', defaultMessage: 'Make a new secret' },
  removeTitle: { id: 'admin.webhooks.removeTitle', defaultMessage: 'Remove {url}?' },
  removeHelp: {
    id: 'admin.webhooks.removeHelp',
    defaultMessage:
      'Nothing more is sent to it and deliveries waiting for it are dropped. This cannot be undone: to hear events again, add the endpoint anew (with a new secret).',
  },
  removeConfirm: { id: 'admin.webhooks.removeConfirm', defaultMessage: 'Remove for good' },
  removed: { id: 'admin.webhooks.removed', defaultMessage: 'The endpoint is removed.' },
});

const KIND_LIST = Object.keys(eventNames) as EventKind[];

const DAYS_3 = 3 * 86_400;

/**
 * Why a disabled endpoint is disabled, from its dates (the API keeps no reason): no failure is an
 * administrator's; disabled in the second of its first failure is a 410 Gone (nothing else
 * disables at once); 3 days of failures is the rule; else failures, then a 410 or an administrator.
 */
export function disabledWhy(e: Endpoint): MessageDescriptor | null {
  if (e.enabled || e.disabledAt === null) return null;
  if (e.failingSince === null) return m.byAdmin;
  if (e.disabledAt === e.failingSince) return m.gone;
  return e.disabledAt - e.failingSince >= DAYS_3 ? m.afterDays : m.afterFailure;
}

/** The webhooks section of an app's page: every console role reads it, an admin changes it. */
export function Webhooks({ appId, ownerMail }: { appId: string; ownerMail: string }) {
  const admin = useMay('admin');
  return (
    <Section title={<FormattedMessage {...m.heading} />} id="webhooks">
      <p className="muted">
        <FormattedMessage {...m.help} />
      </p>
      {!admin && (
        <p data-testid="webhooks-admins-only">
          <FormattedMessage {...adminsOnly} />
        </p>
      )}
      <Endpoints appId={appId} ownerMail={ownerMail} admin={admin} />
    </Section>
  );
}

type Shown = { endpoint: Endpoint; secret: string; rotated: boolean };
type Ask = { kind: 'enable' | 'disable' | 'rotate' | 'remove'; endpoint: Endpoint };

const ASKED = {
  enable: { title: m.enableTitle, help: m.enableHelp, confirm: m.enableConfirm, done: m.enabledDone },
  disable: { title: m.disableTitle, help: m.disableHelp, confirm: m.disableConfirm, done: m.disabledDone },
  rotate: { title: m.rotateTitle, help: m.rotateHelp, confirm: m.rotateConfirm, done: null },
  remove: { title: m.removeTitle, help: m.removeHelp, confirm: m.removeConfirm, done: m.removed },
} as const;

function Endpoints({ appId, ownerMail, admin }: { appId: string; ownerMail: string; admin: boolean }) {
  const intl = useIntl();
  const { guard } = useConsole();
  const { loaded, reload, setLoaded } = useLoad(() => listWebhooks(appId), [appId]);
  const [adding, setAdding] = useState(false);
  const [shown, setShown] = useState<Shown | null>(null);
  const [ask, setAsk] = useState<Ask | null>(null);
  const secretBox = useRef<HTMLDivElement>(null);
  const addButton = useRef<HTMLButtonElement>(null);
  // A change is said above the list, with the focus (issue 34 item 5); a new endpoint is said by
  // its secret, shown once with the focus.
  const said = useSaid();
  // The new secret gets the focus once no dialog is open (a closing dialog gives the focus back
  // to its button first).
  useEffect(() => {
    if (shown && !ask) secretBox.current?.querySelector('input')?.focus();
  }, [shown, ask]);
  if (loaded.state !== 'ready') return <LoadStatus loaded={loaded} onRetry={reload} />;
  const endpoints = loaded.data.endpoints;
  // Functional updates: a log's refresh answers the endpoint later, after other changes.
  const put = (e: Endpoint) =>
    setLoaded((old) => {
      if (old.state !== 'ready') return old;
      const list = old.data.endpoints;
      const endpoints = list.some((x) => x.endpointId === e.endpointId) ? list.map((x) => (x.endpointId === e.endpointId ? e : x)) : [...list, e];
      return { state: 'ready', data: { endpoints } };
    });
  const drop = (id: string) =>
    setLoaded((old) => (old.state === 'ready' ? { state: 'ready', data: { endpoints: old.data.endpoints.filter((x) => x.endpointId !== id) } } : old));
  const withSecret = (r: EndpointWithSecret, rotated: boolean) => {
    put(r.endpoint);
    if (r.secret) setShown({ endpoint: r.endpoint, secret: r.secret, rotated });
  };
  return (
    <>
      {shown && (
        <div ref={secretBox}>
          <SecretOnce
            secret={shown.secret}
            onDismiss={() => {
              setShown(null);
              addButton.current?.focus();
            }}
            label={<FormattedMessage {...m.secretLabel} values={{ url: shown.endpoint.url }} />}
            testId="webhook-secret-once"
            inputTestId="webhook-secret"
          >
            {shown.rotated && shown.endpoint.previousSecretUntil !== null && (
              <p data-testid="webhook-previous-until">
                <FormattedMessage {...m.previousUntil} values={{ time: <When at={shown.endpoint.previousSecretUntil} /> }} />
              </p>
            )}
          </SecretOnce>
        </div>
      )}
      <Said said={said.said} testId="webhook-done" focus />
      {endpoints.length === 0 ? (
        <p data-testid="webhooks-none">
          <FormattedMessage {...m.none} />
        </p>
      ) : (
        <ul className="webhooks" data-testid="webhooks">
          {endpoints.map((e) => (
            <EndpointItem key={e.endpointId} appId={appId} ownerMail={ownerMail} admin={admin} e={e} onAsk={(kind) => setAsk({ kind, endpoint: e })} onSaved={put} />
          ))}
        </ul>
      )}
      {admin &&
        (adding ? (
          <EndpointForm
            appId={appId}
            onCancel={() => {
              setAdding(false);
              setTimeout(() => addButton.current?.focus());
            }}
            onDone={(r) => {
              setAdding(false);
              withSecret(r, false);
            }}
          />
        ) : (
          <p>
            <button type="button" ref={addButton} onClick={() => setAdding(true)} data-testid="webhook-add">
              <FormattedMessage {...m.add} />
            </button>
          </p>
        ))}
      {ask && (
        <ReasonDialog
          testId={`webhook-${ask.kind}-dialog`}
          title={<FormattedMessage {...ASKED[ask.kind].title} values={{ url: ask.endpoint.url }} />}
          description={<FormattedMessage {...ASKED[ask.kind].help} />}
          confirm={ASKED[ask.kind].confirm}
          danger={ask.kind === 'disable' || ask.kind === 'remove'}
          run={async (reason) => {
            const id = ask.endpoint.endpointId;
            if (ask.kind === 'remove') {
              const r = await guard(() => deleteWebhook(appId, id, reason));
              if (r?.success) drop(id);
              return r;
            }
            const change = ask.kind === 'rotate' ? { rotateSecret: true } : { enabled: ask.kind === 'enable' };
            const r = await guard(() => patchWebhook(appId, id, change, reason));
            if (r?.success) withSecret(r.data, true);
            return r;
          }}
          onDone={(ok) => {
            const done = ASKED[ask.kind].done;
            setAsk(null);
            if (!ok) return;
            // Said with the focus (a removed endpoint's buttons are gone with it).
            if (done) said.say(intl.formatMessage(done));
          }}
        />
      )}
    </>
  );
}

function EndpointItem({ appId, ownerMail, admin, e, onAsk, onSaved }: {
  appId: string;
  /** The registry's ownerMail: told when Ciam (not an administrator) disabled it. */
  ownerMail: string;
  /** Whether the operator may change it (else the buttons that would are not drawn). */
  admin: boolean;
  e: Endpoint;
  onAsk: (k: Ask['kind']) => void;
  onSaved: (e: Endpoint) => void;
}) {
  const intl = useIntl();
  const id = useId();
  const [log, setLog] = useState(false);
  const [editing, setEditing] = useState(false);
  const editButton = useRef<HTMLButtonElement>(null);
  // A saved change is said in the item, with the focus.
  const saved = useSaid();
  const stopEditing = () => {
    setEditing(false);
    setTimeout(() => editButton.current?.focus());
  };
  const why = disabledWhy(e);
  const fact = (label: MessageDescriptor, value: ReactNode, testId?: string) => (
    <div>
      <dt>{intl.formatMessage(label)}</dt>
      <dd data-testid={testId}>{value}</dd>
    </div>
  );
  return (
    <li data-testid="webhook" data-endpoint-id={e.endpointId}>
      <h3 id={`${id}h`}>
        <code>{e.url}</code>
      </h3>
      <p>
        <span className={`status ${e.enabled ? 'status-active' : 'status-suspended'}`} data-testid="webhook-state">
          <FormattedMessage {...(e.enabled ? m.enabled : m.disabled)} />
        </span>{' '}
        {why && (
          <span data-testid="webhook-why">
            <FormattedMessage {...why} values={{ time: <When at={e.disabledAt} />, since: <When at={e.failingSince} /> }} />{' '}
            {why !== m.byAdmin && (ownerMail ? <FormattedMessage {...m.ownerTold} values={{ mail: ownerMail }} /> : <FormattedMessage {...m.noOwner} />)}
          </span>
        )}
        {e.enabled && e.failingSince !== null && (
          <span data-testid="webhook-why">
            <FormattedMessage {...m.failing} values={{ time: <When at={e.failingSince} /> }} />
          </span>
        )}
      </p>
      <Said said={saved.said} testId="webhook-saved" focus />
      {editing ? (
        <EndpointForm
          appId={appId}
          endpoint={e}
          onCancel={stopEditing}
          onDone={(r) => {
            onSaved(r.endpoint);
            stopEditing();
            saved.say(intl.formatMessage(m.saved));
          }}
        />
      ) : (
        <dl className="facts">
          {fact(
            m.events,
            <ul className="plain">
              {e.events.map((k) => (
                <li key={k}>
                  <KindName kind={k} />
                </li>
              ))}
            </ul>,
            'webhook-events',
          )}
          {fact(m.descriptionFact, e.description || intl.formatMessage(m.noDescription))}
          {fact(m.createdFact, <When at={e.createdAt} />)}
          {fact(m.lastSuccess, e.lastSuccessAt ? <When at={e.lastSuccessAt} /> : intl.formatMessage(m.never), 'webhook-last-success')}
          {e.previousSecretUntil !== null && fact(m.previousFact, <When at={e.previousSecretUntil} />)}
        </dl>
      )}
      <div className="buttons">
        <button type="button" aria-expanded={log} aria-controls={`${id}log`} aria-describedby={`${id}h`} onClick={() => setLog((x) => !x)} data-testid="webhook-log-toggle">
          <FormattedMessage {...m.log} />
        </button>
        {admin && (
          <>
            {!editing && (
              <button type="button" ref={editButton} aria-describedby={`${id}h`} onClick={() => setEditing(true)} data-testid="webhook-edit">
                <FormattedMessage {...m.edit} />
              </button>
            )}
            {e.enabled ? (
              <button type="button" aria-describedby={`${id}h`} onClick={() => onAsk('disable')} data-testid="webhook-disable">
                <FormattedMessage {...m.disable} />
              </button>
            ) : (
              <button type="button" aria-describedby={`${id}h`} onClick={() => onAsk('enable')} data-testid="webhook-enable">
                <FormattedMessage {...m.enable} />
              </button>
            )}
            <button type="button" aria-describedby={`${id}h`} onClick={() => onAsk('rotate')} data-testid="webhook-rotate">
              <FormattedMessage {...m.rotate} />
            </button>
            <button type="button" className="danger" aria-describedby={`${id}h`} onClick={() => onAsk('remove')} data-testid="webhook-remove">
              <FormattedMessage {...m.remove} />
            </button>
          </>
        )}
      </div>
      <div id={`${id}log`}>{log && <DeliveryLog appId={appId} endpoint={e} admin={admin} onEndpoint={onSaved} />}</div>
    </li>
  );
}

/**
 * The form of a new endpoint, or of a change to `endpoint` (its URL, events and description), then
 * the reason: the server checks the URL; its refusals are said at their fields.
 */
function EndpointForm({ appId, endpoint, onCancel, onDone }: { appId: string; endpoint?: Endpoint; onCancel: () => void; onDone: (r: EndpointWithSecret) => void }) {
  const id = useId();
  const intl = useIntl();
  const { guard } = useConsole();
  const [url, setUrl] = useState(endpoint?.url ?? '');
  const [events, setEvents] = useState<Set<EventKind>>(new Set(endpoint?.events ?? []));
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [error, setError] = useState<FieldError | null>(null);
  // The checked fields, waiting for their reason (the dialog is open meanwhile).
  const [asking, setAsking] = useState<EndpointFields | null>(null);
  const made = useRef<EndpointWithSecret | null>(null);
  const form = useRef<HTMLFormElement>(null);
  const urlField = useRef<HTMLInputElement>(null);
  useEffect(() => urlField.current?.focus(), []);
  const errorOf = (field: string) => (error?.field === field ? error.text : null);
  // After a refusal is drawn, its field gets the focus (for events: the first kind).
  const [refused, setRefused] = useState(0);
  const focusInvalid = () => setRefused((n) => n + 1);
  useEffect(() => {
    if (refused) form.current?.querySelector<HTMLElement>('input[aria-invalid="true"], fieldset[aria-invalid="true"] input, textarea[aria-invalid="true"]')?.focus();
  }, [refused]);
  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    if (!url.trim()) {
      setError({ field: 'url', text: intl.formatMessage(m.required) });
      return focusInvalid();
    }
    if (events.size === 0) {
      setError({ field: 'events', text: intl.formatMessage(m.eventsRequired) });
      return focusInvalid();
    }
    setError(null);
    setAsking({ url: url.trim(), events: KIND_LIST.filter((k) => events.has(k)), description: description.trim() });
  };
  /** Sends the fields with the reason; a refusal of a field closes the dialog and is said there. */
  const send = async (fields: EndpointFields, reason: string) => {
    const r = await guard(() => (endpoint ? patchWebhook(appId, endpoint.endpointId, fields, reason) : createWebhook(appId, fields, reason)));
    if (r && !r.success && ['url', 'events', 'description'].includes(r.error.field ?? '')) {
      setError({ field: r.error.field!, text: errorText(r.error) });
      setAsking(null);
      focusInvalid();
      return null;
    }
    if (r?.success) made.current = r.data;
    return r;
  };
  return (
    <>
      <form ref={form} className="console-form webhook-form" onSubmit={submit} noValidate data-testid="webhook-form" aria-labelledby={`${id}t`}>
        {endpoint ? (
          <h4 id={`${id}t`}>
            <FormattedMessage {...m.editHeading} />
          </h4>
        ) : (
          <h3 id={`${id}t`}>
            <FormattedMessage {...m.addHeading} />
          </h3>
        )}
        <label htmlFor={`${id}u`}>
          <FormattedMessage {...m.url} />
        </label>
        <input
          id={`${id}u`}
          name="url"
          type="url"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          ref={urlField}
          value={url}
          aria-invalid={!!errorOf('url')}
          aria-describedby={`${id}uh ${id}ue`}
          onChange={(e) => {
            setUrl(e.target.value);
            if (error?.field === 'url') setError(null);
          }}
        />
        <p id={`${id}uh`} className="hint muted">
          <FormattedMessage {...m.urlHint} />
        </p>
        <ErrorText id={`${id}ue`} error={errorOf('url')} />
        <fieldset className="choice" aria-invalid={!!errorOf('events')} aria-describedby={`${id}ee`} data-testid="webhook-events-choice">
          <legend>
            <FormattedMessage {...m.events} />
          </legend>
          <div className="kinds">
            {KIND_LIST.map((k) => (
              <label key={k} className="radio">
                <input
                  type="checkbox"
                  name="events"
                  value={k}
                  checked={events.has(k)}
                  onChange={(e) => {
                    const next = new Set(events);
                    if (e.target.checked) next.add(k);
                    else next.delete(k);
                    setEvents(next);
                    if (error?.field === 'events') setError(null);
                  }}
                />
                <span>
                  <KindName kind={k} />
                </span>
              </label>
            ))}
          </div>
        </fieldset>
        <ErrorText id={`${id}ee`} error={errorOf('events')} />
        <label htmlFor={`${id}d`}>
          <FormattedMessage {...m.description} />
        </label>
        <textarea
          id={`${id}d`}
          name="description"
          rows={2}
          maxLength={500}
          value={description}
          aria-invalid={!!errorOf('description')}
          aria-describedby={`${id}de`}
          onChange={(e) => setDescription(e.target.value)}
        />
        <ErrorText id={`${id}de`} error={errorOf('description')} />
        <div className="actions">
          <button type="button" onClick={onCancel}>
            <FormattedMessage {...m.cancel} />
          </button>
          <button type="submit" className="primary" data-testid={endpoint ? 'webhook-save' : 'webhook-create'}>
            <FormattedMessage {...(endpoint ? m.save : m.create)} />
          </button>
        </div>
      </form>
      {asking && (
        <ReasonDialog
          testId={endpoint ? 'webhook-save-dialog' : 'webhook-create-dialog'}
          title={<FormattedMessage {...(endpoint ? m.editHeading : m.addHeading)} />}
          description={<FormattedMessage {...(endpoint ? m.saveDialog : m.createDialog)} values={{ url: asking.url }} />}
          confirm={endpoint ? m.save : m.create}
          run={(reason) => send(asking, reason)}
          onDone={(ok) => {
            setAsking(null);
            if (ok && made.current) onDone(made.current);
          }}
        />
      )}
    </>
  );
}
