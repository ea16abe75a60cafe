//! Failed sign-in attempts on the console's account page (`ciam_core::attempts`,
//! docs/console-design.md §5): wrong passwords, sign-in codes and second factors, each with its
//! time, address, device and country, newest first; at most one slot a failure's number in its
//! count (so a guesser's repeats never pile up), kept as long as the security activity; on both
//! engines.

use crate::helpers::{json_request, TestApp, PASSWORD};
use crate::two_factor::{enrolled_in, MAIL as TFA_MAIL};
use axum::http::Method;
use ciam_core::console::Role;
use ciam_store::dynamo_local::DynamoLocal;
use serde_json::{json, Value};
use std::sync::Arc;

const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
const SAFARI: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

impl TestApp {
    /// `POST p` with `body` from a browser `ua` at `ip` in `country`.
    async fn post_from(&self, p: &str, body: &Value, ua: &str, ip: &str, country: &str) -> u16 {
        let mut req = json_request(Method::POST, p, None, body);
        let h = req.headers_mut();
        h.insert("user-agent", ua.parse().unwrap());
        h.insert(
            "cloudfront-viewer-address",
            format!("{ip}:443").parse().unwrap(),
        );
        h.insert("cloudfront-viewer-country", country.parse().unwrap());
        self.call(req).await.status.as_u16()
    }

    pub(crate) async fn failed_attempts(&self, operator: &str, user_id: &str) -> Vec<Value> {
        let page = self
            .admin_get(&format!("/admin/accounts/{user_id}"), operator)
            .await
            .ok(200);
        page["failedAttempts"]
            .as_array()
            .cloned()
            .expect("failedAttempts")
    }
}

fn ways(list: &[Value]) -> Vec<&str> {
    list.iter().map(|f| f["way"].as_str().unwrap()).collect()
}

async fn passwords_and_codes(app: TestApp) {
    let (_, operator) = app.staffer("desk", Some(Role::Viewer)).await;
    let mail = "ann@example.com";
    let ann = app.sign_up("annlee", mail).await;
    assert_eq!(
        app.failed_attempts(&operator, &ann).await,
        Vec::<Value>::new()
    );

    let wrong = json!({ "account": mail, "password": "Wr0ng!password" });
    assert_eq!(
        app.post_from("/auth/login/password", &wrong, CHROME, "203.0.113.7", "DE")
            .await,
        401
    );
    app.clock.advance(60);
    let code = json!({ "account": mail, "code": "000000" });
    assert_ne!(
        app.post_from("/auth/login/code", &code, SAFARI, "2001:db8::5", "CN")
            .await,
        200
    );
    let t0 = app.now();

    let list = app.failed_attempts(&operator, &ann).await;
    assert_eq!(ways(&list), ["code", "password"], "newest first: {list:?}");
    assert_eq!(
        list[0],
        json!({ "at": t0, "way": "code", "ip": "2001:db8::5", "device": "Safari on iPhone", "country": "CN" })
    );
    assert_eq!(
        list[1],
        json!({ "at": t0 - 60, "way": "password", "ip": "203.0.113.7", "device": "Chrome on Windows", "country": "DE" })
    );

    // A right password records nothing, and the failures stay listed after it.
    app.clock.advance(60);
    app.sign_in(mail, PASSWORD).await;
    assert_eq!(app.failed_attempts(&operator, &ann).await.len(), 2);

    // A guesser repeating wrong passwords through lock after lock: never more than five kept
    // for the mail's count (a slot per failure's number in it), the latest ones.
    for round in 0..3 {
        for _ in 0..5 {
            app.post_from("/auth/login/password", &wrong, CHROME, "198.51.100.9", "US")
                .await;
            app.clock.advance(1);
        }
        app.clock.advance(ciam_core::lock::LOCK_SECS + round);
    }
    // The console's idle time is over by now: a desk signs in again.
    let (_, operator) = app.staffer("desk2", Some(Role::Viewer)).await;
    let list = app.failed_attempts(&operator, &ann).await;
    assert_eq!(list.len(), 5, "{list:?}");
    assert!(list.iter().all(|f| f["ip"] == "198.51.100.9"), "{list:?}");
    let newest = list[0]["at"].as_i64().unwrap();
    assert!(
        newest > app.now() - ciam_core::lock::LOCK_SECS - 10,
        "{list:?}"
    );

    // Kept as long as the security activity, then gone.
    app.clock.advance(ciam_core::audit::KEEP_SECS + 1);
    let (_, operator) = app.staffer("desk3", Some(Role::Viewer)).await;
    assert_eq!(
        app.failed_attempts(&operator, &ann).await,
        Vec::<Value>::new()
    );
}

#[tokio::test]
async fn wrong_passwords_and_codes_are_listed_with_their_address_and_device_and_capped() {
    passwords_and_codes(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_wrong_passwords_and_codes_are_listed_with_their_address_and_device_and_capped()
{
    let local = Arc::new(DynamoLocal::start().await);
    passwords_and_codes(TestApp::on_dynamo(&local, "failed").await).await;
}

async fn second_factor(app: TestApp) {
    let e = enrolled_in(app).await;
    let (_, operator) = e.app.staffer("desk", Some(Role::Viewer)).await;
    let user_id = e.app.owner_of(TFA_MAIL).await.expect("the account");
    let challenge = e.challenge().await;
    let body = json!({ "challenge": challenge, "code": "000000" });
    let status = e
        .app
        .post_from("/auth/login/totp", &body, CHROME, "203.0.113.8", "FR")
        .await;
    assert_eq!(status, 400, "TOTP_VERIFY_FAILED");
    let list = e.app.failed_attempts(&operator, &user_id).await;
    assert_eq!(ways(&list), ["secondFactor"], "{list:?}");
    assert_eq!(list[0]["ip"], "203.0.113.8");
    assert_eq!(list[0]["device"], "Chrome on Windows");
}

#[tokio::test]
async fn a_wrong_second_factor_is_listed() {
    let app = TestApp::spawn().await;
    second_factor(app).await;
}

#[tokio::test]
async fn on_dynamodb_a_wrong_second_factor_is_listed() {
    let local = Arc::new(DynamoLocal::start().await);
    second_factor(TestApp::on_dynamo(&local, "failed2f").await).await;
}
