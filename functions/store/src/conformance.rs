//! The conformance suite: the same cases on every engine. An engine passes when `run_all`
//! returns; the first broken case panics with its name. Each case works in partitions of its
//! own (a random namespace), so one store serves the whole run.
//!
//! Test code behind the `testing` feature: a panic is how a case reports, so unwrap and expect
//! are allowed here (the workspace denies them elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::{
    CancelReason, Clock, Cond, Item, Key, ManualClock, Query, Store, StoreError, Token, TxOp,
    Update, Value, RING,
};
use std::sync::Arc;

struct Ctx {
    store: Arc<dyn Store>,
    clock: ManualClock,
    ns: String,
}

impl Ctx {
    fn key(&self, pk: &str, sk: &str) -> Key {
        Key::new(format!("{}#{pk}", self.ns), sk)
    }
    fn pk(&self, pk: &str) -> String {
        format!("{}#{pk}", self.ns)
    }
}

macro_rules! case {
    ($name:ident) => {
        (stringify!($name), |c| Box::pin($name(c)))
    };
}

type CaseFn = fn(Arc<Ctx>) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

pub async fn run_all(store: Arc<dyn Store>, clock: ManualClock) {
    store.ensure_schema().await.expect("ensure_schema");
    store
        .ensure_schema()
        .await
        .expect("ensure_schema is idempotent");
    let cases: Vec<(&str, CaseFn)> = vec![
        case!(put_then_get_round_trips_every_value_type),
        case!(get_of_a_missing_item_is_none),
        case!(conditional_put_if_absent_succeeds_once),
        case!(conditional_put_on_attribute_values),
        case!(conditional_update_and_delete),
        case!(update_creates_missing_items_and_returns_the_new_item),
        case!(atomic_counters_add_and_subtract),
        case!(update_or_current_answers_a_failed_condition_with_the_item),
        case!(remove_and_expiry_updates),
        case!(delete_of_a_missing_item_succeeds),
        case!(get_many_keeps_order_and_hides_missing_and_expired),
        case!(expired_items_are_absent_everywhere),
        case!(update_of_an_expired_item_starts_afresh),
        case!(transaction_applies_all_operations),
        case!(transaction_is_all_or_nothing_with_per_item_reasons),
        case!(transaction_check_on_expired_items),
        case!(transaction_rejects_touching_one_item_twice),
        case!(query_orders_filters_by_prefix_and_limits),
        case!(query_skips_expired_items_and_still_fills_the_limit),
        case!(query_pages_after_a_sort_key_both_ways),
        case!(reserved_attribute_names_are_rejected),
        case!(racing_conditional_puts_have_exactly_one_winner),
        case!(racing_conditional_updates_have_exactly_one_winner),
        case!(racing_transactions_have_exactly_one_winner),
        case!(concurrent_counter_increments_are_not_lost),
        case!(failures_are_read_as_their_kind),
        case!(a_token_write_applies_once_whatever_the_retries),
        case!(a_token_is_recognised_after_four_other_writes),
        case!(a_token_write_with_a_false_condition_is_refused),
        case!(a_token_write_on_an_absent_item_creates_it),
        case!(a_token_write_on_an_expired_item_starts_afresh),
        case!(the_token_ring_is_engine_owned),
        case!(a_scan_finds_every_live_item_of_a_prefix_and_sort_key),
    ];
    for (i, (name, f)) in cases.into_iter().enumerate() {
        let ctx = Arc::new(Ctx {
            store: store.clone(),
            clock: clock.clone(),
            ns: format!("conf{}-{i}", std::process::id()),
        });
        eprintln!("conformance: {name}");
        f(ctx).await;
    }
}

fn sample(key: Key) -> Item {
    let mut m = std::collections::BTreeMap::new();
    m.insert("inner".to_owned(), Value::N(-7));
    Item::new(key)
        .with("s", "héllo 你好")
        .with("n", 1_234_567_890_123_i64)
        .with("t", true)
        .with("f", false)
        .with("b", Value::B(vec![0, 1, 254, 255]))
        .with("l", Value::L(vec![Value::S("a".into()), Value::N(2)]))
        .with("m", Value::M(m))
}

async fn put_then_get_round_trips_every_value_type(c: Arc<Ctx>) {
    let item = sample(c.key("a", "1")).expires(c.clock.now() + 100);
    c.store.put(item.clone(), None).await.unwrap();
    assert_eq!(c.store.get(&item.key).await.unwrap(), Some(item.clone()));
    // A put replaces the whole item.
    let replaced = Item::new(item.key.clone()).with("only", 1);
    c.store.put(replaced.clone(), None).await.unwrap();
    assert_eq!(c.store.get(&item.key).await.unwrap(), Some(replaced));
}

