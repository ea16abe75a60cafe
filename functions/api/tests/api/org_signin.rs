//! The company's own sign-in (docs/organizations-connections.md §0.3, §0.6-8): two
//! organizations, each with its own OpenID Connect identity provider (a small stand-in served
//! in process, an issuer of its own) and a connection to it, their domains verified and their
//! connections turned on through core calls. Start → provider → callback → login code →
//! session; just-in-time `join` (a new person, an existing account with the mail) and `off`; a
//! mail at a domain the organization did not verify, an unverified mail, another connection's
//! provider's answer, a connection not on: refused; the test sign-in records `tested` and signs
//! nobody in; the organization in the tokens of `/oidc/authorize` afterwards. On SQLite and
//! DynamoDB Local.

use crate::helpers::*;
use crate::oidc::{location, param, userinfo, verify_jwt, world_on, World, CB, VERIFIER};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use ciam_core::events::{self, Kind};
use ciam_core::org::connections::{self, ConnId, Connection, NewConnection, Status};
use ciam_core::org::{self, members, OrgId};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::{Cond, Update, Value as StoreValue};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// The random value the SPA keeps while the browser is at the provider.
pub(crate) const BIND: &str = "bind-of-the-browser-that-started-org-0123456789";

/// What the stand-in provider says about the next person.
#[derive(Clone)]
pub(crate) struct Person {
    pub(crate) sub: String,
    pub(crate) email: String,
    pub(crate) verified: bool,
    /// The id_token's `acr`, when the provider says how the person signed in.
    pub(crate) acr: Option<String>,
}

pub(crate) fn person(sub: &str, email: &str) -> Person {
    Person {
        sub: sub.into(),
        email: email.into(),
        verified: true,
        acr: None,
    }
}

struct Grant {
    person: Person,
    nonce: String,
    challenge: String,
    redirect_uri: String,
}

/// One organization's identity provider.
#[derive(Clone)]
pub(crate) struct Idp {
    issuer: String,
    client_id: String,
    secret: String,
    now: Arc<dyn Fn() -> i64 + Send + Sync>,
    grants: Arc<Mutex<HashMap<String, Grant>>>,
}

async fn discovery(State(idp): State<Idp>) -> Response {
    axum::Json(json!({
        "issuer": idp.issuer,
        "authorization_endpoint": format!("{}/auth", idp.issuer),
        "token_endpoint": format!("{}/token", idp.issuer),
    }))
    .into_response()
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
    let expected = format!("{}:{}", idp.client_id, url_encode(&idp.secret));
    if basic.as_deref() != Some(expected.as_str()) {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({ "error": "invalid_client" })),
        )
            .into_response();
    }
    let f = form(&body);
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
        "aud": idp.client_id,
        "sub": p.sub,
        "nonce": grant.nonce,
        "iat": (idp.now)(),
        "exp": (idp.now)() + 300,
        "name": "Li Lei",
        "email": p.email,
        "email_verified": p.verified,
    });
    if let Some(acr) = &p.acr {
        claims["acr"] = json!(acr);
    }
    let part = |v: &Value| URL_SAFE_NO_PAD.encode(v.to_string());
    let id_token = format!("{}.{}.sig", part(&json!({ "alg": "RS256" })), part(&claims));
    axum::Json(json!({ "id_token": id_token, "token_type": "Bearer" })).into_response()
}

pub(crate) async fn spawn_idp(app: &TestApp, client_id: &str, secret: &str) -> Idp {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    // A path of its own: the adapter keeps discovery documents per issuer for the process's life.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let tag = format!(
        "orgidp{}",
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let issuer = format!("http://{}/{tag}", listener.local_addr().unwrap());
    let clock = app.clock.clone();
    let idp = Idp {
        issuer,
        client_id: client_id.into(),
        secret: secret.into(),
        now: Arc::new(move || {
            use ciam_core::Clock;
            clock.now()
        }),
        grants: Arc::default(),
    };
    let router = axum::Router::new().nest(
        &format!("/{tag}"),
        axum::Router::new()
            .route("/.well-known/openid-configuration", get(discovery))
            .route("/token", post(token))
            .with_state(idp.clone()),
    );
    tokio::spawn(async move { axum::serve(listener, router).await });
    idp
}

