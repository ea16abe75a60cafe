//! Sign-out that reaches the partner, sent (issue 23, docs/events-design.md §4): a session that
//! signed in to an OpenID Connect app with a `backchannelLogoutUri` and to a ticket app with a
//! `logoutUrl` ends, and the webhook pipeline (`ciam serve`'s queue: fan-out, drain) POSTs each
//! a logout token, to a real receiver on 127.0.0.1, on the manual clock. The tokens are checked
//! against the JWKS and every claim rule; retries sign a fresh one; the SSRF guard refuses a
//! loopback address in strict mode; apps of sessions that stay hear nothing (a password change
//! keeps its own session); a deactivation and the support desk's end of sessions tell the apps of
//! every session. SQLite and DynamoDB Local.

use crate::helpers::{json_request, TestApp, PASSWORD};
use crate::oidc::{get, World, CB};
use crate::oidc_logout::check_logout_token;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::routing::post;
use ciam_api::webhook_transport::{DnsResolver, HttpTransport};
use ciam_core::events;
use ciam_core::totp::{code_at, STEP_SECS};
use ciam_core::webhooks::guard::{Resolver, StaticResolver};
use ciam_core::webhooks::queue;
use ciam_core::{sessions, Clock};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::{Query, Store};
use http::Method;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

const SHOP: &str = "https://shop.example.com/cas";

/// A receiver on 127.0.0.1: answers `/bc` the scripted statuses in turn (then 200), records each
/// request's path, content type and logout token.
#[derive(Clone, Default)]
struct Receiver {
    script: Arc<Mutex<Vec<u16>>>,
    got: Arc<Mutex<Vec<(String, String, String)>>>,
}

async fn take(State(r): State<Receiver>, uri: Uri, headers: HeaderMap, body: String) -> StatusCode {
    let token = url::form_urlencoded::parse(body.as_bytes())
        .find(|(k, _)| k == "logout_token")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    let ct = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    r.got
        .lock()
        .unwrap()
        .push((uri.path().to_owned(), ct, token));
    // Only the back-channel URI follows the script; the ticket app's URL answers 200.
    let mut s = r.script.lock().unwrap();
    let code = if s.is_empty() || uri.path() != "/bc" {
        200
    } else {
        s.remove(0)
    };
    StatusCode::from_u16(code).unwrap()
}

