//! Over 500 lines because the lanes, the fan-out, the re-fan and the paged replay share the queue
//! items' shape; its unit tests are at the end.
//!
//! The deliveries of `ciam serve` (docs/events-design.md §2): items of one queue partition,
//! attempted by lane (an app's events, an app's logout notices: [`Lanes`], each lane in a task of
//! its own), and the outbox's index of events not yet fanned out.
//!
//! - `WHF` / `<at, 12 digits>#<userId>#<eventId>` {eventPk, eventSk}: an event not yet fanned
//!   out, put **in the transaction that writes the event** ([`pending_op`]; `ciam serve`'s store
//!   adds it to every write of an `EVT#` item). [`fan_out_pending`] turns each into queue items
//!   and deletes it in one transaction: an event committed before a crash is fanned out after
//!   the restart.
//! - `WHQ` / `<endpointId>#<userId>#<eventAt, 12 digits>#<eventId>` {the `Outbound`, nextAt}: a
//!   delivery waiting for its (next) attempt. Per (endpoint, user) only the first in sort-key
//!   order is attempted: a later event of the same user to the same endpoint waits while an
//!   earlier one is being retried.

use super::deliver;
use super::guard::Resolver;
use super::outbound::{receiver_of, Field, Outbound, Step, Transport};
use super::{endpoints, log, notices};
use crate::consents::consent_key;
use crate::error::{Error, Result};
use crate::events::{self, Event};
use crate::{Ciam, Reason};
use ciam_store::{Cond, Item, Key, Query, StoreError, TxOp, Update, MAX_TX_ITEMS};
use std::convert::Infallible;

pub const PENDING_PK: &str = "WHF";
pub const QUEUE_PK: &str = "WHQ";

/// The marker's attribute that changes with every write of its event: the fan-out deletes the
/// marker only if it is still the one it read, so a change that lands in a coalesced window
/// after the fan-out read the event leaves the marker, and the event is fanned out again with
/// it (same `webhook-id`, the window's last values).
const REV: &str = "rev";

/// The put of the "not yet fanned out" marker of the event item at `event` (None for a key that
/// is not an event's), for the transaction that writes the event.
pub fn pending_op(event: &Key) -> Option<TxOp> {
    let user = events::user_of(&event.pk)?;
    let (at, id) = event.sk.split_once('#')?;
    let item = Item::new(Key::new(PENDING_PK, format!("{at}#{user}#{id}")))
        .with("eventPk", event.pk.as_str())
        .with("eventSk", event.sk.as_str())
        .with(REV, format!("{:016x}", rand::random::<u64>()));
    Some(TxOp::Put { item, cond: None })
}

/// How long after its window's end a coalesced `user.updated` is fanned out: a change computed
/// in the window's last moment commits a little later (the AWS fan-out waits as long: its wait is
/// the window's rest and a second).
pub const LATE_SECS: i64 = 1;

/// The delete of `marker` once its event is fanned out: only if no write of the event came
/// since the marker was read (a marker of an older build, without [`REV`]: unconditional).
fn taken_op(marker: &Item) -> TxOp {
    TxOp::Delete {
        key: marker.key.clone(),
        cond: marker.s(REV).map(|rev| Cond::eq(REV, rev)),
    }
}

fn queue_key(ob: &Outbound) -> Key {
    Key::new(
        QUEUE_PK,
        format!(
            "{}#{}#{:012}#{}",
            ob.endpoint_id, ob.user_id, ob.event_at, ob.event_id
        ),
    )
}

/// The queue item of `ob`, due at `next_at` (also what a replay writes: on AWS the table's
/// stream hands it to the fan-out function, which sends it to the delivery queue).
pub fn to_item(ob: &Outbound, next_at: i64) -> Item {
    ob.fields()
        .into_iter()
        .fold(
            Item::new(queue_key(ob)),
            |item, (name, value)| match value {
                Field::S(v) => item.with(name, v),
                Field::N(v) => item.with(name, v),
            },
        )
        .with("nextAt", next_at)
}

