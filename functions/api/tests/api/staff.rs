//! Staff sign-in federated to the company's OpenID Connect provider: the rules, against a small
//! stand-in provider served in process (discovery, token endpoint with client_secret_basic and
//! PKCE, userinfo). The browser flow against a real provider (`oidc-provider`) is
//! web/tests/e2e/staff.test.mjs.

use crate::helpers::*;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use ciam_core::staff::StaffIdp;
use ciam_core::user::User;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

const CLIENT_ID: &str = "ciam";
const CLIENT_SECRET: &str = "s3cret:&=";
pub(crate) const STAFF_MAIL: &str = "li.lei@staff.ciam.example";
/// The random value the SPA keeps in sessionStorage while the browser is at the provider.
const BIND: &str = "bind-of-the-browser-that-started-0123456789";

/// What the stand-in provider will say about the next person to sign in.
#[derive(Clone)]
pub(crate) struct Person {
    sub: String,
    email: Option<String>,
    /// Put the mail in the id_token (else only userinfo has it).
    mail_in_id_token: bool,
    /// Tamper with the id_token.
    tamper: Option<(&'static str, Value)>,
    /// The `email_verified` of the id_token (with the mail) and of userinfo; null leaves it out.
    id_token_verified: Value,
    userinfo_verified: Value,
}

pub(crate) fn staff(sub: &str, email: &str) -> Person {
    Person {
        sub: sub.into(),
        email: Some(email.into()),
        mail_in_id_token: true,
        tamper: None,
        id_token_verified: json!(true),
        userinfo_verified: json!(true),
    }
}

struct Grant {
    person: Person,
    nonce: String,
    challenge: String,
    redirect_uri: String,
}

#[derive(Clone)]
struct Idp {
    issuer: String,
    now: Arc<dyn Fn() -> i64 + Send + Sync>,
    grants: Arc<Mutex<HashMap<String, Grant>>>,
    tokens: Arc<Mutex<HashMap<String, Person>>>,
    /// Endpoints the discovery document names instead of its own.
    endpoints: Arc<Mutex<HashMap<&'static str, String>>>,
}

async fn discovery(State(idp): State<Idp>) -> Response {
    let mut doc = json!({
        "issuer": idp.issuer,
        "authorization_endpoint": format!("{}/auth", idp.issuer),
        "token_endpoint": format!("{}/token", idp.issuer),
        "userinfo_endpoint": format!("{}/me", idp.issuer),
    });
    for (k, v) in idp.endpoints.lock().unwrap().iter() {
        doc[*k] = json!(v);
    }
    axum::Json(doc).into_response()
}

/// Sets `claims[name]` to `v`, or leaves it out when `v` is null.
fn set_or_omit(claims: &mut Value, name: &str, v: &Value) {
    if v.is_null() {
        claims.as_object_mut().unwrap().remove(name);
    } else {
        claims[name] = v.clone();
    }
}

fn form(body: &str) -> HashMap<String, String> {
    url::form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect()
}

async fn token(State(idp): State<Idp>, headers: HeaderMap, body: String) -> Response {
    let refuse =
        |e: &str| (StatusCode::BAD_REQUEST, axum::Json(json!({ "error": e }))).into_response();
    let basic = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .and_then(|b| STANDARD.decode(b).ok())
        .and_then(|b| String::from_utf8(b).ok());
    let expected = format!("{CLIENT_ID}:{}", url_encode(CLIENT_SECRET));
    if basic.as_deref() != Some(expected.as_str()) {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({ "error": "invalid_client" })),
        )
            .into_response();
    }
    let f = form(&body);
    if f.get("grant_type").map(String::as_str) != Some("authorization_code") {
        return refuse("unsupported_grant_type");
    }
    let Some(grant) = f
        .get("code")
        .and_then(|c| idp.grants.lock().unwrap().remove(c))
    else {
        return refuse("invalid_grant");
    };
    let verifier = f.get("code_verifier").cloned().unwrap_or_default();
    if ciam_core::staff::pkce_challenge(&verifier) != grant.challenge
        || f.get("redirect_uri") != Some(&grant.redirect_uri)
    {
        return refuse("invalid_grant");
    }
    let p = &grant.person;
    let mut claims = json!({
        "iss": idp.issuer,
        "aud": CLIENT_ID,
        "sub": p.sub,
        "nonce": grant.nonce,
        "iat": (idp.now)(),
        "exp": (idp.now)() + 300,
        "name": "Li Lei",
    });
    if p.mail_in_id_token {
        claims["email"] = json!(p.email);
        set_or_omit(&mut claims, "email_verified", &p.id_token_verified);
    }
    if let Some((k, v)) = &p.tamper {
        claims[*k] = v.clone();
    }
    let part = |v: &Value| URL_SAFE_NO_PAD.encode(v.to_string());
    let id_token = format!("{}.{}.sig", part(&json!({ "alg": "RS256" })), part(&claims));
    let access = format!("at-{}", grant.nonce);
    idp.tokens.lock().unwrap().insert(access.clone(), p.clone());
    axum::Json(json!({ "id_token": id_token, "access_token": access, "token_type": "Bearer" }))
        .into_response()
}

