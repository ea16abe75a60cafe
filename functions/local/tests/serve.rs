//! The README's run command, over real HTTP: `ciam serve` on the embedded store, the sign-up
//! journey through the dev outbox, durability across a restart, and a clean Ctrl-C.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

mod common;

use common::Serve as Server;

async fn start(data: &Path, extra: &[&str]) -> Server {
    common::serve(data, |cmd| {
        cmd.args(extra);
    })
    .await
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ciam-serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

struct Client {
    http: reqwest::Client,
    base: String,
}

impl Client {
    async fn call(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let url = format!("{}/ciam/v1{path}", self.base);
        let mut req = self.http.request(method.parse().unwrap(), url);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        let res = req.send().await.expect("response");
        assert!(
            res.headers().contains_key("x-request-id"),
            "every response has X-Request-ID"
        );
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    async fn solved_captcha(&self) -> String {
        common::solved_captcha(&self.http, &self.base).await
    }

    async fn code_from_outbox(&self, to: &str, purpose: &str) -> String {
        let out: Value = self
            .http
            .get(format!("{}/ciam/dev/outbox", self.base))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        out.as_array()
            .unwrap()
            .iter()
            .find(|e| e["to"] == to && e["purpose"] == purpose)
            .and_then(|e| e["code"].as_str())
            .expect("a code in the outbox")
            .to_owned()
    }
}

const PW: &str = "Ciam-Journey-2026!";

#[tokio::test]
async fn a_person_signs_up_and_in_over_http_with_the_dev_outbox_and_stays_after_a_restart() {
    let data = temp_dir("journey");
    let server = start(&data, &[]).await;
    let c = Client {
        http: reqwest::Client::new(),
        base: server.base.clone(),
    };

    let captcha = c.solved_captcha().await;
    let (s, _) = c
        .call(
            "POST",
            "/auth/identity",
            None,
            Some(json!({"account": "ann@example.com", "purpose": "register", "captcha": captcha})),
        )
        .await;
    assert_eq!(s, 200);
    let code = c.code_from_outbox("ann@example.com", "register").await;
    assert_eq!(code.len(), 6);

    let reg = json!({"userName": "ann", "company": "Acme", "account": "ann@example.com", "code": code,
        "password": PW, "confirmPassword": PW, "country": "CN", "acceptTerms": true});
    let (s, body) = c.call("POST", "/auth/register", None, Some(reg)).await;
    assert_eq!(s, 201, "{body}");

    let (s, login) = c
        .call(
            "POST",
            "/auth/login/password",
            None,
            Some(json!({"account": "ann@example.com", "password": PW})),
        )
        .await;
    assert_eq!(s, 200, "{login}");
    let token = login["token"].as_str().unwrap().to_owned();

    let (s, info) = c.call("GET", "/auth/info", Some(&token), None).await;
    assert_eq!(s, 200);
    assert_eq!(info["userName"], "ann");
    assert_eq!(info["mail"], "an***@example.com");
    assert_eq!(info["isComplete"], false);

    let (s, info) = c
        .call(
            "PATCH",
            "/auth/info",
            Some(&token),
            Some(json!({"duty": "Engineer", "address": "1 Road"})),
        )
        .await;
    assert_eq!(s, 200, "{info}");
    assert_eq!(info["isComplete"], true);

    let (s, _) = c.call("POST", "/auth/logout", Some(&token), None).await;
    assert_eq!(s, 200);
    let (s, body) = c.call("GET", "/auth/info", Some(&token), None).await;
    assert_eq!(
        (s, body["reason"].as_str()),
        (401, Some("AUTHORIZATION_FAILED"))
    );

    // Ctrl-C stops it cleanly, and what it answered is still there after a restart.
    let mut server = server;
    let pid = server.child.id().to_string();
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(st) = server.child.try_wait().unwrap() {
            break st;
        }
        assert!(Instant::now() < deadline, "ciam did not stop on SIGINT");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "graceful exit: {status:?}");

    let server = start(&data, &[]).await;
    let c = Client {
        http: reqwest::Client::new(),
        base: server.base.clone(),
    };
    let (s, login) = c
        .call(
            "POST",
            "/auth/login/password",
            None,
            Some(json!({"account": "ann@example.com", "password": PW})),
        )
        .await;
    assert_eq!(s, 200, "the account survived the restart: {login}");
    let (s, info) = c
        .call("GET", "/auth/info", login["token"].as_str(), None)
        .await;
    assert_eq!((s, info["duty"].as_str()), (200, Some("Engineer")));
    drop(server);
    let _ = std::fs::remove_dir_all(data);
}

#[tokio::test]
async fn the_dev_outbox_can_be_turned_off() {
    let data = temp_dir("no-outbox");
    let server = start(&data, &["--no-dev-outbox"]).await;
    let res = reqwest::get(format!("{}/ciam/dev/outbox", server.base))
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 404);
    drop(server);
    let _ = std::fs::remove_dir_all(data);
}

