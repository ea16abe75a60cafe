// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]
use ciam_store::sqlite::SqliteStore;
use ciam_store::{conformance, ManualClock, Store};
use std::sync::Arc;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_sqlite_engine_passes_the_conformance_suite_in_memory() {
    let clock = ManualClock::new(1_800_000_000);
    let store = SqliteStore::in_memory(Arc::new(clock.clone())).unwrap();
    conformance::run_all(Arc::new(store), clock).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_sqlite_engine_passes_the_conformance_suite_on_a_file() {
    let dir = std::env::temp_dir().join(format!("ciam-conf-{}", std::process::id()));
    let clock = ManualClock::new(1_800_000_000);
    let store = SqliteStore::open(&dir.join("ciam.db"), Arc::new(clock.clone())).unwrap();
    conformance::run_all(Arc::new(store), clock).await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn the_sqlite_file_keeps_items_across_reopening() {
    let dir = std::env::temp_dir().join(format!("ciam-durable-{}", std::process::id()));
    let path = dir.join("ciam.db");
    let clock = Arc::new(ManualClock::new(1_800_000_000));
    {
        let s = SqliteStore::open(&path, clock.clone()).unwrap();
        s.ensure_schema().await.unwrap();
        s.put(
            ciam_store::Item::new(ciam_store::Key::new("a", "b")).with("v", 1),
            None,
        )
        .await
        .unwrap();
    }
    let s = SqliteStore::open(&path, clock).unwrap();
    s.ensure_schema().await.unwrap();
    let got = s.get(&ciam_store::Key::new("a", "b")).await.unwrap();
    assert_eq!(got.and_then(|i| i.n("v")), Some(1));
    let _ = std::fs::remove_dir_all(dir);
}
