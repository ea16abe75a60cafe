//! How the DynamoDB engine reads DynamoDB's answers when it stumbles: a throttle (either
//! exception) and a transaction cancelled for a throttle or a conflict are retryable, never a
//! condition that did not hold; a real condition failure stays one. The answers are DynamoDB's
//! own error documents, served by a loopback endpoint. (SQLite's busy and locked database:
//! `tests/unavailable.rs`; the condition and permanent kinds on both engines: the conformance
//! suite's `failures_are_read_as_their_kind`.)

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_store::dynamodb::{DynamoConfig, DynamoStore, MAX_ATTEMPTS};
use ciam_store::{Cond, Item, Key, ManualClock, Store, StoreError, TxOp, Update};
use std::io::{Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A loopback endpoint that answers every request with HTTP 400 and the error document `body`,
/// counting the requests.
fn dynamodb_answering(body: String) -> (String, Arc<AtomicUsize>) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    let answer = format!(
        "HTTP/1.1 400 Bad Request\r\ncontent-type: application/x-amz-json-1.0\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    );
    std::thread::spawn(move || {
        for conn in l.incoming() {
            let Ok(mut conn) = conn else { return };
            let (answer, seen) = (answer.clone(), seen.clone());
            std::thread::spawn(move || {
                let mut req = Vec::new();
                let mut buf = [0u8; 8192];
                loop {
                    match conn.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => req.extend_from_slice(&buf[..n]),
                    }
                    // One answer per complete request (headers and the body they announce).
                    while let Some(len) = complete(&req) {
                        req.drain(..len);
                        seen.fetch_add(1, Ordering::SeqCst);
                        if conn.write_all(answer.as_bytes()).is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    (format!("http://{addr}"), count)
}

/// The length of the first complete HTTP request in `buf`, if there is one.
fn complete(buf: &[u8]) -> Option<usize> {
    let head = buf.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let text = String::from_utf8_lossy(&buf[..head]).to_ascii_lowercase();
    let body = text
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    (buf.len() >= head + body).then_some(head + body)
}

fn error_doc(kind: &str, extra: &str) -> String {
    format!(r#"{{"__type":"com.amazonaws.dynamodb.v20120810#{kind}","message":"stumbled"{extra}}}"#)
}

fn cancelled(codes: &[&str]) -> String {
    let reasons: Vec<String> = codes
        .iter()
        .map(|c| format!(r#"{{"Code":"{c}","Message":"why"}}"#))
        .collect();
    error_doc(
        "TransactionCanceledException",
        &format!(r#","CancellationReasons":[{}]"#, reasons.join(",")),
    )
}

async fn store(endpoint: &str) -> DynamoStore {
    let cfg = DynamoConfig {
        table: "t".into(),
        endpoint: Some(endpoint.into()),
        region: Some("us-east-1".into()),
    };
    DynamoStore::connect(cfg, Arc::new(ManualClock::new(1_800_000_000)))
        .await
        .expect("a client")
}

fn key(sk: &str) -> Key {
    Key::new("USER#x", sk)
}

fn two_ops() -> Vec<TxOp> {
    vec![
        TxOp::Put {
            item: Item::new(key("A")),
            cond: Some(Cond::NotExists),
        },
        TxOp::Update {
            key: key("B"),
            ops: vec![Update::Add("fails".into(), 1)],
            cond: Some(Cond::Exists),
        },
    ]
}

#[tokio::test]
async fn both_throttling_exceptions_are_retryable_on_every_operation() {
    for name in [
        "ThrottlingException",
        "ProvisionedThroughputExceededException",
    ] {
        let (endpoint, _) = dynamodb_answering(error_doc(name, ""));
        let s = store(&endpoint).await;
        let got = [
            s.get(&key("A")).await.err(),
            s.put(Item::new(key("A")), Some(Cond::NotExists))
                .await
                .err(),
            s.update(&key("A"), vec![Update::Add("n".into(), 1)], None)
                .await
                .err(),
            s.delete(&key("A"), Some(Cond::Exists)).await.err(),
            s.transact(two_ops()).await.err(),
        ];
        for e in got {
            let e = e.expect("a throttle is an error");
            assert!(matches!(e, StoreError::Throttled(_)), "{name}: {e:?}");
            assert!(
                e.is_retryable() && !e.is_condition_failed(),
                "{name}: {e:?}"
            );
        }
    }
}

#[tokio::test]
async fn a_transaction_cancelled_for_a_throttle_is_retryable_and_sent_again() {
    for reason in [
        "ThrottlingError",
        "ProvisionedThroughputExceeded",
        "RequestLimitExceeded",
    ] {
        let (endpoint, requests) = dynamodb_answering(cancelled(&["None", reason]));
        let e = store(&endpoint)
            .await
            .transact(two_ops())
            .await
            .expect_err("cancelled");
        assert!(matches!(e, StoreError::Throttled(_)), "{reason}: {e:?}");
        assert!(
            !e.condition_failed_at(0) && !e.condition_failed_at(1),
            "{e:?}"
        );
        // Nothing was written, so the engine sends it again (the SDK does not) before it
        // answers the throttle.
        assert_eq!(requests.load(Ordering::SeqCst), 3, "{reason}");
    }
}

#[tokio::test]
async fn a_transaction_cancelled_for_a_conflict_is_retryable() {
    let (endpoint, requests) = dynamodb_answering(cancelled(&["TransactionConflict", "None"]));
    let e = store(&endpoint)
        .await
        .transact(two_ops())
        .await
        .expect_err("cancelled");
    assert!(matches!(e, StoreError::Conflict), "{e:?}");
    assert_eq!(requests.load(Ordering::SeqCst), 3);
    let (endpoint, _) = dynamodb_answering(error_doc("TransactionConflictException", ""));
    let e = store(&endpoint)
        .await
        .update(&key("A"), vec![Update::Add("n".into(), 1)], None)
        .await
        .expect_err("conflict");
    assert!(matches!(e, StoreError::Conflict), "{e:?}");
}

/// A transaction sent again by the SDK after its connection dropped past the commit (the same
/// `ClientRequestToken`) may meet the first one still in progress: retryable, so the route
/// answers 503 with its way forward (app creation answered 500 here before issue 30).
#[tokio::test]
async fn a_transaction_still_in_progress_under_its_token_is_retryable() {
    let (endpoint, _) = dynamodb_answering(error_doc("TransactionInProgressException", ""));
    let e = store(&endpoint)
        .await
        .transact(two_ops())
        .await
        .expect_err("in progress");
    assert!(matches!(e, StoreError::Conflict), "{e:?}");
    assert!(e.is_retryable(), "{e:?}");
}

#[tokio::test]
async fn a_condition_that_did_not_hold_is_answered_at_once_beside_a_throttle() {
    let (endpoint, requests) =
        dynamodb_answering(cancelled(&["ThrottlingError", "ConditionalCheckFailed"]));
    let e = store(&endpoint)
        .await
        .transact(two_ops())
        .await
        .expect_err("cancelled");
    assert!(
        e.condition_failed_at(1) && !e.condition_failed_at(0),
        "{e:?}"
    );
    assert!(!e.is_retryable(), "{e:?}");
    assert_eq!(
        requests.load(Ordering::SeqCst),
        1,
        "a verdict is not sent again"
    );
    // The SDK's own retries of a throttle stay bounded.
    let (endpoint, requests) = dynamodb_answering(error_doc("ThrottlingException", ""));
    let _ = store(&endpoint).await.get(&key("A")).await;
    assert_eq!(requests.load(Ordering::SeqCst), MAX_ATTEMPTS as usize);
}