async fn userinfo(State(idp): State<Idp>, headers: HeaderMap) -> Response {
    let at = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    match idp.tokens.lock().unwrap().get(at) {
        Some(p) => {
            let mut claims = json!({ "sub": p.sub, "email": p.email });
            set_or_omit(&mut claims, "email_verified", &p.userinfo_verified);
            axum::Json(claims).into_response()
        }
        None => StatusCode::UNAUTHORIZED.into_response(),
    }
}

/// The Ciam app with staff sign-in configured, and its stand-in provider.
pub(crate) struct Staff {
    pub(crate) app: TestApp,
    idp: Idp,
}

impl Staff {
    async fn spawn() -> Staff {
        Self::spawn_with(TestApp::spawn().await).await
    }

    /// The same over the engine of `app` (dynamo.rs passes one on DynamoDB Local).
    pub(crate) async fn spawn_with(app: TestApp) -> Staff {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        // A path of its own under the port: the adapter keeps discovery documents per issuer for
        // the life of the process, and a port of an ended test may serve a later one.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let tag = format!(
            "idp{}",
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let issuer = format!("http://{}/{tag}", listener.local_addr().unwrap());
        let app = app.configure(|c| {
            c.public_url = "https://id.ciam.example".into();
            c.staff_idp = Some(StaffIdp {
                issuer: issuer.clone(),
                client_id: CLIENT_ID.into(),
                client_secret: CLIENT_SECRET.into(),
            });
        });
        let clock = app.clock.clone();
        let idp = Idp {
            issuer,
            now: Arc::new(move || {
                use ciam_core::Clock;
                clock.now()
            }),
            grants: Arc::default(),
            tokens: Arc::default(),
            endpoints: Arc::default(),
        };
        let router = axum::Router::new().nest(
            &format!("/{tag}"),
            axum::Router::new()
                .route("/.well-known/openid-configuration", get(discovery))
                .route("/token", post(token))
                .route("/me", get(userinfo))
                .with_state(idp.clone()),
        );
        tokio::spawn(async move { axum::serve(listener, router).await });
        Staff { app, idp }
    }

    async fn get(&self, p: &str) -> TestResponse {
        self.app
            .call(request(Method::GET, p).body(Body::empty()).unwrap())
            .await
    }

    /// `GET /auth/staff/start` from the browser holding [`BIND`]: the provider's authorization
    /// request, as query parameters.
    async fn start(&self, q: &str) -> HashMap<String, String> {
        let res = self.get(&start_path(q)).await;
        assert_eq!(res.status, StatusCode::FOUND, "{}", res.text);
        let to = header(&res, "location");
        let (endpoint, query) = to.split_once('?').expect("a query");
        assert_eq!(endpoint, format!("{}/auth", self.idp.issuer));
        form(query)
    }

