//! A store that cannot be reached: every request that needs it answers 503 SERVICE_UNAVAILABLE
//! with `Retry-After`, within a bounded time, never a hang or a 500. On SQLite (`ciam serve`):
//! another process keeps the write lock; on DynamoDB: the service goes away under the app.

use crate::helpers::{TestApp, TestResponse, PASSWORD};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::sqlite::{SqliteStore, WriteLock};
use ciam_store::Store;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[track_caller]
pub(crate) fn assert_retry_later(res: &TestResponse) {
    res.error(503, "SERVICE_UNAVAILABLE");
    let after = res
        .headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u32>().ok());
    assert_eq!(
        after,
        Some(ciam_api::RETRY_AFTER_SECS),
        "503 carries Retry-After in seconds: {:?}",
        res.headers
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_locked_sqlite_database_answers_503_with_retry_after_and_recovers() {
    let dir = std::env::temp_dir().join(format!("ciam-api-locked-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("ciam.db");
    let busy = Duration::from_millis(200);
    let open = path.clone();
    let app = TestApp::spawn_on(move |clock| {
        Box::pin(async move {
            let store: Arc<dyn Store> = Arc::new(
                SqliteStore::open(&open, Arc::new(clock))
                    .expect("store")
                    .with_busy_timeout(busy),
            );
            store
        })
    })
    .await;
    let account = "locked@example.com";
    app.sign_up("locked", account).await;

    let lock = WriteLock::hold(&path).expect("the lock");
    let started = Instant::now();
    assert_retry_later(&app.login_password(account, PASSWORD).await);
    assert_retry_later(&app.login_password(account, "Wr0ng!Password").await);
    assert_retry_later(&app.send_code("other@example.com", "register").await);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "bounded by the busy timeout: {:?}",
        started.elapsed()
    );

    drop(lock);
    app.sign_in(account, PASSWORD).await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dynamodb_going_away_answers_503_with_retry_after_not_500() {
    let local = Arc::new(DynamoLocal::start().await);
    let on = local.clone();
    let app = TestApp::spawn_on(move |clock| {
        Box::pin(async move {
            let store: Arc<dyn Store> = Arc::new(on.store("unavailable", Arc::new(clock)).await);
            store
        })
    })
    .await;
    let account = "gone@example.com";
    app.sign_up("gone", account).await;
    let token = app.sign_in(account, PASSWORD).await;

    // DynamoDB goes away: the port now refuses connections.
    drop(Arc::into_inner(local).expect("the test holds the only handle"));
    let started = Instant::now();
    assert_retry_later(&app.login_password(account, PASSWORD).await);
    assert_retry_later(&app.login_password("nobody@example.com", PASSWORD).await);
    assert_retry_later(&app.get_info(&token).await);
    assert_retry_later(&app.send_code("other@example.com", "register").await);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "bounded: {:?}",
        started.elapsed()
    );
}
