//! The outbox survives a `kill -9` of `ciam serve` (issue 23): an event committed (with its
//! outbox marker, in one transaction) while the receiver is down is tried, the server is killed
//! while the delivery waits for its retry, and after the restart the receiver gets it, signed
//! with the endpoint's secret, with the same `webhook-id` (receivers dedupe on it).
//! And a fan-out that failed is recovered by `ciam admin webhooks refan` (issue 30).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use axum::http::HeaderMap;
use ciam_core::events::{Event, Kind};
use ciam_core::webhooks::{queue, sign};
use ciam_local::{open_store, StoreChoice, StoreOptions};
use serde_json::{json, Map};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A running `ciam serve`, killed and reaped when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn start(data: &Path) -> Server {
    let port = free_port();
    let server = Server(
        Command::new(env!("CARGO_BIN_EXE_ciam"))
            .args(["serve", "--addr", &format!("127.0.0.1:{port}"), "--data"])
            .arg(data)
            .args(["--web-dist", "/nonexistent-web-dist"])
            .env("CIAM_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("ciam starts"),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        let url = format!("http://127.0.0.1:{port}/ciam/v1/auth/location");
        if reqwest::get(url).await.is_ok() {
            return server;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("ciam serve did not come up");
}

/// SIGKILL: no shutdown of any kind (then reaped by the drop).
fn kill9(s: Server) {
    let pid = s.0.id().to_string();
    Command::new("kill").args(["-9", &pid]).status().unwrap();
}

fn cli(data: &Path, args: &[&str]) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_ciam"))
        .args(["admin", "webhooks"])
        .args(args)
        .arg("--data")
        .arg(data)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

type Got = Arc<Mutex<Vec<(HeaderMap, String)>>>;

async fn receiver(port: u16, got: Got) {
    let router = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |h: HeaderMap, body: String| {
            let got = got.clone();
            async move {
                got.lock().unwrap().push((h, body));
                "ok"
            }
        }),
    );
    let l = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    tokio::spawn(async move { axum::serve(l, router).await.unwrap() });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_committed_before_a_kill_9_is_delivered_after_the_restart() {
    let data: PathBuf = std::env::temp_dir().join(format!("ciam-wh-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    // The first start seeds the demo app.
    kill9(start(&data).await);
    let rx_port = free_port();
    let url = format!("http://127.0.0.1:{rx_port}/hook");
    let added = cli(
        &data,
        &[
            "add",
            "--app",
            "demo-factory",
            "--url",
            &url,
            "--events",
            "user.updated",
        ],
    );
    let secret = added[1].clone();
    assert!(secret.starts_with("whsec_"));
    assert_eq!(
        cli(&data, &["list", "--app", "demo-factory"])[0]
            .split('\t')
            .nth(1),
        Some("enabled")
    );

    // A change commits its event and the outbox marker in one transaction (as a cause does
    // through `ciam serve`'s store); the user has a consent with the app.
    let opts = StoreOptions {
        data: data.clone(),
        store: StoreChoice::Sqlite,
        table: "ciam".into(),
        endpoint: None,
    };
    let clock: Arc<dyn ciam_store::Clock> = Arc::new(ciam_core::SystemClock);
    let now = ciam_store::Clock::now(clock.as_ref());
    let store = open_store(&opts, clock).await.unwrap();
    let consent = ciam_core::consents::Consent {
        user_id: "u-kill".into(),
        app_id: "demo-factory".into(),
        scopes: vec!["nickname".into()],
        granted_at: now,
        since: now,
    };
    let mut d = Map::new();
    d.insert("nickname".into(), json!("小王"));
    let event = Event {
        id: "msg_0123456789abcdef01234567".into(),
        kind: Kind::UserUpdated,
        user_id: "u-kill".into(),
        at: now,
        data: d,
        org_id: None,
        app_id: None,
        audience: None,
    };
    let tx = vec![
        ciam_store::TxOp::Put {
            item: consent.to_item(),
            cond: None,
        },
        event.op(),
        queue::pending_op(&event.key()).unwrap(),
    ];
    store.transact(tx).await.unwrap();
    drop(store);

    // The server starts, fans the event out, tries the receiver (down), and is killed while
    // the delivery waits for its retry.
    let server = start(&data).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    kill9(server);

    let got: Got = Arc::default();
    receiver(rx_port, got.clone()).await;
    let server = start(&data).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while got.lock().unwrap().is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    kill9(server);
    let got = got.lock().unwrap().clone();
    assert!(!got.is_empty(), "delivered after the restart");
    let mut ids: Vec<&str> = got
        .iter()
        .map(|(h, _)| h["webhook-id"].to_str().unwrap())
        .collect();
    ids.dedup();
    assert_eq!(ids, [event.id.as_str()], "one event, by webhook-id");
    let (h, body) = &got[0];
    let ts: i64 = h["webhook-timestamp"].to_str().unwrap().parse().unwrap();
    let want = sign::signature(&sign::secret_bytes(&secret).unwrap(), &event.id, ts, body);
    assert_eq!(h["webhook-signature"].to_str().unwrap(), want);
    let b: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(b["data"], json!({"nickname": "小王", "userId": "u-kill"}));
    let _ = std::fs::remove_dir_all(&data);
}

/// A fan-out that failed (issue 30 item 2): an event committed without its outbox marker is
/// never sent by `ciam serve`; `ciam admin webhooks refan --user --since` fans it out again, and
/// the next start delivers it, with its own `webhook-id`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_whose_fan_out_failed_is_delivered_after_the_refan_command() {
    let data: PathBuf = std::env::temp_dir().join(format!("ciam-wh-refan-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    kill9(start(&data).await);
    let rx_port = free_port();
    let url = format!("http://127.0.0.1:{rx_port}/hook");
    cli(
        &data,
        &[
            "add",
            "--app",
            "demo-factory",
            "--url",
            &url,
            "--events",
            "user.updated",
        ],
    );
    let opts = StoreOptions {
        data: data.clone(),
        store: StoreChoice::Sqlite,
        table: "ciam".into(),
        endpoint: None,
    };
    let clock: Arc<dyn ciam_store::Clock> = Arc::new(ciam_core::SystemClock);
    let now = ciam_store::Clock::now(clock.as_ref());
    let store = open_store(&opts, clock).await.unwrap();
    let consent = ciam_core::consents::Consent {
        user_id: "u-refan".into(),
        app_id: "demo-factory".into(),
        scopes: vec!["nickname".into()],
        granted_at: now,
        since: now,
    };
    let mut d = Map::new();
    d.insert("nickname".into(), json!("小林"));
    let event = Event {
        id: "msg_abcdefabcdefabcdefabcdef".into(),
        kind: Kind::UserUpdated,
        user_id: "u-refan".into(),
        at: now - 30,
        data: d,
        org_id: None,
        app_id: None,
        audience: None,
    };
    // The event commits, its fan-out is lost (no marker: as a stream batch set aside).
    let tx = vec![
        ciam_store::TxOp::Put {
            item: consent.to_item(),
            cond: None,
        },
        event.op(),
    ];
    store.transact(tx).await.unwrap();
    drop(store);

    let got: Got = Arc::default();
    receiver(rx_port, got.clone()).await;
    let server = start(&data).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    kill9(server);
    assert!(
        got.lock().unwrap().is_empty(),
        "nothing fans it out by itself"
    );

    let since = (now - 60).to_string();
    let out = cli(&data, &["refan", "--user", "u-refan", "--since", &since]);
    assert_eq!(out, [event.id.clone(), "deliveries 1".to_owned()]);
    let server = start(&data).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while got.lock().unwrap().is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    kill9(server);
    let got = got.lock().unwrap().clone();
    assert_eq!(got.len(), 1, "delivered once after the command");
    assert_eq!(got[0].0["webhook-id"].to_str().unwrap(), event.id);
    let b: serde_json::Value = serde_json::from_str(&got[0].1).unwrap();
    assert_eq!(b["data"], json!({"nickname": "小林", "userId": "u-refan"}));
    let _ = std::fs::remove_dir_all(&data);
}
