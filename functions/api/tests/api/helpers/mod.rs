//! The `TestApp`: every /ciam/v1 route in process over a fresh in-memory store, a clock the test
//! moves by hand, and an outbox that captures the codes sent (and fails on demand). One method
//! per endpoint, so a test reads as the client's conversation with the API. Split by concern:
//! this file holds the app, its responses, sign-up and sign-in; `outbox`, `two_factor`, `account`
//! and `apps` the rest. The store spy and the application builder are core's test kit
//! (`ciam_core::testing`).

mod account;
mod apps;
pub mod contract;
pub mod federation;
pub mod org_connections;
pub mod orgs;
mod outbox;
mod passkeys;
mod two_factor;

pub use account::BinaryResponse;
pub use apps::url_encode;
pub use outbox::Outbox;

use async_trait::async_trait;
use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use base64::Engine;
use ciam_core::testing::{Builder, SpyStore};
use ciam_core::user::{profile_key, unique_key, user_pk, username_pk, User};
use ciam_core::validate::Identity;
use ciam_core::{Ciam, CodeMessage, Config, ManualClock, NoticeMessage, Notifier, SendError};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::sqlite::SqliteStore;
use ciam_store::{Item, Query, Store};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tower::ServiceExt;

/// The clock's start: an ordinary weekday morning, far from any UTC day boundary.
pub const START: i64 = 1_800_000_000;
/// Meets every rule of spec §5 and is not a common password.
pub const PASSWORD: &str = "Str0ng!Passw0rd";
pub const NEW_PASSWORD: &str = "An0ther#Secret9";

/// What came back: status, headers and the body as text (parsed on demand).
#[derive(Debug)]
pub struct TestResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub text: String,
}

