//! The webhook pipeline's AWS glue (functions/lambdas/src/webhooks/): stream batches in,
//! queue messages out, failed attempts sent again delayed. The domain is a fake [`Pipeline`]
//! here (its own tests are the core's), or the core's over a fake transport; the queue is a
//! recording fake (an in-process stand-in for the SQS calls: moto takes a standard queue's
//! `MessageGroupId` and `DelaySeconds` but does not emulate a fair queue's preference for quiet
//! tenants), and SQS itself is moto's (`.venv/bin/moto_server`; without it the SQS tests skip,
//! except under CI=true, where they fail).

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use async_trait::async_trait;
use ciam_core::events::{self, Event, Kind};
use ciam_lambdas::webhooks::{
    on_queue, on_stream, Fanned, Lane, Next, Outgoing, Pipeline, Queue, SqsQueue,
};
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
    tallied: Mutex<Vec<String>>,
    tally_fails: bool,
}

#[async_trait]
impl Pipeline for Domain {
    async fn outgoing(&self, item: &Item) -> Result<Fanned, String> {
        let Some(event) = Event::from_item(item) else {
            return Ok(Fanned::Unreadable("not an event this build reads".into()));
        };
        self.seen
            .lock()
            .unwrap()
            .push((event.id.clone(), event.kind));
        if event.user_id == "broken" {
            return Err("the consents could not be read".into());
        }
        Ok(Fanned::Out(
            (0..self.per_event)
                .map(|i| Outgoing {
                    lane: Lane::Events,
                    group: format!("app{i}"),
                    delay: 0,
                    body: json!({"event": event.id, "endpoint": i}).to_string(),
                })
                .collect(),
        ))
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

    async fn tally(&self, sessions: &[Item]) -> Result<usize, String> {
        self.tallied
            .lock()
            .unwrap()
            .extend(sessions.iter().map(|s| s.key.sk.clone()));
        if self.tally_fails {
            return Err("the counters could not be written".into());
        }
        Ok(sessions.len())
    }
}

#[derive(Default)]
struct Recorded {
    sent: Mutex<Vec<Vec<Outgoing>>>,
}

#[async_trait]
impl Queue for Recorded {
    async fn send(&self, lane: Lane, batch: &[Outgoing]) -> Result<(), String> {
        assert!(batch.iter().all(|m| m.lane == lane));
        self.sent.lock().unwrap().push(batch.to_vec());
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
    assert_eq!(sent[0][0].group, "app0");
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
async fn a_record_of_a_kind_this_build_cannot_read_is_skipped_and_the_shard_goes_on() {
    let domain = Domain {
        per_event: 1,
        ..Domain::default()
    };
    let queue = Recorded::default();
    let unknown = record("300", "INSERT", "u1", "msg_a", "user.exploded");
    let mut broken = record("301", "INSERT", "u1", "msg_b", "user.updated");
    broken["dynamodb"]["NewImage"]["at"] = json!({"NULL": true});
    let later = record("302", "INSERT", "u2", "msg_c", "user.updated");
    let answer = on_stream(
        &domain,
        &queue,
        &json!({"Records": [unknown, broken, later]}),
    )
    .await;
    assert_eq!(answer, json!({"batchItemFailures": []}));
    // The two it cannot read are skipped (a log line each); the next record is sent.
    assert_eq!(
        *domain.seen.lock().unwrap(),
        vec![("msg_c".to_owned(), Kind::UserUpdated)]
    );
    assert_eq!(queue.sent.lock().unwrap().len(), 1);
    assert!(domain.queued.lock().unwrap().len() == 1);
}

/// A password sign-in's session as the stream shows its insert (the mapping's third filter).
fn session(seq: &str, user: &str, id: &str) -> Value {
    let image = json!({
        "pk": {"S": format!("USER#{user}")},
        "sk": {"S": format!("SESSION#{id}")},
        "createdAt": {"N": "1700000000"},
        "tm": {"S": "password"},
        "tn": {"N": "1"}
    });
    json!({
        "eventName": "INSERT",
        "dynamodb": {
            "Keys": {"pk": image["pk"], "sk": image["sk"]},
            "NewImage": image,
            "SequenceNumber": seq,
            "StreamViewType": "NEW_IMAGE"
        }
    })
}

#[tokio::test]
async fn sessions_are_counted_once_the_events_are_out_and_a_failed_tally_fails_nothing() {
    for tally_fails in [false, true] {
        let domain = Domain {
            per_event: 1,
            tally_fails,
            ..Domain::default()
        };
        let queue = Recorded::default();
        let batch = json!({"Records": [
            session("400", "u1", "s1"),
            record("401", "INSERT", "u1", "msg_a", "user.updated"),
            session("402", "u2", "s2"),
        ]});
        let answer = on_stream(&domain, &queue, &batch).await;
        // A tally that fails is a warning line: the batch is not handed back (its sessions
        // would be counted twice, its events fanned out twice).
        assert_eq!(answer, json!({"batchItemFailures": []}), "{tally_fails}");
        // The sessions are no events: only msg_a fans out; both sessions are counted at once.
        assert_eq!(
            *domain.seen.lock().unwrap(),
            vec![("msg_a".to_owned(), Kind::UserUpdated)]
        );
        assert_eq!(queue.sent.lock().unwrap().len(), 1);
        assert_eq!(*domain.queued.lock().unwrap(), vec!["001700000000#msg_a"]);
        assert_eq!(
            *domain.tallied.lock().unwrap(),
            vec!["SESSION#s1", "SESSION#s2"]
        );
    }
}

#[tokio::test]
async fn the_sessions_after_a_failed_record_are_left_for_the_retry_to_count() {
    let domain = Domain {
        per_event: 1,
        ..Domain::default()
    };
    let queue = Recorded::default();
    let batch = json!({"Records": [
        session("500", "u1", "s1"),
        record("501", "INSERT", "broken", "msg_b", "user.updated"),
        session("502", "u2", "s2"),
    ]});
    let answer = on_stream(&domain, &queue, &batch).await;
    assert_eq!(
        answer,
        json!({"batchItemFailures": [{"itemIdentifier": "501"}]})
    );
    // s2 comes back with the retry (from 501 on) and is counted then, once.
    assert_eq!(*domain.tallied.lock().unwrap(), vec!["SESSION#s1"]);
}

fn message(id: &str, receipt: &str, body: &str, count: u32) -> Value {
    json!({
        "messageId": id,
        "receiptHandle": receipt,
        "body": body,
        "attributes": {
            "ApproximateReceiveCount": count.to_string(),
            "MessageGroupId": "app0",
        },
        "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:ciam-webhooks"
    })
}

fn again(body: &str, delay: u64) -> Outgoing {
    Outgoing {
        lane: Lane::Events,
        group: "app0".into(),
        delay,
        body: body.into(),
    }
}

#[tokio::test]
async fn a_failed_attempt_is_sent_again_delayed_and_holds_nothing() {
    let domain = Domain {
        answers: Mutex::new(vec![
            Ok(Next::Done),
            Ok(Next::Again(again("second, attempt 2", 30))),
            Ok(Next::Done),
        ]),
        ..Domain::default()
    };
    let queue = Recorded::default();
    let batch = json!({"Records": [
        message("m1", "r1", "first", 1),
        message("m2", "r2", "second", 1),
        message("m3", "r3", "third", 1),
    ]});
    let answer = on_queue(&domain, &queue, &batch).await;
    // Nothing stays in flight: the failed one is done (deleted) and its next attempt is a new
    // message, delayed by the backoff; the one after it was attempted at once.
    assert_eq!(answer, json!({"batchItemFailures": []}));
    assert_eq!(
        *queue.sent.lock().unwrap(),
        vec![vec![again("second, attempt 2", 30)]]
    );
    assert_eq!(domain.delivered.lock().unwrap().len(), 3);
}

#[tokio::test]
async fn a_message_the_function_cannot_handle_is_reported_for_the_dead_letters() {
    let domain = Domain {
        answers: Mutex::new(vec![Err("the endpoint item could not be read".into())]),
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
    assert!(queue.sent.lock().unwrap().is_empty());
}

#[tokio::test]
async fn the_fair_queues_take_the_apps_group_and_a_retrys_delay() {
    let Some(moto) = Moto::start().await else {
        return;
    };
    let client = aws_sdk_sqs::Client::new(&moto.sdk().await);
    let mut urls = Vec::new();
    for name in ["ciam-webhooks", "ciam-logout"] {
        urls.push(
            client
                .create_queue()
                .queue_name(name)
                .send()
                .await
                .unwrap()
                .queue_url
                .unwrap(),
        );
    }
    let queue = SqsQueue {
        client: client.clone(),
        url: urls[0].clone(),
        notice_url: urls[1].clone(),
    };
    let batch: Vec<Outgoing> = (0..10)
        .map(|i| Outgoing {
            lane: Lane::Events,
            group: format!("app{}", i % 2),
            delay: if i < 8 { 0 } else { 900 },
            body: format!("{{\"n\":{i}}}"),
        })
        .collect();
    queue.send(Lane::Events, &batch).await.unwrap();
    let notice = Outgoing {
        lane: Lane::Notices,
        group: "rp01".into(),
        delay: 0,
        body: "{\"notice\":1}".into(),
    };
    queue
        .send(Lane::Notices, std::slice::from_ref(&notice))
        .await
        .unwrap();
    let receive = |url: String| {
        let client = client.clone();
        async move {
            let mut got = Vec::new();
            loop {
                let out = client
                    .receive_message()
                    .queue_url(&url)
                    .max_number_of_messages(10)
                    .message_system_attribute_names(
                        aws_sdk_sqs::types::MessageSystemAttributeName::All,
                    )
                    .send()
                    .await
                    .unwrap();
                let msgs = out.messages.unwrap_or_default();
                if msgs.is_empty() {
                    break;
                }
                for m in msgs {
                    got.push(m.body.clone().unwrap());
                    client
                        .delete_message()
                        .queue_url(&url)
                        .receipt_handle(m.receipt_handle.unwrap())
                        .send()
                        .await
                        .unwrap();
                }
            }
            got.sort();
            got
        }
    };
    // The two delayed ones (a retry's backoff) are not there yet; the notice is on its own queue.
    let mut want: Vec<String> = batch[..8].iter().map(|m| m.body.clone()).collect();
    want.sort();
    assert_eq!(receive(urls[0].clone()).await, want);
    assert_eq!(receive(urls[1].clone()).await, vec![notice.body]);
    // A queue that is gone refuses the batch: an error, so the stream record is retried.
    let gone = SqsQueue {
        client,
        url: format!("{}-deleted", urls[0]),
        notice_url: format!("{}-deleted", urls[1]),
    };
    assert!(gone.send(Lane::Events, &batch[..1]).await.is_err());
}

fn a_delivery() -> ciam_core::webhooks::Outbound {
    ciam_core::webhooks::Outbound {
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
    use ciam_lambdas::webhooks::{message, outbound, MAX_DELAY_SECS};
    let ob = ciam_core::webhooks::Outbound {
        attempts: 2,
        ..a_delivery()
    };
    let now = 1_700_000_100;
    let m = message(&ob, now + 30, now);
    assert_eq!(
        (m.group.as_str(), m.lane, m.delay),
        ("shop", Lane::Events, 30)
    );
    // The attempts it carries, plus SQS's receipts of this very message beyond the first.
    let (back, due) = outbound(&m.body, 2).unwrap();
    assert_eq!(due, now + 30);
    assert_eq!(
        back,
        ciam_core::webhooks::Outbound {
            attempts: 3,
            ..ob.clone()
        }
    );
    // A two-hour backoff waits in steps of SQS's longest delay.
    assert_eq!(message(&ob, now + 7200, now).delay, MAX_DELAY_SECS);
    // A logout notice goes to its own queue.
    let notice = ciam_core::webhooks::Outbound {
        endpoint_id: "backchannel.rp01".into(),
        ..ob.clone()
    };
    assert_eq!(message(&notice, now, now).lane, Lane::Notices);
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
    let Fanned::Out(out) = pipeline.outgoing(&item).await.unwrap() else {
        panic!("a replay is read");
    };
    assert_eq!(out.len(), 1);
    assert_eq!(
        ciam_lambdas::webhooks::outbound(&out[0].body, 1)
            .unwrap()
            .0
            .event_id,
        ob.event_id
    );
    pipeline.queued(&item).await.unwrap();
    assert!(
        pipeline.ciam.store.get(&item.key).await.unwrap().is_none(),
        "the replay item is gone"
    );
    // A user without a consent: no delivery.
    assert_eq!(
        pipeline.outgoing(&event.to_item()).await.unwrap(),
        Fanned::Out(Vec::new())
    );
    // Anything else of the table: nothing.
    let other = Item::new(ciam_store::Key::new("USER#u1", "PROFILE"));
    assert_eq!(
        pipeline.outgoing(&other).await.unwrap(),
        Fanned::Out(Vec::new())
    );
    // An event of a kind this build does not know: unreadable (skipped by the stream handler).
    let mut unknown = event.to_item();
    unknown.attrs.insert("type".into(), "user.exploded".into());
    assert!(matches!(
        pipeline.outgoing(&unknown).await.unwrap(),
        Fanned::Unreadable(_)
    ));
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
async fn a_sign_outs_logout_notice_goes_through_its_own_queue_and_is_signed_at_its_delivery() {
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
    // The fan-out: one message, into moto's notice queue; then the record is gone.
    let client = aws_sdk_sqs::Client::new(&moto.sdk().await);
    let mut urls = Vec::new();
    for name in ["ciam-events", "ciam-logout"] {
        urls.push(
            client
                .create_queue()
                .queue_name(name)
                .send()
                .await
                .unwrap()
                .queue_url
                .unwrap(),
        );
    }
    let url = urls[1].clone();
    let queue = SqsQueue {
        client: client.clone(),
        url: urls[0].clone(),
        notice_url: url.clone(),
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
    let claims = logout_claims(&pipeline.ciam, token);
    assert_eq!(
        (
            claims["aud"].as_str(),
            claims["sub"].as_str(),
            claims["sid"].as_str()
        ),
        (Some("rp01"), Some("u1"), Some(sid))
    );
}

/// The claims of a logout token, once its ES256 signature verifies with the key the provider's
/// JWKS publishes under its `kid` (the logout tokens' own key, issue 30), and its issuer is the
/// provider's.
fn logout_claims(ciam: &ciam_core::Ciam, token: &str) -> Value {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    use p256::ecdsa::signature::Verifier;
    let part =
        |p: &str| -> Value { serde_json::from_slice(&URL_SAFE_NO_PAD.decode(p).unwrap()).unwrap() };
    let mut parts = token.split('.');
    let (h, p, sig) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    let header = part(h);
    assert_eq!(header["alg"], "ES256");
    let jwks = ciam_core::oidc::jwks(ciam);
    let jwk = jwks["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kid"] == header["kid"])
        .expect("the token's kid is published in the JWKS")
        .clone();
    let mut sec1 = vec![4u8];
    for c in ["x", "y"] {
        sec1.extend(URL_SAFE_NO_PAD.decode(jwk[c].as_str().unwrap()).unwrap());
    }
    let key = p256::ecdsa::VerifyingKey::from_sec1_bytes(&sec1).unwrap();
    let sig = p256::ecdsa::Signature::from_slice(&URL_SAFE_NO_PAD.decode(sig).unwrap()).unwrap();
    key.verify(format!("{h}.{p}").as_bytes(), &sig)
        .expect("signed by the key the JWKS publishes");
    let claims = part(p);
    assert_eq!(
        claims["iss"].as_str(),
        Some(ciam_core::oidc::issuer(ciam).as_str())
    );
    claims
}

/// A transport that never answers `hang.example.com` and answers 200 to any other host at once,
/// noting when.
#[derive(Default)]
struct OneHangs {
    answered: Mutex<Vec<(String, std::time::Instant)>>,
}

#[async_trait]
impl ciam_core::webhooks::Transport for OneHangs {
    async fn post(
        &self,
        target: &ciam_core::webhooks::guard::Target,
        _headers: &[(&'static str, String)],
        _body: &str,
    ) -> ciam_core::webhooks::Answer {
        if target.host == "hang.example.com" {
            std::future::pending::<()>().await;
        }
        self.answered
            .lock()
            .unwrap()
            .push((target.url.to_string(), std::time::Instant::now()));
        ciam_core::webhooks::Answer::Status {
            code: 200,
            body: Vec::new(),
            latency_ms: 1,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_apps_hanging_endpoint_holds_neither_another_apps_event_nor_a_logout_notice() {
    use ciam_core::apps::App;
    use ciam_core::webhooks::{self, EndpointFields};
    use ciam_lambdas::webhooks::CorePipeline;
    let ciam = ciam_core::testing::Builder::new(1_700_000_100)
        .build()
        .await;
    for (id, backchannel) in [
        ("hang", ""),
        ("quick", ""),
        ("rp01", "https://rp.example.com/backchannel"),
    ] {
        let app = App {
            app_id: id.into(),
            backchannel_logout_uri: backchannel.into(),
            ..App::default()
        };
        ciam.store.put(app.to_item(), None).await.unwrap();
    }
    let mut endpoint = std::collections::BTreeMap::new();
    for app in ["hang", "quick"] {
        let f = EndpointFields {
            url: Some(format!("https://{app}.example.com/hook")),
            events: Some(vec!["user.updated".into()]),
            description: Some(String::new()),
            ..EndpointFields::default()
        };
        let made = webhooks::create(&ciam, app, f, |_| None).await.unwrap();
        endpoint.insert(app, made.endpoint.endpoint_id);
    }
    let transport = std::sync::Arc::new(OneHangs::default());
    let ip = |s: &str| vec![s.parse().unwrap()];
    let pipeline = std::sync::Arc::new(CorePipeline {
        transport: transport.clone(),
        resolver: std::sync::Arc::new(ciam_core::webhooks::guard::StaticResolver(vec![
            ("hang.example.com".into(), ip("93.184.216.34")),
            ("quick.example.com".into(), ip("93.184.216.35")),
            ("rp.example.com".into(), ip("93.184.216.36")),
        ])),
        ..CorePipeline::new(ciam.clone())
    });
    let delivery = |app: &str, endpoint_id: &str, n: usize| {
        let ob = ciam_core::webhooks::Outbound {
            app_id: app.into(),
            endpoint_id: endpoint_id.into(),
            event_id: format!("msg_{n:024}"),
            ..a_delivery()
        };
        ciam_lambdas::webhooks::message(&ob, 1_700_000_100, 1_700_000_100)
    };
    // A backlog of the hanging app, then another app's event and a logout notice, each handed to
    // an invocation of its own (Lambda's concurrency on the fair queues).
    let mut messages: Vec<Outgoing> = (0..5)
        .map(|n| delivery("hang", &endpoint["hang"], n))
        .collect();
    messages.push(delivery("quick", &endpoint["quick"], 9));
    let notice = delivery("rp01", "backchannel.rp01", 10);
    assert_eq!(notice.lane, Lane::Notices);
    messages.push(notice);
    let queue = std::sync::Arc::new(Recorded::default());
    let t0 = std::time::Instant::now();
    let mut running = Vec::new();
    for (n, m) in messages.into_iter().enumerate() {
        let (pipeline, queue) = (pipeline.clone(), queue.clone());
        running.push(tokio::spawn(async move {
            let batch = json!({"Records": [message(&format!("m{n}"), "r", &m.body, 1)]});
            on_queue(pipeline.as_ref(), queue.as_ref(), &batch).await
        }));
    }
    let deadline = t0 + std::time::Duration::from_secs(1);
    while transport.answered.lock().unwrap().len() < 2 && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let answered = transport.answered.lock().unwrap().clone();
    let mut urls: Vec<&str> = answered.iter().map(|(u, _)| u.as_str()).collect();
    urls.sort_unstable();
    assert_eq!(
        urls,
        [
            "https://quick.example.com/hook",
            "https://rp.example.com/backchannel"
        ],
        "both within a second"
    );
    assert!(answered
        .iter()
        .all(|(_, at)| *at - t0 < std::time::Duration::from_secs(1)));
    // The hanging endpoint's attempts end at the attempt's 5 s limit: each message is done and
    // its next attempt sent again, delayed; none is reported failed (nothing held in flight).
    for r in running {
        assert_eq!(r.await.unwrap(), json!({"batchItemFailures": []}));
    }
    let sent = queue.sent.lock().unwrap().clone();
    assert_eq!(sent.len(), 5);
    for m in sent.iter().flatten() {
        assert_eq!(
            (m.lane, m.group.as_str(), m.delay),
            (Lane::Events, "hang", 5)
        );
        let (ob, _) = ciam_lambdas::webhooks::outbound(&m.body, 1).unwrap();
        assert_eq!(ob.attempts, 1);
    }
}