async fn get_of_a_missing_item_is_none(c: Arc<Ctx>) {
    assert_eq!(c.store.get(&c.key("nothing", "here")).await.unwrap(), None);
}

async fn conditional_put_if_absent_succeeds_once(c: Arc<Ctx>) {
    let k = c.key("u", "1");
    c.store
        .put(Item::new(k.clone()).with("v", 1), Some(Cond::NotExists))
        .await
        .unwrap();
    let err = c
        .store
        .put(Item::new(k.clone()).with("v", 2), Some(Cond::NotExists))
        .await;
    assert!(matches!(err, Err(StoreError::ConditionFailed)), "{err:?}");
    assert_eq!(c.store.get(&k).await.unwrap().unwrap().n("v"), Some(1));
    // Exists holds now; on a missing item it does not.
    c.store
        .put(Item::new(k.clone()).with("v", 3), Some(Cond::Exists))
        .await
        .unwrap();
    let err = c
        .store
        .put(Item::new(c.key("u", "2")), Some(Cond::Exists))
        .await;
    assert!(matches!(err, Err(StoreError::ConditionFailed)), "{err:?}");
    assert_eq!(c.store.get(&c.key("u", "2")).await.unwrap(), None);
}

async fn conditional_put_on_attribute_values(c: Arc<Ctx>) {
    let k = c.key("v", "1");
    c.store
        .put(Item::new(k.clone()).with("n", 10).with("s", "m"), None)
        .await
        .unwrap();
    let check = |cond: Cond, want: bool| {
        let c = c.clone();
        let k = k.clone();
        async move {
            let got = c
                .store
                .put(
                    Item::new(k.clone()).with("n", 10).with("s", "m"),
                    Some(cond.clone()),
                )
                .await;
            match (want, got) {
                (true, Ok(())) | (false, Err(StoreError::ConditionFailed)) => {}
                (_, other) => panic!("condition {cond:?}: wanted {want}, got {other:?}"),
            }
        }
    };
    check(Cond::eq("n", 10), true).await;
    check(Cond::eq("n", 11), false).await;
    check(Cond::lt("n", 11), true).await;
    check(Cond::lt("n", 10), false).await;
    check(Cond::le("n", 10), true).await;
    check(Cond::gt("n", 9), true).await;
    check(Cond::gt("n", 10), false).await;
    check(Cond::ge("n", 10), true).await;
    check(Cond::gt("s", "a"), true).await;
    check(Cond::lt("s", "a"), false).await;
    // A comparison across types, or on a missing attribute, never holds.
    check(Cond::eq("n", "10"), false).await;
    check(Cond::lt("missing", 1), false).await;
    check(Cond::attr_exists("n"), true).await;
    check(Cond::attr_exists("missing"), false).await;
    check(Cond::attr_not_exists("missing"), true).await;
    check(Cond::attr_not_exists("n"), false).await;
    check(Cond::eq("n", 10).and(Cond::eq("s", "m")), true).await;
    check(Cond::eq("n", 10).and(Cond::eq("s", "x")), false).await;
    check(Cond::eq("n", 1).or(Cond::eq("s", "m")), true).await;
    check(Cond::eq("n", 1).or(Cond::eq("s", "x")), false).await;
    check(Cond::NotExists.or(Cond::eq("n", 10)), true).await;
}

async fn conditional_update_and_delete(c: Arc<Ctx>) {
    let k = c.key("w", "1");
    c.store
        .put(Item::new(k.clone()).with("state", "open"), None)
        .await
        .unwrap();
    let err = c
        .store
        .update(
            &k,
            vec![Update::Set("state".into(), "shut".into())],
            Some(Cond::eq("state", "x")),
        )
        .await;
    assert!(matches!(err, Err(StoreError::ConditionFailed)), "{err:?}");
    let it = c
        .store
        .update(
            &k,
            vec![Update::Set("state".into(), "shut".into())],
            Some(Cond::eq("state", "open")),
        )
        .await
        .unwrap();
    assert_eq!(it.s("state"), Some("shut"));
    let err = c.store.delete(&k, Some(Cond::eq("state", "open"))).await;
    assert!(matches!(err, Err(StoreError::ConditionFailed)), "{err:?}");
    assert!(c.store.get(&k).await.unwrap().is_some());
    c.store
        .delete(&k, Some(Cond::eq("state", "shut")))
        .await
        .unwrap();
    assert_eq!(c.store.get(&k).await.unwrap(), None);
    // An update guarded by Exists does not create the item.
    let err = c
        .store
        .update(
            &k,
            vec![Update::Set("x".into(), 1.into())],
            Some(Cond::Exists),
        )
        .await;
    assert!(matches!(err, Err(StoreError::ConditionFailed)), "{err:?}");
    assert_eq!(c.store.get(&k).await.unwrap(), None);
}