impl TestResponse {
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", self.status, self.text))
    }

    pub fn reason(&self) -> String {
        self.json()["reason"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// Asserts the status and returns the JSON body.
    #[track_caller]
    pub fn ok(&self, status: u16) -> Value {
        assert_eq!(self.status.as_u16(), status, "body: {}", self.text);
        self.json()
    }

    /// Asserts an error body `{reason, message, code}` with this status and reason.
    #[track_caller]
    pub fn error(&self, status: u16, reason: &str) -> Value {
        let body = self.json();
        assert_eq!(
            (self.status.as_u16(), body["reason"].as_str()),
            (status, Some(reason)),
            "body: {}",
            self.text
        );
        assert_eq!(body["code"], json!(status), "code mirrors the status");
        assert!(body["message"].is_string(), "a message: {}", self.text);
        body
    }
}

#[derive(Clone)]
pub struct TestApp {
    router: axum::Router,
    pub ciam: Ciam,
    pub clock: ManualClock,
    pub store: Arc<SpyStore>,
    pub outbox: Arc<Outbox>,
}

pub fn path(p: &str) -> String {
    format!("{}{p}", ciam_api::BASE)
}

/// A request builder for `p` under /ciam/v1.
pub fn request(method: Method, p: &str) -> axum::http::request::Builder {
    Request::builder().method(method).uri(path(p))
}

/// `request`, with `Authorization: Bearer <token>` when there is a token.
pub fn request_as(method: Method, p: &str, token: Option<&str>) -> axum::http::request::Builder {
    let b = request(method, p);
    match token {
        Some(t) => b.header("authorization", format!("Bearer {t}")),
        None => b,
    }
}

pub fn json_request(method: Method, p: &str, token: Option<&str>, body: &Value) -> Request<Body> {
    request_as(method, p, token)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .expect("request")
}

/// The ALTCHA payload a widget would send for `challenge` with `number` and `signature`.
pub fn captcha_payload(challenge: &Value, number: u64, signature: &str) -> String {
    let payload = json!({
        "algorithm": "SHA-256",
        "challenge": challenge["challenge"],
        "number": number,
        "salt": challenge["salt"],
        "signature": signature,
    });
    base64::engine::general_purpose::STANDARD.encode(payload.to_string())
}

/// Solves a challenge the way the browser does: by brute force up to `maxnumber`.
pub fn solve(challenge: &Value) -> u64 {
    altcha_lib_rs::solve_challenge(
        challenge["challenge"].as_str().expect("challenge"),
        challenge["salt"].as_str().expect("salt"),
        None,
        challenge["maxnumber"].as_u64(),
        0,
    )
    .expect("the challenge is solvable")
}

/// A code that is valid in form but not the one sent.
pub fn wrong_code(code: &str) -> String {
    let n: u32 = code.parse().expect("six digits");
    format!("{:06}", (n + 1) % 1_000_000)
}

pub fn registration(user_name: &str, account: &str, code: &str) -> Value {
    json!({
        "userName": user_name,
        "company": "Acme Robotics",
        "account": account,
        "code": code,
        "password": PASSWORD,
        "confirmPassword": PASSWORD,
        "country": "CN",
        "acceptTerms": true,
    })
}

pub fn new_user_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

impl TestApp {
    pub async fn spawn() -> TestApp {
        Self::spawn_on(|clock| {
            Box::pin(async move {
                let store: Arc<dyn Store> =
                    Arc::new(SqliteStore::in_memory(Arc::new(clock)).expect("in-memory store"));
                store
            })
        })
        .await
    }

    /// The same app over another engine (the races are run on DynamoDB Local too).
    pub async fn spawn_on(
        make: impl FnOnce(
            ManualClock,
        )
            -> std::pin::Pin<Box<dyn std::future::Future<Output = Arc<dyn Store>> + Send>>,
    ) -> TestApp {
        Self::spawn_with(make, Config::default()).await
    }

    /// The app on table `table` of DynamoDB Local (the production engine).
    pub async fn on_dynamo(local: &Arc<DynamoLocal>, table: &str) -> TestApp {
        Self::on_dynamo_with(local, table, Config::default()).await
    }

    /// [`TestApp::on_dynamo`] with `config`.
    pub async fn on_dynamo_with(local: &Arc<DynamoLocal>, table: &str, config: Config) -> TestApp {
        let (local, table) = (local.clone(), table.to_owned());
        Self::spawn_with(
            move |clock| {
                Box::pin(async move {
                    let store: Arc<dyn Store> =
                        Arc::new(local.store(&table, Arc::new(clock)).await);
                    store
                })
            },
            config,
        )
        .await
    }

    /// The app on `make`'s store with `config` (its captcha made easy, as everywhere here).
    pub async fn spawn_with(
        make: impl FnOnce(
            ManualClock,
        )
            -> std::pin::Pin<Box<dyn std::future::Future<Output = Arc<dyn Store>> + Send>>,
        config: Config,
    ) -> TestApp {
        ciam_core::testing::ask_each_thread();
        let builder = Builder::new(START);
        let clock = builder.clock();
        let store = Arc::new(SpyStore::new(make(clock.clone()).await));
        store.ensure_schema().await.expect("schema");
        let outbox = Arc::new(Outbox::default());
        let ciam = builder
            .store(store.clone())
            .notifier(outbox.clone())
            .config(Config {
                captcha_max_number: 1000,
                ..config
            })
            .build()
            .await;
        TestApp {
            router: ciam_api::router(ciam.clone()),
            ciam,
            clock,
            store,
            outbox,
        }
    }

    pub fn now(&self) -> i64 {
        use ciam_core::Clock;
        self.clock.now()
    }

    pub async fn call(&self, req: Request<Body>) -> TestResponse {
        self.call_binary(req).await.as_text()
    }

    /// The answer with its body as bytes (an image), not text.
    pub async fn call_binary(&self, req: Request<Body>) -> BinaryResponse {
        call_router(self.router.clone(), req).await
    }

    /// A JSON request. A change under `/admin/apps` (the registry's, which the console audits
    /// with a reason) gets `"reason": "test"` when its body has none: the tests of what a
    /// change does send one; console_gate.rs checks the refusal without one (`admin_call`).
    pub(crate) async fn send_json(
        &self,
        method: Method,
        p: &str,
        token: Option<&str>,
        body: &Value,
    ) -> TestResponse {
        let body = if p.starts_with("/admin/apps") && method != Method::GET {
            apps::with_reason(body)
        } else {
            body.clone()
        };
        self.call(json_request(method, p, token, &body)).await
    }

    pub(crate) async fn get(&self, p: &str, token: Option<&str>) -> TestResponse {
        let req = request_as(Method::GET, p, token).body(Body::empty());
        self.call(req.expect("request")).await
    }

    // ---- one method per endpoint ----

    pub async fn get_location(&self, headers: &[(&str, &str)]) -> TestResponse {
        let mut b = request(Method::GET, "/auth/location");
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        self.call(b.body(Body::empty()).expect("request")).await
    }

    pub async fn get_captcha(&self) -> TestResponse {
        self.get("/auth/captcha", None).await
    }

    pub async fn post_identity(&self, body: &Value) -> TestResponse {
        self.send_json(Method::POST, "/auth/identity", None, body)
            .await
    }

    pub async fn post_register(&self, body: &Value) -> TestResponse {
        self.send_json(Method::POST, "/auth/register", None, body)
            .await
    }

    pub async fn login_password(&self, account: &str, password: &str) -> TestResponse {
        let body = json!({ "account": account, "password": password });
        self.send_json(Method::POST, "/auth/login/password", None, &body)
            .await
    }

    pub async fn login_code(&self, account: &str, code: &str) -> TestResponse {
        let body = json!({ "account": account, "code": code });
        self.send_json(Method::POST, "/auth/login/code", None, &body)
            .await
    }

    pub async fn get_info(&self, token: &str) -> TestResponse {
        self.get("/auth/info", Some(token)).await
    }

    pub async fn patch_info(&self, token: &str, body: &Value) -> TestResponse {
        self.send_json(Method::PATCH, "/auth/info", Some(token), body)
            .await
    }

    pub async fn patch_pwd(&self, token: Option<&str>, body: &Value) -> TestResponse {
        self.send_json(Method::PATCH, "/auth/pwd", token, body)
            .await
    }

    pub async fn logout(&self, token: &str) -> TestResponse {
        self.send_json(Method::POST, "/auth/logout", Some(token), &json!({}))
            .await
    }

    pub async fn get_openapi(&self) -> TestResponse {
        self.get("/openapi.json", None).await
    }

    // ---- steps built from the endpoints ----

    /// A fresh challenge, solved.
    pub async fn solved_captcha(&self) -> String {
        let ch = self.get_captcha().await.ok(200);
        let n = solve(&ch);
        captcha_payload(&ch, n, ch["signature"].as_str().expect("signature"))
    }

    /// Solves a captcha and asks for a code; returns the response.
    pub async fn send_code(&self, account: &str, purpose: &str) -> TestResponse {
        let captcha = self.solved_captcha().await;
        self.post_identity(&json!({ "account": account, "purpose": purpose, "captcha": captcha }))
            .await
    }

    #[track_caller]
    pub fn code_for(&self, account: &str, purpose: &str) -> String {
        self.outbox
            .last_code(account, purpose)
            .unwrap_or_else(|| panic!("no {purpose} code was sent to {account}"))
    }

    /// Sends a code and returns it.
    pub async fn fresh_code(&self, account: &str, purpose: &str) -> String {
        self.send_code(account, purpose).await.ok(200);
        self.code_for(account, purpose)
    }

    /// The whole sign-up; returns the new user id.
    pub async fn sign_up(&self, user_name: &str, account: &str) -> String {
        let code = self.fresh_code(account, "register").await;
        let body = self
            .post_register(&registration(user_name, account, &code))
            .await
            .ok(201);
        body["userId"].as_str().expect("userId").to_owned()
    }

    /// Signs in by password; returns the token.
    pub async fn sign_in(&self, account: &str, password: &str) -> String {
        let body = self.login_password(account, password).await.ok(200);
        body["token"].as_str().expect("token").to_owned()
    }

    // ---- the store, for what the API does not show ----

    /// Writes a user as the domain would: the profile and the items that hold its mail, phone
    /// and username.
    pub async fn seed_user(&self, user: &User) {
        let owner = |pk: String| Item::new(unique_key(pk)).with("userId", user.id.as_str());
        let mut items = vec![user.to_item(), owner(username_pk(&user.user_name))];
        items.extend(user.identities().iter().map(|i| owner(i.unique_pk())));
        for item in items {
            self.store.put(item, None).await.expect("seed");
        }
    }

    pub async fn user_item(&self, user_id: &str) -> Option<Item> {
        self.store.get(&profile_key(user_id)).await.expect("get")
    }

    /// The owner recorded for an identity (`MAIL#…`, `PHONE#…`) or a username, if any.
    pub async fn owner_of(&self, account: &str) -> Option<String> {
        let pk = match Identity::parse(account) {
            Ok(id) => id.unique_pk(),
            Err(_) => username_pk(account),
        };
        self.store
            .get(&unique_key(pk))
            .await
            .expect("get")
            .and_then(|i| i.s("userId").map(str::to_owned))
    }

    pub async fn sessions_of(&self, user_id: &str) -> Vec<Item> {
        self.store
            .query(Query::partition(user_pk(user_id)).prefix("SESSION#"))
            .await
            .expect("query")
    }
}

/// Sends `req` to `router` and checks the exchange against docs/openapi.json
/// ([`contract::check`]): every request of the suite goes through here.
pub async fn call_router(router: axum::Router, req: Request<Body>) -> BinaryResponse {
    let (parts, body) = req.into_parts();
    let sent = body.collect().await.expect("request body").to_bytes();
    let (method, uri, sent_headers) = (
        parts.method.clone(),
        parts.uri.clone(),
        parts.headers.clone(),
    );
    let req = Request::from_parts(parts, Body::from(sent.clone()));
    let res = router.oneshot(req).await.expect("infallible");
    let status = res.status();
    let headers = res.headers().clone();
    let bytes = res
        .into_body()
        .collect()
        .await
        .expect("readable body")
        .to_bytes()
        .to_vec();
    contract::check(&contract::Exchange {
        method: &method,
        uri: &uri,
        request_headers: &sent_headers,
        request_body: &sent,
        status,
        response_headers: &headers,
        response_body: &bytes,
    });
    BinaryResponse {
        status,
        headers,
        bytes,
    }
}

pub async fn password_hash(pw: &str) -> String {
    ciam_core::password::hash(pw.to_owned(), [9; 16])
        .await
        .expect("hash")
}

impl TestApp {
    /// The same app and store with other keys (as a function in AWS holds only its purposes').
    pub fn with_keys(mut self, keys: ciam_core::Keys) -> TestApp {
        self.ciam.keys = keys;
        self.router = ciam_api::router(self.ciam.clone());
        self
    }

    /// The same app with a changed configuration (e.g. the staff identity provider).
    pub fn configure(mut self, change: impl FnOnce(&mut Config)) -> TestApp {
        change(&mut self.ciam.config);
        self.router = ciam_api::router(self.ciam.clone());
        self
    }
}