    /// The person signs in at the provider, which sends the browser back with a code.
    fn consent(&self, auth: &HashMap<String, String>, person: Person) -> String {
        let code = format!("code-{}", auth["state"]);
        self.idp.grants.lock().unwrap().insert(
            code.clone(),
            Grant {
                person,
                nonce: auth["nonce"].clone(),
                challenge: auth["code_challenge"].clone(),
                redirect_uri: auth["redirect_uri"].clone(),
            },
        );
        format!(
            "/auth/staff/callback?code={}&state={}",
            url_encode(&code),
            url_encode(&auth["state"])
        )
    }

    /// The callback's redirect.
    async fn callback(&self, p: &str) -> String {
        let res = self.get(p).await;
        assert_eq!(res.status, StatusCode::FOUND, "{}", res.text);
        assert_eq!(header(&res, "cache-control"), "no-store");
        header(&res, "location").to_owned()
    }

    /// A whole staff sign-in up to the SPA's sign-in URL.
    pub(crate) async fn sign_in_at_idp(&self, person: Person) -> String {
        let auth = self.start("lang=en-US").await;
        let back = self.consent(&auth, person);
        self.callback(&back).await
    }

    pub(crate) async fn redeem(&self, code: &str) -> TestResponse {
        self.redeem_with(code, BIND).await
    }

    /// Redeems the code from a browser holding `bind`.
    async fn redeem_with(&self, code: &str, bind: &str) -> TestResponse {
        self.app
            .call(json_request(
                Method::POST,
                "/auth/login/staff",
                None,
                &json!({ "code": code, "bind": bind }),
            ))
            .await
    }
}

/// `/auth/staff/start?<q>&bindHash=<hash of BIND>`.
fn start_path(q: &str) -> String {
    format!(
        "/auth/staff/start?{q}&bindHash={}",
        ciam_core::staff::bind_hash(BIND)
    )
}

fn header<'a>(res: &'a TestResponse, name: &str) -> &'a str {
    res.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

pub(crate) fn staff_code(location: &str) -> String {
    let q = location.split_once('?').expect("a query").1;
    form(q)
        .get("staffCode")
        .cloned()
        .unwrap_or_else(|| panic!("no staffCode: {location}"))
}

#[tokio::test]
async fn without_a_configured_provider_start_goes_back_with_unavailable() {
    let app = TestApp::spawn().await;
    let res = app
        .call(
            request(
                Method::GET,
                "/auth/staff/start?lang=en-US&query=appId%3Da1%26serviceUrl%3Dhttps%3A%2F%2Fp.example%2Fcb",
            )
            .body(Body::empty())
            .unwrap(),
        )
        .await;
    assert_eq!(res.status, StatusCode::FOUND);
    assert_eq!(
        header(&res, "location"),
        "/en-US/passport/signin?staffError=UNAVAILABLE&appId=a1&serviceUrl=https://p.example/cb"
    );
}

#[tokio::test]
async fn without_a_public_url_start_goes_back_with_unavailable() {
    // A deployment whose CIAM_PUBLIC_URL is unset has no callback to offer the provider.
    let app = TestApp::spawn().await.configure(|c| {
        c.public_url = String::new();
        c.staff_idp = Some(StaffIdp {
            issuer: "https://idp.example.com".into(),
            client_id: CLIENT_ID.into(),
            client_secret: CLIENT_SECRET.into(),
        });
    });
    let res = app
        .call(
            request(
                Method::GET,
                &format!(
                    "/auth/staff/start?lang=zh-CN&bindHash={}&query=",
                    "A".repeat(43)
                ),
            )
            .body(Body::empty())
            .unwrap(),
        )
        .await;
    assert_eq!(res.status, StatusCode::FOUND);
    assert_eq!(
        header(&res, "location"),
        "/zh-CN/passport/signin?staffError=UNAVAILABLE"
    );
}

