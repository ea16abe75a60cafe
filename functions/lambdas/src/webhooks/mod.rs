//! The webhook pipeline on AWS (issues 23 and 30, docs/events-design.md §2): the two functions
//! of the `webhooks` binary, `ciam_api::WEBHOOK_FANOUT` and `ciam_api::WEBHOOK_DELIVERY`.
//!
//! - **Fan-out**: the table's stream invokes it with inserted `EVT#` items (committed events) and
//!   `WHQ` items (deliveries the registry's replay wrote) (the event source mapping's first
//!   filter; its second passes the audit tripwire's records, its third password sign-ins'
//!   sessions, nothing else of the table). The domain turns an event into one message per delivery and a replay item into its
//!   one message (then deletes the item). Messages go to one of two **fair queues** (standard
//!   queues whose `MessageGroupId` is the app id, so SQS serves the apps that are quiet ahead of
//!   one with a backlog or a slow endpoint): the sign-out's logout notices to their own queue,
//!   every other delivery to the events queue. A record of a kind this build cannot read is
//!   skipped with a log line (it never blocks its shard); a coalesced `user.updated` whose window
//!   is still open waits for its end (at most `events::COALESCE_SECS`, after the batch's other
//!   records are sent). The first record that fails is reported (`batchItemFailures`) and the ones
//!   after it are left for the retry. Inserted sessions of password sign-ins (the mapping's third
//!   filter: an item carrying `numbers::TALLY_METHOD`) are no events: the batch's ones before any
//!   failed record are counted in the console's numbers once the events are sent, best effort
//!   ([`crate::tally`]; a tally that fails never fails the batch).
//! - **Delivery**: both queues invoke it; each message is one attempt. A failed attempt never
//!   stays in flight: the message is done (deleted) and the delivery sent again with its attempt
//!   count and its due time, delayed by the backoff (SQS's `DelaySeconds`, at most
//!   [`MAX_DELAY_SECS`]; a longer wait is re-sent until due), so no failing or hanging endpoint
//!   holds queue capacity. What the domain gives up after its window is logged as `failed` in the
//!   delivery log (replayable). Only a message the function cannot handle (an error) is reported
//!   failed: after a few receipts SQS moves it to the dead-letter queue (a poison message).
//!   Each attempt writes one metric line (CloudWatch embedded metric format, namespace
//!   [`METRIC_NAMESPACE`]) per app and endpoint, and how long the endpoint has failed every
//!   delivery.
//!
//! What the domain does with an event and a message is the [`Pipeline`] port; the queues are the
//! [`Queue`] port ([`SqsQueue`] in AWS). Both are fakes in the tests.

mod message;

pub use message::{
    message, metric_line, outbound, Lane, Outgoing, MAX_DELAY_SECS, METRIC_NAMESPACE,
};

use async_trait::async_trait;
use ciam_api::webhook_transport::{DnsResolver, HttpTransport};
use ciam_core::events::{self, Event};
use ciam_core::webhooks::deliver;
use ciam_core::webhooks::guard::Resolver;
use ciam_core::webhooks::outbound::{receiver_of, Outbound, Step};
use ciam_core::webhooks::{notices, queue, Transport};
use ciam_core::Ciam;
use ciam_store::Item;
use lambda_http::{lambda_runtime, service_fn, LambdaEvent};
use serde_json::{json, Value};
use std::sync::Arc;

/// The events queue's URL, on both functions (`!Ref WebhookQueue`).
pub const QUEUE_VAR: &str = "CIAM_WEBHOOK_QUEUE_URL";
/// The logout notices' queue's URL, on both functions (`!Ref WebhookNoticeQueue`).
pub const NOTICE_QUEUE_VAR: &str = "CIAM_WEBHOOK_NOTICE_QUEUE_URL";
/// Most messages one `SendMessageBatch` takes.
pub const SEND_BATCH: usize = 10;
/// What an attempt asks of the queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// Delivered, failed for good or refused: the message is done (deleted).
    Done,
    /// The message is done, and this one (the next attempt, delayed) is sent in its place.
    Again(Outgoing),
}

