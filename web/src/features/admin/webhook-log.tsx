// One endpoint's delivery log (GET .../deliveries, newest first, 50 a page with More) and, for an
// admin, replay (POST .../replay with a reason): one event by its id from a row of the log, or the
// attempts made in a time range; the answer says how many events were queued again (same
// webhook-id: receivers dedupe). A range the server sends in parts answers `next`: "more to
// replay", and a button that continues from there with the same reason (the same act, in parts).
// Each row shows the receiver's status and, when it sent one, the first 1 KB of its answer.
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { defineMessages, FormattedMessage, type MessageDescriptor, useIntl } from 'react-intl';
import { ErrorText } from '../../components/field';
import { When } from '../../components/when';
import { errorText } from '../../lib/api';
import * as toast from '../../lib/toast';
import { type Delivery, type Endpoint, getWebhook, listDeliveries, type Replayed, replayWebhook, type ReplayWhat } from './api';
import { LoadStatus, useConsole, useLoad } from './context';
import { KindName } from './webhook-kit';
import { ReasonDialog, TableFrame } from './widgets';

const m = defineMessages({
  heading: { id: 'admin.webhookLog.heading', defaultMessage: 'Deliveries to {url}' },
  empty: { id: 'admin.webhookLog.empty', defaultMessage: 'Nothing was sent to it yet (the log keeps 30 days).' },
  refresh: { id: 'admin.webhookLog.refresh', defaultMessage: 'Refresh' },
  more: { id: 'admin.webhookLog.more', defaultMessage: 'Older deliveries' },
  at: { id: 'admin.webhookLog.at', defaultMessage: 'Time' },
  event: { id: 'admin.webhookLog.event', defaultMessage: 'Event' },
  attempt: { id: 'admin.webhookLog.attempt', defaultMessage: 'Attempt' },
  outcome: { id: 'admin.webhookLog.outcome', defaultMessage: 'Outcome' },
  status: { id: 'admin.webhookLog.status', defaultMessage: 'HTTP status' },
  latency: { id: 'admin.webhookLog.latency', defaultMessage: 'Latency' },
  ms: { id: 'admin.webhookLog.ms', defaultMessage: '{ms} ms' },
  noAnswer: { id: 'admin.webhookLog.noAnswer', defaultMessage: 'No answer' },
  answer: { id: 'admin.webhookLog.answer', defaultMessage: 'Their answer (first 1 KB)' },
  user: { id: 'admin.webhookLog.user', defaultMessage: 'user {id}' },
  replay: { id: 'admin.webhookLog.replay', defaultMessage: 'Replay' },
  replayOne: { id: 'admin.webhookLog.replayOne', defaultMessage: 'event {id}' },
  actions: { id: 'admin.webhookLog.actions', defaultMessage: 'Replay' },
  queued: {
    id: 'admin.webhookLog.queued',
    defaultMessage:
      '{n, plural, =0 {No delivery in that range to replay.} one {# event queued again, with its webhook-id: the partner can drop a copy it already has.} other {# events queued again, with their webhook-id: the partner can drop copies it already has.}}',
  },
  rangeHeading: { id: 'admin.webhookLog.rangeHeading', defaultMessage: 'Replay a time range' },
  rangeHelp: { id: 'admin.webhookLog.rangeHelp', defaultMessage: 'Sends again every event attempted in the range (your local time; at most 30 days).' },
  from: { id: 'admin.webhookLog.from', defaultMessage: 'From' },
  to: { id: 'admin.webhookLog.to', defaultMessage: 'To' },
  replayRange: { id: 'admin.webhookLog.replayRange', defaultMessage: 'Replay the range' },
  rangeInvalid: { id: 'admin.webhookLog.rangeInvalid', defaultMessage: 'Give a start and an end after it' },
  replayOneTitle: { id: 'admin.webhookLog.replayOneTitle', defaultMessage: 'Replay event {id}?' },
  replayRangeTitle: { id: 'admin.webhookLog.replayRangeTitle', defaultMessage: 'Replay the events attempted from {from} to {to}?' },
  replayHelp: {
    id: 'admin.webhookLog.replayHelp',
    defaultMessage: 'Each event is sent again with its webhook-id and the body the app’s consent covers now.',
  },
  moreToReplay: {
    id: 'admin.webhookLog.moreToReplay',
    defaultMessage: 'More to replay: the range has more events than one replay sends. The next part starts at {time}.',
  },
  continueReplay: { id: 'admin.webhookLog.continueReplay', defaultMessage: 'Replay the next part' },
});

export const outcomeNames: Record<Delivery['outcome'], MessageDescriptor> = defineMessages({
  delivered: { id: 'admin.webhookLog.outcome.delivered', defaultMessage: 'Delivered' },
  retry: { id: 'admin.webhookLog.outcome.retry', defaultMessage: 'Will be retried' },
  failed: { id: 'admin.webhookLog.outcome.failed', defaultMessage: 'Failed' },
});

