//! The conformance cases of single items: put, get, conditions, updates, counters, removal,
//! expiry and batch reads.

use super::ctx::{sample, Ctx};
use crate::{Clock, Cond, Item, Query, StoreError, Update};
use std::sync::Arc;

pub(super) async fn put_then_get_round_trips_every_value_type(c: Arc<Ctx>) {
    let item = sample(c.key("a", "1")).expires(c.clock.now() + 100);
    c.store.put(item.clone(), None).await.unwrap();
    assert_eq!(c.store.get(&item.key).await.unwrap(), Some(item.clone()));
    // A put replaces the whole item.
    let replaced = Item::new(item.key.clone()).with("only", 1);
    c.store.put(replaced.clone(), None).await.unwrap();
    assert_eq!(c.store.get(&item.key).await.unwrap(), Some(replaced));
}

pub(super) async fn get_of_a_missing_item_is_none(c: Arc<Ctx>) {
    assert_eq!(c.store.get(&c.key("nothing", "here")).await.unwrap(), None);
}

pub(super) async fn conditional_put_if_absent_succeeds_once(c: Arc<Ctx>) {
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

pub(super) async fn conditional_put_on_attribute_values(c: Arc<Ctx>) {
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

pub(super) async fn conditional_update_and_delete(c: Arc<Ctx>) {
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

pub(super) async fn update_creates_missing_items_and_returns_the_new_item(c: Arc<Ctx>) {
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

pub(super) async fn atomic_counters_add_and_subtract(c: Arc<Ctx>) {
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

pub(super) async fn update_or_current_answers_a_failed_condition_with_the_item(c: Arc<Ctx>) {
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

pub(super) async fn remove_and_expiry_updates(c: Arc<Ctx>) {
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

pub(super) async fn delete_of_a_missing_item_succeeds(c: Arc<Ctx>) {
    c.store.delete(&c.key("gone", "1"), None).await.unwrap();
    let err = c
        .store
        .delete(&c.key("gone", "1"), Some(Cond::Exists))
        .await;
    assert!(matches!(err, Err(StoreError::ConditionFailed)), "{err:?}");
}

pub(super) async fn get_many_keeps_order_and_hides_missing_and_expired(c: Arc<Ctx>) {
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

pub(super) async fn expired_items_are_absent_everywhere(c: Arc<Ctx>) {
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

pub(super) async fn update_of_an_expired_item_starts_afresh(c: Arc<Ctx>) {
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
