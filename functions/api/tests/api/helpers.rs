//! The `TestApp`: every /ciam/v1 route in process over a fresh in-memory store, a clock the test
//! moves by hand, and an outbox that captures the codes sent (and fails on demand). One method
//! per endpoint, so a test reads as the client's conversation with the API.

use async_trait::async_trait;
use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use base64::Engine;
use ciam_core::user::{profile_key, unique_key, user_pk, username_pk, User};
use ciam_core::validate::Identity;
use ciam_core::{Ciam, CodeMessage, Config, Keys, ManualClock, NoticeMessage, Notifier, OsEntropy};
use ciam_store::sqlite::SqliteStore;
use ciam_store::{Cond, Item, Key, Query, Store, StoreError, TxOp, Update};
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

/// The capturing `Notifier`: keeps every code sent, or refuses to deliver while `failing`.
#[derive(Default)]
pub struct Outbox {
    sent: Mutex<Vec<CodeMessage>>,
    notices: Mutex<Vec<NoticeMessage>>,
    failing: AtomicBool,
}

impl Outbox {
    pub fn fail_deliveries(&self, fail: bool) {
        self.failing.store(fail, Ordering::SeqCst);
    }

    pub fn notices(&self) -> Vec<NoticeMessage> {
        self.notices.lock().expect("outbox lock").clone()
    }

    pub fn messages(&self) -> Vec<CodeMessage> {
        self.sent.lock().expect("outbox lock").clone()
    }

    /// The latest code sent to `account` for `purpose`, if any.
    pub fn last_code(&self, account: &str, purpose: &str) -> Option<String> {
        let to = Identity::parse(account).expect("a valid account");
        self.messages()
            .into_iter()
            .rev()
            .find(|m| m.to == to && m.purpose.as_str() == purpose)
            .map(|m| m.code)
    }
}

#[async_trait]
impl Notifier for Outbox {
    async fn send_code(&self, msg: &CodeMessage) -> Result<(), String> {
        if self.failing.load(Ordering::SeqCst) {
            return Err("smtp relay unreachable".into());
        }
        self.sent.lock().expect("outbox lock").push(msg.clone());
        Ok(())
    }

    async fn send_notice(&self, msg: &NoticeMessage) -> Result<(), String> {
        if self.failing.load(Ordering::SeqCst) {
            return Err("smtp relay unreachable".into());
        }
        self.notices.lock().expect("outbox lock").push(msg.clone());
        Ok(())
    }
}

/// The SQLite engine, plus a record of every key a successful write touched, so tests can see
/// what a request left behind (and how often it wrote).
pub struct SpyStore {
    inner: Arc<dyn Store>,
    writes: Mutex<Vec<Key>>,
    /// Conditional updates that applied through `update_or_current` (sign-in attempts taken).
    taken: Mutex<Vec<Key>>,
}

impl SpyStore {
    fn record<T>(&self, keys: Vec<Key>, r: &Result<T, StoreError>) {
        if r.is_ok() {
            self.writes.lock().expect("spy lock").extend(keys);
        }
    }

    pub fn written(&self) -> Vec<Key> {
        self.writes.lock().expect("spy lock").clone()
    }

    /// How many `update_or_current` calls applied (each sign-in attempt taken is one).
    pub fn taken(&self) -> usize {
        self.taken.lock().expect("spy lock").len()
    }
}

#[async_trait]
impl Store for SpyStore {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        self.inner.get(key).await
    }
    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Option<Item>>, StoreError> {
        self.inner.get_many(keys).await
    }
    async fn put(&self, item: Item, cond: Option<Cond>) -> Result<(), StoreError> {
        let key = item.key.clone();
        let r = self.inner.put(item, cond).await;
        self.record(vec![key], &r);
        r
    }
    async fn update(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
    ) -> Result<Item, StoreError> {
        let r = self.inner.update(key, ops, cond).await;
        self.record(vec![key.clone()], &r);
        r
    }
    async fn update_or_current(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
    ) -> Result<Result<Item, Option<Item>>, StoreError> {
        let r = self.inner.update_or_current(key, ops, cond).await;
        if let Ok(Ok(_)) = &r {
            self.writes.lock().expect("spy lock").push(key.clone());
            self.taken.lock().expect("spy lock").push(key.clone());
        }
        r
    }
    async fn delete(&self, key: &Key, cond: Option<Cond>) -> Result<(), StoreError> {
        let r = self.inner.delete(key, cond).await;
        self.record(vec![key.clone()], &r);
        r
    }
    async fn transact(&self, ops: Vec<TxOp>) -> Result<(), StoreError> {
        let keys = ops.iter().map(|o| o.key().clone()).collect();
        let r = self.inner.transact(ops).await;
        self.record(keys, &r);
        r
    }
    async fn query(&self, q: Query) -> Result<Vec<Item>, StoreError> {
        self.inner.query(q).await
    }
    async fn ensure_schema(&self) -> Result<(), StoreError> {
        self.inner.ensure_schema().await
    }
}

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