impl Idp {
    /// The person signs in at the provider, which sends the browser back with a code.
    pub(crate) fn consent(&self, auth: &HashMap<String, String>, person: Person) -> String {
        let code = format!("code-{}", auth["state"]);
        self.grants.lock().unwrap().insert(
            code.clone(),
            Grant {
                person,
                nonce: auth["nonce"].clone(),
                challenge: auth["code_challenge"].clone(),
                redirect_uri: auth["redirect_uri"].clone(),
            },
        );
        format!(
            "/auth/org/callback?code={}&state={}",
            url_encode(&code),
            url_encode(&auth["state"])
        )
    }
}

/// One organization with its verified domain, its provider and its connection.
pub(crate) struct Company {
    pub(crate) org: OrgId,
    pub(crate) idp: Idp,
    pub(crate) conn: ConnId,
}

async fn connection(app: &TestApp, org: &OrgId, conn: &ConnId) -> Connection {
    connections::get(app.ciam.store.as_ref(), org, conn)
        .await
        .expect("read")
        .expect("connection")
}

/// A connection of `org` to `idp` (`jit`), tested and turned on unless `draft`.
async fn connect(app: &TestApp, org: &OrgId, idp: &Idp, jit: &str, draft: bool) -> ConnId {
    connect_with(app, org, idp, jit, draft, &[]).await
}

/// [`connect`] with more settings (e.g. `mfaAcr`).
pub(crate) async fn connect_with(
    app: &TestApp,
    org: &OrgId,
    idp: &Idp,
    jit: &str,
    draft: bool,
    more: &[(&str, &str)],
) -> ConnId {
    let mut settings = BTreeMap::from([
        ("issuer".to_owned(), idp.issuer.clone()),
        ("clientId".to_owned(), idp.client_id.clone()),
    ]);
    for (k, v) in more {
        settings.insert((*k).to_owned(), (*v).to_owned());
    }
    let new = NewConnection {
        protocol: "oidc".into(),
        name_zh: Some("公司登录".into()),
        name_en: Some("Company sign-in".into()),
        settings,
        secret: idp.secret.clone(),
        jit: Some(jit.into()),
    };
    app.connection_made(org, new, !draft).await
}

pub(crate) async fn company(
    app: &TestApp,
    owner: &str,
    name: &str,
    domain: &str,
    jit: &str,
    secret: &str,
) -> Company {
    let org = app.active_org(owner, name).await;
    app.claimed(&org, domain, "owner", true).await;
    let idp = spawn_idp(app, &format!("ciam-{}", name.to_lowercase()), secret).await;
    let conn = connect(app, &org, &idp, jit, false).await;
    Company { org, idp, conn }
}

pub(crate) async fn get_path(app: &TestApp, p: &str) -> TestResponse {
    app.call(request(Method::GET, p).body(Body::empty()).unwrap())
        .await
}

/// `GET /auth/org/start` for `conn` from the browser holding [`BIND`]: the provider's
/// authorization request as query parameters, after checking it goes to `idp`.
pub(crate) async fn start(app: &TestApp, conn: &ConnId, idp: &Idp) -> HashMap<String, String> {
    let to = location(&get_path(app, &start_path(conn)).await);
    let (endpoint, query) = to.split_once('?').expect("a query");
    assert_eq!(endpoint, format!("{}/auth", idp.issuer));
    form(query)
}

pub(crate) fn start_path(conn: &ConnId) -> String {
    format!(
        "/auth/org/start?connection={}&lang=en-US&query=appId%3Da1&bindHash={}",
        conn.as_str(),
        ciam_core::staff::bind_hash(BIND)
    )
}

/// A whole sign-in through `c` as `who`, up to the sign-in page's URL.
pub(crate) async fn sign_in_through(app: &TestApp, c: &Company, who: Person) -> String {
    let auth = start(app, &c.conn, &c.idp).await;
    let back = c.idp.consent(&auth, who);
    location(&get_path(app, &back).await)
}

pub(crate) async fn redeem(app: &TestApp, code: &str) -> TestResponse {
    app.call(json_request(
        Method::POST,
        "/auth/login/federation",
        None,
        &json!({ "provider": "org", "code": code, "bind": BIND }),
    ))
    .await
}

/// The session of a sign-in that ended with `orgCode`.
pub(crate) async fn session_of(app: &TestApp, to: &str) -> Value {
    assert!(to.starts_with("/en-US/passport/signin?orgCode="), "{to}");
    assert!(to.ends_with("&appId=a1"), "{to}");
    let code = param(to, "orgCode").expect("orgCode");
    let signed_in = redeem(app, &code).await.ok(200);
    // Once only.
    redeem(app, &code).await.error(401, "AUTHORIZATION_FAILED");
    signed_in
}

