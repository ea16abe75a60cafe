//! The webhook pipeline on AWS (issue 23, docs/events-design.md §2): the two functions of the
//! `webhooks` binary, `ciam_api::WEBHOOK_FANOUT` and `ciam_api::WEBHOOK_DELIVERY`.
//!
//! - **Fan-out**: the table's stream invokes it with inserted `EVT#` items (committed events) and
//!   `WHQ` items (deliveries the registry's replay wrote) only (the event source mapping's
//!   filter; nothing else of the table wakes it). The domain turns an event into one message per
//!   delivery and a replay item into its one message (then deletes the item), sent to the FIFO
//!   queue with the
//!   delivery's group (endpoint and user: in order per user per endpoint) and deduplication id
//!   (event and endpoint: a record retried after a partial send does not deliver twice). Records
//!   are handled in stream order; the first that fails is reported (`batchItemFailures`) and the
//!   ones after it are left for the retry, so a user's events are never sent out of order.
//! - **Delivery**: the queue invokes it; each message is one attempt. A failed attempt sets the
//!   message's visibility to the next backoff step (the domain's answer) and reports the message
//!   as failed, so SQS hands it back then; in a FIFO queue the messages after it in the batch
//!   are reported too (their group waits for it).
//!
//! What the domain does with an event and a message is the [`Pipeline`] port; the queue is the
//! [`Queue`] port ([`SqsQueue`] in AWS). Both are fakes in the tests.

use async_trait::async_trait;
use ciam_api::webhook_transport::{DnsResolver, HttpTransport};
use ciam_core::events::{self, Event};
use ciam_core::webhooks::deliver::{self, Outbound, Step};
use ciam_core::webhooks::guard::Resolver;
use ciam_core::webhooks::{notices, queue, Transport};
use ciam_core::Ciam;
use ciam_store::Item;
use lambda_http::{lambda_runtime, service_fn, LambdaEvent};
use serde_json::{json, Value};
use std::sync::Arc;

/// The queue's URL, on both functions (`!Ref WebhookQueue`).
pub const QUEUE_VAR: &str = "CIAM_WEBHOOK_QUEUE_URL";
/// SQS's longest visibility timeout: a later retry waits in steps of it.
pub const MAX_VISIBILITY_SECS: u64 = 12 * 60 * 60;
/// Most messages one `SendMessageBatch` takes.
pub const SEND_BATCH: usize = 10;

/// One message for the delivery queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    /// `MessageGroupId`: the deliveries of one group arrive in order, one at a time.
    pub group: String,
    /// `MessageDeduplicationId` (at most 128 characters).
    pub dedup: String,
    pub body: String,
}

/// What an attempt asks of the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// Delivered, failed for good or refused: the message is done (deleted).
    Done,
    /// Try again in this many seconds.
    RetryIn(u64),
}

/// The domain's side of the pipeline.
#[async_trait]
pub trait Pipeline: Send + Sync {
    /// The deliveries one inserted item makes: a committed event's fan-out, a replayed delivery
    /// (a `WHQ` item the registry's replay wrote), none for anything else.
    async fn outgoing(&self, item: &Item) -> Result<Vec<Outgoing>, String>;
    /// After its deliveries are in the queue: a replayed delivery's item is removed.
    async fn queued(&self, item: &Item) -> Result<(), String>;
    /// One attempt of the delivery in `body`; `receive_count` is SQS's count of receipts.
    async fn deliver(&self, body: &str, receive_count: u32) -> Result<Next, String>;
}

