//! The fault wrapper itself: what reaches the engine under each fault, over SQLite.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_store::faults::{Fault, Faults, Op};
use ciam_store::sqlite::SqliteStore;
use ciam_store::{Cond, Item, Key, ManualClock, Store, StoreError, Token, TxOp, Update};
use std::sync::Arc;
use std::time::{Duration, Instant};

async fn store(faults: &Faults) -> (Arc<dyn Store>, Arc<dyn Store>) {
    let inner: Arc<dyn Store> =
        Arc::new(SqliteStore::in_memory(Arc::new(ManualClock::new(1_000))).expect("sqlite"));
    inner.ensure_schema().await.expect("schema");
    (inner.clone(), Arc::new(faults.wrap(inner)))
}

fn counter() -> Key {
    Key::new("C#1", "C")
}

async fn count(s: &Arc<dyn Store>) -> Option<i64> {
    s.get(&counter()).await.expect("get").and_then(|i| i.n("n"))
}

fn add() -> Vec<Update> {
    vec![Update::Add("n".into(), 1)]
}

#[tokio::test]
async fn a_fault_before_the_call_writes_nothing() {
    let faults = Faults::new();
    let (inner, s) = store(&faults).await;
    faults.inject(Op::Update, Fault::Throttling, 1);
    let e = s.update(&counter(), add(), None).await.unwrap_err();
    assert!(matches!(e, StoreError::Throttled(_)), "{e:?}");
    assert_eq!(count(&inner).await, None);
    s.update(&counter(), add(), None)
        .await
        .expect("then it goes through");
    assert_eq!(count(&inner).await, Some(1));
}

#[tokio::test]
async fn a_lost_answer_is_unavailable_although_the_write_was_made() {
    let faults = Faults::new();
    let (inner, s) = store(&faults).await;
    faults.inject(Op::Update, Fault::LostAfterCommit, 1);
    let e = s.update(&counter(), add(), None).await.unwrap_err();
    assert!(e.is_unavailable(), "{e:?}");
    assert_eq!(count(&inner).await, Some(1));
}

#[tokio::test]
async fn a_single_write_retried_after_a_lost_answer_reaches_the_engine_twice() {
    let faults = Faults::new();
    let (inner, s) = store(&faults).await;
    // A plain counter counts twice: what issue 20's write tokens are for.
    faults.inject(Op::Update, Fault::LostThenRetried, 1);
    let after = s
        .update(&counter(), add(), None)
        .await
        .expect("second answer");
    assert_eq!(after.n("n"), Some(2));
    assert_eq!(count(&inner).await, Some(2));
    // A burn's retry fails its own condition.
    let ticket = Key::new("T#1", "T");
    inner
        .put(Item::new(ticket.clone()), None)
        .await
        .expect("put");
    faults.inject(Op::Delete, Fault::LostThenRetried, 1);
    let e = s.delete(&ticket, Some(Cond::Exists)).await.unwrap_err();
    assert!(e.is_condition_failed(), "{e:?}");
}

#[tokio::test]
async fn a_token_write_counts_once_whatever_answer_was_lost() {
    let faults = Faults::new();
    let (inner, s) = store(&faults).await;
    // The SDK's retry after a lost answer meets the first write's token: counted once (the
    // plain update above counts twice), and the answer is the item.
    faults.inject(Op::Update, Fault::LostThenRetried, 1);
    let t = Token::new("00112233445566778899aabbccddeeff");
    let after = s
        .update_once(&counter(), add(), None, &t)
        .await
        .expect("second answer")
        .expect("recognised, not refused");
    assert_eq!(after.n("n"), Some(1));
    assert_eq!(count(&inner).await, Some(1));
    assert_eq!(faults.fired(), vec![(Op::Update, Fault::LostThenRetried)]);

    // Every answer lost: the caller sees Unavailable, and its own retry with the same token
    // counts nothing more.
    faults.inject(Op::Update, Fault::LostAfterCommit, 1);
    let u = Token::new("ffeeddccbbaa99887766554433221100");
    let e = s
        .update_once(&counter(), add(), None, &u)
        .await
        .unwrap_err();
    assert!(e.is_unavailable(), "{e:?}");
    assert_eq!(count(&inner).await, Some(2));
    let retried = s
        .update_once(&counter(), add(), None, &u)
        .await
        .expect("the caller's retry")
        .expect("recognised");
    assert_eq!(retried.n("n"), Some(2));
    assert_eq!(count(&inner).await, Some(2));

    // A burn retried by the SDK is its own, not "already used".
    let ticket = Key::new("T#1", "T");
    inner
        .put(Item::new(ticket.clone()), None)
        .await
        .expect("put");
    faults.inject(Op::Update, Fault::LostThenRetried, 1);
    let burnt = s
        .update_once(
            &ticket,
            vec![Update::Set("usedBy".into(), "me".into())],
            Some(Cond::Exists.and(Cond::attr_not_exists("usedBy"))),
            &Token::new("0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f"),
        )
        .await
        .expect("second answer")
        .expect("its own burn");
    assert_eq!(burnt.s("usedBy"), Some("me"));
}

#[tokio::test]
async fn a_transaction_retried_after_a_lost_answer_is_answered_once() {
    let faults = Faults::new();
    let (inner, s) = store(&faults).await;
    faults.inject(Op::Transact, Fault::LostThenRetried, 1);
    let op = TxOp::Update {
        key: counter(),
        ops: add(),
        cond: None,
    };
    s.transact(vec![op]).await.expect("the first outcome");
    assert_eq!(count(&inner).await, Some(1));
}

#[tokio::test]
async fn a_stall_delays_the_call_and_an_outage_holds_until_cleared() {
    let faults = Faults::new();
    let (inner, s) = store(&faults).await;
    faults.inject(Op::Get, Fault::Stall(Duration::from_millis(200)), 1);
    let t = Instant::now();
    s.get(&counter()).await.expect("get");
    assert!(t.elapsed() >= Duration::from_millis(200));

    faults.outage(Op::AnyWrite, "C#", Fault::ServerError);
    for _ in 0..3 {
        let e = s.update(&counter(), add(), None).await.unwrap_err();
        assert!(e.is_unavailable(), "{e:?}");
    }
    // Other partitions are untouched by it.
    s.put(Item::new(Key::new("D#1", "D")), None)
        .await
        .expect("another partition");
    faults.clear();
    s.update(&counter(), add(), None)
        .await
        .expect("after the outage");
    assert_eq!(count(&inner).await, Some(1));
}