#[tokio::test]
async fn a_first_sign_in_creates_an_internal_account_and_a_second_finds_it() {
    staff_linking(Staff::spawn().await).await;
}

/// The linking flow on the engine of `s` (run on DynamoDB Local by dynamo.rs): the first sign-in
/// creates the internal account, the login code and the state work once, the second sign-in lands
/// in the same account.
pub(crate) async fn staff_linking(s: Staff) {
    let auth = s
        .start("lang=en-US&query=appId%3Da1%26serviceUrl%3Dhttps%3A%2F%2Fp.example%2Fcb%3Fx%3D1")
        .await;
    assert_eq!(auth["response_type"], "code");
    assert_eq!(auth["client_id"], CLIENT_ID);
    assert_eq!(auth["scope"], "openid email profile");
    assert_eq!(auth["code_challenge_method"], "S256");
    assert_eq!(
        auth["redirect_uri"],
        "https://id.ciam.example/ciam/v1/auth/staff/callback"
    );
    assert!(auth["state"].len() >= 43 && auth["nonce"].len() >= 43);

    let back = s.consent(&auth, staff("E-1", STAFF_MAIL));
    let to = s.callback(&back).await;
    assert!(
        to.starts_with("/en-US/passport/signin?staffCode=")
            && to.ends_with("&appId=a1&serviceUrl=https://p.example/cb?x=1"),
        "{to}"
    );
    let code = staff_code(&to);
    let signed_in = s.redeem(&code).await.ok(200);
    let token = signed_in["token"].as_str().unwrap();
    let info = s.app.get_info(token).await.ok(200);
    assert_eq!(info["isEiamUser"], json!(true));
    assert_eq!(info["tag"]["eiamUid"], json!("E-1"));
    assert_eq!(info["userName"], json!("li.lei"));
    assert_eq!(info["displayName"], json!("Li Lei"));
    let user_id = signed_in["userId"].as_str().unwrap().to_owned();
    assert_eq!(
        s.app.owner_of(STAFF_MAIL).await.as_deref(),
        Some(user_id.as_str())
    );
    assert_eq!(
        s.app.owner_of("li.lei").await.as_deref(),
        Some(user_id.as_str())
    );

    // The login code and the state work once.
    s.redeem(&code).await.error(401, "AUTHORIZATION_FAILED");
    let replay = s.callback(&back).await;
    assert_eq!(
        replay,
        "/zh-CN/passport/signin?staffError=AUTHORIZATION_FAILED"
    );

    // No password yet: the password sign-in says so.
    s.app
        .login_password(STAFF_MAIL, PASSWORD)
        .await
        .error(403, "EIAM_PASSWORD_UNSET");

    // The second sign-in lands in the same account.
    let again = s.sign_in_at_idp(staff("E-1", STAFF_MAIL)).await;
    let second = s.redeem(&staff_code(&again)).await.ok(200);
    assert_eq!(second["userId"], json!(user_id));
}

#[tokio::test]
async fn the_mail_may_come_from_userinfo() {
    let s = Staff::spawn().await;
    let to = s
        .sign_in_at_idp(Person {
            mail_in_id_token: false,
            ..staff("E-2", "han.mei@staff.ciam.example")
        })
        .await;
    let token = s.redeem(&staff_code(&to)).await.ok(200)["token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        s.app.get_info(&token).await.ok(200)["isEiamUser"],
        json!(true)
    );
}