impl Receiver {
    /// Answers the receiver and its port.
    async fn start(script: &[u16]) -> (Receiver, u16) {
        let r = Receiver::default();
        r.script.lock().unwrap().extend_from_slice(script);
        let router = axum::Router::new()
            .route("/bc", post(take))
            .route("/cas", post(take))
            .with_state(r.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        (r, port)
    }

    fn got(&self) -> Vec<(String, String, String)> {
        self.got.lock().unwrap().clone()
    }
}

/// The apps: an OIDC client and a ticket app the first session signs in to, an app with no
/// logout URL, and another OIDC client only a second session signs in to.
struct Scene {
    w: World,
    admin: String,
    client: String,
    shop: String,
    elsewhere: String,
    /// The first session (signed in to `client`, `shop` and the deaf app) and its sid.
    first: String,
    first_sid: String,
    /// The second session (signed in to `elsewhere`) and its sid.
    second: String,
    second_sid: String,
    /// Events already marked for the fan-out.
    marked: Vec<String>,
}

async fn create(app: &TestApp, admin: &str, name: &str, urls: &[&str], extra: Value) -> Value {
    let mut body = json!({
        "name": { "zh-CN": format!("{name}中"), "en-US": name },
        "serviceUrls": urls,
        "scopes": ["nickname"],
    });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    app.create_app(admin, &body).await.ok(201)
}

fn id_of(v: &Value) -> String {
    v["app"]["appId"].as_str().unwrap().to_owned()
}

async fn sid_of(app: &TestApp, token: &str) -> String {
    let s = sessions::authenticate(&app.ciam, Some(token))
        .await
        .unwrap();
    sessions::sid(&s.key)
}

/// `base` is where the apps' logout URLs point (`http://127.0.0.1:<port>` or a name).
async fn scene(app: TestApp, base: &str) -> Scene {
    let admin = app.admin_token().await;
    let client = create(
        &app,
        &admin,
        "Factory",
        &[CB],
        json!({"backchannelLogoutUri": format!("{base}/bc")}),
    )
    .await;
    let shop = id_of(
        &create(
            &app,
            &admin,
            "Shop",
            &[SHOP],
            json!({"logoutUrl": format!("{base}/cas")}),
        )
        .await,
    );
    let deaf = id_of(&create(&app, &admin, "Deaf", &[SHOP], json!({})).await);
    let other = create(
        &app,
        &admin,
        "Elsewhere",
        &[CB],
        json!({"backchannelLogoutUri": format!("{base}/bc")}),
    )
    .await;
    let user_id = app.sign_up("ann", "ann@example.com").await;
    let first = app.sign_in("ann@example.com", PASSWORD).await;
    let second = app.sign_in("ann@example.com", PASSWORD).await;
    let w = World {
        app: app.clone(),
        app_id: id_of(&client),
        secret: client["appSecret"].as_str().unwrap().to_owned(),
        user: first.clone(),
        user_id,
    };
    // The first session: the code flow of the client, tickets of the two ticket apps.
    w.id_token().await;
    app.issue_ticket(&first, &shop, SHOP).await.ok(200);
    app.issue_ticket(&first, &deaf, SHOP).await.ok(200);
    // The second: the other client only.
    let elsewhere = World {
        app: app.clone(),
        app_id: id_of(&other),
        secret: other["appSecret"].as_str().unwrap().to_owned(),
        user: second.clone(),
        user_id: w.user_id.clone(),
    };
    elsewhere.id_token().await;
    let (first_sid, second_sid) = (sid_of(&app, &first).await, sid_of(&app, &second).await);
    let mut s = Scene {
        client: w.app_id.clone(),
        w,
        admin,
        shop,
        elsewhere: elsewhere.app_id,
        first,
        first_sid,
        second,
        second_sid,
        marked: Vec::new(),
    };
    // Nothing so far is a sign-out: the events of the set-up are fanned out now.
    pump(&mut s, &DnsResolver).await;
    s
}

/// What `ciam serve`'s store and worker do: each new event gets its outbox marker (the store's
/// decorator does it in the event's transaction there), then a round of the worker. Answers
/// when the next retry is due.
async fn pump(s: &mut Scene, resolver: &dyn Resolver) -> Option<i64> {
    let ciam = &s.w.app.ciam;
    for e in events::list(ciam, &s.w.user_id).await.unwrap() {
        if !s.marked.contains(&e.id) {
            s.marked.push(e.id.clone());
            let marker = queue::pending_op(&e.key()).unwrap();
            ciam.store.transact(vec![marker]).await.unwrap();
        }
    }
    queue::fan_out_pending(ciam).await.unwrap();
    queue::drain(ciam, &HttpTransport, resolver).await.unwrap()
}

async fn log(s: &Scene, app_id: &str, receiver: &str) -> Vec<Value> {
    let p = format!("/admin/apps/{app_id}/webhooks/{receiver}/deliveries");
    // The console's idle clock may have run out while the deliveries were retried.
    s.w.app.fresh_proof(&s.admin).await;
    let got = s.w.app.get(&p, Some(&s.admin)).await.ok(200);
    got["deliveries"].as_array().unwrap().clone()
}

async fn records(s: &Scene) -> Vec<String> {
    let q = Query::partition(format!("SESSAPP#{}", s.w.user_id));
    let items = s.w.app.store.query(q).await.unwrap();
    items.into_iter().map(|i| i.key.sk).collect()
}

async fn jwks(app: &TestApp) -> Value {
    get(app, "/oidc/jwks", &[]).await.ok(200)
}

async fn local(app: TestApp) -> (Scene, Receiver) {
    let (rx, port) = Receiver::start(&[]).await;
    let app = app.configure(|c| c.webhooks_local_http = true);
    (scene(app, &format!("http://127.0.0.1:{port}")).await, rx)
}

async fn signing_out_tells_each_app_of_the_session_once(app: TestApp) {
    let (mut s, rx) = local(app).await;
    assert!(rx.got().is_empty(), "signing in tells nobody");
    assert_eq!(records(&s).await.len(), 3, "client, shop and elsewhere");
    s.w.app
        .call(json_request(
            Method::POST,
            "/auth/logout",
            Some(&s.first),
            &json!({}),
        ))
        .await
        .ok(200);
    let now = s.w.app.now();
    assert_eq!(pump(&mut s, &DnsResolver).await, None, "all delivered");
    let mut got = rx.got();
    got.sort();
    assert_eq!(got.len(), 2, "{got:?}");
    let keys = jwks(&s.w.app).await;
    let form = "application/x-www-form-urlencoded";
    // The client's back-channel URI, then the ticket app's logout URL: one token each.
    assert_eq!((got[0].0.as_str(), got[0].1.as_str()), ("/bc", form));
    check_logout_token(&got[0].2, &keys, &s.client, &s.w.user_id, &s.first_sid, now);
    assert_eq!((got[1].0.as_str(), got[1].1.as_str()), ("/cas", form));
    check_logout_token(&got[1].2, &keys, &s.shop, &s.w.user_id, &s.first_sid, now);
    // The log of each app's receiver, as the registry shows it.
    let l = log(&s, &s.client, "backchannel").await;
    assert_eq!(l.len(), 1, "{l:?}");
    assert_eq!(
        (l[0]["status"].as_i64(), l[0]["outcome"].as_str()),
        (Some(200), Some("delivered"))
    );
    assert_eq!(l[0]["type"], "session.ended");
    assert_eq!(l[0]["userId"], s.w.user_id.as_str());
    assert_eq!(log(&s, &s.shop, "logoutUrl").await.len(), 1);
    assert!(log(&s, &s.elsewhere, "backchannel").await.is_empty());
    // The notified session's records are gone; the other session's stays.
    let left = records(&s).await;
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].starts_with(&s.second_sid));
    // Nothing is sent twice; an app's unknown receiver log is a 404.
    pump(&mut s, &DnsResolver).await;
    assert_eq!(rx.got().len(), 2);
    let p = format!(
        "/admin/apps/{}/webhooks/backchannel/deliveries",
        "0000000000000000"
    );
    s.w.app
        .get(&p, Some(&s.admin))
        .await
        .error(404, "WEBHOOK_NOT_FOUND");
    // The second session ends from the session list: its app hears, with its sid.
    let s2 = sessions::authenticate(&s.w.app.ciam, Some(&s.second))
        .await
        .unwrap();
    sessions::revoke(&s.w.app.ciam, &s2).await.unwrap();
    pump(&mut s, &DnsResolver).await;
    let got = rx.got();
    assert_eq!(got.len(), 3);
    check_logout_token(
        &got[2].2,
        &keys,
        &s.elsewhere,
        &s.w.user_id,
        &s.second_sid,
        s.w.app.now(),
    );
    assert!(records(&s).await.is_empty());
}