/** A datetime-local value (the browser's local time) as unix seconds; null when empty or invalid. */
export function secondsOf(local: string): number | null {
  if (!local) return null;
  const t = new Date(local).getTime();
  return Number.isFinite(t) ? Math.floor(t / 1000) : null;
}

/**
 * The log of `endpoint`; each load of it also reads the endpoint again (`onEndpoint`: its last
 * delivery, failures and state move with the deliveries).
 */
export function DeliveryLog({ appId, endpoint, admin, onEndpoint }: { appId: string; endpoint: Endpoint; admin: boolean; onEndpoint: (e: Endpoint) => void }) {
  const intl = useIntl();
  const id = useId();
  const { guard } = useConsole();
  const ep = endpoint.endpointId;
  const { loaded, reload } = useLoad(() => listDeliveries(appId, ep), [appId, ep]);
  const told = useRef(onEndpoint);
  // The reload a moment after a replay, cancelled if the log goes away first.
  const later = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(later.current), []);
  told.current = onEndpoint;
  useEffect(() => {
    if (loaded.state !== 'ready') return;
    let live = true;
    void guard(() => getWebhook(appId, ep)).then((r) => {
      if (live && r?.success) told.current(r.data);
    });
    return () => {
      live = false;
    };
  }, [loaded, guard, appId, ep]);
  // Older pages, fetched with More: [page rows, their `next`]; a reload starts again.
  const [older, setOlder] = useState<{ rows: Delivery[]; next: string | null; base: unknown } | null>(null);
  const [said, setSaid] = useState<string | null>(null);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [rangeError, setRangeError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The replay waiting for its reason (its dialog is open), and the rest of a range sent in parts.
  const [asking, setAsking] = useState<ReplayWhat | null>(null);
  const [rest, setRest] = useState<{ from: number; to: number; reason: string } | null>(null);
  const first = loaded.state === 'ready' ? loaded.data : null;
  const more = older && older.base === first ? older : null;
  const rows = first ? [...first.deliveries, ...(more?.rows ?? [])] : [];
  const next = more ? more.next : (first?.next ?? null);
  // Row keys that survive newer rows arriving on top (a focused Replay button keeps its focus):
  // the log's own key is not answered, and a replay's attempt may share event, attempt and second.
  const seen = new Map<string, number>();
  const keys = rows.map((d) => {
    const k = `${d.eventId}#${d.attempt}#${d.at}`;
    const n = seen.get(k) ?? 0;
    seen.set(k, n + 1);
    return `${k}#${n}`;
  });
  const loadMore = async () => {
    if (!next) return;
    const r = await guard(() => listDeliveries(appId, ep, next));
    if (r?.success) setOlder({ rows: [...(more?.rows ?? []), ...r.data.deliveries], next: r.data.next, base: first });
    else if (r) toast.show('error', errorText(r.error));
  };
  /** What a replay answered: how many were queued, and what is left of a range. */
  const replayed = (data: Replayed, what: ReplayWhat, reason: string) => {
    setSaid(intl.formatMessage(m.queued, { n: data.eventIds.length }));
    setRest('from' in what && data.next !== null ? { from: data.next, to: what.to, reason } : null);
    // The worker sends them at once: the log shows the new attempts a moment later.
    if (data.eventIds.length) later.current = setTimeout(reload, 1500);
  };
  /** The replay with its reason (from the dialog): a refused range is said at the range's fields. */
  const replay = async (what: ReplayWhat, reason: string) => {
    setSaid(null);
    const r = await guard(() => replayWebhook(appId, ep, what, reason));
    if (r && !r.success && 'from' in what && (r.error.field === 'to' || r.error.field === 'from')) {
      setRangeError(errorText(r.error));
      setAsking(null);
      return null;
    }
    if (r?.success) replayed(r.data, what, reason);
    return r;
  };
  /** The next part of a range, with the reason given for the first. */
  const replayRest = async () => {
    if (!rest) return;
    setBusy(true);
    setSaid(null);
    const what = { from: rest.from, to: rest.to };
    const r = await guard(() => replayWebhook(appId, ep, what, rest.reason));
    setBusy(false);
    if (!r) return;
    if (r.success) replayed(r.data, what, rest.reason);
    else setSaid(errorText(r.error));
  };
  const submitRange = (e: FormEvent) => {
    e.preventDefault();
    const f = secondsOf(from);
    const t = secondsOf(to);
    if (f === null || t === null || f > t) {
      setRangeError(intl.formatMessage(m.rangeInvalid));
      return;
    }
    setRangeError(null);
    setAsking({ from: f, to: t });
  };
  const label = intl.formatMessage(m.heading, { url: endpoint.url });
  return (
    <div className="webhook-log" data-testid="webhook-log">
      <h4 id={`${id}h`}>{label}</h4>
      <LoadStatus loaded={loaded} onRetry={reload} />
      {first && (
        <>
          <p className="buttons">
            <button type="button" onClick={reload} data-testid="webhook-log-refresh">
              <FormattedMessage {...m.refresh} />
            </button>
          </p>
          {rows.length === 0 ? (
            <p data-testid="webhook-log-empty">
              <FormattedMessage {...m.empty} />
            </p>
          ) : (
            <TableFrame label={label}>
              <table data-testid="webhook-deliveries">
                <thead>
                  <tr>
                    <th scope="col">{intl.formatMessage(m.at)}</th>
                    <th scope="col">{intl.formatMessage(m.event)}</th>
                    <th scope="col">{intl.formatMessage(m.attempt)}</th>
                    <th scope="col">{intl.formatMessage(m.outcome)}</th>
                    <th scope="col">{intl.formatMessage(m.status)}</th>
                    <th scope="col">{intl.formatMessage(m.latency)}</th>
                    {admin && <th scope="col">{intl.formatMessage(m.actions)}</th>}
                  </tr>
                </thead>
                <tbody>
                  {rows.map((d, i) => (
                    <tr key={keys[i]} data-testid="delivery" data-event-id={d.eventId} data-outcome={d.outcome}>
                      <th scope="row">
                        <When at={d.at} />
                      </th>
                      <td>
                        <KindName kind={d.type} />
                        <span className="cell-note">
                          <code>{d.eventId}</code>
                        </span>
                        <span className="cell-note">
                          <FormattedMessage {...m.user} values={{ id: <code>{d.userId}</code> }} />
                        </span>
                      </td>
                      <td>{d.attempt}</td>
                      <td>
                        <FormattedMessage {...outcomeNames[d.outcome]} />
                        {d.error && <span className="cell-note">{d.error}</span>}
                        {d.answer && (
                          <details>
                            <summary>
                              <FormattedMessage {...m.answer} />
                            </summary>
                            <pre data-testid="delivery-answer">{d.answer}</pre>
                          </details>
                        )}
                      </td>
                      <td data-testid="delivery-status">{d.status === 0 ? intl.formatMessage(m.noAnswer) : d.status}</td>
                      <td>{intl.formatMessage(m.ms, { ms: d.latencyMs })}</td>
                      {admin && (
                        <td>
                          <button type="button" disabled={busy} onClick={() => setAsking({ eventId: d.eventId })} data-testid="delivery-replay">
                            <FormattedMessage {...m.replay} />
                            <span className="sr-only"> {intl.formatMessage(m.replayOne, { id: d.eventId })}</span>
                          </button>
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableFrame>
          )}
          {next && (
            <p>
              <button type="button" onClick={() => void loadMore()} data-testid="webhook-log-more">
                <FormattedMessage {...m.more} />
              </button>
            </p>
          )}
        </>
      )}
      {admin && (
        <>
          <p role="status" data-testid="webhook-replayed">
            {said}
          </p>
          {rest && (
            <p data-testid="webhook-replay-more">
              <FormattedMessage {...m.moreToReplay} values={{ time: <When at={rest.from} /> }} />{' '}
              <button type="button" disabled={busy} onClick={() => void replayRest()} data-testid="webhook-replay-continue">
                <FormattedMessage {...m.continueReplay} />
              </button>
            </p>
          )}
          <form className="console-form" onSubmit={submitRange} noValidate data-testid="webhook-replay-range" aria-labelledby={`${id}r`}>
            <h5 id={`${id}r`}>
              <FormattedMessage {...m.rangeHeading} />
            </h5>
            <p id={`${id}rh`} className="hint muted">
              <FormattedMessage {...m.rangeHelp} />
            </p>
            <div className="inline-fields">
              <div>
                <label htmlFor={`${id}f`}>
                  <FormattedMessage {...m.from} />
                </label>
                <input id={`${id}f`} name="from" type="datetime-local" value={from} aria-describedby={`${id}rh`} onChange={(e) => setFrom(e.target.value)} />
              </div>
              <div>
                <label htmlFor={`${id}t`}>
                  <FormattedMessage {...m.to} />
                </label>
                <input
                  id={`${id}t`}
                  name="to"
                  type="datetime-local"
                  value={to}
                  aria-invalid={!!rangeError}
                  aria-describedby={`${id}rh ${id}re`}
                  onChange={(e) => setTo(e.target.value)}
                />
              </div>
              <button type="submit" className="primary" disabled={busy} data-testid="webhook-replay-range-submit">
                <FormattedMessage {...m.replayRange} />
              </button>
            </div>
            <ErrorText id={`${id}re`} error={rangeError} />
          </form>
        </>
      )}
      {asking && (
        <ReasonDialog
          testId="webhook-replay-dialog"
          title={
            'eventId' in asking ? (
              <FormattedMessage {...m.replayOneTitle} values={{ id: asking.eventId }} />
            ) : (
              <FormattedMessage {...m.replayRangeTitle} values={{ from: <When at={asking.from} />, to: <When at={asking.to} /> }} />
            )
          }
          description={<FormattedMessage {...m.replayHelp} />}
          confirm={'eventId' in asking ? m.replay : m.replayRange}
          run={(reason) => replay(asking, reason)}
          onDone={() => setAsking(null)}
        />
      )}
    </div>
  );
}