pub fn json_request(method: Method, p: &str, token: Option<&str>, body: &Value) -> Request<Body> {
    let mut b = request(method, p).header("content-type", "application/json");
    if let Some(t) = token {
        b = b.header("authorization", format!("Bearer {t}"));
    }
    b.body(Body::from(body.to_string())).expect("request")
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
        ciam_core::testing::ask_each_thread();
        let clock = ManualClock::new(START);
        let inner = make(clock.clone()).await;
        let store = Arc::new(SpyStore {
            inner,
            writes: Mutex::new(Vec::new()),
            taken: Mutex::new(Vec::new()),
        });
        store.ensure_schema().await.expect("schema");
        let outbox = Arc::new(Outbox::default());
        let ciam = Ciam {
            store: store.clone(),
            clock: Arc::new(clock.clone()),
            entropy: Arc::new(OsEntropy),
            keys: Keys::from_root([7; 32]),
            notifier: outbox.clone(),
            blobs: Arc::new(ciam_core::MemoryBlobs::default()),
            config: Config {
                captcha_max_number: 1000,
                ..Config::default()
            },
        };
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
        let res = self.router.clone().oneshot(req).await.expect("infallible");
        let status = res.status();
        let headers = res.headers().clone();
        let bytes = res
            .into_body()
            .collect()
            .await
            .expect("readable body")
            .to_bytes();
        TestResponse {
            status,
            headers,
            text: String::from_utf8_lossy(&bytes).into_owned(),
        }
    }

    async fn send_json(
        &self,
        method: Method,
        p: &str,
        token: Option<&str>,
        body: &Value,
    ) -> TestResponse {
        self.call(json_request(method, p, token, body)).await
    }

    async fn get(&self, p: &str, token: Option<&str>) -> TestResponse {
        let mut b = request(Method::GET, p);
        if let Some(t) = token {
            b = b.header("authorization", format!("Bearer {t}"));
        }
        self.call(b.body(Body::empty()).expect("request")).await
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

pub async fn password_hash(pw: &str) -> String {
    ciam_core::password::hash(pw.to_owned(), [9; 16])
        .await
        .expect("hash")
}

/// The two-factor endpoints.
impl TestApp {
    pub async fn get_totp_url(&self, token: &str) -> TestResponse {
        self.get("/auth/totp/url", Some(token)).await
    }

    pub async fn totp_enable(&self, token: &str, code: &str) -> TestResponse {
        self.send_json(
            Method::POST,
            "/auth/totp/enable",
            Some(token),
            &serde_json::json!({ "code": code }),
        )
        .await
    }

    pub async fn totp_verify(&self, token: &str, body: &Value) -> TestResponse {
        self.send_json(Method::POST, "/auth/totp/verify", Some(token), body)
            .await
    }

    pub async fn totp_backup_codes(&self, token: &str) -> TestResponse {
        self.send_json(
            Method::POST,
            "/auth/totp/backupCodes",
            Some(token),
            &serde_json::json!({}),
        )
        .await
    }

    pub async fn totp_disable(&self, token: &str) -> TestResponse {
        self.send_json(
            Method::POST,
            "/auth/totp/disable",
            Some(token),
            &serde_json::json!({}),
        )
        .await
    }

    pub async fn login_totp(&self, challenge: &str, code: &str) -> TestResponse {
        let body = serde_json::json!({ "challenge": challenge, "code": code });
        self.send_json(Method::POST, "/auth/login/totp", None, &body)
            .await
    }

    pub async fn unlock_code(&self, challenge: &str, code: &str) -> TestResponse {
        let body = serde_json::json!({ "challenge": challenge, "code": code });
        self.send_json(Method::POST, "/auth/unlockCode", None, &body)
            .await
    }
}

/// The account-change endpoints.
impl TestApp {
    pub async fn patch_advertisement(&self, token: &str, value: &str) -> TestResponse {
        let body = serde_json::json!({ "advertisement": value });
        self.send_json(Method::PATCH, "/auth/advertisement", Some(token), &body)
            .await
    }

    pub async fn patch_mail(&self, token: &str, mail: &str, code: &str) -> TestResponse {
        let body = serde_json::json!({ "mail": mail, "code": code });
        self.send_json(Method::PATCH, "/auth/mail", Some(token), &body)
            .await
    }

    pub async fn patch_phone(&self, token: &str, phone: &str, code: &str) -> TestResponse {
        let body = serde_json::json!({ "phone": phone, "code": code });
        self.send_json(Method::PATCH, "/auth/phone", Some(token), &body)
            .await
    }

    pub async fn deactivate(&self, token: &str, body: &Value) -> TestResponse {
        self.send_json(Method::PATCH, "/auth/deactivation", Some(token), body)
            .await
    }
}

/// The owner's-view endpoints.
impl TestApp {
    pub async fn get_privacy(&self, token: &str) -> TestResponse {
        self.get("/auth/privacy", Some(token)).await
    }

    pub async fn patch_privacy(&self, token: &str, body: &Value) -> TestResponse {
        self.send_json(Method::PATCH, "/auth/privacy", Some(token), body)
            .await
    }

    pub async fn get_sessions(&self, token: &str) -> TestResponse {
        self.get("/auth/sessions", Some(token)).await
    }

    pub async fn delete_session(&self, token: &str, id: &str) -> TestResponse {
        let req = request(Method::DELETE, &format!("/auth/sessions/{id}"))
            .header("authorization", format!("Bearer {token}"))
            .body(Body::empty())
            .expect("request");
        self.call(req).await
    }

    pub async fn get_activity(&self, token: &str) -> TestResponse {
        self.get("/auth/activity", Some(token)).await
    }

    pub async fn get_recent_apps(&self, token: &str) -> TestResponse {
        self.get("/auth/apps", Some(token)).await
    }

    pub async fn get_apps(&self, language: &str) -> TestResponse {
        self.get(&format!("/app/language/{language}"), None).await
    }

    /// Signs in by password as a given browser from a given country.
    pub async fn sign_in_from(
        &self,
        account: &str,
        password: &str,
        ua: &str,
        country: &str,
    ) -> String {
        let req = Request::builder()
            .method(Method::POST)
            .uri(path("/auth/login/password"))
            .header("content-type", "application/json")
            .header("user-agent", ua)
            .header("cloudfront-viewer-country", country)
            .body(Body::from(
                json!({ "account": account, "password": password }).to_string(),
            ))
            .expect("request");
        let body = self.call(req).await.ok(200);
        body["token"].as_str().expect("token").to_owned()
    }
}

/// A response whose body is bytes (an image), not text.
#[derive(Debug)]
pub struct BinaryResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub bytes: Vec<u8>,
}

