//! The conformance cases of idempotent writes (a `Token`): applied once whatever the retries,
//! recognised later, refused on a false condition, and the engine-owned ring.

use super::ctx::Ctx;
use crate::{Clock, Cond, Item, Query, StoreError, Token, TxOp, Update, RING};
use std::sync::Arc;

fn token(c: &Ctx, name: &str) -> Token {
    Token::new(format!("{}-{name}", c.ns))
}

fn bump() -> Vec<Update> {
    vec![Update::Add("n".into(), 1)]
}

pub(super) async fn a_token_write_applies_once_whatever_the_retries(c: Arc<Ctx>) {
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

pub(super) async fn a_token_is_recognised_after_four_other_writes(c: Arc<Ctx>) {
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

pub(super) async fn a_token_write_with_a_false_condition_is_refused(c: Arc<Ctx>) {
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

pub(super) async fn a_token_write_on_an_absent_item_creates_it(c: Arc<Ctx>) {
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

pub(super) async fn a_token_write_on_an_expired_item_starts_afresh(c: Arc<Ctx>) {
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

pub(super) async fn the_token_ring_is_engine_owned(c: Arc<Ctx>) {
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