/// The delivery a queue item holds.
pub fn queued(i: &Item) -> Outbound {
    let s = |n: &'static str| Ok::<_, Infallible>(i.s(n).unwrap_or_default().to_owned());
    let n = |n: &'static str| Ok::<_, Infallible>(i.n(n).unwrap_or_default());
    match Outbound::from_fields(s, n) {
        Ok(ob) => ob,
        Err(never) => match never {},
    }
}

/// Enqueues deliveries (due now), in transactions of at most 100 items, then `last` (the
/// marker's delete after the notified sessions' records). Round trips: one per 100. A store
/// error of the last transaction is the marker's condition (or a write beside it) when it is
/// `TxCanceled`/`Conflict`: the caller fans the event out again (the queue items' keys are the
/// same, so what was written is overwritten, not doubled).
async fn enqueue(
    ciam: &Ciam,
    obs: &[Outbound],
    last: Vec<TxOp>,
) -> std::result::Result<(), StoreError> {
    let now = ciam.now();
    let mut ops: Vec<TxOp> = obs
        .iter()
        .map(|ob| TxOp::Put {
            item: to_item(ob, now),
            cond: None,
        })
        .collect();
    ops.extend(last);
    for chunk in ops.chunks(MAX_TX_ITEMS) {
        ciam.store.transact(chunk.to_vec()).await?;
    }
    Ok(())
}

/// Fans out every event whose marker is still there: its webhook deliveries and, for an event
/// that ends sessions, their logout notices (`notices::fan_out`; the sessions' records are
/// deleted in the marker's transaction). Answers how many deliveries it queued. A coalesced
/// `user.updated` whose window is still open waits ([`fan_out_due`]).
pub async fn fan_out_pending(ciam: &Ciam) -> Result<usize> {
    Ok(fan_out_due(ciam).await?.0)
}