async fn update_creates_missing_items_and_returns_the_new_item(c: Arc<Ctx>) {
    let k = c.key("x", "1");
    let it = c
        .store
        .update(
            &k,
            vec![
                Update::Set("a".into(), "b".into()),
                Update::Add("n".into(), 5),
            ],
            None,
        )
        .await
        .unwrap();
    assert_eq!(it.key, k);
    assert_eq!(it.s("a"), Some("b"));
    assert_eq!(it.n("n"), Some(5));
    assert_eq!(c.store.get(&k).await.unwrap(), Some(it));
}

async fn atomic_counters_add_and_subtract(c: Arc<Ctx>) {
    let k = c.key("ctr", "1");
    for want in 1..=3 {
        let it = c
            .store
            .update(&k, vec![Update::Add("n".into(), 1)], None)
            .await
            .unwrap();
        assert_eq!(it.n("n"), Some(want));
    }
    let it = c
        .store
        .update(&k, vec![Update::Add("n".into(), -10)], None)
        .await
        .unwrap();
    assert_eq!(it.n("n"), Some(-7));
    // A counter bounded by a condition: the add applies only below the cap.
    let capped = |c: Arc<Ctx>| async move {
        c.store
            .update(
                &c.key("ctr", "2"),
                vec![Update::Add("n".into(), 1)],
                Some(Cond::attr_not_exists("n").or(Cond::lt("n", 2))),
            )
            .await
    };
    assert!(capped(c.clone()).await.is_ok());
    assert!(capped(c.clone()).await.is_ok());
    assert!(matches!(
        capped(c.clone()).await,
        Err(StoreError::ConditionFailed)
    ));
}

async fn update_or_current_answers_a_failed_condition_with_the_item(c: Arc<Ctx>) {
    let k = c.key("attempt", "1");
    let now = c.clock.now();
    let add = || vec![Update::Add("n".into(), 1)];
    let below = |n: i64| Some(Cond::Exists.and(Cond::attr_not_exists("n").or(Cond::lt("n", n))));
    // Absent: the condition needs the item, the answer is "absent", and nothing is written.
    let r = c
        .store
        .update_or_current(&k, add(), below(2))
        .await
        .unwrap();
    assert_eq!(r, Err(None));
    assert_eq!(c.store.get(&k).await.unwrap(), None);
    c.store
        .put(Item::new(k.clone()).with("who", "ann"), None)
        .await
        .unwrap();
    for want in 1..=2 {
        let it = c
            .store
            .update_or_current(&k, add(), below(1))
            .await
            .unwrap();
        let it = if want == 1 {
            it.expect("taken")
        } else {
            // The condition fails now: the item comes back as it is, unchanged.
            let cur = it.expect_err("refused").expect("present");
            assert_eq!(cur.n("n"), Some(1));
            assert_eq!(cur.s("who"), Some("ann"));
            continue;
        };
        assert_eq!(it.n("n"), Some(want));
    }
    assert_eq!(c.store.get(&k).await.unwrap().unwrap().n("n"), Some(1));
    // An expired item is absent: refused as absent when the condition needs it...
    let e = c.key("attempt", "2");
    c.store
        .put(Item::new(e.clone()).with("n", 0).expires(now + 5), None)
        .await
        .unwrap();
    c.clock.advance(5);
    let r = c
        .store
        .update_or_current(&e, add(), below(2))
        .await
        .unwrap();
    assert_eq!(r, Err(None));
    // ...and started afresh when the condition holds for an absent item.
    let it = c
        .store
        .update_or_current(&e, add(), Some(Cond::NotExists))
        .await
        .unwrap()
        .expect("fresh");
    assert_eq!((it.n("n"), it.expires_at), (Some(1), None));
}

