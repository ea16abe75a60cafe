//! The webhook pipeline's AWS glue (functions/lambdas/src/webhooks.rs): stream batches in,
//! queue messages out, failed attempts back later. The domain is a fake [`Pipeline`] here (its
//! own tests are the core's); the queue is a recording fake, and SQS itself is moto's FIFO queue
//! (`.venv/bin/moto_server`; without it the SQS test skips, except under CI=true, where it
//! fails).

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use async_trait::async_trait;
use ciam_core::events::{self, Event, Kind};
use ciam_lambdas::webhooks::{on_queue, on_stream, Next, Outgoing, Pipeline, Queue, SqsQueue};
use ciam_store::Item;
use serde_json::{json, Value};
use std::sync::Mutex;
use support::moto::Moto;

/// A fan-out that makes `per_event` deliveries of each event (and fails for user `broken`), and
/// a delivery that answers from a script.
#[derive(Default)]
struct Domain {
    per_event: usize,
    seen: Mutex<Vec<(String, Kind)>>,
    answers: Mutex<Vec<Result<Next, String>>>,
    delivered: Mutex<Vec<(String, u32)>>,
    queued: Mutex<Vec<String>>,
}

#[async_trait]
impl Pipeline for Domain {
    async fn outgoing(&self, item: &Item) -> Result<Vec<Outgoing>, String> {
        let event = Event::from_item(item).ok_or("not an event")?;
        self.seen
            .lock()
            .unwrap()
            .push((event.id.clone(), event.kind));
        if event.user_id == "broken" {
            return Err("the consents could not be read".into());
        }
        Ok((0..self.per_event)
            .map(|i| Outgoing {
                group: format!("ep{i}:{}", event.user_id),
                dedup: format!("{}:ep{i}", event.id),
                body: json!({"event": event.id, "endpoint": i}).to_string(),
            })
            .collect())
    }

    async fn queued(&self, item: &Item) -> Result<(), String> {
        self.queued.lock().unwrap().push(item.key.sk.clone());
        Ok(())
    }

    async fn deliver(&self, body: &str, receive_count: u32) -> Result<Next, String> {
        self.delivered
            .lock()
            .unwrap()
            .push((body.to_owned(), receive_count));
        self.answers.lock().unwrap().remove(0)
    }
}

#[derive(Default)]
struct Recorded {
    sent: Mutex<Vec<Vec<Outgoing>>>,
    hidden: Mutex<Vec<(String, u64)>>,
}

#[async_trait]
impl Queue for Recorded {
    async fn send(&self, batch: &[Outgoing]) -> Result<(), String> {
        self.sent.lock().unwrap().push(batch.to_vec());
        Ok(())
    }
    async fn retry_in(&self, receipt: &str, secs: u64) -> Result<(), String> {
        self.hidden.lock().unwrap().push((receipt.to_owned(), secs));
        Ok(())
    }
}

/// A stream record as Lambda hands it over (DynamoDB JSON images).
fn record(seq: &str, name: &str, user: &str, id: &str, kind: &str) -> Value {
    let image = json!({
        "pk": {"S": format!("EVT#{user}")},
        "sk": {"S": format!("001700000000#{id}")},
        "type": {"S": kind},
        "userId": {"S": user},
        "at": {"N": "1700000000"},
        "data": {"S": "{\"nickname\":\"小王\"}"},
        "expiresAt": {"N": "1702592000"}
    });
    json!({
        "eventID": format!("e{seq}"),
        "eventName": name,
        "eventSource": "aws:dynamodb",
        "awsRegion": "us-east-1",
        "dynamodb": {
            "ApproximateCreationDateTime": 1700000000,
            "Keys": {"pk": image["pk"], "sk": image["sk"]},
            "NewImage": image,
            "SequenceNumber": seq,
            "SizeBytes": 200,
            "StreamViewType": "NEW_IMAGE"
        },
        "eventSourceARN": "arn:aws:dynamodb:us-east-1:123456789012:table/ciam/stream/2026-11-27T00:00:00.000"
    })
}