#[tokio::test]
async fn the_console_can_be_turned_off() {
    for (flags, status) in [(&[][..], 401), (&["--no-console"][..], 404)] {
        let data = temp_dir("no-console");
        let server = start(&data, flags).await;
        for path in ["/ciam/v1/admin/me", "/ciam/v1/admin/overview"] {
            let res = reqwest::get(format!("{}{path}", server.base))
                .await
                .unwrap();
            assert_eq!(res.status().as_u16(), status, "{flags:?} {path}");
        }
        // The customer's API is the same either way.
        let res = reqwest::get(format!("{}/ciam/v1/version", server.base))
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), 200);
        drop(server);
        let _ = std::fs::remove_dir_all(data);
    }
}

#[tokio::test]
async fn the_secret_key_is_generated_once_and_kept_private() {
    let data = temp_dir("key");
    let first = ciam_local::load_or_create_keys(&data).unwrap();
    let again = ciam_local::load_or_create_keys(&data).unwrap();
    assert_eq!(first.derive("x"), again.derive("x"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(data.join("secret.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let _ = std::fs::remove_dir_all(data);
}

#[tokio::test]
async fn a_database_another_process_keeps_locked_answers_503_with_retry_after_not_a_hang() {
    let data = temp_dir("locked");
    let server = start(&data, &[]).await;
    let c = Client {
        http: reqwest::Client::new(),
        base: server.base.clone(),
    };
    let captcha = c.solved_captcha().await;
    // An admin command or a second server on the same folder holds the write lock.
    let lock = ciam_store::sqlite::WriteLock::hold(&data.join("ciam.db")).expect("the lock");
    let started = Instant::now();
    let res = c
        .http
        .post(format!("{}/ciam/v1/auth/identity", c.base))
        .json(&json!({"account": "bo@example.com", "purpose": "register", "captcha": captcha}))
        .send()
        .await
        .expect("an answer");
    let took = started.elapsed();
    assert_eq!(res.status().as_u16(), 503);
    assert_eq!(
        res.headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()),
        Some("1"),
        "{:?}",
        res.headers()
    );
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["reason"], "SERVICE_UNAVAILABLE", "{body}");
    let busy = ciam_store::sqlite::BUSY_TIMEOUT;
    assert!(took < busy + Duration::from_secs(3), "took {took:?}");

    // Once the lock is gone it serves again.
    drop(lock);
    let captcha = c.solved_captcha().await;
    let (s, body) = c
        .call(
            "POST",
            "/auth/identity",
            None,
            Some(json!({"account": "bo@example.com", "purpose": "register", "captcha": captcha})),
        )
        .await;
    assert_eq!(s, 200, "{body}");
    drop(server);
    let _ = std::fs::remove_dir_all(data);
}

#[test]
fn a_database_that_cannot_be_opened_stops_the_start_with_a_clear_message() {
    let data = temp_dir("cantopen");
    // A directory stands where the database file should be.
    std::fs::create_dir_all(data.join("ciam.db")).unwrap();
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_ciam"))
        .args(["serve", "--addr", "127.0.0.1:0", "--data"])
        .arg(&data)
        .args(["--web-dist", "/nonexistent-web-dist"])
        .env("CIAM_LOG", "warn")
        .output()
        .expect("ciam runs");
    assert!(!out.status.success(), "it must not serve without its store");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unavailable"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let _ = std::fs::remove_dir_all(data);
}

/// `--passkey-rp-id` and `--passkey-origin` must fit the public URL: on the default
/// http://127.0.0.1:<port> (an IP address, which no browser takes as RP ID) or with a RP ID that
/// is not the public host or a parent of it, the start fails and says what to pass.
#[test]
fn passkey_settings_that_do_not_fit_the_public_url_stop_the_start() {
    for (name, extra, expected) in [
        (
            "pk-ip",
            vec!["--passkey-rp-id", "localhost"],
            "an IP address cannot be an RP ID",
        ),
        (
            "pk-parent",
            vec![
                "--public-url",
                "http://localhost:8080",
                "--passkey-rp-id",
                "example.com",
            ],
            "parent domain",
        ),
        (
            "pk-origin",
            vec![
                "--public-url",
                "http://localhost:8080",
                "--passkey-origin",
                "not an origin",
            ],
            "origin does not parse",
        ),
    ] {
        let data = temp_dir(name);
        let out = Command::new(env!("CARGO_BIN_EXE_ciam"))
            .args(["serve", "--addr", "127.0.0.1:0", "--data"])
            .arg(&data)
            .args(["--web-dist", "/nonexistent-web-dist"])
            .args(&extra)
            .env("CIAM_LOG", "warn")
            .env_remove("CIAM_PUBLIC_URL")
            .env_remove("CIAM_PASSKEY_RP_ID")
            .env_remove("CIAM_PASSKEY_ORIGINS")
            .output()
            .expect("ciam runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{extra:?}: it must not start");
        assert!(err.contains(expected), "{extra:?}: {err}");
        assert!(err.contains("--public-url"), "{extra:?}: {err}");
        let _ = std::fs::remove_dir_all(data);
    }
}
