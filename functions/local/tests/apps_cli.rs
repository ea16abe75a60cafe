//! `ciam admin apps create --reason R --json '<fields>'`: the console's `POST /admin/apps` from
//! the command line (scripts, break-glass): the same answer, the same refusals, and the audit
//! entry (actor `cli:<os user>`, the reason) beside the app.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_store::sqlite::SqliteStore;
use ciam_store::{Query, Store, SystemClock};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ciam-apps-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn create(data: &Path, reason: &str, body: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ciam"))
        .args([
            "admin", "apps", "create", "--reason", reason, "--json", body, "--data",
        ])
        .arg(data)
        .env("USER", "ops-bot")
        .output()
        .expect("ciam runs")
}

fn body(name: &str) -> String {
    json!({
        "name": { "zh-CN": format!("{name} 店"), "en-US": name },
        "serviceUrls": ["https://shop.example.com/callback"],
        "scopes": ["nickname", "email"],
    })
    .to_string()
}

async fn audit(data: &Path) -> Vec<ciam_store::Item> {
    let store = SqliteStore::open(&data.join("ciam.db"), Arc::new(SystemClock)).unwrap();
    let now = SystemClock.now_secs();
    let day = ciam_core::console::audit::day_name(now.div_euclid(86_400));
    store
        .query(Query::partition(format!("AUDIT#{day}")))
        .await
        .unwrap()
}

trait Secs {
    fn now_secs(&self) -> i64;
}

impl Secs for SystemClock {
    fn now_secs(&self) -> i64 {
        use ciam_store::Clock;
        self.now()
    }
}

#[tokio::test]
async fn creating_an_app_prints_the_routes_answer_and_audits_it_with_the_reason() {
    let data = temp_dir("create");
    let out = create(&data, "new partner: the shop", &body("Shop"));
    assert!(out.status.success(), "{out:?}");
    let answer: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let app_id = answer["app"]["appId"].as_str().expect("appId");
    assert_eq!(app_id.len(), 16);
    assert_eq!(answer["app"]["name"]["en-US"], "Shop");
    assert_eq!(
        answer["app"]["serviceUrls"],
        json!(["https://shop.example.com/callback"])
    );
    assert!(
        answer["appSecret"].as_str().is_some_and(|s| s.len() >= 40),
        "{answer}"
    );
    let entries = audit(&data).await;
    assert_eq!(entries.len(), 1);
    let e = &entries[0];
    assert_eq!(e.s("action"), Some("app.create"));
    assert_eq!(e.s("target"), Some(app_id));
    assert_eq!(e.s("actor"), Some("cli:ops-bot"));
    assert_eq!(e.s("reason"), Some("new partner: the shop"));

    // The same name again: the route's 409, as JSON on stderr, exit 2; nothing more recorded.
    let out = create(&data, "again", &body("Shop"));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err: Value = serde_json::from_slice(&out.stderr).expect("JSON on stderr");
    assert_eq!(err["reason"], "APPNAME_EXIST");
    assert_eq!(err["code"], 409);
    assert_eq!(audit(&data).await.len(), 1);
    let _ = std::fs::remove_dir_all(&data);
}

#[tokio::test]
async fn a_refused_body_or_reason_is_the_routes_400_and_writes_nothing() {
    let data = temp_dir("refused");
    let cases = [
        (
            "why",
            r#"{"name": {"zh-CN": "店", "en-US": "Shop"}}"#,
            "serviceUrls",
        ),
        (
            "why",
            r#"{"name": 5, "serviceUrls": ["https://a.example.com/"]}"#,
            "name",
        ),
        ("why", r#"{"unknownField": 1}"#, "unknownField"),
        ("why", "not json", "body"),
        ("", &body("Shop"), "reason"),
        ("why", r#"{"reason": "twice", "serviceUrls": []}"#, "reason"),
    ];
    for (reason, json, field) in cases {
        let out = create(&data, reason, json);
        assert_eq!(out.status.code(), Some(2), "{json}: {out:?}");
        let err: Value = serde_json::from_slice(&out.stderr).expect("JSON on stderr");
        assert_eq!(err["reason"], "INVALID_PARAMETER", "{json}: {err}");
        assert_eq!(err["field"], field, "{json}: {err}");
        assert!(out.stdout.is_empty());
    }
    if data.join("ciam.db").exists() {
        assert!(audit(&data).await.is_empty());
    }
    let _ = std::fs::remove_dir_all(&data);
}