/// [`fan_out_pending`], and when the first coalescing window still open ends (the worker wakes
/// then: `events::COALESCE_SECS`).
pub async fn fan_out_due(ciam: &Ciam) -> Result<(usize, Option<i64>)> {
    let mut queued = 0;
    let mut wait: Option<i64> = None;
    for marker in ciam.store.query(Query::partition(PENDING_PK)).await? {
        let done = taken_op(&marker);
        let (Some(pk), Some(sk)) = (marker.s("eventPk"), marker.s("eventSk")) else {
            ciam.store.transact(vec![done]).await?;
            continue;
        };
        // The time before the read: a window closed then (and [`LATE_SECS`] ago) holds every
        // change computed in it, unless one's commit took longer than that (the marker's
        // condition below catches it, or its own marker brings the event back).
        let now = ciam.now();
        let item = ciam.store.get(&Key::new(pk, sk)).await?;
        if let Some(end) = item
            .as_ref()
            .and_then(|i| events::open_window(i, now - LATE_SECS))
        {
            let due = end + LATE_SECS;
            wait = Some(wait.map_or(due, |w| w.min(due)));
            continue;
        }
        let mut obs = match item.as_ref().and_then(Event::from_item) {
            Some(e) => deliver::fan_out(ciam, &e).await?,
            None => Vec::new(),
        };
        // The sign-out's notices, by the ended sessions' records (deleted with the marker).
        let mut last: Vec<TxOp> = Vec::new();
        if let Some(item) = &item {
            let (notices, records) = notices::fan_out(ciam, item).await?;
            obs.extend(notices);
            last.extend(
                records
                    .into_iter()
                    .map(|key| TxOp::Delete { key, cond: None }),
            );
        }
        last.push(done);
        match enqueue(ciam, &obs, last).await {
            Ok(()) => queued += obs.len(),
            // A change of the event came after the marker was read (a coalesced window's late
            // change): the marker stays, and the next turn (now) fans out the event as it is.
            Err(e) if e.is_condition_failed() || matches!(e, StoreError::Conflict) => {
                tracing::debug!(marker = %marker.key.sk, "webhooks: the event changed while it was fanned out; again");
                wait = Some(ciam.now());
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok((queued, wait))
}

/// The most events one re-fan takes (a longer span: run it again from the time it reports).
pub const REFAN_CAP: usize = 1000;

/// What a re-fan queued: the events fanned out again, how many deliveries, and where to go on
/// (`next`: the `--since` of the next run when the cap cut it).
#[derive(Clone, Debug, PartialEq)]
pub struct Refanned {
    pub events: Vec<String>,
    pub deliveries: usize,
    pub next: Option<i64>,
}

/// `ciam admin webhooks refan --user <id> --since <time>`: fans out again every event of the
/// user committed at or after `since` (at most [`REFAN_CAP`]), as the outbox would have: the
/// webhook deliveries by today's consents and endpoints, and the logout notices of sessions
/// whose records are still there. Each delivery is a queue item (`WHQ`): `ciam serve`'s worker
/// sends it; on AWS the table's stream hands it to the fan-out function, which sends it to the
/// delivery queue. For a fan-out that failed (the stream records expired, a bug, an outage); an
/// event that had been delivered is delivered again with the same `webhook-id` (receivers dedupe
/// on it). Round trips: 1 query, then per event the fan-out's and 1 per 100 deliveries.
pub async fn refan(
    ciam: &Ciam,
    user_id: &str,
    since: i64,
    audit: Option<TxOp>,
) -> Result<Refanned> {
    let q = Query::partition(format!("{}{user_id}", events::PK_PREFIX))
        .after(format!("{:012}", since.max(1) - 1) + "#~")
        .limit(REFAN_CAP + 1);
    let items = ciam.store.query(q).await?;
    let mut out = Refanned {
        events: Vec::new(),
        deliveries: 0,
        next: None,
    };
    for (n, item) in items.iter().enumerate() {
        let Some(event) = Event::from_item(item) else {
            tracing::warn!(pk = %item.key.pk, sk = %item.key.sk, "refan: an event this build cannot read is skipped");
            continue;
        };
        if n == REFAN_CAP {
            out.next = Some(event.at);
            break;
        }
        let mut obs = deliver::fan_out(ciam, &event).await?;
        let (notices, records) = notices::fan_out(ciam, item).await?;
        obs.extend(notices);
        let last = records
            .into_iter()
            .map(|key| TxOp::Delete { key, cond: None })
            .collect();
        out.deliveries += obs.len();
        enqueue(ciam, &obs, last).await?;
        out.events.push(event.id);
    }
    // The command's audit entry: written once the events are sent on (a refan repeated after a
    // failure sends again what the receivers dedupe by webhook-id).
    if let Some(entry) = audit {
        ciam.store.transact(vec![entry]).await?;
    }
    Ok(out)
}

/// The lane of a queued delivery: an app's logout notices (`notice:<appId>`) or an app's
/// events (`events:<appId>`). `ciam serve` attempts each lane in a task of its own, one attempt
/// at a time, so an app whose endpoint hangs (5 s an attempt) or answers slowly delays only its
/// own lane; an app's logout notices never wait behind its own events either.
pub fn lane(item: &Item) -> String {
    let endpoint = item.s("endpointId").unwrap_or_default();
    let app = item.s("appId").unwrap_or_default();
    match receiver_of(endpoint) {
        Some(_) => format!("notice:{app}"),
        None => format!("events:{app}"),
    }
}

/// Whether a lane holds logout notices (they are started first).
fn is_notice_lane(lane: &str) -> bool {
    lane.starts_with("notice:")
}

/// The due heads of their (endpoint, user) lines, by lane, notices' lanes first; and when the
/// next head not yet due is (of the lanes not in `busy`). Round trips: 1 query.
async fn due_by_lane(
    ciam: &Ciam,
    busy: &std::collections::HashSet<String>,
) -> Result<(Vec<(String, Vec<Item>)>, Option<i64>)> {
    let items = ciam.store.query(Query::partition(QUEUE_PK)).await?;
    let now = ciam.now();
    let mut lanes: Vec<(String, Vec<Item>)> = Vec::new();
    let mut next: Option<i64> = None;
    let mut line = None;
    for i in items {
        let this = (
            i.s("endpointId").unwrap_or_default().to_owned(),
            i.s("userId").unwrap_or_default().to_owned(),
        );
        if line.as_ref() == Some(&this) {
            continue;
        }
        line = Some(this);
        let l = lane(&i);
        if busy.contains(&l) {
            continue;
        }
        let at = i.n("nextAt").unwrap_or_default();
        if at > now {
            next = Some(next.map_or(at, |n| n.min(at)));
            continue;
        }
        match lanes.iter_mut().find(|(name, _)| *name == l) {
            Some((_, heads)) => heads.push(i),
            None => lanes.push((l, vec![i])),
        }
    }
    lanes.sort_by_key(|(name, _)| !is_notice_lane(name));
    Ok((lanes, next))
}

/// One attempt of the queue item `i`, and its item's removal or its next try.
/// Round trips: the attempt's, then 1 write.
async fn attempt_item(
    ciam: &Ciam,
    transport: &dyn Transport,
    resolver: &dyn Resolver,
    i: &Item,
) -> Result<()> {
    let ob = queued(i);
    match deliver::attempt(ciam, transport, resolver, &ob).await? {
        Step::Delivered | Step::Failed => ciam.store.delete(&i.key, None).await?,
        Step::RetryAt(at) => {
            let ops = vec![
                Update::Set("attempts".into(), (ob.attempts + 1).into()),
                Update::Set("nextAt".into(), at.into()),
            ];
            ciam.store.update(&i.key, ops, None).await?;
        }
    }
    Ok(())
}

/// Attempts every due delivery that heads its (endpoint, user) line, until none is due, one at
/// a time (tests and tools; `ciam serve` runs the lanes side by side: [`Lanes`]).
/// Answers when the next one is due (None: the queue is empty).
pub async fn drain(
    ciam: &Ciam,
    transport: &dyn Transport,
    resolver: &dyn Resolver,
) -> Result<Option<i64>> {
    let none = std::collections::HashSet::new();
    loop {
        let (lanes, next) = due_by_lane(ciam, &none).await?;
        if lanes.is_empty() {
            return Ok(next);
        }
        for (_, heads) in lanes {
            for i in &heads {
                attempt_item(ciam, transport, resolver, i).await?;
            }
        }
    }
}

/// The lanes of `ciam serve`'s worker: each lane (an app's events, an app's logout notices)
/// runs in a task of its own, at most one per lane at a time; a lane that finishes wakes the
/// worker (`wake`), which starts the lanes due again.
#[derive(Clone)]
pub struct Lanes {
    ciam: Ciam,
    transport: std::sync::Arc<dyn Transport>,
    resolver: std::sync::Arc<dyn Resolver>,
    busy: std::sync::Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
    wake: std::sync::Arc<tokio::sync::Notify>,
}

impl Lanes {
    pub fn new(
        ciam: Ciam,
        transport: std::sync::Arc<dyn Transport>,
        resolver: std::sync::Arc<dyn Resolver>,
        wake: std::sync::Arc<tokio::sync::Notify>,
    ) -> Lanes {
        Lanes {
            ciam,
            transport,
            resolver,
            busy: std::sync::Arc::default(),
            wake,
        }
    }

    fn busy(&self) -> std::collections::HashSet<String> {
        self.busy.lock().map(|b| b.clone()).unwrap_or_default()
    }

    /// Starts a task for every idle lane with a due delivery (notices' lanes first), each
    /// attempting its lane's due line heads in turn; does not wait for them. Answers when the
    /// next delivery of an idle lane is due (None: none waits outside the busy lanes, whose end
    /// wakes the worker). Round trips: 1 query here; each task its attempts'.
    pub async fn start_due(&self) -> Result<Option<i64>> {
        let (lanes, next) = due_by_lane(&self.ciam, &self.busy()).await?;
        for (name, heads) in lanes {
            if let Ok(mut b) = self.busy.lock() {
                if !b.insert(name.clone()) {
                    continue;
                }
            }
            let me = self.clone();
            tokio::spawn(async move {
                for i in &heads {
                    let r = attempt_item(&me.ciam, me.transport.as_ref(), me.resolver.as_ref(), i)
                        .await;
                    if let Err(e) = r {
                        tracing::warn!(lane = %name, error = ?e, "webhooks: an attempt failed");
                    }
                }
                if let Ok(mut b) = me.busy.lock() {
                    b.remove(&name);
                }
                me.wake.notify_one();
            });
        }
        Ok(next)
    }
}

/// What to replay: one event, or every event delivered (or tried) in a time range.
#[derive(Clone, Debug, PartialEq)]
pub enum Replay {
    Event(String),
    Range { from: i64, to: i64 },
}

/// The most events one replay call queues: a longer range answers `next`, the `from` to
/// continue with.
pub const REPLAY_CAP: usize = 500;

/// Log entries read per page while a range replay looks for its events.
const LOG_PAGE: usize = 1000;

/// What a replay queued, and where a capped range goes on (`next`: a unix-seconds `from` for
/// the next call, None when the range is done).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Replayed {
    pub queued: Vec<String>,
    pub next: Option<i64>,
}

/// The distinct events (id, user, event sort key, attempt time) of `endpoint_id`'s log that a
/// replay of `what` takes, at most [`REPLAY_CAP`] of a range (cut at a whole second: the
/// second after the last one taken is `next`). Round trips: 1 query per [`LOG_PAGE`] entries,
/// from the range's start.
async fn picked(
    ciam: &Ciam,
    endpoint_id: &str,
    what: &Replay,
) -> Result<(Vec<(String, String, String, i64)>, Option<i64>)> {
    let mut seen: Vec<(String, String, String, i64)> = Vec::new();
    let pk = format!("{}{endpoint_id}", log::PK_PREFIX);
    let mut after = match what {
        Replay::Range { from, .. } => Some(format!("{:012}", from.max(&0))),
        Replay::Event(_) => None,
    };
    loop {
        let mut q = Query::partition(pk.as_str()).limit(LOG_PAGE);
        if let Some(a) = &after {
            q = q.after(a.as_str());
        }
        let items = ciam.store.query(q).await?;
        let full = items.len() == LOG_PAGE;
        for i in &items {
            let entry = log::Entry::from_item(i);
            let hit = match what {
                Replay::Event(id) => entry.event_id == *id,
                Replay::Range { from, to } => {
                    if entry.at > *to {
                        return Ok((seen, None));
                    }
                    entry.at >= *from
                }
            };
            if hit && !seen.iter().any(|(id, ..)| *id == entry.event_id) {
                let range = matches!(what, Replay::Range { .. });
                if let Some(last) = seen.last().filter(|_| range && seen.len() >= REPLAY_CAP) {
                    if entry.at > last.3 {
                        return Ok((seen, Some(entry.at)));
                    }
                    // The cap falls inside a second: stop before it (unless that second is all
                    // there is: then it is taken whole, over the cap).
                    let whole: Vec<_> = seen.iter().filter(|e| e.3 < entry.at).cloned().collect();
                    if !whole.is_empty() {
                        return Ok((whole, Some(entry.at)));
                    }
                }
                seen.push((entry.event_id, entry.user_id, entry.event_sk, entry.at));
            }
        }
        match (full, items.last()) {
            (true, Some(last)) => after = Some(last.key.sk.clone()),
            _ => return Ok((seen, None)),
        }
    }
}

/// `POST /admin/apps/{appId}/webhooks/{endpointId}/replay`: enqueues again, with the same `webhook-id`,
/// the events this endpoint's delivery log holds (one by id, or those of the attempts made in
/// `[from, to]`, at most [`REPLAY_CAP`] a call: `next` says where to go on), with the body the
/// app's consent covers now; `audit` (the console's entry) is written with the last of the
/// deliveries. Answers the events queued.
/// Round trips: 1 + 1 per 1,000 log entries of the range + 2 per event + 1 per 100 queued.
pub async fn replay_page(
    ciam: &Ciam,
    app_id: &str,
    endpoint_id: &str,
    what: Replay,
    audit: Option<TxOp>,
) -> Result<Replayed> {
    let e = endpoints::find(ciam, app_id, endpoint_id).await?;
    if let Replay::Range { from, to } = what {
        if from > to || to - from > log::KEEP_SECS {
            return Err(Error::field(
                Reason::INVALID_PARAMETER,
                "to",
                "时间范围不正确（最多 30 天）",
                "The range must run forward and span at most 30 days",
            ));
        }
    }
    let (seen, next) = picked(ciam, &e.endpoint_id, &what).await?;
    if seen.is_empty() {
        if let Replay::Event(_) = what {
            return Err(Error::field(
                Reason::NOT_FOUND,
                "eventId",
                "该地址没有这个事件的投递记录",
                "This endpoint's delivery log has no such event",
            ));
        }
    }
    let mut obs = Vec::new();
    for (_, user_id, event_sk, _) in &seen {
        let key = Key::new(format!("{}{user_id}", events::PK_PREFIX), event_sk.as_str());
        let Some(event) = ciam
            .store
            .get(&key)
            .await?
            .as_ref()
            .and_then(Event::from_item)
        else {
            continue;
        };
        // An organization's event: the apps it was recorded for (no consent of anyone's).
        if event.kind.is_org() {
            let heard = event
                .audience
                .as_ref()
                .is_some_and(|a| a.contains_key(app_id));
            if let Some(body) = event.payload_for(app_id, &[]).filter(|_| heard) {
                obs.push(deliver::outbound(&e, &event, body.to_string(), ciam.now()));
            }
            continue;
        }
        let scopes = match ciam.store.get(&consent_key(user_id, app_id)).await? {
            Some(c) => crate::consents::Consent::from_item(&c).scopes,
            None if event.kind == events::Kind::ConsentRevoked => Vec::new(),
            None => continue,
        };
        if let Some(body) = event.payload_for(app_id, &scopes) {
            obs.push(deliver::outbound(&e, &event, body.to_string(), ciam.now()));
        }
    }
    enqueue(ciam, &obs, audit.into_iter().collect()).await?;
    Ok(Replayed {
        queued: obs.into_iter().map(|o| o.event_id).collect(),
        next,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    fn delivery(n: i64) -> Outbound {
        Outbound {
            app_id: "shop".into(),
            endpoint_id: "ep_x".into(),
            user_id: format!("u{}", n % 7),
            event_id: format!("msg_{n:024}"),
            event_sk: format!("{:012}#msg_{n:024}", 1_700_000_000 + n),
            kind: "user.updated".into(),
            body: "{}".into(),
            event_at: 1_700_000_000 + n,
            since: 1_700_000_000,
            attempts: 0,
        }
    }

    /// A coalesced window's change that commits while the fan-out holds the event (after the
    /// marker's read, before its delete) is not lost: the marker stays, and the next turn fans
    /// the event out as it is then.
    #[tokio::test]
    async fn a_change_that_lands_while_its_event_is_fanned_out_brings_it_back() {
        use ciam_store::faults::{Fault, Faults, Op};
        let b = crate::testing::Builder::new(1_700_000_000);
        let clock = b.clock();
        let plain = b.build().await;
        let faults = Faults::new();
        let ciam = Ciam {
            store: Arc::new(faults.wrap(plain.store.clone())),
            ..plain.clone()
        };
        let nick = |v: &str| {
            let mut m = serde_json::Map::new();
            m.insert("nickname".into(), v.into());
            m
        };
        let change = |v: &str| {
            let op = events::coalesced_op(&ciam, "u1", nick(v));
            let marker = pending_op(op.key()).unwrap();
            vec![op, marker]
        };
        ciam.store.transact(change("first")).await.unwrap();
        let late = change("late");
        clock.advance(events::COALESCE_SECS + LATE_SECS);
        // The event's read waits; meanwhile the window's late change commits (its marker again).
        faults.inject_on(
            Op::Get,
            events::PK_PREFIX,
            Fault::Stall(Duration::from_millis(300)),
            1,
        );
        let writer = plain.clone();
        let racing = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            writer.store.transact(late).await.unwrap();
        });
        let (_, again) = fan_out_due(&ciam).await.unwrap();
        racing.await.unwrap();
        assert_eq!(again, Some(ciam.now()), "the fan-out goes again at once");
        let markers = ciam
            .store
            .query(Query::partition(PENDING_PK))
            .await
            .unwrap();
        assert_eq!(markers.len(), 1, "the marker stays");
        // The next turn takes it (nothing changed since its read).
        assert_eq!(fan_out_due(&ciam).await.unwrap(), (0, None));
        let markers = ciam
            .store
            .query(Query::partition(PENDING_PK))
            .await
            .unwrap();
        assert!(markers.is_empty());
        let kept = events::list(&ciam, "u1").await.unwrap();
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].data["nickname"], "late");
    }

    /// A window closed only a moment ago waits [`LATE_SECS`] more.
    #[tokio::test]
    async fn a_window_is_fanned_out_a_moment_after_its_end() {
        let b = crate::testing::Builder::new(1_700_000_000);
        let clock = b.clock();
        let ciam = b.build().await;
        let op = events::coalesced_op(&ciam, "u1", serde_json::Map::new());
        let marker = pending_op(op.key()).unwrap();
        ciam.store.transact(vec![op, marker]).await.unwrap();
        let end = 1_700_000_000 + events::COALESCE_SECS;
        clock.advance(events::COALESCE_SECS);
        assert_eq!(
            fan_out_due(&ciam).await.unwrap(),
            (0, Some(end + LATE_SECS))
        );
        clock.advance(LATE_SECS);
        assert_eq!(fan_out_due(&ciam).await.unwrap(), (0, None));
        assert!(ciam
            .store
            .query(Query::partition(PENDING_PK))
            .await
            .unwrap()
            .is_empty());
    }

    #[tokio::test]
    async fn a_range_replay_takes_at_most_the_cap_a_page_cut_at_a_whole_second() {
        let ciam = crate::testing::Builder::new(1_700_010_000).build().await;
        let t0 = 1_700_000_000;
        // 1,200 events tried 3 a second, each retried once 5 s later (two log entries).
        for n in 0..1200 {
            let ob = delivery(n);
            log::write(&ciam, &log::Entry::new(&ob, 1, t0 + n / 3))
                .await
                .unwrap();
            log::write(&ciam, &log::Entry::new(&ob, 2, t0 + n / 3 + 5))
                .await
                .unwrap();
        }
        let mut from = t0;
        let mut all: Vec<String> = Vec::new();
        let mut pages = Vec::new();
        loop {
            let what = Replay::Range { from, to: t0 + 500 };
            let (page, next) = picked(&ciam, "ep_x", &what).await.unwrap();
            assert!(page.len() <= REPLAY_CAP, "{}", page.len());
            pages.push(page.len());
            all.extend(page.iter().map(|e| e.0.clone()));
            match next {
                Some(n) => {
                    // The page ends on a whole second: nothing of `next`'s second is in it.
                    assert!(page.iter().all(|e| e.3 < n));
                    from = n;
                }
                None => break,
            }
        }
        // 498 first (166 whole seconds of 3: the cap falls inside the 167th), then the rest.
        assert_eq!(pages[0], 498);
        assert!(pages.len() >= 3, "{pages:?}");
        let mut unique = all.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 1200);
        // Replays past the first page repeat the events whose retry falls in it (5 s later):
        // receivers dedupe by webhook-id.
        assert!(all.len() >= 1200);
        // One event by id: found wherever it is in the log.
        let (one, next) = picked(&ciam, "ep_x", &Replay::Event(delivery(1100).event_id))
            .await
            .unwrap();
        assert_eq!((one.len(), next), (1, None));
    }
}
