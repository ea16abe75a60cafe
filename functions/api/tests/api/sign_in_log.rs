//! The sign-in outcome line (docs/operations.md metric `Ciam/SignIn`): every request to a sign-in
//! route logs exactly one `sign-in` line with its outcome and method, in the JSON the Lambdas
//! write, and nothing that names the person or their address.

use crate::helpers::{json_request, TestApp, NEW_PASSWORD, PASSWORD};
use crate::two_factor::enrolled_in;
use axum::http::Method;
use serde_json::{json, Value};
use std::io;
use std::sync::{Arc, Mutex};
use tracing::subscriber::DefaultGuard;

/// The log of this test's thread, as JSON lines (the `#[tokio::test]` runtime runs every request
/// on it).
struct Log {
    lines: Arc<Mutex<Vec<u8>>>,
    _guard: DefaultGuard,
}

#[derive(Clone)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl io::Write for Sink {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0.lock().expect("log lock").extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Log {
    fn capture() -> Log {
        ciam_core::testing::ask_each_thread();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let sink = Sink(lines.clone());
        let subscriber = tracing_subscriber::fmt()
            .json()
            .with_max_level(tracing::Level::INFO)
            .with_writer(move || sink.clone())
            .finish();
        // The global subscriber keeps every callsite's interest "sometimes", so this thread's
        // subscriber is asked for each event whichever thread reached the callsite first.
        let guard = tracing::subscriber::set_default(subscriber);
        Log {
            lines,
            _guard: guard,
        }
    }

    /// The lines since the last call, parsed.
    fn lines(&self) -> Vec<Value> {
        let bytes = std::mem::take(&mut *self.lines.lock().expect("log lock"));
        let text = String::from_utf8(bytes).expect("UTF-8 log");
        text.lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect()
    }

    /// The `(outcome, method)` of each sign-in line since the last call. Each line must carry
    /// exactly those fields, and none of `private` anywhere (span fields included).
    fn take(&self, private: &[&str]) -> Vec<(String, String)> {
        let bytes = std::mem::take(&mut *self.lines.lock().expect("log lock"));
        let text = String::from_utf8(bytes).expect("UTF-8 log");
        let mut out = Vec::new();
        for line in text.lines() {
            let v: Value = serde_json::from_str(line).expect("a JSON line");
            if v["fields"]["message"] != "sign-in" {
                continue;
            }
            assert_eq!(v["level"], "INFO", "{line}");
            let mut names: Vec<&str> = v["fields"]
                .as_object()
                .expect("fields")
                .keys()
                .map(String::as_str)
                .collect();
            names.sort_unstable();
            assert_eq!(names, ["message", "method", "outcome"], "{line}");
            for p in private {
                assert!(!line.contains(p), "{p} in {line}");
            }
            let s = |k: &str| v["fields"][k].as_str().expect("a string").to_owned();
            out.push((s("outcome"), s("method")));
        }
        out
    }
}

fn one(outcome: &str, method: &str) -> Vec<(String, String)> {
    vec![(outcome.to_owned(), method.to_owned())]
}

const MAIL: &str = "ann@example.com";
/// What a line must never hold: the account, its user name, the password, the client's address.
const PRIVATE: &[&str] = &[MAIL, "annlee", PASSWORD, NEW_PASSWORD, "203.0.113.9"];