#[tokio::test]
async fn signing_out_posts_one_verified_logout_token_to_each_app_of_the_session() {
    signing_out_tells_each_app_of_the_session_once(TestApp::spawn().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_dynamodb_signing_out_posts_one_logout_token_to_each_app_of_the_session() {
    let local_db = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local_db, "logoutsend").await;
    signing_out_tells_each_app_of_the_session_once(app).await;
    let app = TestApp::on_dynamo(&local_db, "logoutsend2").await;
    a_password_change_tells_the_other_sessions_apps(app).await;
}

async fn a_password_change_tells_the_other_sessions_apps(app: TestApp) {
    let (mut s, rx) = local(app).await;
    // The first session changes the password: the second ends, the first stays.
    let body = json!({"oldPassword": PASSWORD, "password": "N3w-passw0rd!", "confirmPassword": "N3w-passw0rd!"});
    s.w.app
        .send_json(Method::PATCH, "/auth/pwd", Some(&s.first), &body)
        .await
        .ok(200);
    assert!(sessions::authenticate(&s.w.app.ciam, Some(&s.first))
        .await
        .is_ok());
    let now = s.w.app.now();
    pump(&mut s, &DnsResolver).await;
    let got = rx.got();
    assert_eq!(got.len(), 1, "only the ended session's app: {got:?}");
    let keys = jwks(&s.w.app).await;
    check_logout_token(
        &got[0].2,
        &keys,
        &s.elsewhere,
        &s.w.user_id,
        &s.second_sid,
        now,
    );
    assert!(log(&s, &s.client, "backchannel").await.is_empty());
    assert!(log(&s, &s.shop, "logoutUrl").await.is_empty());
    // The staying session's records are kept: its sign-out later still reaches its apps.
    assert_eq!(records(&s).await.len(), 2);
    s.w.app
        .call(json_request(
            Method::POST,
            "/auth/logout",
            Some(&s.first),
            &json!({}),
        ))
        .await
        .ok(200);
    pump(&mut s, &DnsResolver).await;
    assert_eq!(rx.got().len(), 3);
}

#[tokio::test]
async fn a_password_change_notifies_the_other_sessions_apps_not_the_current_ones() {
    a_password_change_tells_the_other_sessions_apps(TestApp::spawn().await).await;
}

#[tokio::test]
async fn a_receiver_failing_once_gets_a_freshly_signed_token_on_the_retry() {
    let (mut s, rx) = local(TestApp::spawn().await).await;
    rx.script.lock().unwrap().extend([500, 202]);
    s.w.app
        .call(json_request(
            Method::POST,
            "/auth/logout",
            Some(&s.first),
            &json!({}),
        ))
        .await
        .ok(200);
    let t0 = s.w.app.now();
    assert_eq!(pump(&mut s, &DnsResolver).await, Some(t0 + 5));
    s.w.app.clock.advance(5);
    assert_eq!(
        pump(&mut s, &DnsResolver).await,
        Some(t0 + 35),
        "a 202 is no delivery"
    );
    s.w.app.clock.advance(30);
    assert_eq!(pump(&mut s, &DnsResolver).await, None);
    let got = rx.got();
    assert_eq!(got.len(), 4, "{got:?}");
    assert_eq!(got.iter().filter(|g| g.0 == "/cas").count(), 1);
    let keys = jwks(&s.w.app).await;
    let claims: Vec<Value> = got
        .iter()
        .filter(|g| g.0 == "/bc")
        .zip([t0, t0 + 5, t0 + 35])
        .map(|(g, at)| check_logout_token(&g.2, &keys, &s.client, &s.w.user_id, &s.first_sid, at))
        .collect();
    assert_eq!(claims.len(), 3);
    // Each attempt signs a new token: a new jti, iat the attempt's time.
    assert_ne!(claims[0]["jti"], claims[1]["jti"]);
    assert_ne!(claims[1]["jti"], claims[2]["jti"]);
    let (aud, receiver) = (&s.client, "backchannel");
    let l = log(&s, aud, receiver).await;
    let seen: Vec<(i64, &str)> = l
        .iter()
        .map(|e| {
            (
                e["status"].as_i64().unwrap(),
                e["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(seen, [(200, "delivered"), (202, "retry"), (500, "retry")]);
    assert_eq!(l[1]["error"], "only 200 or 204 is a delivery");
}

#[tokio::test]
async fn in_strict_mode_a_back_channel_uri_resolving_to_loopback_is_refused() {
    let (rx, port) = Receiver::start(&[]).await;
    let app = TestApp::spawn().await;
    let mut s = scene(app, &format!("https://loop.rp.example.com:{port}")).await;
    let resolver = StaticResolver(vec![(
        "loop.rp.example.com".into(),
        vec!["127.0.0.1".parse().unwrap()],
    )]);
    s.w.app
        .call(json_request(
            Method::POST,
            "/auth/logout",
            Some(&s.first),
            &json!({}),
        ))
        .await
        .ok(200);
    let now = s.w.app.now();
    assert_eq!(pump(&mut s, &resolver).await, Some(now + 5), "retried");
    assert!(rx.got().is_empty(), "nothing connected");
    let l = log(&s, &s.client, "backchannel").await;
    assert_eq!(l[0]["status"], 0);
    let err = l[0]["error"].as_str().unwrap();
    assert!(
        err.starts_with("refused")
            && err.contains("loop.rp.example.com")
            && err.contains("127.0.0.1"),
        "{err}"
    );
    // After its hour the notice is given up (no endpoint to disable: the URL is the app's).
    // (Steps of 20 minutes: the admin's session, read by `log`, stays within its idle limit.)
    for _ in 0..4 {
        s.w.app.clock.advance(1200);
        pump(&mut s, &resolver).await;
        log(&s, &s.client, "backchannel").await;
    }
    let l = log(&s, &s.client, "backchannel").await;
    // (Attempts at 0 and at each 20-minute step: the fourth's next wait ends after the hour.)
    assert_eq!(l.len(), 4, "{l:?}");
    assert!(l.iter().all(|e| e["status"] == 0));
    assert_eq!(l[0]["outcome"], "failed");
    assert!(s.w.app.clock.now() > now + 3600);
    assert!(rx.got().is_empty());
}

#[tokio::test]
async fn a_deactivation_tells_the_apps_of_every_session() {
    let (mut s, rx) = local(TestApp::spawn().await).await;
    s.w.app
        .deactivate(&s.second, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    let now = s.w.app.now();
    assert_eq!(pump(&mut s, &DnsResolver).await, None);
    let mut got = rx.got();
    got.sort();
    assert_eq!(got.len(), 3, "{got:?}");
    let keys = jwks(&s.w.app).await;
    // Both sessions ended: the first's client and ticket app, the second's other client.
    let mut heard: Vec<(String, String)> = got
        .iter()
        .map(|g| {
            let c = crate::oidc_logout::claims_of(&g.2);
            let aud = c["aud"].as_str().unwrap().to_owned();
            let sid = c["sid"].as_str().unwrap().to_owned();
            check_logout_token(&g.2, &keys, &aud, &s.w.user_id, &sid, now);
            (aud, sid)
        })
        .collect();
    heard.sort();
    let mut want = vec![
        (s.client.clone(), s.first_sid.clone()),
        (s.shop.clone(), s.first_sid.clone()),
        (s.elsewhere.clone(), s.second_sid.clone()),
    ];
    want.sort();
    assert_eq!(heard, want);
    assert!(records(&s).await.is_empty());
}

#[tokio::test]
async fn the_support_desks_end_of_sessions_tells_the_apps_of_every_session() {
    let (mut s, rx) = local(TestApp::spawn().await).await;
    let (_, operator) =
        s.w.app
            .staffer("helper", Some(ciam_core::console::Role::Operator))
            .await;
    s.w.app
        .act(&operator, &s.w.user_id, "end-sessions", "a stolen laptop")
        .await
        .ok(200);
    assert_eq!(pump(&mut s, &DnsResolver).await, None);
    let got = rx.got();
    assert_eq!(got.len(), 3, "both sessions' apps: {got:?}");
    let sids: Vec<String> = got
        .iter()
        .map(|g| {
            crate::oidc_logout::claims_of(&g.2)["sid"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(sids.iter().filter(|x| **x == s.first_sid).count(), 2);
    assert_eq!(sids.iter().filter(|x| **x == s.second_sid).count(), 1);
    assert!(records(&s).await.is_empty());
    // A session signed in after it is not told by it: a new sign-in's app waits for its own end.
    let third = s.w.app.sign_in("ann@example.com", PASSWORD).await;
    s.w.app.issue_ticket(&third, &s.shop, SHOP).await.ok(200);
    pump(&mut s, &DnsResolver).await;
    assert_eq!(rx.got().len(), 3);
    assert_eq!(records(&s).await.len(), 1);
}

/// A two-factor change ends the account's other sessions (`sessGen`) and announces only
/// `two_factor.changed`: the ended sessions' apps still get their logout tokens, the current
/// session's do not; the support desk's two-factor reset ends every session and tells them all.
#[tokio::test]
async fn a_two_factor_change_tells_the_other_sessions_apps_and_the_support_desks_reset_all() {
    let (mut s, rx) = local(TestApp::spawn().await).await;
    let url = s.w.app.get_totp_url(&s.first).await.ok(200)["url"]
        .as_str()
        .expect("url")
        .to_owned();
    let secret = crate::two_factor::secret_of(&url);
    let code = code_at(&secret, s.w.app.now().div_euclid(STEP_SECS));
    s.w.app.totp_enable(&s.first, &code).await.ok(200);
    assert!(sessions::authenticate(&s.w.app.ciam, Some(&s.first))
        .await
        .is_ok());
    assert!(sessions::authenticate(&s.w.app.ciam, Some(&s.second))
        .await
        .is_err());
    pump(&mut s, &DnsResolver).await;
    let got = rx.got();
    assert_eq!(got.len(), 1, "only the ended session's app: {got:?}");
    assert_eq!(
        crate::oidc_logout::claims_of(&got[0].2)["sid"],
        json!(s.second_sid)
    );
    assert_eq!(records(&s).await.len(), 2, "the staying session's apps");
    // The support desk turns it off: every session ends, the first one's two apps are told.
    let (_, operator) =
        s.w.app
            .staffer("helper", Some(ciam_core::console::Role::Operator))
            .await;
    s.w.app
        .act(
            &operator,
            &s.w.user_id,
            "reset-two-factor",
            "lost the phone",
        )
        .await
        .ok(200);
    pump(&mut s, &DnsResolver).await;
    let got = rx.got();
    assert_eq!(got.len(), 3, "{got:?}");
    let sids: Vec<Value> = got[1..]
        .iter()
        .map(|g| crate::oidc_logout::claims_of(&g.2)["sid"].clone())
        .collect();
    assert_eq!(sids, [json!(s.first_sid), json!(s.first_sid)]);
    assert!(records(&s).await.is_empty());
}
