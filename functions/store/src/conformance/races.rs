//! The conformance cases of concurrency and failures: racing conditional writes have exactly
//! one winner, counters lose no increment, failures are read as their kind.

use super::ctx::Ctx;
use crate::{CancelReason, Cond, Item, StoreError, TxOp, Update};
use std::sync::Arc;

const RACERS: usize = 16;

pub(super) async fn racing_conditional_puts_have_exactly_one_winner(c: Arc<Ctx>) {
    let k = c.key("race", "UNIQUE");
    let mut tasks = Vec::new();
    for i in 0..RACERS {
        let (store, k) = (c.store.clone(), k.clone());
        tasks.push(tokio::spawn(async move {
            store
                .put(Item::new(k).with("owner", i as i64), Some(Cond::NotExists))
                .await
        }));
    }
    let mut winners = Vec::new();
    for (i, t) in tasks.into_iter().enumerate() {
        match t.await.expect("task") {
            Ok(()) => winners.push(i as i64),
            Err(StoreError::ConditionFailed) => {}
            Err(e) => panic!("unexpected error: {e}"),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one winner: {winners:?}");
    assert_eq!(
        c.store.get(&k).await.unwrap().unwrap().n("owner"),
        Some(winners[0])
    );
}

pub(super) async fn racing_conditional_updates_have_exactly_one_winner(c: Arc<Ctx>) {
    // A single-use token: consumed by flipping `used` from false to true.
    let k = c.key("once", "TOKEN");
    c.store
        .put(Item::new(k.clone()).with("used", false), None)
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for _ in 0..RACERS {
        let (store, k) = (c.store.clone(), k.clone());
        tasks.push(tokio::spawn(async move {
            store
                .update(
                    &k,
                    vec![Update::Set("used".into(), true.into())],
                    Some(Cond::eq("used", false)),
                )
                .await
        }));
    }
    let mut wins = 0;
    for t in tasks {
        match t.await.expect("task") {
            Ok(_) => wins += 1,
            Err(StoreError::ConditionFailed) => {}
            Err(e) => panic!("unexpected error: {e}"),
        }
    }
    assert_eq!(wins, 1);
}

pub(super) async fn racing_transactions_have_exactly_one_winner(c: Arc<Ctx>) {
    // Many sign-ups racing for one username, each with its own user item.
    let name = c.key("uname", "UNIQUE");
    let mut tasks = Vec::new();
    for i in 0..RACERS {
        let (store, name, user) = (
            c.store.clone(),
            name.clone(),
            c.key(&format!("racer{i}"), "PROFILE"),
        );
        tasks.push(tokio::spawn(async move {
            store
                .transact(vec![
                    TxOp::Put {
                        item: Item::new(user),
                        cond: Some(Cond::NotExists),
                    },
                    TxOp::Put {
                        item: Item::new(name).with("owner", i as i64),
                        cond: Some(Cond::NotExists),
                    },
                ])
                .await
        }));
    }
    let mut winners = Vec::new();
    for (i, t) in tasks.into_iter().enumerate() {
        match t.await.expect("task") {
            Ok(()) => winners.push(i),
            Err(StoreError::TxCanceled(r)) => {
                assert!(
                    r[1] != CancelReason::None,
                    "the loser's name item is named: {r:?}"
                );
            }
            Err(StoreError::Conflict) => {}
            Err(e) => panic!("unexpected error: {e}"),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one winner: {winners:?}");
    for i in 0..RACERS {
        let exists = c
            .store
            .get(&c.key(&format!("racer{i}"), "PROFILE"))
            .await
            .unwrap()
            .is_some();
        assert_eq!(
            exists,
            winners[0] == i,
            "only the winner's user exists (racer {i})"
        );
    }
}

pub(super) async fn concurrent_counter_increments_are_not_lost(c: Arc<Ctx>) {
    let k = c.key("hot", "COUNTER");
    let mut tasks = Vec::new();
    for _ in 0..RACERS {
        let (store, k) = (c.store.clone(), k.clone());
        tasks.push(tokio::spawn(async move {
            store
                .update(&k, vec![Update::Add("n".into(), 1)], None)
                .await
        }));
    }
    for t in tasks {
        t.await.expect("task").expect("increment");
    }
    assert_eq!(
        c.store.get(&k).await.unwrap().unwrap().n("n"),
        Some(RACERS as i64)
    );
}

/// The contract's failure kinds as the engine reports them: a condition that did not hold (one
/// item, or per operation of a transaction) is a condition failure and never retryable; a wrong
/// request is permanent. (The retryable kinds need a backend that stumbles: they are tested per
/// engine in `tests/fault_kinds.rs` and `tests/unavailable.rs`.)
pub(super) async fn failures_are_read_as_their_kind(c: Arc<Ctx>) {
    let k = c.key("kinds", "ITEM");
    c.store
        .put(Item::new(k.clone()).with("s", "text"), None)
        .await
        .unwrap();
    let failed = [
        c.store
            .put(Item::new(k.clone()), Some(Cond::NotExists))
            .await
            .err(),
        c.store
            .update(
                &k,
                vec![Update::Add("n".into(), 1)],
                Some(Cond::eq("s", "other")),
            )
            .await
            .err(),
        c.store.delete(&k, Some(Cond::NotExists)).await.err(),
        c.store
            .transact(vec![
                TxOp::Put {
                    item: Item::new(c.key("kinds", "OTHER")),
                    cond: None,
                },
                TxOp::Check {
                    key: k.clone(),
                    cond: Cond::NotExists,
                },
            ])
            .await
            .err(),
    ];
    for e in failed {
        let e = e.expect("the condition does not hold");
        assert!(e.is_condition_failed() && !e.is_retryable(), "{e:?}");
        assert_eq!(e.kind(), "condition", "{e:?}");
    }
    let e = c
        .store
        .update(&k, vec![Update::Add("s".into(), 1)], None)
        .await
        .expect_err("adding to a string");
    assert!(
        !e.is_condition_failed() && !e.is_retryable() && e.kind() == "invalid",
        "{e:?}"
    );
    let e = c
        .store
        .transact(vec![TxOp::Update {
            key: k.clone(),
            ops: vec![Update::Add("s".into(), 1)],
            cond: None,
        }])
        .await
        .expect_err("adding to a string in a transaction");
    assert!(
        !e.is_condition_failed() && !e.is_retryable() && e.kind() == "invalid",
        "{e:?}"
    );
}