impl BinaryResponse {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    /// The body as an error response, for the checks of `TestResponse`.
    pub fn as_text(&self) -> TestResponse {
        TestResponse {
            status: self.status,
            headers: self.headers.clone(),
            text: String::from_utf8_lossy(&self.bytes).into_owned(),
        }
    }
}

/// The avatar endpoints.
impl TestApp {
    /// `PATCH /auth/avatar` with the image as the body, its Content-Length, and the declared
    /// content type if any.
    pub async fn patch_avatar(
        &self,
        token: Option<&str>,
        bytes: Vec<u8>,
        content_type: Option<&str>,
    ) -> TestResponse {
        let mut b = request(Method::PATCH, "/auth/avatar").header("content-length", bytes.len());
        if let Some(t) = token {
            b = b.header("authorization", format!("Bearer {t}"));
        }
        if let Some(ct) = content_type {
            b = b.header("content-type", ct);
        }
        self.call(b.body(Body::from(bytes)).expect("request")).await
    }

    /// `GET` of an avatar path as `UserInfo.avatar` gives it (`/ciam/v1/avatar/<key>`).
    pub async fn get_avatar(&self, full_path: &str) -> BinaryResponse {
        let req = Request::builder()
            .method(Method::GET)
            .uri(full_path)
            .body(Body::empty())
            .expect("request");
        let res = self.router.clone().oneshot(req).await.expect("infallible");
        let status = res.status();
        let headers = res.headers().clone();
        let bytes = res
            .into_body()
            .collect()
            .await
            .expect("readable body")
            .to_bytes()
            .to_vec();
        BinaryResponse {
            status,
            headers,
            bytes,
        }
    }
}

/// The partner-app endpoints: the registry (admins) and tickets.
impl TestApp {
    /// Gives an account the admin role, as `ciam admin grant` does.
    pub async fn make_admin(&self, mail: &str) {
        ciam_core::apps::grant_admin(self.store.as_ref(), mail)
            .await
            .expect("grant admin");
    }

