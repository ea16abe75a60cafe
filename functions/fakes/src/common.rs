//! What every fake shares: the next person, the fake's own clock, issued codes and tokens, the
//! call counters, and the control API (`/_control/*`) that tests and `ciam serve` drive. One
//! `State` per platform, so advancing WeCom's clock leaves WeChat's codes alone.

use axum::extract::{Request, State as AxState};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The person who "scans and approves" at the next authorize request (sticky until replaced,
/// so a test can sign the same person in many times). Every field has a default, so a control
/// body names only what it changes; the platform reads the fields its protocol has.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(default)]
pub struct Person {
    /// WeChat unionid, DingTalk unionId, Feishu union_id.
    pub unionid: String,
    /// The per-app id; derived from `unionid` and the app id when absent.
    pub openid: Option<String>,
    /// WeChat: `is_snapshotuser: 1` in the token answer (and 48001 from `sns/userinfo`).
    pub snapshot: bool,
    /// WeChat: the app is not bound to an Open Platform account, so no `unionid` is answered.
    pub unbound: bool,
    /// DingTalk corpId / Feishu tenant_key; the platform's registered corp when absent.
    pub corp: Option<String>,
    /// WeCom: a member of the corp (`userid`) or not (`openid`).
    pub member: bool,
    /// WeCom: inside the app's visible range; a member outside it still gets a `userid` but no
    /// `user_ticket` (path/96442).
    pub visible: bool,
    /// WeCom userid (members), DingTalk/Feishu user id.
    pub userid: String,
    /// Mainland number without the country code, as the platforms store it.
    pub phone: Option<String>,
    pub mail: Option<String>,
    pub nickname: String,
    /// Feishu: the person is inside the app's availability range (else 20010 at the token).
    pub available: bool,
    /// The person declines at the platform: the redirect carries no code.
    pub decline: bool,
}

impl Default for Person {
    fn default() -> Self {
        Person {
            unionid: "ofakeunion0001".into(),
            openid: None,
            snapshot: false,
            unbound: false,
            corp: None,
            member: true,
            visible: true,
            userid: "zhangsan".into(),
            phone: Some("13800138000".into()),
            mail: Some("zhangsan@example.com".into()),
            nickname: "张三".into(),
            available: true,
            decline: false,
        }
    }
}

impl Person {
    /// The per-app id of this person for `app`.
    pub fn openid_for(&self, app: &str) -> String {
        self.openid
            .clone()
            .unwrap_or_else(|| format!("op_{app}_{}", self.unionid))
    }
}

/// An authorization code as the platform remembers it.
#[derive(Clone, Debug)]
pub struct Grant {
    pub person: Person,
    pub app: String,
    pub scope: String,
    pub redirect_uri: String,
    pub challenge: Option<String>,
    pub issued_at: u64,
    pub used: bool,
}

/// Why a code was refused: the platforms tell these apart (WeChat 40029/40163/42003).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodeError {
    Unknown,
    Used,
    Expired,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// A person's token (WeChat web authorization, DingTalk, Feishu).
    User,
    /// WeCom's corp token (`gettoken`): revocable early through the control API.
    Corp,
    /// WeCom's `user_ticket`.
    Ticket,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub kind: TokenKind,
    pub person: Person,
    pub app: String,
    pub scope: String,
    pub issued_at: u64,
    pub ttl: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenError {
    Unknown,
    Expired,
}

#[derive(Default)]
struct Inner {
    offset: u64,
    down: Option<u16>,
    slow_ms: u64,
    calls: BTreeMap<String, u64>,
    person: Person,
    grants: HashMap<String, Grant>,
    tokens: HashMap<String, Token>,
}

/// One platform's fake: its person, clock, codes, tokens and counters.
pub struct State {
    /// Hosts a `redirect_uri` may point at (the registered callback domain).
    domains: Vec<String>,
    inner: Mutex<Inner>,
}

pub type Shared = Arc<State>;

/// 32 random hex characters: codes and tokens nobody can guess.
pub fn random_id() -> String {
    format!("{:032x}", rand::random::<u128>())
}

impl State {
    pub fn new(domains: &[String]) -> Shared {
        Arc::new(State {
            domains: domains.to_vec(),
            inner: Mutex::new(Inner::default()),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panicking handler must not wedge every later test: the data stays usable.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The fake's clock, in Unix seconds: the real time plus what `/_control/clock` added.
    pub fn now(&self) -> u64 {
        let real = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        real + self.lock().offset
    }

    pub fn advance(&self, secs: u64) {
        self.lock().offset += secs;
    }
    pub fn set_person(&self, person: Person) {
        self.lock().person = person;
    }
    pub fn person(&self) -> Person {
        self.lock().person.clone()
    }
    /// `Some(status)`: every protocol request answers that status; `None`: serve normally.
    pub fn set_down(&self, status: Option<u16>) {
        self.lock().down = status;
    }
    /// Every protocol request waits this long before it is served (0: no wait).
    pub fn set_slow(&self, ms: u64) {
        self.lock().slow_ms = ms;
    }
    /// Requests that reached `path` (as documented, without the platform prefix).
    pub fn calls(&self, path: &str) -> u64 {
        self.lock().calls.get(path).copied().unwrap_or(0)
    }
    pub fn all_calls(&self) -> BTreeMap<String, u64> {
        self.lock().calls.clone()
    }
    /// Revokes every corp token before its expiry (WeCom: "may be invalidated early").
    pub fn invalidate_corp_tokens(&self) -> usize {
        let mut inner = self.lock();
        let before = inner.tokens.len();
        inner.tokens.retain(|_, t| t.kind != TokenKind::Corp);
        before - inner.tokens.len()
    }

    /// Whether `redirect_uri` is an absolute URL on a registered domain.
    pub fn domain_ok(&self, redirect_uri: &str) -> bool {
        url::Url::parse(redirect_uri)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .is_some_and(|h| self.domains.iter().any(|d| d.eq_ignore_ascii_case(&h)))
    }

    pub fn issue_grant(
        &self,
        app: &str,
        scope: &str,
        redirect_uri: &str,
        challenge: Option<String>,
    ) -> String {
        let code = random_id();
        let now = self.now();
        let mut inner = self.lock();
        let grant = Grant {
            person: inner.person.clone(),
            app: app.into(),
            scope: scope.into(),
            redirect_uri: redirect_uri.into(),
            challenge,
            issued_at: now,
            used: false,
        };
        inner.grants.insert(code.clone(), grant);
        code
    }

    /// Redeems a code once: a second use, an unknown or an expired code is refused.
    pub fn take_grant(&self, code: &str, ttl: u64) -> Result<Grant, CodeError> {
        let now = self.now();
        let mut inner = self.lock();
        let grant = inner.grants.get_mut(code).ok_or(CodeError::Unknown)?;
        if grant.used {
            return Err(CodeError::Used);
        }
        grant.used = true;
        if now >= grant.issued_at + ttl {
            return Err(CodeError::Expired);
        }
        Ok(grant.clone())
    }

    pub fn issue_token(
        &self,
        kind: TokenKind,
        person: Person,
        app: &str,
        scope: &str,
        ttl: u64,
    ) -> String {
        let token = random_id();
        let issued_at = self.now();
        let t = Token {
            kind,
            person,
            app: app.into(),
            scope: scope.into(),
            issued_at,
            ttl,
        };
        self.lock().tokens.insert(token.clone(), t);
        token
    }

    pub fn token(&self, token: &str, kind: TokenKind) -> Result<Token, TokenError> {
        let now = self.now();
        let inner = self.lock();
        let t = inner
            .tokens
            .get(token)
            .filter(|t| t.kind == kind)
            .ok_or(TokenError::Unknown)?;
        if now >= t.issued_at + t.ttl {
            return Err(TokenError::Expired);
        }
        Ok(t.clone())
    }
}

/// A 302 to `redirect_uri` with `pairs` added to its query (the platform's way back).
pub fn redirect_back(redirect_uri: &str, pairs: &[(&str, &str)]) -> Response {
    let Ok(mut url) = url::Url::parse(redirect_uri) else {
        return page(StatusCode::BAD_REQUEST, "redirect_uri is not a URL");
    };
    {
        let mut q = url.query_pairs_mut();
        for (k, v) in pairs {
            q.append_pair(k, v);
        }
    }
    (
        StatusCode::FOUND,
        [(axum::http::header::LOCATION, url.to_string())],
    )
        .into_response()
}

/// The platform's error page (the person sees it; the browser never comes back).
pub fn page(status: StatusCode, text: &str) -> Response {
    (status, text.to_owned()).into_response()
}

/// Counts every protocol request by path, then applies the `down` and `slow` controls. The
/// control API itself is never counted, slowed or refused.
pub async fn gate(AxState(state): AxState<Shared>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_owned();
    if path.starts_with("/_control") {
        return next.run(req).await;
    }
    let (down, slow) = {
        let mut inner = state.lock();
        *inner.calls.entry(path).or_default() += 1;
        (inner.down, inner.slow_ms)
    };
    if slow > 0 {
        tokio::time::sleep(Duration::from_millis(slow)).await;
    }
    if let Some(status) = down {
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
        return (status, "fake is down").into_response();
    }
    next.run(req).await
}

#[derive(Deserialize)]
struct Down {
    /// Off with `false`; on by default, so `{}` takes the fake down.
    #[serde(default = "yes")]
    on: bool,
    #[serde(default = "five_oh_three")]
    status: u16,
}
fn yes() -> bool {
    true
}
fn five_oh_three() -> u16 {
    503
}

#[derive(Deserialize)]
struct Slow {
    ms: u64,
}

#[derive(Deserialize)]
struct Clock {
    advance_secs: u64,
}

/// The control API, the same on every fake.
pub fn control(state: Shared) -> Router {
    Router::new()
        .route(
            "/_control/next-user",
            post(
                |AxState(s): AxState<Shared>, Json(p): Json<Person>| async move {
                    s.set_person(p);
                    Json(json!({"ok": true}))
                },
            ),
        )
        .route(
            "/_control/down",
            post(
                |AxState(s): AxState<Shared>, Json(d): Json<Down>| async move {
                    s.set_down(d.on.then_some(d.status));
                    Json(json!({"ok": true}))
                },
            ),
        )
        .route(
            "/_control/slow",
            post(
                |AxState(s): AxState<Shared>, Json(b): Json<Slow>| async move {
                    s.set_slow(b.ms);
                    Json(json!({"ok": true}))
                },
            ),
        )
        .route(
            "/_control/invalidate-token",
            post(|AxState(s): AxState<Shared>| async move {
                Json(json!({"ok": true, "revoked": s.invalidate_corp_tokens()}))
            }),
        )
        .route(
            "/_control/clock",
            post(
                |AxState(s): AxState<Shared>, Json(c): Json<Clock>| async move {
                    s.advance(c.advance_secs);
                    Json(json!({"ok": true, "now": s.now()}))
                },
            ),
        )
        .route(
            "/_control/calls",
            get(|AxState(s): AxState<Shared>| async move { Json(s.all_calls()) }),
        )
        .with_state(state)
}

/// A platform's protocol routes plus the control API, behind the gate.
pub fn finish(protocol: Router<Shared>, state: Shared) -> Router {
    protocol
        .with_state(state.clone())
        .merge(control(state.clone()))
        .layer(axum::middleware::from_fn_with_state(state, gate))
}