pub(crate) fn refused(to: &str, reason: &str) {
    assert_eq!(
        param(to, "orgError").as_deref(),
        Some(reason),
        "refused with {reason}: {to}"
    );
    assert!(param(to, "orgCode").is_none(), "{to}");
}

pub(crate) async fn role_in(app: &TestApp, org: &OrgId, user_id: &str) -> Option<org::Role> {
    org::role_of(app.ciam.store.as_ref(), org, user_id)
        .await
        .expect("read")
}

async fn company_sign_in(app: TestApp) {
    let w: World = world_on(app).await;
    let app = &w.app;
    let boss = app.sign_up("boss", "boss@owners.example").await;
    let acme = company(app, &boss, "Acme", "acme.example", "join", "acme:s3cret&=").await;
    let beta = company(app, &boss, "Beta", "beta.example", "off", "beta-secret").await;
    // Acme's events are heard by the app.
    app.ciam
        .store
        .update(
            &org::org_key(&acme.org),
            vec![Update::Set(
                "eventApps".into(),
                StoreValue::strings([w.app_id.clone()]),
            )],
            Some(Cond::Exists),
        )
        .await
        .expect("eventApps");

    // The authorization request: code flow, PKCE S256, a nonce, the one redirect URI.
    let auth = start(app, &acme.conn, &acme.idp).await;
    assert_eq!(auth["response_type"], "code");
    assert_eq!(auth["client_id"], "ciam-acme");
    assert_eq!(auth["scope"], "openid email profile");
    assert_eq!(auth["code_challenge_method"], "S256");
    assert_eq!(
        auth["redirect_uri"],
        format!("{}/ciam/v1/auth/org/callback", app.ciam.config.public_url)
    );

    // Just in time `join`: a new person gets an account and the default role.
    let back = acme
        .idp
        .consent(&auth, person("a-1", "li.lei@acme.example"));
    let to = location(&get_path(app, &back).await);
    let signed_in = session_of(app, &to).await;
    let li = signed_in["userId"].as_str().unwrap().to_owned();
    assert_eq!(
        app.owner_of("li.lei@acme.example").await.as_deref(),
        Some(li.as_str())
    );
    assert_eq!(role_in(app, &acme.org, &li).await, Some(org::Role::Member));
    let heard: Vec<Kind> = events::list(&app.ciam, &format!("ORG#{}", acme.org))
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(heard, vec![Kind::OrgMemberAdded]);
    // The state works once.
    refused(
        &location(&get_path(app, &back).await),
        "AUTHORIZATION_FAILED",
    );
    // Again: the link finds the same account, no second membership or event.
    let to = sign_in_through(app, &acme, person("a-1", "li.lei@acme.example")).await;
    assert_eq!(session_of(app, &to).await["userId"], li.as_str());
    assert_eq!(
        events::list(&app.ciam, &format!("ORG#{}", acme.org))
            .await
            .unwrap()
            .len(),
        1
    );

    // An existing account with that verified mail joins.
    let han = app.sign_up("hanmei", "han.mei@acme.example").await;
    let to = sign_in_through(app, &acme, person("a-2", "han.mei@acme.example")).await;
    let s = session_of(app, &to).await;
    assert_eq!(s["userId"], han.as_str());
    assert_eq!(role_in(app, &acme.org, &han).await, Some(org::Role::Member));

    // The organization in the tokens of /oidc/authorize after the company sign-in.
    let as_li = w.as_user(signed_in["token"].as_str().unwrap());
    let org_id = acme.org.to_string();
    let id = as_li
        .request_id(&[
            ("scope", Some("openid nickname organization")),
            ("organization", Some(org_id.as_str())),
        ])
        .await;
    let redirect = as_li.allow(&id).await.ok(200)["redirect"]
        .as_str()
        .unwrap()
        .to_owned();
    let code = param(&redirect, "code").expect("code");
    let tokens = as_li.redeem(&code, VERIFIER, CB).await.ok(200);
    let jwks = crate::oidc::get(app, "/oidc/jwks", &[]).await.ok(200);
    let (_, claims) = verify_jwt(tokens["id_token"].as_str().unwrap(), &jwks).expect("verified");
    assert_eq!(claims["org_id"], org_id.as_str());
    assert_eq!(claims["org_roles"], json!(["member"]));
    let info = userinfo(app, tokens["access_token"].as_str().unwrap())
        .await
        .ok(200);
    assert_eq!(info["org_id"], org_id.as_str());

    // Just in time `off`: a non-member is refused, naming the organization.
    let to = sign_in_through(app, &beta, person("b-1", "zhao@beta.example")).await;
    refused(&to, "FEDERATION_NOT_PERMITTED");
    assert_eq!(param(&to, "orgName").as_deref(), Some("Beta"));
    assert_eq!(app.owner_of("zhao@beta.example").await, None);
    // A member signs in.
    let wang = app.sign_up("wangwu", "wang@beta.example").await;
    let ops = members::join_ops(
        &beta.org,
        &wang,
        org::Role::Admin,
        "test",
        app.now(),
        vec![],
    );
    app.ciam.store.transact(ops).await.expect("joined");
    let to = sign_in_through(app, &beta, person("b-2", "wang@beta.example")).await;
    assert_eq!(session_of(app, &to).await["userId"], wang.as_str());

    // A mail at a domain the organization did not verify (another's, or nobody's).
    for mail in ["li@beta.example", "li@elsewhere.example"] {
        let to = sign_in_through(app, &acme, person("a-3", mail)).await;
        refused(&to, "FEDERATION_NOT_PERMITTED");
    }
    // A mail the provider does not say it verified.
    let unverified = Person {
        verified: false,
        ..person("a-4", "chen@acme.example")
    };
    let to = sign_in_through(app, &acme, unverified).await;
    refused(&to, "FEDERATION_NOT_PERMITTED");
    assert_eq!(app.owner_of("chen@acme.example").await, None);

    // One connection's state with another provider's answer: its code is not Acme's provider's,
    // and an answer naming another issuer is refused before any exchange.
    let auth = start(app, &acme.conn, &acme.idp).await;
    let back = beta.idp.consent(&auth, person("b-1", "zhao@beta.example"));
    refused(
        &location(&get_path(app, &back).await),
        "AUTHORIZATION_FAILED",
    );
    let auth = start(app, &acme.conn, &acme.idp).await;
    let back = acme
        .idp
        .consent(&auth, person("a-1", "li.lei@acme.example"));
    let with_iss = format!("{back}&iss={}", url_encode(&beta.idp.issuer));
    refused(
        &location(&get_path(app, &with_iss).await),
        "AUTHORIZATION_FAILED",
    );
    // Another provider's state (not a connection's) at the company callback.
    refused(
        &location(&get_path(app, "/auth/org/callback?code=c&state=not-a-state").await),
        "AUTHORIZATION_FAILED",
    );

    // A connection that is not on: no start, and no callback for a sign-in started before.
    let draft = connect(app, &acme.org, &acme.idp, "join", true).await;
    refused(
        &location(&get_path(app, &start_path(&draft)).await),
        "FEDERATION_NOT_PERMITTED",
    );
    let auth = start(app, &beta.conn, &beta.idp).await;
    let c = connection(app, &beta.org, &beta.conn).await;
    connections::set_on(&app.ciam, &orgs::set_up_operator(), &c, false)
        .await
        .expect("off");
    let back = beta.idp.consent(&auth, person("b-2", "wang@beta.example"));
    refused(
        &location(&get_path(app, &back).await),
        "FEDERATION_NOT_PERMITTED",
    );
    // An unknown connection.
    refused(
        &location(
            &get_path(
                app,
                &start_path(&ConnId::parse("conn_0123456789abcdef").unwrap()),
            )
            .await,
        ),
        "AUTHORIZATION_FAILED",
    );

    // The test sign-in: an owner's, on the draft; the provider's answer shown, nobody signed
    // in, the connection `tested`.
    let boss_t = app.sign_in("boss@owners.example", PASSWORD).await;
    // Another organization's connection, or none: CONNECTION_NOT_FOUND.
    for other in [beta.conn.as_str(), "conn_0000000000000000", "x"] {
        let p = format!("/org/{}/connections/{other}/test", acme.org);
        app.call(json_request(Method::POST, &p, Some(&boss_t), &json!({})))
            .await
            .error(404, "CONNECTION_NOT_FOUND");
    }
    let p = format!("/org/{}/connections/{}/test", acme.org, draft.as_str());
    let url = app
        .call(json_request(Method::POST, &p, Some(&boss_t), &json!({})))
        .await
        .ok(200)["url"]
        .as_str()
        .unwrap()
        .to_owned();
    let (endpoint, query) = url.split_once('?').expect("a query");
    assert_eq!(endpoint, format!("{}/auth", acme.idp.issuer));
    let back = acme
        .idp
        .consent(&form(query), person("a-9", "tester@acme.example"));
    let page = get_path(app, &back).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.text);
    assert!(page.headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    // The state's language (the request's: zh-CN by default).
    for shown in ["a-9", "tester@acme.example", "测试通过", "tested"] {
        assert!(page.text.contains(shown), "{shown} in {}", page.text);
    }
    assert_eq!(
        connection(app, &acme.org, &draft).await.status,
        Status::Tested
    );
    assert_eq!(app.owner_of("tester@acme.example").await, None);
    // A failed test names the step and takes the connection back to draft.
    let url = app
        .call(json_request(Method::POST, &p, Some(&boss_t), &json!({})))
        .await
        .ok(200)["url"]
        .as_str()
        .unwrap()
        .to_owned();
    let state = param(&url, "state").unwrap();
    let page = get_path(
        app,
        &format!(
            "/auth/org/callback?error=access_denied&state={}",
            url_encode(&state)
        ),
    )
    .await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.text.contains("测试未通过"), "{}", page.text);
    assert!(page.text.contains("access_denied"), "{}", page.text);
    assert_eq!(
        connection(app, &acme.org, &draft).await.status,
        Status::Draft
    );
    // A plain member may not test; a stranger learns nothing.
    let li_t = signed_in["token"].as_str().unwrap();
    app.call(json_request(Method::POST, &p, Some(li_t), &json!({})))
        .await
        .error(403, "ORG_ROLE_FORBIDDEN");
    let p_beta = format!("/org/{}/connections/{}/test", beta.org, beta.conn.as_str());
    app.call(json_request(Method::POST, &p_beta, Some(li_t), &json!({})))
        .await
        .error(404, "ORG_NOT_FOUND");
    // The console's twin, with a reason.
    let admin = app.admin_session("admin@example.com").await;
    let p = format!(
        "/admin/organizations/{}/connections/{}/test",
        acme.org,
        draft.as_str()
    );
    app.admin_call(
        Method::POST,
        &p,
        Some(&admin),
        Some(&json!({ "reason": "" })),
    )
    .await
    .error(400, "INVALID_PARAMETER");
    let url = app
        .admin_call(
            Method::POST,
            &p,
            Some(&admin),
            Some(&json!({ "reason": "ticket 42" })),
        )
        .await
        .ok(200)["url"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(url.starts_with(&acme.idp.issuer), "{url}");

    // A link to an account deactivated since is stale: the mail decides again (here nobody
    // has it any more, so `join` makes a new account), and the link is replaced.
    app.ciam
        .store
        .update(
            &ciam_core::user::profile_key(&li),
            vec![Update::Set("status".into(), "deactivated".into())],
            Some(Cond::Exists),
        )
        .await
        .expect("deactivated");
    app.ciam
        .store
        .delete(
            &ciam_core::user::unique_key("MAIL#li.lei@acme.example".into()),
            None,
        )
        .await
        .expect("mail freed");
    let to = sign_in_through(app, &acme, person("a-1", "li.lei@acme.example")).await;
    let again = session_of(app, &to).await["userId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(again, li);
    assert_eq!(
        role_in(app, &acme.org, &again).await,
        Some(org::Role::Member)
    );
    let to = sign_in_through(app, &acme, person("a-1", "li.lei@acme.example")).await;
    assert_eq!(session_of(app, &to).await["userId"], again.as_str());

    // A suspended organization refuses its people.
    app.ciam
        .store
        .update(
            &org::org_key(&acme.org),
            vec![Update::Set("status".into(), "suspended".into())],
            Some(Cond::Exists),
        )
        .await
        .expect("suspended");
    refused(
        &location(&get_path(app, &start_path(&acme.conn)).await),
        "ORG_NOT_ACTIVE",
    );
}

#[tokio::test]
async fn org_signin_through_a_company_connection() {
    company_sign_in(TestApp::spawn().await).await;
}

#[tokio::test]
async fn org_signin_on_dynamodb_behaves_alike() {
    let local = Arc::new(DynamoLocal::start().await);
    company_sign_in(TestApp::on_dynamo(&local, "org_signin").await).await;
}