    /// A signed-up admin's session token.
    pub async fn admin_token(&self) -> String {
        self.sign_up("admin", "admin@example.com").await;
        self.make_admin("admin@example.com").await;
        self.sign_in("admin@example.com", PASSWORD).await
    }

    pub async fn list_registry(&self, token: &str) -> TestResponse {
        self.get("/app", Some(token)).await
    }

    pub async fn create_app(&self, token: &str, body: &Value) -> TestResponse {
        self.send_json(Method::POST, "/app", Some(token), body)
            .await
    }

    pub async fn get_app(&self, token: &str, app_id: &str) -> TestResponse {
        self.get(&format!("/app/{app_id}"), Some(token)).await
    }

    pub async fn patch_app(&self, token: &str, app_id: &str, body: &Value) -> TestResponse {
        self.send_json(Method::PATCH, &format!("/app/{app_id}"), Some(token), body)
            .await
    }

    pub async fn delete_app(&self, token: &str, app_id: &str) -> TestResponse {
        let req = request(Method::DELETE, &format!("/app/{app_id}"))
            .header("authorization", format!("Bearer {token}"))
            .body(Body::empty())
            .expect("request");
        self.call(req).await
    }

    pub async fn issue_ticket(&self, token: &str, app_id: &str, service_url: &str) -> TestResponse {
        let body = json!({ "appId": app_id, "serviceUrl": service_url });
        self.send_json(Method::POST, "/auth/login/token", Some(token), &body)
            .await
    }

    /// Redeems a ticket with the app's credentials in the query string.
    pub async fn verify_ticket(
        &self,
        app_id: &str,
        secret: &str,
        ticket: &str,
        service_url: &str,
    ) -> TestResponse {
        let enc = |s: &str| url_encode(s);
        let p = format!(
            "/auth/login/token/verify?appId={}&appSecret={}&cTicket={}&serviceUrl={}",
            enc(app_id),
            enc(secret),
            enc(ticket),
            enc(service_url)
        );
        self.get(&p, None).await
    }

    /// Redeems a ticket with the app's credentials by HTTP Basic.
    pub async fn verify_ticket_basic(
        &self,
        app_id: &str,
        secret: &str,
        ticket: &str,
        service_url: &str,
    ) -> TestResponse {
        let p = format!(
            "/auth/login/token/verify?cTicket={}&serviceUrl={}",
            url_encode(ticket),
            url_encode(service_url)
        );
        let basic = base64::engine::general_purpose::STANDARD.encode(format!("{app_id}:{secret}"));
        let req = request(Method::GET, &p)
            .header("authorization", format!("Basic {basic}"))
            .body(Body::empty())
            .expect("request");
        self.call(req).await
    }
}

/// Percent-encodes everything but unreserved characters.
pub fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The consent endpoints.
impl TestApp {
    /// `GET /auth/consent`; `query` is the raw query string (so tests can omit or mangle it).
    pub async fn get_consent_raw(&self, token: &str, query: &str, lang: &str) -> TestResponse {
        let req = request(Method::GET, &format!("/auth/consent?{query}"))
            .header("authorization", format!("Bearer {token}"))
            .header("accept-language", lang)
            .body(Body::empty())
            .expect("request");
        self.call(req).await
    }

    /// `GET /auth/consent` for an app and a service URL (encoded), in zh-CN.
    pub async fn get_consent(&self, token: &str, app_id: &str, service_url: &str) -> TestResponse {
        let q = format!(
            "appId={}&serviceUrl={}",
            url_encode(app_id),
            url_encode(service_url)
        );
        self.get_consent_raw(token, &q, "zh-CN").await
    }

    pub async fn get_consents(&self, token: &str, lang: &str) -> TestResponse {
        let req = request(Method::GET, "/auth/consents")
            .header("authorization", format!("Bearer {token}"))
            .header("accept-language", lang)
            .body(Body::empty())
            .expect("request");
        self.call(req).await
    }

    pub async fn delete_consent(&self, token: &str, app_id: &str) -> TestResponse {
        let req = request(Method::DELETE, &format!("/auth/consents/{app_id}"))
            .header("authorization", format!("Bearer {token}"))
            .body(Body::empty())
            .expect("request");
        self.call(req).await
    }
}

impl TestApp {
    /// The same app with a changed configuration (e.g. the staff identity provider).
    pub fn configure(mut self, change: impl FnOnce(&mut Config)) -> TestApp {
        change(&mut self.ciam.config);
        self.router = ciam_api::router(self.ciam.clone());
        self
    }
}