#[tokio::test]
async fn an_existing_account_with_the_mail_is_linked_unless_it_is_someone_elses() {
    let s = Staff::spawn().await;
    let unlinked = User {
        id: new_user_id(),
        user_name: "lilei".into(),
        mail: Some(STAFF_MAIL.into()),
        pwd_hash: Some(password_hash(PASSWORD).await),
        ..User::default()
    };
    s.app.seed_user(&unlinked).await;
    let to = s.sign_in_at_idp(staff("E-3", STAFF_MAIL)).await;
    let signed_in = s.redeem(&staff_code(&to)).await.ok(200);
    assert_eq!(signed_in["userId"], json!(unlinked.id));
    let item = s.app.user_item(&unlinked.id).await.unwrap();
    assert_eq!(item.s("eiamUid"), Some("E-3"));

    // Another company identity with the same mail (a reassigned address) is refused.
    let to = s.sign_in_at_idp(staff("E-4", STAFF_MAIL)).await;
    assert_eq!(
        to,
        "/en-US/passport/signin?staffError=EIAM_MAIL_PERMISSION_DENIED"
    );
}

#[tokio::test]
async fn only_company_mail_is_accepted() {
    let s = Staff::spawn().await;
    let to = s.sign_in_at_idp(staff("E-5", "li@gmail.example")).await;
    assert_eq!(to, "/en-US/passport/signin?staffError=EIAM_INVALID_MAIL");
    assert_eq!(s.app.owner_of("li@gmail.example").await, None);
    let none = Person {
        email: None,
        ..staff("E-6", "")
    };
    let to = s.sign_in_at_idp(none).await;
    assert_eq!(to, "/en-US/passport/signin?staffError=EIAM_INVALID_MAIL");
}

#[tokio::test]
async fn an_id_token_for_another_audience_issuer_nonce_or_time_is_refused() {
    let s = Staff::spawn().await;
    let now = s.app.now();
    for (claim, value) in [
        ("aud", json!("someone-else")),
        ("aud", json!([CLIENT_ID, "other"])),
        ("iss", json!("https://evil.example")),
        ("nonce", json!("replayed-nonce")),
        ("exp", json!(now - 120)),
        ("sub", json!("")),
    ] {
        let to = s
            .sign_in_at_idp(Person {
                tamper: Some((claim, value.clone())),
                ..staff("E-7", STAFF_MAIL)
            })
            .await;
        assert_eq!(
            to, "/en-US/passport/signin?staffError=AUTHORIZATION_FAILED",
            "{claim}: {value}"
        );
    }
    assert_eq!(s.app.owner_of(STAFF_MAIL).await, None);
}

#[tokio::test]
async fn states_and_login_codes_expire() {
    let s = Staff::spawn().await;
    let auth = s.start("lang=zh-CN").await;
    let back = s.consent(&auth, staff("E-8", STAFF_MAIL));
    s.app.clock.advance(601);
    assert_eq!(
        s.callback(&back).await,
        "/zh-CN/passport/signin?staffError=AUTHORIZATION_FAILED"
    );

    let to = s.sign_in_at_idp(staff("E-8", STAFF_MAIL)).await;
    s.app.clock.advance(61);
    s.redeem(&staff_code(&to))
        .await
        .error(401, "AUTHORIZATION_FAILED");
    s.redeem("").await.error(400, "INVALID_PARAMETER");
}

#[tokio::test]
async fn a_refusal_at_the_provider_goes_back_with_the_query() {
    let s = Staff::spawn().await;
    let auth = s.start("lang=en-US&query=appId%3Da1").await;
    let to = s
        .callback(&format!(
            "/auth/staff/callback?error=access_denied&state={}",
            url_encode(&auth["state"])
        ))
        .await;
    assert_eq!(
        to,
        "/en-US/passport/signin?staffError=AUTHORIZATION_FAILED&appId=a1"
    );
}

#[tokio::test]
async fn with_two_factor_on_the_code_leads_to_the_second_step_like_a_password() {
    let s = Staff::spawn().await;
    let user = User {
        id: new_user_id(),
        user_name: "lilei".into(),
        mail: Some(STAFF_MAIL.into()),
        eiam_uid: Some("E-9".into()),
        enable_totp: true,
        ..User::default()
    };
    s.app.seed_user(&user).await;
    let to = s.sign_in_at_idp(staff("E-9", STAFF_MAIL)).await;
    let body = s
        .redeem(&staff_code(&to))
        .await
        .error(403, "NEED_TOTP_VERIFY");
    assert!(body["challenge"].as_str().is_some_and(|c| c.len() >= 32));
    assert!(s.app.sessions_of(&user.id).await.is_empty());
}

