//! Prints per-route latency and peak memory, in process, on the embedded store:
//! `npm run bench` (cargo run --profile serve --example bench). Figures, not assertions: they
//! back the memory sizes in template.yaml and the round-trip counts in docs/data-model.md.

use ciam_core::{
    sessions, user::User, Ciam, CodeMessage, Config, Keys, NoticeMessage, Notifier, OsEntropy,
    SystemClock,
};
use ciam_store::{sqlite::SqliteStore, Item, Store};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tower::ServiceExt;

struct Quiet;
#[async_trait::async_trait]
impl Notifier for Quiet {
    async fn send_code(&self, _: &CodeMessage) -> Result<(), String> {
        Ok(())
    }
    async fn send_notice(&self, _: &NoticeMessage) -> Result<(), String> {
        Ok(())
    }
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(str::to_owned)
        })
        .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

fn report(name: &str, mut t: Vec<Duration>) {
    t.sort();
    let pct = |p: f64| t[((t.len() as f64 - 1.0) * p) as usize].as_secs_f64() * 1000.0;
    println!(
        "{name:<34} n={:<5} p50={:>8.3} ms  p95={:>8.3} ms  max={:>8.3} ms",
        t.len(),
        pct(0.5),
        pct(0.95),
        pct(1.0)
    );
}

async fn call(
    app: &axum::Router,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> u16 {
    let mut req = http::Request::builder()
        .method(method)
        .uri(format!("/ciam/v1{path}"));
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    if body.is_some() {
        req = req.header("content-type", "application/json");
    }
    let req = req
        .body(axum::body::Body::from(body.unwrap_or("").to_owned()))
        .expect("request");
    app.clone()
        .oneshot(req)
        .await
        .map(|r| r.status().as_u16())
        .unwrap_or(0)
}

#[tokio::main]
async fn main() {
    let clock = Arc::new(SystemClock);
    let store = SqliteStore::in_memory(clock.clone()).expect("store");
    store.ensure_schema().await.expect("schema");
    let ciam = Ciam {
        store: Arc::new(store),
        clock,
        entropy: Arc::new(OsEntropy),
        keys: Keys::from_root([9; 32]),
        notifier: Arc::new(Quiet),
        blobs: Arc::new(ciam_core::MemoryBlobs::default()),
        config: Config::default(),
    };
    println!(
        "after start-up                     peak RSS {:>7} KiB",
        peak_rss_kib()
    );
    let pw = "Bench-Passw0rd!";
    let started = Instant::now();
    let hash = ciam_core::password::hash(pw.into(), [3; 16])
        .await
        .expect("hash");
    println!(
        "argon2id hash (m=19MiB,t=2,p=1)    {:>8.1} ms",
        started.elapsed().as_secs_f64() * 1000.0
    );
    let user = User {
        id: "00000000000000000000000000000001".into(),
        user_name: "bench".into(),
        mail: Some("bench@example.com".into()),
        pwd_hash: Some(hash),
        ..Default::default()
    };
    ciam.store.put(user.to_item(), None).await.expect("user");
    let unique = Item::new(ciam_core::user::unique_key("MAIL#bench@example.com".into()))
        .with("userId", user.id.as_str());
    ciam.store.put(unique, None).await.expect("unique");
    let app = ciam_api::router(ciam.clone());

    let login = format!(r#"{{"account":"bench@example.com","password":"{pw}"}}"#);
    let mut t = Vec::new();
    for _ in 0..20 {
        let s = Instant::now();
        assert_eq!(
            call(&app, "POST", "/auth/login/password", None, Some(&login)).await,
            200
        );
        t.push(s.elapsed());
    }
    report("POST /auth/login/password", t);
    println!(
        "after sign-ins                     peak RSS {:>7} KiB",
        peak_rss_kib()
    );

    let (token, item) = sessions::mint(&ciam, &user, &Default::default());
    ciam.store.put(item, None).await.expect("session");
    for (name, method, path, body) in [
        ("GET /auth/info", "GET", "/auth/info", None),
        (
            "PATCH /auth/info",
            "PATCH",
            "/auth/info",
            Some(r#"{"duty":"Bench"}"#),
        ),
        ("GET /auth/location", "GET", "/auth/location", None),
        ("GET /auth/captcha", "GET", "/auth/captcha", None),
    ] {
        let mut t = Vec::new();
        for _ in 0..1000 {
            let s = Instant::now();
            assert_eq!(
                call(&app, method, path, Some(&token), body).await,
                200,
                "{name}"
            );
            t.push(s.elapsed());
        }
        report(name, t);
        println!("after {name:<28} peak RSS {:>7} KiB", peak_rss_kib());
    }
    println!(
        "peak resident memory               {:>8} KiB",
        peak_rss_kib()
    );
}