/// What one inserted item fans out to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fanned {
    /// These deliveries (none for an item nobody hears).
    Out(Vec<Outgoing>),
    /// An event of a kind (or shape) this build cannot read: skipped, with a log line.
    Unreadable(String),
}

/// The domain's side of the pipeline.
#[async_trait]
pub trait Pipeline: Send + Sync {
    /// The deliveries one inserted item makes: a committed event's fan-out, a replayed delivery
    /// (a `WHQ` item the registry's replay wrote), none for anything else.
    async fn outgoing(&self, item: &Item) -> Result<Fanned, String>;
    /// After its deliveries are in the queue: a replayed delivery's item is removed.
    async fn queued(&self, item: &Item) -> Result<(), String>;
    /// One attempt of the delivery in `body`; `receive_count` is SQS's count of receipts.
    async fn deliver(&self, body: &str, receive_count: u32) -> Result<Next, String>;
    /// How many seconds to wait before fanning out `item` (a coalesced `user.updated` whose
    /// window is still open), None: now.
    fn wait(&self, _item: &Item) -> Option<u64> {
        None
    }
    /// Counts the password sign-ins the batch's `sessions` carry (the console's numbers,
    /// [`crate::tally`]); the number counted. Called once per batch, after its events are sent;
    /// an error is a warning line, never a failed record.
    async fn tally(&self, sessions: &[Item]) -> Result<usize, String>;
}

/// The delivery queues.
#[async_trait]
pub trait Queue: Send + Sync {
    /// Sends at most [`SEND_BATCH`] messages of one lane; an error when any was not accepted.
    async fn send(&self, lane: Lane, batch: &[Outgoing]) -> Result<(), String>;
}

fn failures(ids: Vec<String>) -> Value {
    json!({
        "batchItemFailures": ids
            .into_iter()
            .map(|id| json!({ "itemIdentifier": id }))
            .collect::<Vec<_>>()
    })
}

/// The item one stream record inserted, or None for another change (the filter keeps them
/// out; the function ignores them too).
fn item_of(record: &Value) -> Result<Option<Item>, String> {
    if record["eventName"] != "INSERT" {
        return Ok(None);
    }
    ciam_store::dynamodb::item_from_image(&record["dynamodb"]["NewImage"])
        .map(Some)
        .map_err(|e| e.to_string())
}

/// Sends `out` by lane, in batches of at most [`SEND_BATCH`].
async fn send_all(queue: &dyn Queue, out: &[Outgoing]) -> Result<(), String> {
    for lane in [Lane::Notices, Lane::Events] {
        let of: Vec<Outgoing> = out.iter().filter(|m| m.lane == lane).cloned().collect();
        for chunk in of.chunks(SEND_BATCH) {
            queue.send(lane, chunk).await?;
        }
    }
    Ok(())
}

/// Fans out one inserted item: its messages, then the item told queued.
async fn fan_out_one(
    pipeline: &dyn Pipeline,
    queue: &dyn Queue,
    seq: &str,
    item: &Item,
) -> Result<(), String> {
    match pipeline.outgoing(item).await? {
        Fanned::Unreadable(why) => {
            tracing::warn!(sequence = %seq, pk = %item.key.pk, sk = %item.key.sk, why = %why,
                "webhook fan-out: a record this build cannot read is skipped");
            Ok(())
        }
        Fanned::Out(out) => {
            send_all(queue, &out).await?;
            pipeline.queued(item).await
        }
    }
}

