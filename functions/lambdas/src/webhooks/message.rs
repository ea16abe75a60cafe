//! A delivery as a message of the pipeline's queues (issue 23, docs/events-design.md §2): its
//! [`Lane`] (which queue), its body ([`message`], read back by [`outbound`]) and the metric line
//! of an attempt ([`metric_line`]).

use ciam_core::webhooks::outbound::{receiver_of, Field, Outbound};
use serde_json::{json, Map, Value};

/// SQS's longest `DelaySeconds`: a later retry is re-sent until it is due.
pub const MAX_DELAY_SECS: u64 = 900;
/// The namespace of the delivery function's metrics.
pub const METRIC_NAMESPACE: &str = "Ciam/Webhooks";

/// Which queue a message goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// Partner events (and replays).
    Events,
    /// The sign-out's logout notices: their own queue, never behind events.
    Notices,
}

impl Lane {
    /// The lane of a delivery: its endpoint is a logout URL's pseudo endpoint, or a webhook.
    pub fn of(ob: &Outbound) -> Lane {
        match receiver_of(&ob.endpoint_id) {
            Some(_) => Lane::Notices,
            None => Lane::Events,
        }
    }
}

/// One message for a delivery queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outgoing {
    pub lane: Lane,
    /// `MessageGroupId`: the app, the fair queue's tenant.
    pub group: String,
    /// `DelaySeconds` (at most [`MAX_DELAY_SECS`]).
    pub delay: u64,
    pub body: String,
}

/// The SQS message of one delivery, due at `due` (the next attempt's time; now for a new one),
/// sent at `now`: the `Outbound` with its attempt count (a retry is a new message).
pub fn message(ob: &Outbound, due: i64, now: i64) -> Outgoing {
    let mut body: Map<String, Value> = ob
        .fields()
        .into_iter()
        .map(|(name, value)| {
            let v = match value {
                Field::S(v) => json!(v),
                Field::N(v) => json!(v),
            };
            (name.to_owned(), v)
        })
        .collect();
    body.insert("due".into(), json!(due));
    Outgoing {
        lane: Lane::of(ob),
        group: ob.app_id.clone(),
        delay: u64::try_from(due - now).unwrap_or(0).min(MAX_DELAY_SECS),
        body: Value::Object(body).to_string(),
    }
}

/// The delivery a message carries, after `receive_count` receipts of it, and when it is due.
pub fn outbound(body: &str, receive_count: u32) -> Result<(Outbound, i64), String> {
    let v: Value = serde_json::from_str(body).map_err(|e| format!("not a delivery: {e}"))?;
    let s = |n: &'static str| {
        v[n].as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("a delivery without {n}"))
    };
    let n = |n: &'static str| match (n, v[n].as_i64()) {
        // A message written before the count was part of the body counts from none.
        ("attempts", None) => Ok(0),
        (_, Some(x)) => Ok(x),
        (_, None) => Err(format!("a delivery without {n}")),
    };
    let mut ob = Outbound::from_fields(s, n)?;
    ob.attempts += i64::from(receive_count.saturating_sub(1));
    Ok((ob, v["due"].as_i64().unwrap_or(0)))
}

/// The metric line of one attempt (CloudWatch embedded metric format): `Delivered` or
/// `Failed` (1) per app and endpoint, and `FailingSeconds` (how long the endpoint has failed
/// every delivery; 0 after a success) with no dimension, so one alarm watches every endpoint.
pub fn metric_line(ob: &Outbound, delivered: bool, failing_secs: i64, now_ms: i64) -> Value {
    json!({
        "_aws": {
            "Timestamp": now_ms,
            "CloudWatchMetrics": [{
                "Namespace": METRIC_NAMESPACE,
                "Dimensions": [["AppId", "EndpointId"]],
                "Metrics": [
                    {"Name": "Delivered", "Unit": "Count"},
                    {"Name": "Failed", "Unit": "Count"}
                ]
            }, {
                "Namespace": METRIC_NAMESPACE,
                "Dimensions": [[]],
                "Metrics": [{"Name": "FailingSeconds", "Unit": "Seconds"}]
            }]
        },
        "AppId": ob.app_id,
        "EndpointId": ob.endpoint_id,
        "Delivered": i64::from(delivered),
        "Failed": i64::from(!delivered),
        "FailingSeconds": failing_secs,
    })
}
