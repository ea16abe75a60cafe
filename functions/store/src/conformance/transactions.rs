//! The conformance cases of transactions: all or nothing, per-item reasons, expired items, one
//! item touched twice.

use super::ctx::Ctx;
use crate::{CancelReason, Clock, Cond, Item, StoreError, TxOp, Update};
use std::sync::Arc;

pub(super) async fn transaction_applies_all_operations(c: Arc<Ctx>) {
    let user = c.key("user", "PROFILE");
    let mail = c.key("mail", "UNIQUE");
    let old = c.key("old", "UNIQUE");
    let ctr = c.key("ctr", "TX");
    c.store
        .put(Item::new(old.clone()).with("owner", "u1"), None)
        .await
        .unwrap();
    c.store
        .transact(vec![
            TxOp::Put {
                item: Item::new(user.clone()).with("name", "n"),
                cond: Some(Cond::NotExists),
            },
            TxOp::Put {
                item: Item::new(mail.clone()).with("owner", "u1"),
                cond: Some(Cond::NotExists),
            },
            TxOp::Delete {
                key: old.clone(),
                cond: Some(Cond::eq("owner", "u1")),
            },
            TxOp::Update {
                key: ctr.clone(),
                ops: vec![Update::Add("n".into(), 2)],
                cond: None,
            },
        ])
        .await
        .unwrap();
    assert!(c.store.get(&user).await.unwrap().is_some());
    assert_eq!(
        c.store.get(&mail).await.unwrap().unwrap().s("owner"),
        Some("u1")
    );
    assert_eq!(c.store.get(&old).await.unwrap(), None);
    assert_eq!(c.store.get(&ctr).await.unwrap().unwrap().n("n"), Some(2));
}

pub(super) async fn transaction_is_all_or_nothing_with_per_item_reasons(c: Arc<Ctx>) {
    let taken = c.key("name", "UNIQUE");
    c.store
        .put(Item::new(taken.clone()).with("owner", "someone"), None)
        .await
        .unwrap();
    let user = c.key("user2", "PROFILE");
    let mail = c.key("mail2", "UNIQUE");
    let ctr = c.key("ctr2", "TX");
    let err = c
        .store
        .transact(vec![
            TxOp::Put {
                item: Item::new(user.clone()),
                cond: Some(Cond::NotExists),
            },
            TxOp::Put {
                item: Item::new(mail.clone()),
                cond: Some(Cond::NotExists),
            },
            TxOp::Put {
                item: Item::new(taken.clone()).with("owner", "me"),
                cond: Some(Cond::NotExists),
            },
            TxOp::Update {
                key: ctr.clone(),
                ops: vec![Update::Add("n".into(), 1)],
                cond: None,
            },
        ])
        .await
        .unwrap_err();
    match &err {
        StoreError::TxCanceled(r) => assert_eq!(
            r,
            &vec![
                CancelReason::None,
                CancelReason::None,
                CancelReason::ConditionFailed,
                CancelReason::None
            ]
        ),
        other => panic!("expected TxCanceled, got {other:?}"),
    }
    assert!(err.condition_failed_at(2));
    assert!(!err.condition_failed_at(0));
    for k in [&user, &mail, &ctr] {
        assert_eq!(
            c.store.get(k).await.unwrap(),
            None,
            "nothing half-written: {k:?}"
        );
    }
    assert_eq!(
        c.store.get(&taken).await.unwrap().unwrap().s("owner"),
        Some("someone")
    );
    // Several failing conditions are all reported.
    let err = c
        .store
        .transact(vec![
            TxOp::Check {
                key: c.key("nope", "1"),
                cond: Cond::Exists,
            },
            TxOp::Put {
                item: Item::new(taken.clone()),
                cond: Some(Cond::NotExists),
            },
        ])
        .await
        .unwrap_err();
    match err {
        StoreError::TxCanceled(r) => assert_eq!(
            r,
            vec![CancelReason::ConditionFailed, CancelReason::ConditionFailed]
        ),
        other => panic!("expected TxCanceled, got {other:?}"),
    }
}

pub(super) async fn transaction_check_on_expired_items(c: Arc<Ctx>) {
    let now = c.clock.now();
    let k = c.key("txexp", "1");
    c.store
        .put(Item::new(k.clone()).with("v", 1).expires(now + 5), None)
        .await
        .unwrap();
    c.store
        .transact(vec![TxOp::Check {
            key: k.clone(),
            cond: Cond::Exists,
        }])
        .await
        .unwrap();
    c.clock.advance(5);
    let err = c
        .store
        .transact(vec![TxOp::Check {
            key: k.clone(),
            cond: Cond::Exists,
        }])
        .await;
    assert!(matches!(err, Err(StoreError::TxCanceled(_))), "{err:?}");
    c.store
        .transact(vec![TxOp::Check {
            key: k.clone(),
            cond: Cond::NotExists,
        }])
        .await
        .unwrap();
    // An update of a stale item inside a transaction is refused, not merged into stale data.
    let err = c
        .store
        .transact(vec![TxOp::Update {
            key: k.clone(),
            ops: vec![Update::Add("v".into(), 1)],
            cond: None,
        }])
        .await;
    assert!(
        matches!(&err, Err(e) if e.condition_failed_at(0)),
        "{err:?}"
    );
    // A put over it is fine: it replaces the whole item.
    c.store
        .transact(vec![TxOp::Put {
            item: Item::new(k.clone()).with("v", 9),
            cond: Some(Cond::NotExists),
        }])
        .await
        .unwrap();
    assert_eq!(c.store.get(&k).await.unwrap().unwrap().n("v"), Some(9));
}

pub(super) async fn transaction_rejects_touching_one_item_twice(c: Arc<Ctx>) {
    let k = c.key("twice", "1");
    let err = c
        .store
        .transact(vec![
            TxOp::Put {
                item: Item::new(k.clone()),
                cond: None,
            },
            TxOp::Delete {
                key: k.clone(),
                cond: None,
            },
        ])
        .await;
    assert!(matches!(err, Err(StoreError::Invalid(_))), "{err:?}");
    let err = c.store.transact(vec![]).await;
    assert!(matches!(err, Err(StoreError::Invalid(_))), "{err:?}");
}