#[tokio::test]
async fn a_login_code_only_works_in_the_browser_that_started_the_sign_in() {
    let s = Staff::spawn().await;
    let user = User {
        id: new_user_id(),
        user_name: "lilei".into(),
        mail: Some(STAFF_MAIL.into()),
        eiam_uid: Some("E-10".into()),
        ..User::default()
    };
    s.app.seed_user(&user).await;
    // The attacker's own sign-in, its staffCode URL sent to a victim whose browser holds
    // another bind (or none): refused, and the code is used up.
    let to = s.sign_in_at_idp(staff("E-10", STAFF_MAIL)).await;
    let code = staff_code(&to);
    s.redeem_with(&code, "bind-of-the-victims-browser")
        .await
        .error(401, "AUTHORIZATION_FAILED");
    s.redeem(&code).await.error(401, "AUTHORIZATION_FAILED");
    // The hash itself is not the bind.
    let to = s.sign_in_at_idp(staff("E-10", STAFF_MAIL)).await;
    s.redeem_with(&staff_code(&to), &ciam_core::staff::bind_hash(BIND))
        .await
        .error(401, "AUTHORIZATION_FAILED");
    // No bind at all is a bad request.
    let to = s.sign_in_at_idp(staff("E-10", STAFF_MAIL)).await;
    let body = s
        .redeem_with(&staff_code(&to), "")
        .await
        .error(400, "INVALID_PARAMETER");
    assert!(body.to_string().contains("bind"), "{body}");
    let res = s
        .app
        .call(json_request(
            Method::POST,
            "/auth/login/staff",
            None,
            &json!({ "code": staff_code(&to) }),
        ))
        .await;
    assert_eq!(res.status, StatusCode::BAD_REQUEST, "{}", res.text);
    assert!(s.app.sessions_of(&user.id).await.is_empty());
    // The right bind signs in.
    let to = s.sign_in_at_idp(staff("E-10", STAFF_MAIL)).await;
    let signed_in = s.redeem(&staff_code(&to)).await.ok(200);
    assert_eq!(signed_in["userId"], json!(user.id));
}

#[tokio::test]
async fn start_needs_the_hash_of_the_browsers_bind() {
    let s = Staff::spawn().await;
    for bad in [
        String::new(),
        "&bindHash=".into(),
        "&bindHash=short".into(),
        format!("&bindHash={}", "+".repeat(43)),
    ] {
        let res = s
            .get(&format!(
                "/auth/staff/start?lang=en-US&query=appId%3Da1{bad}"
            ))
            .await;
        assert_eq!(res.status, StatusCode::FOUND, "{bad}");
        assert_eq!(
            header(&res, "location"),
            "/en-US/passport/signin?staffError=INVALID_PARAMETER&appId=a1",
            "{bad}"
        );
    }
}