async fn remove_and_expiry_updates(c: Arc<Ctx>) {
    let k = c.key("rm", "1");
    let now = c.clock.now();
    c.store
        .put(
            Item::new(k.clone())
                .with("a", 1)
                .with("b", 2)
                .expires(now + 50),
            None,
        )
        .await
        .unwrap();
    let it = c
        .store
        .update(
            &k,
            vec![Update::Remove("a".into()), Update::Expires(None)],
            None,
        )
        .await
        .unwrap();
    assert_eq!(it.n("a"), None);
    assert_eq!(it.n("b"), Some(2));
    assert_eq!(it.expires_at, None);
    let it = c
        .store
        .update(&k, vec![Update::Expires(Some(now + 10))], None)
        .await
        .unwrap();
    assert_eq!(it.expires_at, Some(now + 10));
    assert_eq!(
        c.store.get(&k).await.unwrap().unwrap().expires_at,
        Some(now + 10)
    );
}

async fn delete_of_a_missing_item_succeeds(c: Arc<Ctx>) {
    c.store.delete(&c.key("gone", "1"), None).await.unwrap();
    let err = c
        .store
        .delete(&c.key("gone", "1"), Some(Cond::Exists))
        .await;
    assert!(matches!(err, Err(StoreError::ConditionFailed)), "{err:?}");
}

async fn get_many_keeps_order_and_hides_missing_and_expired(c: Arc<Ctx>) {
    let now = c.clock.now();
    let a = Item::new(c.key("gm", "a")).with("v", 1);
    let b = Item::new(c.key("gm", "b")).with("v", 2).expires(now - 1);
    let d = Item::new(c.key("gm2", "d")).with("v", 4).expires(now + 60);
    for it in [&a, &b, &d] {
        c.store.put(it.clone(), None).await.unwrap();
    }
    let keys = vec![
        d.key.clone(),
        c.key("gm", "missing"),
        b.key.clone(),
        a.key.clone(),
    ];
    let got = c.store.get_many(&keys).await.unwrap();
    assert_eq!(got, vec![Some(d), None, None, Some(a)]);
    assert_eq!(c.store.get_many(&[]).await.unwrap(), vec![]);
}

async fn expired_items_are_absent_everywhere(c: Arc<Ctx>) {
    let now = c.clock.now();
    let k = c.key("exp", "1");
    c.store
        .put(Item::new(k.clone()).with("v", 1).expires(now + 30), None)
        .await
        .unwrap();
    assert!(c.store.get(&k).await.unwrap().is_some());
    c.clock.advance(30); // expires_at == now: expired.
    assert_eq!(c.store.get(&k).await.unwrap(), None);
    assert!(c
        .store
        .query(Query::partition(c.pk("exp")))
        .await
        .unwrap()
        .is_empty());
    let err = c.store.put(Item::new(k.clone()), Some(Cond::Exists)).await;
    assert!(matches!(err, Err(StoreError::ConditionFailed)), "{err:?}");
    let err = c.store.delete(&k, Some(Cond::eq("v", 1))).await;
    assert!(matches!(err, Err(StoreError::ConditionFailed)), "{err:?}");
    // Absent means a put-if-absent takes the key over.
    c.store
        .put(Item::new(k.clone()).with("v", 2), Some(Cond::NotExists))
        .await
        .unwrap();
    assert_eq!(c.store.get(&k).await.unwrap().unwrap().n("v"), Some(2));
}

async fn update_of_an_expired_item_starts_afresh(c: Arc<Ctx>) {
    let now = c.clock.now();
    let k = c.key("exp2", "1");
    c.store
        .put(
            Item::new(k.clone())
                .with("n", 5)
                .with("old", "x")
                .expires(now + 1),
            None,
        )
        .await
        .unwrap();
    c.clock.advance(2);
    let it = c
        .store
        .update(
            &k,
            vec![Update::Add("n".into(), 1)],
            Some(Cond::NotExists.or(Cond::lt("n", 100))),
        )
        .await
        .unwrap();
    assert_eq!(it.n("n"), Some(1), "the stale count must not carry over");
    assert_eq!(it.s("old"), None);
    assert_eq!(it.expires_at, None);
}