#[tokio::test]
async fn every_event_of_a_batch_is_fanned_out_in_order_in_batches_of_ten() {
    let domain = Domain {
        per_event: 12,
        ..Domain::default()
    };
    let queue = Recorded::default();
    let batch = json!({"Records": [
        record("100", "INSERT", "u1", "msg_a", "user.updated"),
        record("101", "MODIFY", "u1", "msg_b", "user.updated"),
        record("102", "INSERT", "u2", "msg_c", "session.ended"),
    ]});
    let answer = on_stream(&domain, &queue, &batch).await;
    assert_eq!(answer, json!({"batchItemFailures": []}));
    // Each record's item is told queued after its messages are sent.
    assert_eq!(domain.queued.lock().unwrap().len(), 2);
    // A MODIFY is not an event (the filter keeps it out; the function ignores it too).
    assert_eq!(
        *domain.seen.lock().unwrap(),
        vec![
            ("msg_a".to_owned(), Kind::UserUpdated),
            ("msg_c".to_owned(), Kind::SessionEnded)
        ]
    );
    let sent = queue.sent.lock().unwrap();
    assert_eq!(
        sent.iter().map(Vec::len).collect::<Vec<_>>(),
        vec![10, 2, 10, 2]
    );
    assert_eq!(sent[0][0].group, "ep0:u1");
    assert_eq!(sent[0][0].dedup, "msg_a:ep0");
}