/// The delivery queue.
#[async_trait]
pub trait Queue: Send + Sync {
    /// Sends at most [`SEND_BATCH`] messages; an error when any was not accepted.
    async fn send(&self, batch: &[Outgoing]) -> Result<(), String>;
    /// Hides the received message `receipt` for `secs` seconds (its next attempt).
    async fn retry_in(&self, receipt: &str, secs: u64) -> Result<(), String>;
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

/// The fan-out function's answer to one batch of stream records.
pub async fn on_stream(pipeline: &dyn Pipeline, queue: &dyn Queue, batch: &Value) -> Value {
    let records = batch["Records"].as_array().cloned().unwrap_or_default();
    for record in &records {
        let seq = record["dynamodb"]["SequenceNumber"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        // A changed or removed audit entry (the mapping's second filter): the tripwire's.
        if crate::audit_watch::watch(record) {
            continue;
        }
        let outcome = async {
            let Some(item) = item_of(record)? else {
                return Ok(());
            };
            let out = pipeline.outgoing(&item).await?;
            for chunk in out.chunks(SEND_BATCH) {
                queue.send(chunk).await?;
            }
            pipeline.queued(&item).await?;
            Ok::<(), String>(())
        }
        .await;
        if let Err(e) = outcome {
            // This record and every later one come back in the retry, in order.
            tracing::error!(sequence = %seq, error = %e, "webhook fan-out failed");
            return failures(vec![seq]);
        }
    }
    failures(Vec::new())
}

/// The delivery function's answer to one batch of queue messages.
pub async fn on_queue(pipeline: &dyn Pipeline, queue: &dyn Queue, batch: &Value) -> Value {
    let records = batch["Records"].as_array().cloned().unwrap_or_default();
    let mut failed = Vec::new();
    for record in &records {
        let id = record["messageId"].as_str().unwrap_or_default().to_owned();
        if !failed.is_empty() {
            // FIFO: a message after a failed one of the batch waits for it.
            failed.push(id);
            continue;
        }
        let receipt = record["receiptHandle"].as_str().unwrap_or_default();
        let count = record["attributes"]["ApproximateReceiveCount"]
            .as_str()
            .and_then(|c| c.parse().ok())
            .unwrap_or(1);
        let body = record["body"].as_str().unwrap_or_default();
        match pipeline.deliver(body, count).await {
            Ok(Next::Done) => {}
            Ok(Next::RetryIn(secs)) => {
                if let Err(e) = queue.retry_in(receipt, secs.min(MAX_VISIBILITY_SECS)).await {
                    // The queue's own visibility timeout then decides when it comes back.
                    tracing::warn!(message = %id, error = %e, "could not set the next attempt");
                }
                failed.push(id);
            }
            Err(e) => {
                tracing::error!(message = %id, error = %e, "webhook delivery failed");
                failed.push(id);
            }
        }
    }
    failures(failed)
}

/// The SQS message of one delivery: the `Outbound` without its attempt count (SQS counts the
/// receipts).
pub fn message(ob: &Outbound, replay: bool) -> Outgoing {
    let body = json!({
        "appId": ob.app_id,
        "endpointId": ob.endpoint_id,
        "userId": ob.user_id,
        "eventId": ob.event_id,
        "eventSk": ob.event_sk,
        "kind": ob.kind,
        "body": ob.body,
        "eventAt": ob.event_at,
        "since": ob.since,
    });
    Outgoing {
        // In order per user per endpoint.
        group: format!("{}:{}", ob.endpoint_id, ob.user_id),
        // A stream record retried after a partial send repeats the same ids (SQS drops them
        // within 5 minutes); a replay is a new delivery of the same event (its own `since`).
        // (At most 128 characters: a logout notice's event id holds the sid, its endpoint the
        // app id; what is cut is the end of the app id.)
        dedup: if replay {
            format!("{}:{}:r{}", ob.event_id, ob.endpoint_id, ob.since)
        } else {
            format!("{}:{}", ob.event_id, ob.endpoint_id)
        }
        .chars()
        .take(128)
        .collect(),
        body: body.to_string(),
    }
}

/// The delivery a message carries, after `receive_count` receipts.
pub fn outbound(body: &str, receive_count: u32) -> Result<Outbound, String> {
    let v: Value = serde_json::from_str(body).map_err(|e| format!("not a delivery: {e}"))?;
    let s = |n: &str| {
        v[n].as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("a delivery without {n}"))
    };
    let n = |n: &str| {
        v[n].as_i64()
            .ok_or_else(|| format!("a delivery without {n}"))
    };
    Ok(Outbound {
        app_id: s("appId")?,
        endpoint_id: s("endpointId")?,
        user_id: s("userId")?,
        event_id: s("eventId")?,
        event_sk: s("eventSk")?,
        kind: s("kind")?,
        body: s("body")?,
        event_at: n("eventAt")?,
        since: n("since")?,
        attempts: i64::from(receive_count.saturating_sub(1)),
    })
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
    async fn outgoing(&self, item: &Item) -> Result<Vec<Outgoing>, String> {
        if item.key.pk == queue::QUEUE_PK {
            return Ok(vec![message(&queue::queued(item), true)]);
        }
        if events::user_of(&item.key.pk).is_none() {
            return Ok(Vec::new());
        }
        let event = Event::from_item(item).ok_or_else(|| {
            format!(
                "{}/{} is not an event this build reads",
                item.key.pk, item.key.sk
            )
        })?;
        let mut out = deliver::fan_out(&self.ciam, &event)
            .await
            .map_err(|e| e.to_string())?;
        // The sign-out's notices to the apps the ended sessions signed in to.
        let (logout, _) = notices::fan_out(&self.ciam, item)
            .await
            .map_err(|e| e.to_string())?;
        out.extend(logout);
        Ok(out.iter().map(|ob| message(ob, false)).collect())
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
        let ob = outbound(body, receive_count)?;
        let step = deliver::attempt(
            &self.ciam,
            self.transport.as_ref(),
            self.resolver.as_ref(),
            &ob,
        )
        .await
        .map_err(|e| e.to_string())?;
        Ok(match step {
            Step::Delivered | Step::Failed => Next::Done,
            Step::RetryAt(at) => {
                Next::RetryIn(u64::try_from(at - self.ciam.now()).unwrap_or(0).max(1))
            }
        })
    }
}

/// The delivery queue in SQS.
pub struct SqsQueue {
    pub client: aws_sdk_sqs::Client,
    pub url: String,
}

#[async_trait]
impl Queue for SqsQueue {
    async fn send(&self, batch: &[Outgoing]) -> Result<(), String> {
        let mut call = self.client.send_message_batch().queue_url(&self.url);
        for (i, m) in batch.iter().enumerate() {
            let entry = aws_sdk_sqs::types::SendMessageBatchRequestEntry::builder()
                .id(i.to_string())
                .message_body(&m.body)
                .message_group_id(&m.group)
                .message_deduplication_id(&m.dedup)
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

    async fn retry_in(&self, receipt: &str, secs: u64) -> Result<(), String> {
        self.client
            .change_message_visibility()
            .queue_url(&self.url)
            .receipt_handle(receipt)
            .visibility_timeout(i32::try_from(secs).unwrap_or(i32::MAX))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| aws_sdk_sqs::error::DisplayErrorContext(e).to_string())
    }
}

/// The entry of the `webhooks` binary: initialises the function `CIAM_ROUTE` names and serves
/// its stream or queue batches until the environment is shut down. `pipeline` builds the
/// domain's side from the initialised `Ciam`.
pub async fn run(
    pipeline: impl FnOnce(ciam_core::Ciam) -> Arc<dyn Pipeline>,
) -> Result<(), lambda_http::Error> {
    crate::init::init_tracing();
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
        crate::init::init_webhooks(def.id, settings, crate::init::load_sdk().await).await
    }
    .await
    .map_err(|e| {
        tracing::error!(route = def.id, error = %e, "init failed");
        e
    })?;
    let url = std::env::var(QUEUE_VAR).map_err(|_| format!("{QUEUE_VAR} is required"))?;
    let queue: Arc<dyn Queue> = Arc::new(SqsQueue {
        client: aws_sdk_sqs::Client::new(&ready.sdk),
        url,
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