async fn transaction_applies_all_operations(c: Arc<Ctx>) {
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

async fn transaction_is_all_or_nothing_with_per_item_reasons(c: Arc<Ctx>) {
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

async fn transaction_check_on_expired_items(c: Arc<Ctx>) {
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

async fn transaction_rejects_touching_one_item_twice(c: Arc<Ctx>) {
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

/// Paging: `after` starts after a sort key (exclusive) in the query's order, with a prefix and a
/// limit, whether or not an item has that key.
async fn query_pages_after_a_sort_key_both_ways(c: Arc<Ctx>) {
    let pk = "page";
    for sk in ["A#1", "A#2", "A#3", "A#4", "A#5", "B#1"] {
        c.store.put(Item::new(c.key(pk, sk)), None).await.unwrap();
    }
    let names = |items: Vec<Item>| items.into_iter().map(|i| i.key.sk).collect::<Vec<_>>();
    let q = || Query::partition(c.pk(pk)).prefix("A#").limit(2);
    let first = names(c.store.query(q()).await.unwrap());
    assert_eq!(first, ["A#1", "A#2"]);
    let second = names(c.store.query(q().after("A#2")).await.unwrap());
    assert_eq!(second, ["A#3", "A#4"]);
    let last = names(c.store.query(q().after("A#4")).await.unwrap());
    assert_eq!(last, ["A#5"]);
    assert!(c.store.query(q().after("A#5")).await.unwrap().is_empty());
    // Newest first (descending), and after a key no item has.
    let down = names(c.store.query(q().descending().after("A#4")).await.unwrap());
    assert_eq!(down, ["A#3", "A#2"]);
    let between = names(c.store.query(q().after("A#2x")).await.unwrap());
    assert_eq!(between, ["A#3", "A#4"]);
}

async fn query_orders_filters_by_prefix_and_limits(c: Arc<Ctx>) {
    let pk = "q";
    for sk in [
        "SESSION#b",
        "SESSION#a",
        "SESSION#c",
        "PROFILE",
        "SESSIOM",
        "SESSION#a#x",
    ] {
        c.store
            .put(Item::new(c.key(pk, sk)).with("name", sk), None)
            .await
            .unwrap();
    }
    c.store
        .put(Item::new(c.key("q-other", "SESSION#z")), None)
        .await
        .unwrap();
    let names = |items: Vec<Item>| items.into_iter().map(|i| i.key.sk).collect::<Vec<_>>();
    let all = c.store.query(Query::partition(c.pk(pk))).await.unwrap();
    assert_eq!(
        names(all),
        [
            "PROFILE",
            "SESSIOM",
            "SESSION#a",
            "SESSION#a#x",
            "SESSION#b",
            "SESSION#c"
        ]
    );
    let pre = c
        .store
        .query(Query::partition(c.pk(pk)).prefix("SESSION#"))
        .await
        .unwrap();
    assert_eq!(pre[0].s("name"), Some("SESSION#a"));
    assert_eq!(
        names(pre),
        ["SESSION#a", "SESSION#a#x", "SESSION#b", "SESSION#c"]
    );
    let desc = c
        .store
        .query(
            Query::partition(c.pk(pk))
                .prefix("SESSION#")
                .descending()
                .limit(2),
        )
        .await
        .unwrap();
    assert_eq!(names(desc), ["SESSION#c", "SESSION#b"]);
    let asc = c
        .store
        .query(Query::partition(c.pk(pk)).prefix("SESSION#").limit(1))
        .await
        .unwrap();
    assert_eq!(names(asc), ["SESSION#a"]);
    assert!(c
        .store
        .query(Query::partition(c.pk("q-empty")))
        .await
        .unwrap()
        .is_empty());
}

async fn query_skips_expired_items_and_still_fills_the_limit(c: Arc<Ctx>) {
    let now = c.clock.now();
    for i in 0..30 {
        let mut it = Item::new(c.key("qe", &format!("E#{i:03}"))).with("i", i);
        if i < 25 {
            it = it.expires(now - 1);
        }
        c.store.put(it, None).await.unwrap();
    }
    let got = c
        .store
        .query(Query::partition(c.pk("qe")).prefix("E#").limit(3))
        .await
        .unwrap();
    let idx: Vec<_> = got.iter().filter_map(|i| i.n("i")).collect();
    assert_eq!(idx, vec![25, 26, 27]);
}

async fn reserved_attribute_names_are_rejected(c: Arc<Ctx>) {
    let err = c
        .store
        .put(Item::new(c.key("r", "1")).with("pk", "x"), None)
        .await;
    assert!(matches!(err, Err(StoreError::Invalid(_))), "{err:?}");
    let err = c
        .store
        .update(
            &c.key("r", "1"),
            vec![Update::Set("expiresAt".into(), 1.into())],
            None,
        )
        .await;
    assert!(matches!(err, Err(StoreError::Invalid(_))), "{err:?}");
    assert_eq!(c.store.get(&c.key("r", "1")).await.unwrap(), None);
}

const RACERS: usize = 16;

async fn racing_conditional_puts_have_exactly_one_winner(c: Arc<Ctx>) {
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

async fn racing_conditional_updates_have_exactly_one_winner(c: Arc<Ctx>) {
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

async fn racing_transactions_have_exactly_one_winner(c: Arc<Ctx>) {
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

async fn concurrent_counter_increments_are_not_lost(c: Arc<Ctx>) {
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
async fn failures_are_read_as_their_kind(c: Arc<Ctx>) {
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

fn token(c: &Ctx, name: &str) -> Token {
    Token::new(format!("{}-{name}", c.ns))
}

fn bump() -> Vec<Update> {
    vec![Update::Add("n".into(), 1)]
}

async fn a_token_write_applies_once_whatever_the_retries(c: Arc<Ctx>) {
    let k = c.key("once", "1");
    c.store
        .put(Item::new(k.clone()).with("who", "ann"), None)
        .await
        .unwrap();
    let t = token(&c, "a");
    let cap = || Some(Cond::Exists.and(Cond::attr_not_exists("n").or(Cond::lt("n", 5))));
    let first = c
        .store
        .update_once(&k, bump(), cap(), &t)
        .await
        .unwrap()
        .expect("applied");
    assert_eq!(first.n("n"), Some(1));
    for _ in 0..3 {
        // The retries of one write (its answer lost): the item as it is, counted once.
        let again = c
            .store
            .update_once(&k, bump(), cap(), &t)
            .await
            .unwrap()
            .expect("recognised, not refused");
        assert_eq!(again, first);
    }
    let stored = c.store.get(&k).await.unwrap().unwrap();
    assert_eq!(stored, first);
    assert_eq!(stored.s("who"), Some("ann"));
    // Another write counts.
    let other = c
        .store
        .update_once(&k, bump(), cap(), &token(&c, "b"))
        .await
        .unwrap()
        .expect("applied");
    assert_eq!(other.n("n"), Some(2));
    // A burn retried: its condition fails on its own first write, and yet the answer is Ok.
    let burn = || {
        vec![
            Update::Set("usedBy".into(), "me".into()),
            Update::Expires(Some(c.clock.now() + 300)),
        ]
    };
    let unused = || Some(Cond::Exists.and(Cond::attr_not_exists("usedBy")));
    let b = token(&c, "burn");
    let used = c
        .store
        .update_once(&k, burn(), unused(), &b)
        .await
        .unwrap()
        .expect("burnt");
    assert_eq!(used.s("usedBy"), Some("me"));
    assert_eq!(
        c.store.update_once(&k, burn(), unused(), &b).await.unwrap(),
        Ok(used.clone())
    );
    // Another burn of the same item is refused, with the item.
    assert_eq!(
        c.store
            .update_once(&k, burn(), unused(), &token(&c, "thief"))
            .await
            .unwrap(),
        Err(Some(used))
    );
}

async fn a_token_is_recognised_after_four_other_writes(c: Arc<Ctx>) {
    // RING (5) tokens are remembered: the newest write's and the four before it. The domain's
    // counters admit at most 5 counting writes between two resets, so each stays recognised.
    assert_eq!(RING, 5);
    let k = c.key("ring", "1");
    let a = token(&c, "a");
    let write = |t: Token| {
        let c = c.clone();
        let k = k.clone();
        async move { c.store.update_once(&k, bump(), None, &t).await.unwrap() }
    };
    assert_eq!(write(a.clone()).await.unwrap().n("n"), Some(1));
    for i in 0..RING - 1 {
        write(token(&c, &format!("other{i}"))).await.unwrap();
    }
    // Four others since: A is still in the ring, its retry is not applied.
    let again = write(a.clone()).await.expect("recognised");
    assert_eq!(again.n("n"), Some(RING as i64));
    // A fifth other pushes A out of the ring: A counts again.
    write(token(&c, "other4")).await.unwrap();
    let counted = write(a.clone()).await.expect("applied");
    assert_eq!(counted.n("n"), Some(RING as i64 + 2));
    assert_eq!(
        c.store.get(&k).await.unwrap().unwrap().n("n"),
        Some(RING as i64 + 2)
    );
    // Recognised again right after, of course.
    assert_eq!(write(a).await, Ok(counted));
}

async fn a_token_write_with_a_false_condition_is_refused(c: Arc<Ctx>) {
    let k = c.key("refused", "1");
    let cur = Item::new(k.clone()).with("n", 5).with("who", "ann");
    c.store.put(cur.clone(), None).await.unwrap();
    // The condition is false for another reason, the token is not in the ring: as
    // update_or_current, the item as it is.
    let below = || Some(Cond::lt("n", 5));
    let t = token(&c, "t");
    assert_eq!(
        c.store.update_once(&k, bump(), below(), &t).await.unwrap(),
        Err(Some(cur.clone()))
    );
    assert_eq!(
        c.store
            .update_or_current(&k, bump(), below())
            .await
            .unwrap(),
        Err(Some(cur.clone()))
    );
    // Refused, the token was not recorded: once the condition holds, the same token applies.
    c.store
        .update(&k, vec![Update::Set("n".into(), 1.into())], None)
        .await
        .unwrap();
    let it = c
        .store
        .update_once(&k, bump(), below(), &t)
        .await
        .unwrap()
        .expect("applied");
    assert_eq!(it.n("n"), Some(2));
    // A plain update keeps the ring: the token is still recognised after it.
    c.store
        .update(&k, vec![Update::Set("x".into(), 1.into())], None)
        .await
        .unwrap();
    let again = c
        .store
        .update_once(&k, bump(), below(), &t)
        .await
        .unwrap()
        .expect("recognised");
    assert_eq!(again.n("n"), Some(2));
    assert_eq!(again.n("x"), Some(1));
    // A put replaces the whole item, ring included: the token counts again.
    c.store.put(cur.clone(), None).await.unwrap();
    c.store
        .update(&k, vec![Update::Set("n".into(), 0.into())], None)
        .await
        .unwrap();
    let it = c
        .store
        .update_once(&k, bump(), below(), &t)
        .await
        .unwrap()
        .expect("applied after a put");
    assert_eq!(it.n("n"), Some(1));
}

async fn a_token_write_on_an_absent_item_creates_it(c: Arc<Ctx>) {
    let k = c.key("absent", "1");
    let t = token(&c, "t");
    let it = c
        .store
        .update_once(&k, bump(), None, &t)
        .await
        .unwrap()
        .expect("created");
    assert_eq!((it.key.clone(), it.n("n")), (k.clone(), Some(1)));
    assert_eq!(it.attrs.len(), 1, "no ring attribute shown: {it:?}");
    assert_eq!(c.store.get(&k).await.unwrap(), Some(it.clone()));
    assert_eq!(
        c.store.update_once(&k, bump(), None, &t).await.unwrap(),
        Ok(it)
    );
    // With a condition that needs the item: absent, nothing written.
    let other = c.key("absent", "2");
    assert_eq!(
        c.store
            .update_once(&other, bump(), Some(Cond::Exists), &t)
            .await
            .unwrap(),
        Err(None)
    );
    assert_eq!(c.store.get(&other).await.unwrap(), None);
    // NotExists: created once, the retry recognised (not refused for existing now).
    let fresh = c.key("absent", "3");
    let created = c
        .store
        .update_once(&fresh, bump(), Some(Cond::NotExists), &t)
        .await
        .unwrap()
        .expect("created");
    assert_eq!(
        c.store
            .update_once(&fresh, bump(), Some(Cond::NotExists), &t)
            .await
            .unwrap(),
        Ok(created.clone())
    );
    assert_eq!(
        c.store
            .update_once(&fresh, bump(), Some(Cond::NotExists), &token(&c, "u"))
            .await
            .unwrap(),
        Err(Some(created))
    );
}

async fn a_token_write_on_an_expired_item_starts_afresh(c: Arc<Ctx>) {
    let now = c.clock.now();
    let k = c.key("stale", "1");
    let t = token(&c, "t");
    let it = c
        .store
        .update_once(
            &k,
            vec![Update::Add("n".into(), 1), Update::Expires(Some(now + 5))],
            None,
            &t,
        )
        .await
        .unwrap()
        .expect("created");
    assert_eq!(it.n("n"), Some(1));
    c.clock.advance(5);
    // Expired: absent, its ring too. A condition needing the item is refused as absent...
    assert_eq!(
        c.store
            .update_once(&k, bump(), Some(Cond::Exists), &t)
            .await
            .unwrap(),
        Err(None)
    );
    // ...and without one the same token starts afresh, the stale count not carried over.
    let it = c
        .store
        .update_once(&k, bump(), Some(Cond::NotExists.or(Cond::lt("n", 9))), &t)
        .await
        .unwrap()
        .expect("fresh");
    assert_eq!((it.n("n"), it.expires_at), (Some(1), None));
    assert_eq!(
        c.store.update_once(&k, bump(), None, &t).await.unwrap(),
        Ok(it)
    );
}

async fn the_token_ring_is_engine_owned(c: Arc<Ctx>) {
    let k = c.key("tokres", "1");
    let err = c
        .store
        .put(Item::new(k.clone()).with("tok0", "x"), None)
        .await;
    assert!(matches!(err, Err(StoreError::Invalid(_))), "{err:?}");
    for name in ["tok0", "tok4"] {
        let err = c
            .store
            .update(&k, vec![Update::Set(name.into(), "x".into())], None)
            .await;
        assert!(matches!(err, Err(StoreError::Invalid(_))), "{err:?}");
        let err = c
            .store
            .update_once(&k, vec![Update::Remove(name.into())], None, &token(&c, "t"))
            .await;
        assert!(matches!(err, Err(StoreError::Invalid(_))), "{err:?}");
    }
    let err = c
        .store
        .transact(vec![TxOp::Update {
            key: k.clone(),
            ops: vec![Update::Add("tok1".into(), 1)],
            cond: None,
        }])
        .await;
    assert!(matches!(err, Err(StoreError::Invalid(_))), "{err:?}");
    let err = c.store.update_once(&k, bump(), None, &Token::new("")).await;
    assert!(matches!(err, Err(StoreError::Invalid(_))), "{err:?}");
    assert_eq!(c.store.get(&k).await.unwrap(), None);
    // The ring is never shown, and conditions see it as missing, as they see `pk`.
    let t = token(&c, "t");
    let it = c
        .store
        .update_once(&k, bump(), None, &t)
        .await
        .unwrap()
        .unwrap();
    assert!(!it.attrs.keys().any(|n| n.starts_with("tok")), "{it:?}");
    let plain = c
        .store
        .update_or_current(&k, bump(), Some(Cond::attr_not_exists("tok0")))
        .await
        .unwrap()
        .expect("tok0 is not seen");
    assert_eq!(plain.n("n"), Some(2));
    assert!(
        !plain.attrs.keys().any(|n| n.starts_with("tok")),
        "{plain:?}"
    );
    // (Or-ed with a live branch: a condition that folds to a constant false on its own meets
    // a DynamoDB-engine limit of `update` unrelated to tokens.)
    let on_ring = Cond::eq("tok0", t.as_str()).or(Cond::eq("n", 99));
    let refused = c
        .store
        .update_or_current(&k, bump(), Some(on_ring))
        .await
        .unwrap();
    assert_eq!(refused, Err(Some(plain.clone())));
    let listed = c
        .store
        .query(Query::partition(c.pk("tokres")))
        .await
        .unwrap();
    assert_eq!(listed, vec![plain.clone()]);
    assert_eq!(
        c.store.get_many(std::slice::from_ref(&k)).await.unwrap(),
        vec![Some(plain.clone())]
    );
    c.store
        .transact(vec![TxOp::Check {
            key: k.clone(),
            cond: Cond::attr_not_exists("tok0"),
        }])
        .await
        .unwrap();
}

/// The maintenance scan (`scan_page`): every live item whose partition key starts with the
/// prefix and whose sort key is the one asked, each once across the pages, and nothing else.
async fn a_scan_finds_every_live_item_of_a_prefix_and_sort_key(c: Arc<Ctx>) {
    let now = c.clock.now();
    for i in 0..7 {
        let item = Item::new(c.key(&format!("scan#u{i}"), "P")).with("i", i as i64);
        c.store.put(item, None).await.unwrap();
        let other = Item::new(c.key(&format!("scan#u{i}"), "Q"));
        c.store.put(other, None).await.unwrap();
    }
    let expired = Item::new(c.key("scan#gone", "P")).expires(now + 10);
    c.store.put(expired, None).await.unwrap();
    c.store
        .put(Item::new(c.key("elsewhere#u1", "P")), None)
        .await
        .unwrap();
    c.clock.advance(11);
    let mut found = Vec::new();
    let mut start = None;
    for _ in 0..1000 {
        let page = c.store.scan_page(&c.pk("scan#"), "P", start).await.unwrap();
        found.extend(
            page.items
                .into_iter()
                .map(|i| (i.n("i"), i.key))
                .map(|(n, k)| (k, n)),
        );
        start = page.next;
        if start.is_none() {
            break;
        }
    }
    found.sort();
    let want: Vec<(Key, Option<i64>)> = (0..7)
        .map(|i| (c.key(&format!("scan#u{i}"), "P"), Some(i as i64)))
        .collect();
    assert_eq!(found, want);
}
