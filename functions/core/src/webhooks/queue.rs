//! The deliveries of `ciam serve` (docs/events-design.md §2): items of one queue partition, so
//! one worker drains them in order, and the outbox's index of events not yet fanned out.
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

use super::deliver::{self, Outbound, Step, Transport};
use super::guard::Resolver;
use super::{endpoints, log, notices};
use crate::consents::consent_key;
use crate::error::{Error, Result};
use crate::events::{self, Event};
use crate::{Ciam, Reason};
use ciam_store::{Item, Key, Query, TxOp, Update, MAX_TX_ITEMS};

pub const PENDING_PK: &str = "WHF";
pub const QUEUE_PK: &str = "WHQ";

/// The put of the "not yet fanned out" marker of the event item at `event` (None for a key that
/// is not an event's), for the transaction that writes the event.
pub fn pending_op(event: &Key) -> Option<TxOp> {
    let user = events::user_of(&event.pk)?;
    let (at, id) = event.sk.split_once('#')?;
    let item = Item::new(Key::new(PENDING_PK, format!("{at}#{user}#{id}")))
        .with("eventPk", event.pk.as_str())
        .with("eventSk", event.sk.as_str());
    Some(TxOp::Put { item, cond: None })
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
    Item::new(queue_key(ob))
        .with("appId", ob.app_id.as_str())
        .with("endpointId", ob.endpoint_id.as_str())
        .with("userId", ob.user_id.as_str())
        .with("eventId", ob.event_id.as_str())
        .with("eventSk", ob.event_sk.as_str())
        .with("kind", ob.kind.as_str())
        .with("body", ob.body.as_str())
        .with("eventAt", ob.event_at)
        .with("since", ob.since)
        .with("attempts", ob.attempts)
        .with("nextAt", next_at)
}

/// The delivery a queue item holds.
pub fn queued(i: &Item) -> Outbound {
    let s = |n: &str| i.s(n).unwrap_or_default().to_owned();
    Outbound {
        app_id: s("appId"),
        endpoint_id: s("endpointId"),
        user_id: s("userId"),
        event_id: s("eventId"),
        event_sk: s("eventSk"),
        kind: s("kind"),
        body: s("body"),
        event_at: i.n("eventAt").unwrap_or_default(),
        since: i.n("since").unwrap_or_default(),
        attempts: i.n("attempts").unwrap_or_default(),
    }
}

/// Enqueues deliveries (due now), in transactions of at most 100 items, then `last` (the
/// marker's delete after the notified sessions' records). Round trips: one per 100.
async fn enqueue(ciam: &Ciam, obs: &[Outbound], last: Vec<TxOp>) -> Result<()> {
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
/// deleted in the marker's transaction). Answers how many deliveries it queued.
pub async fn fan_out_pending(ciam: &Ciam) -> Result<usize> {
    let mut queued = 0;
    for marker in ciam.store.query(Query::partition(PENDING_PK)).await? {
        let done = TxOp::Delete {
            key: marker.key.clone(),
            cond: None,
        };
        let (Some(pk), Some(sk)) = (marker.s("eventPk"), marker.s("eventSk")) else {
            ciam.store.transact(vec![done]).await?;
            continue;
        };
        let item = ciam.store.get(&Key::new(pk, sk)).await?;
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
        queued += obs.len();
        enqueue(ciam, &obs, last).await?;
    }
    Ok(queued)
}

/// Attempts every due delivery that heads its (endpoint, user) line, until none is due.
/// Answers when the next one is due (None: the queue is empty).
pub async fn drain(
    ciam: &Ciam,
    transport: &dyn Transport,
    resolver: &dyn Resolver,
) -> Result<Option<i64>> {
    loop {
        let items = ciam.store.query(Query::partition(QUEUE_PK)).await?;
        let now = ciam.now();
        let mut heads: Vec<&Item> = Vec::new();
        let mut line = None;
        for i in &items {
            let this = (i.s("endpointId"), i.s("userId"));
            if line != Some(this) {
                heads.push(i);
                line = Some(this);
            }
        }
        let due: Vec<&Item> = heads
            .iter()
            .copied()
            .filter(|i| i.n("nextAt").unwrap_or_default() <= now)
            .collect();
        if due.is_empty() {
            return Ok(heads.iter().filter_map(|i| i.n("nextAt")).min());
        }
        for i in due {
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
        }
    }
}

/// What to replay: one event, or every event delivered (or tried) in a time range.
#[derive(Clone, Debug, PartialEq)]
pub enum Replay {
    Event(String),
    Range { from: i64, to: i64 },
}

/// `POST /admin/apps/{appId}/webhooks/{endpointId}/replay`: enqueues again, with the same
/// `webhook-id`, the events this endpoint's delivery log holds (one by id, or those of the
/// attempts made in `[from, to]`), with the body the app's consent covers now; `audit` (the
/// console's entry) is written with the deliveries. Answers the events queued.
/// Round trips: 2 + 2 per event + 1.
pub async fn replay(
    ciam: &Ciam,
    app_id: &str,
    endpoint_id: &str,
    what: Replay,
    audit: Option<TxOp>,
) -> Result<Vec<String>> {
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
    let mut seen: Vec<(String, String, String)> = Vec::new();
    for (_, entry) in log::all(ciam, &e.endpoint_id).await? {
        let hit = match &what {
            Replay::Event(id) => entry.event_id == *id,
            Replay::Range { from, to } => (*from..=*to).contains(&entry.at),
        };
        if hit && !seen.iter().any(|(id, ..)| *id == entry.event_id) {
            seen.push((entry.event_id, entry.user_id, entry.event_sk));
        }
    }
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
    for (_, user_id, event_sk) in &seen {
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
    Ok(obs.into_iter().map(|o| o.event_id).collect())
}