#[tokio::test]
async fn a_failed_record_and_every_later_one_come_back_in_order() {
    let domain = Domain {
        per_event: 1,
        ..Domain::default()
    };
    let queue = Recorded::default();
    let batch = json!({"Records": [
        record("200", "INSERT", "u1", "msg_a", "user.updated"),
        record("201", "INSERT", "broken", "msg_b", "user.updated"),
        record("202", "INSERT", "u3", "msg_c", "user.updated"),
    ]});
    let answer = on_stream(&domain, &queue, &batch).await;
    assert_eq!(
        answer,
        json!({"batchItemFailures": [{"itemIdentifier": "201"}]})
    );
    // msg_c was not sent: the retry starts at 201 and sends it after msg_b.
    assert_eq!(queue.sent.lock().unwrap().len(), 1);
    assert_eq!(domain.seen.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn an_unreadable_event_is_reported_not_skipped() {
    let domain = Domain::default();
    let queue = Recorded::default();
    let mut bad = record("300", "INSERT", "u1", "msg_a", "user.exploded");
    let answer = on_stream(&domain, &queue, &json!({"Records": [bad.clone()]})).await;
    assert_eq!(
        answer,
        json!({"batchItemFailures": [{"itemIdentifier": "300"}]})
    );
    bad["dynamodb"]["NewImage"]["at"] = json!({"NULL": true});
    bad["dynamodb"]["NewImage"]["type"] = json!({"S": "user.updated"});
    let answer = on_stream(&domain, &queue, &json!({"Records": [bad]})).await;
    assert_eq!(answer["batchItemFailures"][0]["itemIdentifier"], "300");
    assert!(domain.seen.lock().unwrap().is_empty());
}

fn message(id: &str, receipt: &str, body: &str, count: u32) -> Value {
    json!({
        "messageId": id,
        "receiptHandle": receipt,
        "body": body,
        "attributes": {
            "ApproximateReceiveCount": count.to_string(),
            "MessageGroupId": "ep0:u1",
            "MessageDeduplicationId": format!("{id}:dedup"),
            "SequenceNumber": "18849496460467696128"
        },
        "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:ciam-webhooks.fifo"
    })
}

#[tokio::test]
async fn a_failed_attempt_comes_back_after_its_backoff_and_holds_its_group() {
    let domain = Domain {
        answers: Mutex::new(vec![Ok(Next::Done), Ok(Next::RetryIn(30))]),
        ..Domain::default()
    };
    let queue = Recorded::default();
    let batch = json!({"Records": [
        message("m1", "r1", "first", 1),
        message("m2", "r2", "second", 3),
        message("m3", "r3", "third", 1),
    ]});
    let answer = on_queue(&domain, &queue, &batch).await;
    assert_eq!(
        answer,
        json!({"batchItemFailures": [{"itemIdentifier": "m2"}, {"itemIdentifier": "m3"}]})
    );
    assert_eq!(*queue.hidden.lock().unwrap(), vec![("r2".to_owned(), 30)]);
    // m3 was not attempted: it waits behind m2 in its group.
    assert_eq!(
        *domain.delivered.lock().unwrap(),
        vec![("first".to_owned(), 1), ("second".to_owned(), 3)]
    );
}

#[tokio::test]
async fn a_wait_beyond_what_sqs_allows_is_cut_to_twelve_hours_and_an_error_is_a_failure() {
    let domain = Domain {
        answers: Mutex::new(vec![
            Ok(Next::RetryIn(7 * 86_400)),
            Err("the endpoint item could not be read".into()),
        ]),
        ..Domain::default()
    };
    let queue = Recorded::default();
    let answer = on_queue(
        &domain,
        &queue,
        &json!({"Records": [message("m1", "r1", "x", 2)]}),
    )
    .await;
    assert_eq!(answer["batchItemFailures"][0]["itemIdentifier"], "m1");
    assert_eq!(
        *queue.hidden.lock().unwrap(),
        vec![("r1".to_owned(), 43_200)]
    );
    let answer = on_queue(
        &domain,
        &queue,
        &json!({"Records": [message("m2", "r2", "y", 1)]}),
    )
    .await;
    assert_eq!(answer["batchItemFailures"][0]["itemIdentifier"], "m2");
    assert_eq!(queue.hidden.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn the_fifo_queue_takes_a_batch_dedupes_a_resend_and_hides_a_retried_message() {
    let Some(moto) = Moto::start().await else {
        return;
    };
    let client = aws_sdk_sqs::Client::new(&moto.sdk().await);
    let url = client
        .create_queue()
        .queue_name("ciam-webhooks.fifo")
        .attributes(aws_sdk_sqs::types::QueueAttributeName::FifoQueue, "true")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let queue = SqsQueue {
        client: client.clone(),
        url: url.clone(),
    };
    let batch: Vec<Outgoing> = (0..10)
        .map(|i| Outgoing {
            group: format!("ep{}:u1", i % 2),
            dedup: format!("msg_{i}:ep"),
            body: format!("{{\"n\":{i}}}"),
        })
        .collect();
    queue.send(&batch).await.unwrap();
    // The stream's retry of the same record sends the same messages again: deduplicated.
    queue.send(&batch[..3]).await.unwrap();
    let mut got = Vec::new();
    loop {
        let out = client
            .receive_message()
            .queue_url(&url)
            .max_number_of_messages(10)
            .send()
            .await
            .unwrap();
        let msgs = out.messages.unwrap_or_default();
        if msgs.is_empty() {
            break;
        }
        for m in msgs {
            got.push(m.body.clone().unwrap());
            queue
                .retry_in(m.receipt_handle.as_deref().unwrap(), 600)
                .await
                .unwrap();
        }
    }
    got.sort();
    let mut want: Vec<String> = batch.iter().map(|m| m.body.clone()).collect();
    want.sort();
    assert_eq!(got, want, "each message once");
    // A receipt SQS does not know is an error, not a silent success.
    assert!(queue.retry_in("not-a-receipt", 5).await.is_err());
    // A queue that is gone refuses the batch: an error, so the stream record is retried.
    let gone = SqsQueue {
        client,
        url: format!("{url}-deleted"),
    };
    assert!(gone.send(&batch[..1]).await.is_err());
}

fn a_delivery() -> ciam_core::webhooks::deliver::Outbound {
    ciam_core::webhooks::deliver::Outbound {
        app_id: "shop".into(),
        endpoint_id: "ep1".into(),
        user_id: "u1".into(),
        event_id: "msg_0123456789abcdef01234567".into(),
        event_sk: "001700000000#msg_0123456789abcdef01234567".into(),
        kind: "user.updated".into(),
        body:
            r#"{"type":"user.updated","timestamp":"2023-11-14T22:13:20Z","data":{"userId":"u1"}}"#
                .into(),
        event_at: 1_700_000_000,
        since: 1_700_000_005,
        attempts: 0,
    }
}

#[test]
fn a_delivery_survives_its_message_and_sqs_counts_its_attempts() {
    use ciam_lambdas::webhooks::{message, outbound};
    let ob = a_delivery();
    let m = message(&ob, false);
    assert_eq!(m.group, "ep1:u1");
    assert_eq!(m.dedup, "msg_0123456789abcdef01234567:ep1");
    assert!(m.dedup.len() <= 128 && m.group.len() <= 128);
    let back = outbound(&m.body, 3).unwrap();
    assert_eq!(
        back,
        ciam_core::webhooks::deliver::Outbound {
            attempts: 2,
            ..ob.clone()
        }
    );
    // A replay is a new delivery of the same event: SQS must not drop it as a duplicate.
    assert_ne!(message(&ob, true).dedup, m.dedup);
    assert!(outbound("{}", 1).is_err() && outbound("not json", 1).is_err());
}

#[tokio::test]
async fn the_domain_sends_a_replayed_delivery_once_and_an_event_nobody_hears_nowhere() {
    use ciam_lambdas::webhooks::CorePipeline;
    let ciam = ciam_core::testing::Builder::new(1_700_000_100)
        .build()
        .await;
    let ob = a_delivery();
    let item = ciam_core::webhooks::queue::to_item(&ob, 1_700_000_100);
    ciam.store.put(item.clone(), None).await.unwrap();
    let event = Event::new(&ciam, "u-alone", Kind::UserUpdated, Default::default());
    let pipeline = CorePipeline::new(ciam);
    let out = pipeline.outgoing(&item).await.unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(
        ciam_lambdas::webhooks::outbound(&out[0].body, 1)
            .unwrap()
            .event_id,
        ob.event_id
    );
    pipeline.queued(&item).await.unwrap();
    assert!(
        pipeline.ciam.store.get(&item.key).await.unwrap().is_none(),
        "the replay item is gone"
    );
    // A user without a consent: no delivery.
    assert!(pipeline
        .outgoing(&event.to_item())
        .await
        .unwrap()
        .is_empty());
    // Anything else of the table: nothing.
    let other = Item::new(ciam_store::Key::new("USER#u1", "PROFILE"));
    assert!(pipeline.outgoing(&other).await.unwrap().is_empty());
}

/// One POST: its headers and body.
type Posted = (Vec<(String, String)>, String);

/// A transport that records each POST and answers 200.
#[derive(Default)]
struct Receiving {
    got: Mutex<Vec<Posted>>,
}

#[async_trait]
impl ciam_core::webhooks::Transport for Receiving {
    async fn post(
        &self,
        _target: &ciam_core::webhooks::guard::Target,
        headers: &[(&'static str, String)],
        body: &str,
    ) -> ciam_core::webhooks::Answer {
        let h = headers
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect();
        self.got.lock().unwrap().push((h, body.to_owned()));
        ciam_core::webhooks::Answer::Status {
            code: 200,
            body: Vec::new(),
            latency_ms: 1,
        }
    }
}

#[tokio::test]
async fn a_sign_outs_logout_notice_goes_through_the_fifo_queue_and_is_signed_at_its_delivery() {
    use ciam_core::app_sessions;
    use ciam_core::apps::App;
    use ciam_lambdas::webhooks::CorePipeline;
    let Some(moto) = Moto::start().await else {
        return;
    };
    let ciam = ciam_core::testing::Builder::new(1_700_000_100)
        .build()
        .await;
    // An OIDC app with a back-channel URI and no webhook endpoint, a session signed in to it.
    let app = App {
        app_id: "rp01".into(),
        backchannel_logout_uri: "https://rp.example.com/backchannel".into(),
        ..App::default()
    };
    ciam.store.put(app.to_item(), None).await.unwrap();
    let sid = "0123456789abcdef0123456789abcdef";
    let record = Item::new(app_sessions::record_key("u1", sid, "rp01"))
        .with("appId", "rp01")
        .with("at", 1_700_000_050_i64);
    ciam.store.put(record.clone(), None).await.unwrap();
    let data = events::session_ended(Some(sid.into()), events::SIGNED_OUT);
    let event = Event::new(&ciam, "u1", Kind::SessionEnded, data).to_item();
    let receiving = std::sync::Arc::new(Receiving::default());
    let pipeline = CorePipeline {
        transport: receiving.clone(),
        resolver: std::sync::Arc::new(ciam_core::webhooks::guard::StaticResolver(vec![(
            "rp.example.com".into(),
            vec!["93.184.216.34".parse().unwrap()],
        )])),
        ..CorePipeline::new(ciam)
    };
    // The fan-out: one message, into moto's FIFO queue; then the record is gone.
    let client = aws_sdk_sqs::Client::new(&moto.sdk().await);
    let url = client
        .create_queue()
        .queue_name("ciam-logout.fifo")
        .attributes(aws_sdk_sqs::types::QueueAttributeName::FifoQueue, "true")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let queue = SqsQueue {
        client: client.clone(),
        url: url.clone(),
    };
    // The event item as the table's stream shows it.
    let image = json!({
        "pk": {"S": event.key.pk},
        "sk": {"S": event.key.sk},
        "type": {"S": "session.ended"},
        "userId": {"S": "u1"},
        "at": {"N": "1700000100"},
        "data": {"S": event.s("data").unwrap()},
    });
    let batch = json!({"Records": [{
        "eventName": "INSERT",
        "dynamodb": {"NewImage": image, "SequenceNumber": "1"}
    }]});
    assert_eq!(
        on_stream(&pipeline, &queue, &batch).await,
        json!({"batchItemFailures": []})
    );
    assert!(
        pipeline
            .ciam
            .store
            .get(&record.key)
            .await
            .unwrap()
            .is_none(),
        "the notified session's record is deleted once the notice is queued"
    );
    // The delivery: the message as SQS hands it over, one attempt, a token signed then.
    let got = client
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(10)
        .message_system_attribute_names(aws_sdk_sqs::types::MessageSystemAttributeName::All)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap_or_default();
    assert_eq!(got.len(), 1);
    let m = &got[0];
    let body = m.body.clone().unwrap();
    let sqs = json!({"Records": [{
        "messageId": m.message_id.clone().unwrap(),
        "receiptHandle": m.receipt_handle.clone().unwrap(),
        "body": body,
        "attributes": {"ApproximateReceiveCount": "1"},
    }]});
    assert_eq!(
        on_queue(&pipeline, &queue, &sqs).await,
        json!({"batchItemFailures": []})
    );
    let sent = receiving.got.lock().unwrap().clone();
    assert_eq!(sent.len(), 1);
    assert!(sent[0].0.contains(&(
        "content-type".into(),
        "application/x-www-form-urlencoded".into()
    )));
    let token = sent[0].1.strip_prefix("logout_token=").unwrap();
    let hint = ciam_core::oidc::logout::verify_hint(&pipeline.ciam, token)
        .expect("signed by the provider's published key, its issuer");
    assert_eq!(
        (hint.aud.as_str(), hint.sub.as_str(), hint.sid.as_deref()),
        ("rp01", "u1", Some(sid))
    );
}