/// The fan-out function's answer to one batch of stream records.
pub async fn on_stream(pipeline: &dyn Pipeline, queue: &dyn Queue, batch: &Value) -> Value {
    let records = batch["Records"].as_array().cloned().unwrap_or_default();
    // Coalesced `user.updated` events whose window is open: sent after the others, once it ends.
    let mut waiting: Vec<(String, Item, u64)> = Vec::new();
    // Password sign-ins' sessions (the mapping's third filter): counted once the events are out.
    let mut sessions: Vec<(String, Item)> = Vec::new();
    let mut failed: Option<String> = None;
    for record in &records {
        let seq = record["dynamodb"]["SequenceNumber"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        // A changed or removed audit entry (the mapping's second filter): the tripwire's.
        if crate::audit_watch::watch(record) {
            continue;
        }
        let item = match item_of(record) {
            Ok(Some(item)) => item,
            Ok(None) => continue,
            Err(e) => {
                tracing::warn!(sequence = %seq, error = %e,
                    "webhook fan-out: a record this build cannot read is skipped");
                continue;
            }
        };
        if crate::tally::is_tallied(&item) {
            sessions.push((seq, item));
            continue;
        }
        if let Some(secs) = pipeline.wait(&item) {
            waiting.push((seq, item, secs));
            continue;
        }
        if let Err(e) = fan_out_one(pipeline, queue, &seq, &item).await {
            // This record and every later one come back in the retry.
            tracing::error!(sequence = %seq, error = %e, "webhook fan-out failed");
            failed = Some(seq);
            break;
        }
    }
    if let Some(longest) = waiting.iter().map(|w| w.2).max() {
        let secs = longest.min(u64::try_from(events::COALESCE_SECS).unwrap_or(5) + 1);
        tokio::time::sleep(std::time::Duration::from_secs(secs)).await;
        for (seq, item, _) in &waiting {
            if let Err(e) = fan_out_one(pipeline, queue, seq, item).await {
                tracing::error!(sequence = %seq, error = %e, "webhook fan-out failed");
                // An earlier record than the one that failed first: the retry starts there.
                if failed.as_ref().is_none_or(|f| seq_before(seq, f)) {
                    failed = Some(seq.clone());
                }
                break;
            }
        }
    }
    // The sessions before the first failed record: the retry hands the later ones back.
    let sessions: Vec<Item> = sessions
        .into_iter()
        .filter(|(seq, _)| failed.as_ref().is_none_or(|f| seq_before(seq, f)))
        .map(|(_, item)| item)
        .collect();
    crate::tally::count(&sessions, pipeline.tally(&sessions)).await;
    failures(failed.into_iter().collect())
}

/// Whether stream sequence number `a` comes before `b` (decimal strings of any length).
fn seq_before(a: &str, b: &str) -> bool {
    (a.len(), a) < (b.len(), b)
}

/// The delivery function's answer to one batch of queue messages: each one attempt; a message
/// the function cannot handle is reported (SQS hands it back, then sets it aside).
pub async fn on_queue(pipeline: &dyn Pipeline, queue: &dyn Queue, batch: &Value) -> Value {
    let records = batch["Records"].as_array().cloned().unwrap_or_default();
    let mut failed = Vec::new();
    for record in &records {
        let id = record["messageId"].as_str().unwrap_or_default().to_owned();
        let count = record["attributes"]["ApproximateReceiveCount"]
            .as_str()
            .and_then(|c| c.parse().ok())
            .unwrap_or(1);
        let body = record["body"].as_str().unwrap_or_default();
        match pipeline.deliver(body, count).await {
            Ok(Next::Done) => {}
            Ok(Next::Again(m)) => {
                if let Err(e) = queue.send(m.lane, std::slice::from_ref(&m)).await {
                    // Kept: it comes back after the queue's visibility timeout.
                    tracing::warn!(message = %id, error = %e, "could not queue the next attempt");
                    failed.push(id);
                }
            }
            Err(e) => {
                tracing::error!(message = %id, error = %e, "webhook delivery failed");
                failed.push(id);
            }
        }
    }
    failures(failed)
}

/// The pipeline of the domain (`ciam_core::webhooks`): the fan-out by consent, one attempt
/// behind the SSRF guard over the reqwest transport and the system's resolver.
pub struct CorePipeline {
    pub ciam: Ciam,
    pub transport: Arc<dyn Transport>,
    pub resolver: Arc<dyn Resolver>,
}

impl CorePipeline {
    pub fn new(ciam: Ciam) -> CorePipeline {
        CorePipeline {
            ciam,
            transport: Arc::new(HttpTransport),
            resolver: Arc::new(DnsResolver),
        }
    }
}

#[async_trait]
impl Pipeline for CorePipeline {
    async fn outgoing(&self, item: &Item) -> Result<Fanned, String> {
        let now = self.ciam.now();
        if item.key.pk == queue::QUEUE_PK {
            return Ok(Fanned::Out(vec![message(&queue::queued(item), now, now)]));
        }
        if events::user_of(&item.key.pk).is_none() {
            return Ok(Fanned::Out(Vec::new()));
        }
        // A coalesced `user.updated`: its window's changes, as the table holds them now.
        let fresh;
        let item = if item.n(events::WINDOW_END).is_some() {
            fresh = self
                .ciam
                .store
                .get(&item.key)
                .await
                .map_err(|e| e.to_string())?
                .unwrap_or_else(|| item.clone());
            &fresh
        } else {
            item
        };
        let Some(event) = Event::from_item(item) else {
            return Ok(Fanned::Unreadable(format!(
                "{}/{} is not an event this build reads (type {:?})",
                item.key.pk,
                item.key.sk,
                item.s("type").unwrap_or_default()
            )));
        };
        let mut out = deliver::fan_out(&self.ciam, &event)
            .await
            .map_err(|e| e.to_string())?;
        // The sign-out's notices to the apps the ended sessions signed in to.
        let (logout, _) = notices::fan_out(&self.ciam, item)
            .await
            .map_err(|e| e.to_string())?;
        out.extend(logout);
        Ok(Fanned::Out(
            out.iter().map(|ob| message(ob, now, now)).collect(),
        ))
    }

    async fn queued(&self, item: &Item) -> Result<(), String> {
        let keys = if item.key.pk == queue::QUEUE_PK {
            vec![item.key.clone()]
        } else {
            // The notified sessions' records (read again: the same filter finds the same ones).
            let ended = notices::ended(&self.ciam, item)
                .await
                .map_err(|e| e.to_string())?;
            ended.into_iter().map(|r| r.key).collect()
        };
        for key in keys {
            self.ciam
                .store
                .delete(&key, None)
                .await
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    async fn deliver(&self, body: &str, receive_count: u32) -> Result<Next, String> {
        let (ob, due) = outbound(body, receive_count)?;
        let now = self.ciam.now();
        if due > now {
            // A wait longer than SQS's longest delay: sent on again until it is due.
            return Ok(Next::Again(message(&ob, due, now)));
        }
        let (step, failing) = deliver::attempt_state(
            &self.ciam,
            self.transport.as_ref(),
            self.resolver.as_ref(),
            &ob,
        )
        .await
        .map_err(|e| e.to_string())?;
        if receiver_of(&ob.endpoint_id).is_none() {
            let line = metric_line(
                &ob,
                step == Step::Delivered,
                failing.map_or(0, |since| now - since),
                now.saturating_mul(1000),
            );
            println!("{line}");
        }
        Ok(match step {
            Step::Delivered | Step::Failed => Next::Done,
            Step::RetryAt(at) => {
                let next = Outbound {
                    attempts: ob.attempts + 1,
                    ..ob
                };
                Next::Again(message(&next, at, now))
            }
        })
    }

    fn wait(&self, item: &Item) -> Option<u64> {
        let now = self.ciam.now();
        events::open_window(item, now).map(|end| u64::try_from(end - now).unwrap_or(0) + 1)
    }

    async fn tally(&self, sessions: &[Item]) -> Result<usize, String> {
        crate::tally::tally_items(&self.ciam, sessions).await
    }
}

/// The delivery queues in SQS (fair queues: standard queues, `MessageGroupId` the app).
pub struct SqsQueue {
    pub client: aws_sdk_sqs::Client,
    /// The events queue's URL.
    pub url: String,
    /// The logout notices' queue's URL.
    pub notice_url: String,
}

#[async_trait]
impl Queue for SqsQueue {
    async fn send(&self, lane: Lane, batch: &[Outgoing]) -> Result<(), String> {
        let url = match lane {
            Lane::Events => &self.url,
            Lane::Notices => &self.notice_url,
        };
        let mut call = self.client.send_message_batch().queue_url(url);
        for (i, m) in batch.iter().enumerate() {
            let entry = aws_sdk_sqs::types::SendMessageBatchRequestEntry::builder()
                .id(i.to_string())
                .message_body(&m.body)
                .message_group_id(&m.group)
                .delay_seconds(i32::try_from(m.delay.min(MAX_DELAY_SECS)).unwrap_or(0))
                .build()
                .map_err(|e| e.to_string())?;
            call = call.entries(entry);
        }
        let out = call
            .send()
            .await
            .map_err(|e| aws_sdk_sqs::error::DisplayErrorContext(e).to_string())?;
        match out.failed().first() {
            None => Ok(()),
            Some(f) => Err(format!(
                "{} of {} messages refused: {} {}",
                out.failed().len(),
                batch.len(),
                f.code(),
                f.message().unwrap_or_default()
            )),
        }
    }
}

/// The entry of the `webhooks` binary: initialises the function `CIAM_ROUTE` names and serves
/// its stream or queue batches until the environment is shut down. `pipeline` builds the
/// domain's side from the initialised `Ciam`.
pub async fn run(
    pipeline: impl FnOnce(ciam_core::Ciam) -> Arc<dyn Pipeline>,
) -> Result<(), lambda_http::Error> {
    crate::setup::init_tracing();
    let route = std::env::var(crate::ROUTE_VAR).unwrap_or_default();
    let Some(def) = ciam_api::WEBHOOK_FUNCTIONS.iter().find(|f| f.id == route) else {
        let e = format!(
            "{}={route:?} is not a webhook function ({})",
            crate::ROUTE_VAR,
            ciam_api::WEBHOOK_FUNCTIONS
                .iter()
                .map(|f| f.id)
                .collect::<Vec<_>>()
                .join(", ")
        );
        tracing::error!(error = %e, "init failed");
        return Err(e.into());
    };
    let ready = async {
        let settings = crate::Settings::from_env()?;
        crate::init::init_webhooks(def.id, settings, crate::setup::load_sdk().await).await
    }
    .await
    .map_err(|e| {
        tracing::error!(route = def.id, error = %e, "init failed");
        e
    })?;
    let url = std::env::var(QUEUE_VAR).map_err(|_| format!("{QUEUE_VAR} is required"))?;
    let notice_url =
        std::env::var(NOTICE_QUEUE_VAR).map_err(|_| format!("{NOTICE_QUEUE_VAR} is required"))?;
    let queue: Arc<dyn Queue> = Arc::new(SqsQueue {
        client: aws_sdk_sqs::Client::new(&ready.sdk),
        url,
        notice_url,
    });
    let pipeline = pipeline(ready.ciam);
    let fan_out = def.id == ciam_api::WEBHOOK_FANOUT.id;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<Value>| {
        let (pipeline, queue) = (pipeline.clone(), queue.clone());
        async move {
            let answer = if fan_out {
                on_stream(pipeline.as_ref(), queue.as_ref(), &event.payload).await
            } else {
                on_queue(pipeline.as_ref(), queue.as_ref(), &event.payload).await
            };
            Ok::<Value, lambda_runtime::Error>(answer)
        }
    }))
    .await
}
