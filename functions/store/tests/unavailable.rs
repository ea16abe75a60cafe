//! A store that cannot be reached answers `StoreError::Unavailable` within a bounded time, never
//! hangs and never passes for a backend bug: on DynamoDB a refused or silent endpoint, a
//! connection that never completes, an endpoint that is not DynamoDB, DynamoDB's own 5xx; on
//! SQLite a database another process keeps locked, or a file that cannot be opened.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_store::dynamodb::{self, DynamoConfig, DynamoStore, CONNECT_TIMEOUT, MAX_ATTEMPTS};
use ciam_store::sqlite::SqliteStore;
use ciam_store::{Key, ManualClock, Store, StoreError};
use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn clock() -> Arc<ManualClock> {
    Arc::new(ManualClock::new(1_800_000_000))
}

fn key() -> Key {
    Key::new("USER#x", "PROFILE")
}

async fn dynamo(endpoint: &str) -> DynamoStore {
    let cfg = DynamoConfig {
        table: "t".into(),
        endpoint: Some(endpoint.into()),
        region: Some("us-east-1".into()),
    };
    DynamoStore::connect(cfg, clock()).await.expect("a client")
}

/// Runs `get` and asserts it is `Unavailable` within `bound`.
#[track_caller]
fn assert_unavailable(
    got: Result<Option<ciam_store::Item>, StoreError>,
    took: Duration,
    bound: Duration,
) {
    match got {
        Err(StoreError::Unavailable(why)) => assert!(!why.is_empty()),
        other => panic!("expected Unavailable, got {other:?}"),
    }
    assert!(took < bound, "took {took:?}, over {bound:?}");
}

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

#[tokio::test]
async fn a_refused_connection_is_unavailable_at_once() {
    let store = dynamo(&format!("http://127.0.0.1:{}", closed_port())).await;
    let started = Instant::now();
    let got = store.get(&key()).await;
    assert_unavailable(got, started.elapsed(), Duration::from_secs(2));
}

#[tokio::test]
async fn a_connection_that_never_completes_is_unavailable_after_the_connect_timeouts() {
    // A listener whose accept queue (backlog 0: one connection) is full drops every further
    // SYN: connecting to it hangs, like connecting to a blackholed address.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(0).unwrap();
    let addr = listener.local_addr().unwrap();
    let _filler = std::net::TcpStream::connect(addr).unwrap();
    let store = dynamo(&format!("http://{addr}")).await;
    let started = Instant::now();
    let got = store.get(&key()).await;
    // Every attempt waits the connect timeout, plus the backoffs between (at most 1 s each).
    let bound = CONNECT_TIMEOUT * MAX_ATTEMPTS + Duration::from_secs(2);
    assert_unavailable(got, started.elapsed(), bound);
    assert!(
        started.elapsed() >= CONNECT_TIMEOUT,
        "it waited for the connection"
    );
}

/// A loopback HTTP server that answers every request with `answer` (or never, when `None`).
fn server(answer: Option<String>) -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    std::thread::spawn(move || {
        for conn in l.incoming() {
            let Ok(mut conn) = conn else { return };
            let answer = answer.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 8192];
                loop {
                    match conn.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {
                            if let Some(a) = &answer {
                                let _ = conn.write_all(a.as_bytes());
                            }
                        }
                    }
                }
            });
        }
    });
    format!("http://{addr}")
}

#[tokio::test]
async fn an_endpoint_that_never_answers_is_unavailable_after_the_operation_timeout() {
    let endpoint = server(None);
    let sdk = aws_config::defaults(aws_config::BehaviorVersion::latest())
        .region(aws_config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
            "local", "local", None, None, "test",
        ))
        .load()
        .await;
    let client = dynamodb::client_with_timeout(&sdk, Some(&endpoint), Duration::from_millis(300));
    let store = DynamoStore::new(client, "t", clock());
    let started = Instant::now();
    let got = store.get(&key()).await;
    assert_unavailable(got, started.elapsed(), Duration::from_secs(2));
}

#[tokio::test]
async fn an_endpoint_that_is_not_dynamodb_is_unavailable() {
    let endpoint = server(Some(
        "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n".into(),
    ));
    let store = dynamo(&endpoint).await;
    let started = Instant::now();
    let got = store.get(&key()).await;
    assert_unavailable(got, started.elapsed(), Duration::from_secs(2));
}

#[tokio::test]
async fn dynamodb_answering_5xx_is_unavailable_after_the_retries() {
    let body = r#"{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"x"}"#;
    let endpoint = server(Some(format!(
        "HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/x-amz-json-1.0\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    )));
    let store = dynamo(&endpoint).await;
    let started = Instant::now();
    let got = store.get(&key()).await;
    assert_unavailable(got, started.elapsed(), Duration::from_secs(5));
}

fn temp_db(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ciam-unavail-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("ciam.db")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_sqlite_database_another_process_keeps_locked_is_unavailable_for_every_queued_request() {
    let path = temp_db("locked");
    let busy = Duration::from_millis(300);
    let store = Arc::new(
        SqliteStore::open(&path, clock())
            .unwrap()
            .with_busy_timeout(busy),
    );
    store.ensure_schema().await.unwrap();
    // Another connection (an admin command, a second server) holds the write lock. Reads go on
    // (WAL); writes wait for it.
    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();

    let started = Instant::now();
    let tasks: Vec<_> = (0..6)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.put(ciam_store::Item::new(key()), None).await })
        })
        .collect();
    for t in tasks {
        let got = t.await.unwrap();
        assert!(
            matches!(got, Err(StoreError::Unavailable(_))),
            "expected Unavailable, got {got:?}"
        );
    }
    // One deadline per request, counted from its call: six queued requests do not take six
    // busy timeouts.
    assert!(
        started.elapsed() < busy * 3,
        "queued requests took {:?}",
        started.elapsed()
    );

    other.execute_batch("COMMIT").unwrap();
    store
        .put(ciam_store::Item::new(key()), None)
        .await
        .expect("it recovers");
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}

#[test]
fn a_sqlite_file_that_cannot_be_opened_is_unavailable() {
    // A directory stands where the database file should be.
    let path = temp_db("cantopen");
    std::fs::create_dir_all(&path).unwrap();
    match SqliteStore::open(&path, clock()) {
        Err(StoreError::Unavailable(_)) => {}
        Err(other) => panic!("expected Unavailable, got {other:?}"),
        Ok(_) => panic!("a directory opened as a database"),
    }
    let _ = std::fs::remove_dir_all(path.parent().unwrap());
}
