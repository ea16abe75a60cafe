//! The conformance cases of queries and scans: order, prefixes, limits, paging, expired items,
//! reserved attribute names.

use super::ctx::Ctx;
use crate::{Clock, Item, Key, Query, StoreError, Update};
use std::sync::Arc;

/// Paging: `after` starts after a sort key (exclusive) in the query's order, with a prefix and a
/// limit, whether or not an item has that key.
pub(super) async fn query_pages_after_a_sort_key_both_ways(c: Arc<Ctx>) {
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

pub(super) async fn query_orders_filters_by_prefix_and_limits(c: Arc<Ctx>) {
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

/// A prefix is a range of sort keys (`Query::prefix`): keys that continue it with any
/// character, the largest ones included (U+FFFF, an emoji's four UTF-8 bytes, U+10FFFD), both
/// ways and paged; keys that sort just before or after it are not in it; one that continues it
/// with U+10FFFF (a noncharacter) is past the range, on both engines alike.
pub(super) async fn a_prefix_is_a_range_that_holds_every_continuation(c: Arc<Ctx>) {
    let pk = "range";
    let inside = [
        "ab",
        "ab#1",
        "abz",
        "ab\u{7f}",
        "ab\u{ffff}",
        "ab😀",
        "ab\u{10fffd}x",
    ];
    for sk in inside
        .iter()
        .chain(&["aa\u{10ffff}", "ac", "a", "ab\u{10ffff}x", "b"])
    {
        c.store.put(Item::new(c.key(pk, sk)), None).await.unwrap();
    }
    let names = |items: Vec<Item>| items.into_iter().map(|i| i.key.sk).collect::<Vec<_>>();
    let q = || Query::partition(c.pk(pk)).prefix("ab");
    assert_eq!(names(c.store.query(q()).await.unwrap()), inside);
    let mut down = inside.to_vec();
    down.reverse();
    assert_eq!(names(c.store.query(q().descending()).await.unwrap()), down);
    let second = names(c.store.query(q().limit(2).after("abz")).await.unwrap());
    assert_eq!(second, ["ab\u{7f}", "ab\u{ffff}"]);
}

pub(super) async fn query_skips_expired_items_and_still_fills_the_limit(c: Arc<Ctx>) {
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

pub(super) async fn reserved_attribute_names_are_rejected(c: Arc<Ctx>) {
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

/// The maintenance scan (`scan_page`): every live item whose partition key starts with the
/// prefix and whose sort key is the one asked, each once across the pages, and nothing else.
pub(super) async fn a_scan_finds_every_live_item_of_a_prefix_and_sort_key(c: Arc<Ctx>) {
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