#[tokio::test]
async fn the_mail_must_be_declared_verified_by_the_provider() {
    let s = Staff::spawn().await;
    // An existing account the provider's unverified claim would take over.
    let victim = User {
        id: new_user_id(),
        user_name: "lilei".into(),
        mail: Some(STAFF_MAIL.into()),
        pwd_hash: Some(password_hash(PASSWORD).await),
        ..User::default()
    };
    s.app.seed_user(&victim).await;
    for (id_token, userinfo) in [
        (Value::Null, Value::Null),
        (Value::Null, json!(false)),
        (json!(false), json!(false)),
        (json!("false"), Value::Null),
    ] {
        let to = s
            .sign_in_at_idp(Person {
                id_token_verified: id_token.clone(),
                userinfo_verified: userinfo.clone(),
                ..staff("E-11", STAFF_MAIL)
            })
            .await;
        assert_eq!(
            to, "/en-US/passport/signin?staffError=EIAM_INVALID_MAIL",
            "{id_token} / {userinfo}"
        );
    }
    // Only in userinfo, and then only the mail userinfo gives with it.
    let to = s
        .sign_in_at_idp(Person {
            mail_in_id_token: false,
            userinfo_verified: Value::Null,
            ..staff("E-11", STAFF_MAIL)
        })
        .await;
    assert_eq!(to, "/en-US/passport/signin?staffError=EIAM_INVALID_MAIL");
    assert_eq!(
        s.app.user_item(&victim.id).await.unwrap().s("eiamUid"),
        None
    );

    // The id_token leaves the flag out, userinfo says true: linked.
    let to = s
        .sign_in_at_idp(Person {
            id_token_verified: Value::Null,
            ..staff("E-11", STAFF_MAIL)
        })
        .await;
    let signed_in = s.redeem(&staff_code(&to)).await.ok(200);
    assert_eq!(signed_in["userId"], json!(victim.id));
}

#[tokio::test]
async fn a_discovery_document_with_plain_http_endpoints_is_refused() {
    for endpoint in [
        "authorization_endpoint",
        "token_endpoint",
        "userinfo_endpoint",
    ] {
        let s = Staff::spawn().await;
        s.idp
            .endpoints
            .lock()
            .unwrap()
            .insert(endpoint, "http://idp.example/x".into());
        let res = s.get(&start_path("lang=en-US")).await;
        assert_eq!(res.status, StatusCode::FOUND, "{endpoint}");
        assert_eq!(
            header(&res, "location"),
            "/en-US/passport/signin?staffError=SERVICE_UNAVAILABLE",
            "{endpoint}"
        );
    }
    // https, or http on this machine (the stand-in's own), is fine.
    let s = Staff::spawn().await;
    s.idp
        .endpoints
        .lock()
        .unwrap()
        .insert("authorization_endpoint", "https://idp.example/auth".into());
    let res = s.get(&start_path("lang=en-US")).await;
    assert!(
        header(&res, "location").starts_with("https://idp.example/auth?response_type=code"),
        "{}",
        header(&res, "location")
    );
}

#[tokio::test]
async fn a_staff_sign_in_with_the_providers_second_factor_enters_the_console() {
    let app = TestApp::spawn()
        .await
        .configure(|c| c.staff_mfa_acr = vec!["urn:corp:mfa".into()]);
    let s = Staff::spawn_with(app).await;
    let token_of = |res: TestResponse| res.ok(200)["token"].as_str().unwrap().to_owned();
    let plain = s.sign_in_at_idp(staff("E-1", STAFF_MAIL)).await;
    let plain = token_of(s.redeem(&staff_code(&plain)).await);
    s.app
        .grant_role(STAFF_MAIL, ciam_core::console::Role::Operator)
        .await;
    s.app
        .admin_get("/admin/me", &plain)
        .await
        .error(403, "CONSOLE_MFA_REQUIRED");
    for (claim, value, enters) in [
        ("amr", json!(["pwd", "mfa"]), true),
        ("amr", json!(["pwd", "otp"]), true),
        ("amr", json!(["pwd"]), false),
        ("acr", json!("urn:corp:mfa"), true),
        ("acr", json!("urn:corp:pwd"), false),
    ] {
        let to = s
            .sign_in_at_idp(Person {
                tamper: Some((claim, value.clone())),
                ..staff("E-1", STAFF_MAIL)
            })
            .await;
        let token = token_of(s.redeem(&staff_code(&to)).await);
        let res = s.app.admin_get("/admin/me", &token).await;
        if enters {
            assert_eq!(res.ok(200)["role"], "operator", "{claim}: {value}");
        } else {
            res.error(403, "CONSOLE_MFA_REQUIRED");
        }
    }
}