#[tokio::test]
async fn every_password_sign_in_logs_one_line_with_its_outcome() {
    let log = Log::capture();
    let app = TestApp::spawn().await;
    app.sign_up("annlee", MAIL).await;
    log.take(&[]);

    let from = |body: Value| {
        let mut req = json_request(Method::POST, "/auth/login/password", None, &body);
        req.headers_mut().insert(
            "x-forwarded-for",
            "203.0.113.9".parse().expect("a header value"),
        );
        req
    };
    app.call(from(json!({ "account": MAIL, "password": PASSWORD })))
        .await
        .ok(200);
    assert_eq!(log.take(PRIVATE), one("success", "password"));

    app.call(from(json!({ "account": MAIL, "password": NEW_PASSWORD })))
        .await
        .error(401, "PASSWORD_ERROR");
    assert_eq!(log.take(PRIVATE), one("PASSWORD_ERROR", "password"));

    app.login_password("nobody@example.com", PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");
    assert_eq!(log.take(PRIVATE), one("PASSWORD_ERROR", "password"));

    // A body refused before the handler runs is an outcome too.
    app.call(from(json!({ "account": MAIL })))
        .await
        .error(400, "INVALID_PARAMETER");
    assert_eq!(log.take(PRIVATE), one("INVALID_PARAMETER", "password"));

    for _ in 0..4 {
        app.login_password(MAIL, NEW_PASSWORD).await;
    }
    app.login_password(MAIL, PASSWORD)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    let lines = log.take(PRIVATE);
    assert_eq!(lines.len(), 5, "one line a request: {lines:?}");
    assert_eq!(
        lines.last(),
        Some(&("VERIFICATION_ATTEMPT_CODE_LIMIT".into(), "password".into()))
    );

    // Another HTTP method on the route is not a sign-in attempt; other routes log none.
    let get = crate::helpers::request(Method::GET, "/auth/login/password")
        .body(axum::body::Body::empty())
        .expect("request");
    app.call(get).await.error(405, "METHOD_NOT_ALLOWED");
    app.get_location(&[]).await.ok(200);
    assert_eq!(log.take(PRIVATE), vec![]);
}

#[tokio::test]
async fn code_sign_ins_log_success_and_the_code_refusal() {
    let log = Log::capture();
    let app = TestApp::spawn().await;
    app.sign_up("annlee", MAIL).await;
    let code = app.fresh_code(MAIL, "login").await;
    log.take(&[]);

    app.login_code(MAIL, &crate::helpers::wrong_code(&code))
        .await
        .error(400, "CODE_ERROR");
    assert_eq!(log.take(PRIVATE), one("CODE_ERROR", "code"));
    app.login_code(MAIL, &code).await.ok(200);
    assert_eq!(log.take(PRIVATE), one("success", "code"));
}

#[tokio::test]
async fn the_two_factor_steps_log_need_totp_verify_then_their_own_outcome() {
    let log = Log::capture();
    let e = enrolled_in(TestApp::spawn().await).await;
    log.take(&[]);
    let private = ["tfa@example.com", PASSWORD];

    let challenge = e.challenge().await;
    assert_eq!(log.take(&private), one("NEED_TOTP_VERIFY", "password"));

    e.app
        .login_totp(&challenge, "000000")
        .await
        .error(400, "TOTP_VERIFY_FAILED");
    assert_eq!(log.take(&private), one("TOTP_VERIFY_FAILED", "totp"));
    e.next_step();
    e.app.login_totp(&challenge, &e.code()).await.ok(200);
    assert_eq!(log.take(&private), one("success", "totp"));

    // The backup-code second step counts as `totp` too.
    let challenge = e.challenge().await;
    log.take(&private);
    e.app
        .unlock_code(&challenge, "00000000")
        .await
        .error(400, "UNLOCKCODE_NOT_FOUND");
    assert_eq!(log.take(&private), one("UNLOCKCODE_NOT_FOUND", "totp"));
    e.app.unlock_code(&challenge, &e.backup[0]).await.ok(200);
    assert_eq!(log.take(&private), one("success", "totp"));
}

#[tokio::test]
async fn staff_sign_ins_log_success_and_a_refused_code() {
    let log = Log::capture();
    let app = TestApp::spawn().await;
    let user_id = app.sign_up("annlee", MAIL).await;
    // Linked to a company identity, as the staff callback leaves an account.
    app.ciam
        .store
        .update(
            &ciam_core::user::profile_key(&user_id),
            vec![ciam_store::Update::Set(
                "eiamUid".into(),
                "staff-sub".into(),
            )],
            None,
        )
        .await
        .expect("linked");
    let bind = "a-browser-binding-of-enough-length-0123456789";
    let code = ciam_core::staff::issue_login_code(
        &app.ciam,
        &user_id,
        &ciam_core::staff::bind_hash(bind),
        false,
    )
    .await
    .expect("a login code");
    log.take(&[]);
    let redeem = |code: String| {
        json_request(
            Method::POST,
            "/auth/login/staff",
            None,
            &json!({ "code": code, "bind": bind }),
        )
    };

    app.call(redeem(code.clone())).await.ok(200);
    assert_eq!(log.take(PRIVATE), one("success", "staff"));
    app.call(redeem(code))
        .await
        .error(401, "AUTHORIZATION_FAILED");
    assert_eq!(log.take(PRIVATE), one("AUTHORIZATION_FAILED", "staff"));
}

/// A sign-in the store turned away (issue 20): its own outcome, `unavailable`, never the refusal
/// of a secret; the store fault has its own line with its kind.
#[tokio::test]
async fn a_sign_in_meeting_a_store_fault_logs_unavailable_and_the_faults_kind() {
    use ciam_store::faults::{Fault, Faults, Op};
    let log = Log::capture();
    let faults = Faults::new();
    let app = crate::faults::app_with(&faults).await;
    app.sign_up("annlee", MAIL).await;
    log.take(&[]);

    for (fault, kind) in [
        (Fault::TxThrottled, "throttled"),
        (Fault::TxConflict, "conflict"),
        (Fault::ServerError, "unavailable"),
    ] {
        faults.inject(Op::Put, fault, 1);
        app.login_password(MAIL, PASSWORD)
            .await
            .error(503, "SERVICE_UNAVAILABLE");
        let lines = log.lines();
        let outcomes: Vec<_> = lines
            .iter()
            .filter(|v| v["fields"]["message"] == "sign-in")
            .map(|v| {
                (
                    v["fields"]["outcome"].clone(),
                    v["fields"]["method"].clone(),
                )
            })
            .collect();
        assert_eq!(outcomes, [(json!("unavailable"), json!("password"))]);
        let store: Vec<_> = lines
            .iter()
            .filter(|v| v["fields"]["message"] == "store fault")
            .collect();
        assert_eq!(store.len(), 1, "{lines:?}");
        assert_eq!(store[0]["level"], "WARN");
        assert_eq!(store[0]["fields"]["store_kind"], kind);
        assert_eq!(store[0]["fields"]["reason"], "SERVICE_UNAVAILABLE");
    }
    app.sign_in(MAIL, PASSWORD).await;
}

/// The `response` line (`middleware`) is left out on the sign-in routes, whose outcome line says
/// how the request ended (docs/cost.md: each line is paid for), success or refusal; every other
/// route keeps it, with its status.
#[tokio::test]
async fn sign_in_routes_log_their_outcome_line_and_no_response_line() {
    let log = Log::capture();
    let app = TestApp::spawn().await;
    app.sign_up("annlee", MAIL).await;
    log.lines();
    let messages = |lines: Vec<Value>| -> Vec<String> {
        lines
            .iter()
            .filter_map(|v| v["fields"]["message"].as_str().map(str::to_owned))
            .filter(|m| m == "sign-in" || m == "response")
            .collect()
    };
    let token = app.sign_in(MAIL, PASSWORD).await;
    assert_eq!(messages(log.lines()), ["sign-in"]);
    app.login_password(MAIL, NEW_PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");
    assert_eq!(messages(log.lines()), ["sign-in"]);
    app.get_info(&token).await.ok(200);
    let lines = log.lines();
    let response: Vec<&Value> = lines
        .iter()
        .filter(|v| v["fields"]["message"] == "response")
        .collect();
    assert_eq!(response.len(), 1, "{lines:?}");
    assert_eq!(response[0]["fields"]["status"], 200);
}
