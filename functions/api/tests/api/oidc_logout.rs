//! Sign-out that reaches the partner (issue 23): `sid` in id_tokens, the registry's logout
//! fields, RP-Initiated Logout 1.0 (`/oidc/logout`, the end-session page's two calls) and the
//! Back-Channel Logout 1.0 tokens, also a ticket app's notice (`oidc::logout::notices`), checked
//! against every claim rule of the specification. Their sending: `logout_delivery.rs`.

use crate::helpers::{json_request, request, TestApp, TestResponse, PASSWORD};
use crate::oidc::{get, query, verify_jws, World, CB};
use axum::body::Body;
use axum::http::Method;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ciam_core::oidc::logout::{notices, BACKCHANNEL_EVENT};
use ciam_core::{sessions, Config};
use ciam_store::Store;
use serde_json::{json, Value};
use std::sync::Arc;

const ISSUER: &str = "http://127.0.0.1:8080/ciam/v1/oidc";
const BYE: &str = "https://factory.example.com/bye";
const BACKCHANNEL: &str = "https://factory.example.com/backchannel";
const TICKET_LOGOUT: &str = "https://shop.example.com/cas/logout";
const SHOP: &str = "https://shop.example.com/cas";

/// A refused request: its label, its parameters and the field the refusal names.
type Refusal<'a> = (&'a str, Vec<(&'a str, &'a str)>, &'a str);

/// The registry's logout fields of the OIDC client.
fn logout_fields() -> Value {
    json!({
        "postLogoutRedirectUris": [BYE, "https://factory.example.com/bye?from=ciam"],
        "backchannelLogoutUri": BACKCHANNEL,
    })
}

/// An OIDC client that hears logouts, and ann signed in.
async fn world_on(app: TestApp) -> (World, String) {
    let admin = app.admin_token().await;
    let mut body = json!({
        "name": { "zh-CN": "工厂", "en-US": "Factory" },
        "serviceUrls": [CB],
        "scopes": ["nickname", "email"],
    });
    for (k, v) in logout_fields().as_object().unwrap() {
        body[k] = v.clone();
    }
    let created = app.create_app(&admin, &body).await.ok(201);
    let user_id = app.sign_up("ann", "ann@example.com").await;
    let user = app.sign_in("ann@example.com", PASSWORD).await;
    let w = World {
        app_id: created["app"]["appId"].as_str().unwrap().to_owned(),
        secret: created["appSecret"].as_str().unwrap().to_owned(),
        app,
        user,
        user_id,
    };
    (w, admin)
}

async fn world() -> (World, String) {
    world_on(TestApp::spawn().await).await
}

async fn sid_of(app: &TestApp, token: &str) -> String {
    let s = sessions::authenticate(&app.ciam, Some(token))
        .await
        .expect("a live session");
    sessions::sid(&s.key)
}

pub(crate) fn claims_of(jwt: &str) -> Value {
    let p = jwt.split('.').nth(1).unwrap();
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(p).unwrap()).unwrap()
}

/// `GET /oidc/end-session?<pairs>` (the page's first call), in English.
async fn context(app: &TestApp, pairs: &[(&str, &str)]) -> TestResponse {
    let q = query(pairs);
    get(
        app,
        &format!("/oidc/end-session?{q}"),
        &[("accept-language", "en-US")],
    )
    .await
}

/// `POST /oidc/end-session` as `token`.
async fn end(app: &TestApp, token: &str, body: Value) -> TestResponse {
    app.call(json_request(
        Method::POST,
        "/oidc/end-session",
        Some(token),
        &body,
    ))
    .await
}

async fn alive(app: &TestApp, token: &str) -> bool {
    sessions::authenticate(&app.ciam, Some(token)).await.is_ok()
}

#[tokio::test]
async fn discovery_offers_rp_initiated_and_back_channel_logout_and_id_tokens_carry_the_sid() {
    let (w, _) = world().await;
    let d = get(&w.app, "/oidc/.well-known/openid-configuration", &[])
        .await
        .ok(200);
    assert_eq!(d["end_session_endpoint"], format!("{ISSUER}/logout"));
    assert_eq!(d["backchannel_logout_supported"], true);
    assert_eq!(d["backchannel_logout_session_supported"], true);
    assert_eq!(d["frontchannel_logout_supported"], false);
    assert!(d["claims_supported"]
        .as_array()
        .unwrap()
        .contains(&json!("sid")));
    let id_token = w.id_token().await;
    let sid = sid_of(&w.app, &w.user).await;
    assert_eq!(claims_of(&id_token)["sid"], sid.as_str());
    // Another session of the same user has another sid, and its id_tokens say so.
    let other = w.app.sign_in("ann@example.com", PASSWORD).await;
    let other_sid = sid_of(&w.app, &other).await;
    assert_ne!(other_sid, sid);
    let id_token = w.as_user(&other).id_token().await;
    assert_eq!(claims_of(&id_token)["sid"], other_sid.as_str());
}

#[tokio::test]
async fn the_registry_keeps_the_logout_fields_and_checks_them() {
    let (w, admin) = world().await;
    let app = w.app.get_app(&admin, &w.app_id).await.ok(200)["app"].clone();
    assert_eq!(
        app["postLogoutRedirectUris"],
        logout_fields()["postLogoutRedirectUris"]
    );
    assert_eq!(app["backchannelLogoutUri"], BACKCHANNEL);
    assert_eq!(app["logoutUrl"], "");
    let bad = [
        (
            json!({"postLogoutRedirectUris": [BYE, "http://factory.example.com/bye"]}),
            "postLogoutRedirectUris[1]",
        ),
        (
            json!({"postLogoutRedirectUris": ["https://*.example.com/bye"]}),
            "postLogoutRedirectUris[0]",
        ),
        (
            json!({"backchannelLogoutUri": "http://factory.example.com/bc"}),
            "backchannelLogoutUri",
        ),
        (
            json!({"logoutUrl": "https://shop.example.com/logout#x"}),
            "logoutUrl",
        ),
    ];
    for (body, field) in bad {
        let res = w.app.patch_app(&admin, &w.app_id, &body).await;
        assert_eq!(
            res.error(400, "INVALID_PARAMETER")["field"],
            field,
            "{body}"
        );
    }
    // Nothing half-written.
    let after = w.app.get_app(&admin, &w.app_id).await.ok(200)["app"].clone();
    assert_eq!(after, app);
    // `ciam serve` (an http public URL) takes http://localhost for the back-channel.
    let local = json!({"logoutUrl": "http://localhost:9000/logout", "backchannelLogoutUri": ""});
    let changed = w.app.patch_app(&admin, &w.app_id, &local).await.ok(200);
    assert_eq!(changed["app"]["logoutUrl"], "http://localhost:9000/logout");
    assert_eq!(changed["app"]["backchannelLogoutUri"], "");

    // A deployment on https does not.
    let app = TestApp::spawn_with(
        |clock| {
            Box::pin(async move {
                let store: Arc<dyn ciam_store::Store> = Arc::new(
                    ciam_store::sqlite::SqliteStore::in_memory(Arc::new(clock)).expect("store"),
                );
                store
            })
        },
        Config {
            public_url: "https://id.example.com".into(),
            ..Config::default()
        },
    )
    .await;
    let admin = app.admin_token().await;
    let body = json!({
        "name": { "zh-CN": "店", "en-US": "Shop" },
        "serviceUrls": [SHOP],
        "backchannelLogoutUri": "http://localhost:9000/bc",
    });
    let res = app.create_app(&admin, &body).await;
    assert_eq!(
        res.error(400, "INVALID_PARAMETER")["field"],
        "backchannelLogoutUri"
    );
    assert_eq!(app.list_registry(&admin).await.ok(200)["apps"], json!([]));
}

#[tokio::test]
async fn the_end_session_endpoint_hands_the_request_to_the_page_by_get_and_post() {
    let (w, _) = world().await;
    let pairs = [
        ("id_token_hint", "a.b.c"),
        ("client_id", w.app_id.as_str()),
        ("post_logout_redirect_uri", "https://evil.example/"),
        ("state", "s t&u"),
        ("ui_locales", "fr en-US"),
        ("extra", "dropped"),
    ];
    let q = query(&pairs);
    let expect = format!(
        "/en-US/passport/end-session?id_token_hint=a.b.c&client_id={}&post_logout_redirect_uri=https%3A%2F%2Fevil.example%2F&state=s+t%26u",
        w.app_id
    );
    let res = get(&w.app, &format!("/oidc/logout?{q}"), &[]).await;
    assert_eq!(res.status.as_u16(), 303, "{}", res.text);
    // Our own page, whatever the redirect says: it is checked there, never followed here.
    assert_eq!(res.headers["location"], expect.as_str());
    let res = w
        .app
        .call(
            request(Method::POST, "/oidc/logout")
                .header("content-type", "application/x-www-form-urlencoded")
                .body(Body::from(q))
                .unwrap(),
        )
        .await;
    assert_eq!(res.status.as_u16(), 303, "{}", res.text);
    assert_eq!(res.headers["location"], expect.as_str());
    // No parameters: the page in the browser's language; nothing stored, no session read.
    let res = get(
        &w.app,
        "/oidc/logout",
        &[("accept-language", "zh-CN"), ("authorization", "Bearer x")],
    )
    .await;
    assert_eq!(res.headers["location"], "/zh-CN/passport/end-session");
}

#[tokio::test]
async fn a_hint_naming_this_session_ends_it_at_once_and_goes_back_with_the_state() {
    let (w, _) = world().await;
    let hint = w.id_token().await;
    let pairs = [
        ("id_token_hint", hint.as_str()),
        ("post_logout_redirect_uri", BYE),
        ("state", "st 1"),
    ];
    let ctx = context(&w.app, &pairs).await.ok(200);
    assert_eq!(
        ctx,
        json!({"appName": "Factory", "redirect": format!("{BYE}?state=st+1"), "hint": true})
    );
    assert!(
        alive(&w.app, &w.user).await,
        "the page's first call ends nothing"
    );
    let sid = sid_of(&w.app, &w.user).await;
    let body = json!({"idTokenHint": hint, "postLogoutRedirectUri": BYE, "state": "st 1"});
    let ended = end(&w.app, &w.user, body.clone()).await.ok(200);
    assert_eq!(
        ended,
        json!({"ended": true, "redirect": format!("{BYE}?state=st+1")})
    );
    // The session is over, as after a sign-out: the token no longer works, its item says so.
    get(
        &w.app,
        "/auth/info",
        &[("authorization", &format!("Bearer {}", w.user))],
    )
    .await
    .error(401, "AUTHORIZATION_FAILED");
    let items = w.app.sessions_of(&w.user_id).await;
    let item = items
        .iter()
        .find(|i| sessions::sid(&i.key) == sid)
        .expect("the session item");
    assert!(item.n("endedAt").is_some());
    end(&w.app, &w.user, body)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    // A registered URI with its own query keeps it; client_id and the hint together agree.
    let other = w.app.sign_in("ann@example.com", PASSWORD).await;
    let with_query = "https://factory.example.com/bye?from=ciam";
    let body = json!({
        "idTokenHint": w.as_user(&other).id_token().await,
        "clientId": w.app_id,
        "postLogoutRedirectUri": with_query,
        "state": "x",
    });
    let ended = end(&w.app, &other, body).await.ok(200);
    assert_eq!(ended["redirect"], format!("{with_query}&state=x"));
    assert!(!alive(&w.app, &other).await);
}

#[tokio::test]
async fn an_expired_hint_of_the_same_user_is_accepted() {
    let (w, _) = world().await;
    let hint = w.id_token().await;
    let exp = claims_of(&hint)["exp"].as_i64().unwrap();
    // Hours later (the id_token expired, and so did that session), a new session of the user.
    w.app.clock.advance(3 * 3600);
    assert!(w.app.now() > exp);
    let token = w.app.sign_in("ann@example.com", PASSWORD).await;
    let pairs = [("id_token_hint", hint.as_str())];
    assert_eq!(context(&w.app, &pairs).await.ok(200)["hint"], true);
    let ended = end(&w.app, &token, json!({"idTokenHint": hint}))
        .await
        .ok(200);
    assert_eq!(ended, json!({"ended": true, "redirect": null}));
    assert!(!alive(&w.app, &token).await);
}

#[tokio::test]
async fn without_a_valid_hint_for_this_session_the_user_is_asked_first() {
    let (w, _) = world().await;
    let hint = w.id_token().await;
    // Bob's session; ann's hint is valid but names neither his session nor him.
    w.app.sign_up("bob", "bob@example.com").await;
    let bob = w.app.sign_in("bob@example.com", PASSWORD).await;
    let mut tampered = hint.clone();
    tampered.replace_range(tampered.len() - 4.., "AAAA");
    let forged = {
        // Claims of ann's token, signed by a key the JWKS does not publish.
        let claims = claims_of(&hint);
        let other = ciam_core::Keys::from_root([9; 32]).oidc_signer(1);
        ciam_core::oidc::sign_jwt(other.as_ref(), &claims)
            .await
            .unwrap()
    };
    let cases: [(&str, Option<&str>, &str); 5] = [
        ("no hint", None, w.user.as_str()),
        ("garbage", Some("not-a-jwt"), w.user.as_str()),
        ("bad signature", Some(tampered.as_str()), w.user.as_str()),
        ("another key", Some(forged.as_str()), w.user.as_str()),
        ("another user's hint", Some(hint.as_str()), bob.as_str()),
    ];
    for (case, hint, token) in cases {
        let mut body = json!({"clientId": w.app_id, "postLogoutRedirectUri": BYE, "state": "s"});
        if let Some(h) = hint {
            body["idTokenHint"] = json!(h);
        }
        let mut pairs = vec![
            ("client_id", w.app_id.as_str()),
            ("post_logout_redirect_uri", BYE),
        ];
        if let Some(h) = hint {
            pairs.push(("id_token_hint", h));
        }
        let ctx = context(&w.app, &pairs).await.ok(200);
        assert_eq!(ctx["hint"], case == "another user's hint", "{case}");
        let asked = end(&w.app, token, body.clone()).await.ok(200);
        assert_eq!(asked, json!({"ended": false, "redirect": null}), "{case}");
        assert!(alive(&w.app, token).await, "{case}: not ended unasked");
    }
    // The user confirms: the session ends and the browser goes back.
    let body = json!({"clientId": w.app_id, "postLogoutRedirectUri": BYE, "state": "s", "confirmed": true});
    let ended = end(&w.app, &bob, body).await.ok(200);
    assert_eq!(
        ended,
        json!({"ended": true, "redirect": format!("{BYE}?state=s")})
    );
    assert!(!alive(&w.app, &bob).await);
    assert!(alive(&w.app, &w.user).await, "ann's session is not bob's");
    // Nothing at all but a confirmation: signed out, nowhere to go.
    let ended = end(&w.app, &w.user, json!({"confirmed": true}))
        .await
        .ok(200);
    assert_eq!(ended, json!({"ended": true, "redirect": null}));
}

#[tokio::test]
async fn an_unregistered_redirect_or_a_client_mismatch_is_refused_and_never_followed() {
    let (w, admin) = world().await;
    let hint = w.id_token().await;
    // Another registered app, whose own redirect cannot be used with this hint.
    let other = w
        .app
        .create_app(
            &admin,
            &json!({
                "name": { "zh-CN": "店", "en-US": "Shop" },
                "serviceUrls": [SHOP],
                "postLogoutRedirectUris": ["https://shop.example.com/bye"],
            }),
        )
        .await
        .ok(201)["app"]["appId"]
        .as_str()
        .unwrap()
        .to_owned();
    let long = "s".repeat(1025);
    let cases: Vec<Refusal> = vec![
        (
            "another site",
            vec![
                ("client_id", &w.app_id),
                ("post_logout_redirect_uri", "https://evil.example/bye"),
            ],
            "post_logout_redirect_uri",
        ),
        (
            "trailing slash",
            vec![
                ("client_id", &w.app_id),
                (
                    "post_logout_redirect_uri",
                    "https://factory.example.com/bye/",
                ),
            ],
            "post_logout_redirect_uri",
        ),
        (
            "a service URL is not a logout redirect",
            vec![("id_token_hint", &hint), ("post_logout_redirect_uri", CB)],
            "post_logout_redirect_uri",
        ),
        (
            "no client to check it against",
            vec![("post_logout_redirect_uri", BYE)],
            "post_logout_redirect_uri",
        ),
        (
            "a bad hint is no client either",
            vec![
                ("id_token_hint", "x.y.z"),
                ("post_logout_redirect_uri", BYE),
            ],
            "post_logout_redirect_uri",
        ),
        (
            "another app's redirect",
            vec![
                ("id_token_hint", &hint),
                ("post_logout_redirect_uri", "https://shop.example.com/bye"),
            ],
            "post_logout_redirect_uri",
        ),
        (
            "client_id is not the hint's aud",
            vec![("id_token_hint", &hint), ("client_id", &other)],
            "client_id",
        ),
        (
            "unknown client",
            vec![
                ("client_id", "0123456789abcdef"),
                ("post_logout_redirect_uri", BYE),
            ],
            "client_id",
        ),
        (
            "state too long",
            vec![
                ("client_id", &w.app_id),
                ("post_logout_redirect_uri", BYE),
                ("state", &long),
            ],
            "state",
        ),
    ];
    for (case, pairs, field) in cases {
        let res = context(&w.app, &pairs).await;
        assert_eq!(
            res.error(400, "INVALID_PARAMETER")["field"],
            field,
            "{case}"
        );
        let names = [
            ("id_token_hint", "idTokenHint"),
            ("client_id", "clientId"),
            ("post_logout_redirect_uri", "postLogoutRedirectUri"),
            ("state", "state"),
        ];
        let mut body = json!({"confirmed": true});
        for (k, v) in &pairs {
            let name = names.iter().find(|(p, _)| p == k).unwrap().1;
            body[name] = json!(v);
        }
        let res = end(&w.app, &w.user, body).await;
        assert_eq!(
            res.error(400, "INVALID_PARAMETER")["field"],
            field,
            "{case}"
        );
        assert!(alive(&w.app, &w.user).await, "{case}: nothing ended");
    }
}

/// Checks a Back-Channel Logout token against §2.4 (its contents) and §2.6 (its validation by
/// the RP), with the published JWKS: answers its claims.
pub(crate) fn check_logout_token(
    jwt: &str,
    jwks: &Value,
    aud: &str,
    sub: &str,
    sid: &str,
    now: i64,
) -> Value {
    // Signed by a key of the JWKS (ES256), typed as a logout token (§2.4, RFC 8725 §3.11).
    let (header, claims) = verify_jws(jwt, jwks).expect("signed by a published key");
    assert_eq!(header["typ"], "logout+jwt");
    assert_eq!(header["alg"], "ES256");
    assert_eq!(claims["iss"], ISSUER, "iss: the issuer of the id_tokens");
    assert_eq!(claims["aud"], aud, "aud: the client id");
    let iat = claims["iat"].as_i64().expect("iat");
    assert_eq!(iat, now);
    let exp = claims["exp"].as_i64().expect("exp");
    assert_eq!(exp, iat + 120, "expires two minutes later");
    let jti = claims["jti"].as_str().expect("jti");
    assert!(jti.len() >= 16, "jti: unique (128 random bits): {jti}");
    assert_eq!(
        claims["events"],
        json!({ BACKCHANNEL_EVENT: {} }),
        "events: exactly the back-channel logout member, an empty object"
    );
    assert_eq!(claims["sub"], sub);
    assert_eq!(claims["sid"], sid);
    assert!(claims.get("nonce").is_none(), "a logout token has no nonce");
    let names: Vec<&str> = claims
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for n in &names {
        assert!(
            ["iss", "aud", "iat", "exp", "jti", "sub", "sid", "events"].contains(n),
            "unexpected claim {n}"
        );
    }
    claims
}

async fn logout_token_notices(app: &TestApp) {
    let admin = app.admin_token().await;
    let mk = |name: &str, extra: Value| {
        let mut body = json!({
            "name": { "zh-CN": format!("{name}中"), "en-US": name },
            "serviceUrls": [CB, SHOP],
            "scopes": ["nickname"],
        });
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    let id_of = |v: Value| v["app"]["appId"].as_str().unwrap().to_owned();
    let created = app
        .create_app(&admin, &mk("Factory", logout_fields()))
        .await
        .ok(201);
    let client_secret = created["appSecret"].as_str().unwrap().to_owned();
    let client = id_of(created);
    let shop = id_of(
        app.create_app(&admin, &mk("Shop", json!({"logoutUrl": TICKET_LOGOUT})))
            .await
            .ok(201),
    );
    let deaf = id_of(app.create_app(&admin, &mk("Deaf", json!({}))).await.ok(201));
    let user_id = app.sign_up("ann", "ann@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    let sid = sid_of(app, &token).await;
    // The OIDC client through the code flow (Allow records the sign-in), the ticket apps
    // through tickets.
    let w = World {
        app: app.clone(),
        app_id: client.clone(),
        secret: client_secret,
        user: token.clone(),
        user_id: user_id.clone(),
    };
    let id_token = w.id_token().await;
    app.issue_ticket(&token, &shop, SHOP).await.ok(200);
    app.issue_ticket(&token, &deaf, SHOP).await.ok(200);
    // Another session of ann signed in to nothing.
    let other = app.sign_in("ann@example.com", PASSWORD).await;
    let other_sid = sid_of(app, &other).await;

    // Sign-out, as the user does it.
    app.call(json_request(
        Method::POST,
        "/auth/logout",
        Some(&token),
        &json!({}),
    ))
    .await
    .ok(200);
    let now = app.now();
    let got = notices(&app.ciam, &user_id, &sid).await.unwrap();
    assert_eq!(got.len(), 2, "{got:?}");
    let jwks = get(app, "/oidc/jwks", &[]).await.ok(200);
    let bc = got
        .iter()
        .find(|n| n.app_id == client)
        .expect("the client's");
    assert_eq!(bc.url, BACKCHANNEL);
    assert_eq!(bc.content_type, "application/x-www-form-urlencoded");
    let form: Vec<(String, String)> = url::form_urlencoded::parse(bc.body.as_bytes())
        .into_owned()
        .collect();
    assert_eq!(form.len(), 1);
    assert_eq!(form[0].0, "logout_token");
    let claims = check_logout_token(&form[0].1, &jwks, &client, &user_id, &sid, now);
    // The RP matches it to its session by the id_token's sid and sub.
    assert_eq!(claims_of(&id_token)["sid"], claims["sid"]);
    assert_eq!(claims_of(&id_token)["sub"], claims["sub"]);
    let cas = got
        .iter()
        .find(|n| n.app_id == shop)
        .expect("the ticket app's");
    assert_eq!(cas.url, TICKET_LOGOUT);
    // A ticket app gets the same logout token (its own aud), verified with the JWKS.
    assert_eq!(cas.content_type, "application/x-www-form-urlencoded");
    let form: Vec<(String, String)> = url::form_urlencoded::parse(cas.body.as_bytes())
        .into_owned()
        .collect();
    assert_eq!(form[0].0, "logout_token");
    check_logout_token(&form[0].1, &jwks, &shop, &user_id, &sid, now);
    assert!(got.iter().all(|n| n.app_id != deaf), "no URL, no notice");
    // Each token is new (jti), and the other session has nothing to tell.
    let again = notices(&app.ciam, &user_id, &sid).await.unwrap();
    let again = again.iter().find(|n| n.app_id == client).unwrap();
    let form: Vec<(String, String)> = url::form_urlencoded::parse(again.body.as_bytes())
        .into_owned()
        .collect();
    assert_ne!(claims_of(&form[0].1)["jti"], claims["jti"]);
    assert_eq!(
        notices(&app.ciam, &user_id, &other_sid).await.unwrap(),
        vec![]
    );
    // An app without logout URLs costs no record.
    let records = app
        .store
        .query(ciam_store::Query::partition(format!("SESSAPP#{user_id}")))
        .await
        .unwrap();
    assert_eq!(records.len(), 2, "{records:?}");
}

#[tokio::test]
async fn back_channel_logout_tokens_follow_every_claim_rule_and_ticket_apps_get_a_notice() {
    logout_token_notices(&TestApp::spawn().await).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn logout_holds_on_dynamodb() {
    let local = Arc::new(ciam_store::dynamo_local::DynamoLocal::start().await);
    logout_token_notices(&TestApp::on_dynamo(&local, "oidclogout").await).await;
    let (w, _) = world_on(TestApp::on_dynamo(&local, "oidclogout2").await).await;
    let hint = w.id_token().await;
    let body = json!({"idTokenHint": hint, "postLogoutRedirectUri": BYE, "state": "d"});
    let ended = end(&w.app, &w.user, body).await.ok(200);
    assert_eq!(
        ended,
        json!({"ended": true, "redirect": format!("{BYE}?state=d")})
    );
    assert!(!alive(&w.app, &w.user).await);
}

/// What recording the session's apps costs (docs/cost.md): only apps that hear logouts pay it,
/// 2 write units as one more transaction item.
#[tokio::test]
async fn only_an_app_that_hears_logouts_pays_for_the_sessions_record() {
    use ciam_core::testing::billing::total;
    let (w, admin) = world().await;
    let shop = w
        .app
        .create_app(
            &admin,
            &json!({
                "name": { "zh-CN": "店", "en-US": "Shop" },
                "serviceUrls": [SHOP],
                "scopes": ["nickname"],
                "logoutUrl": TICKET_LOGOUT,
            }),
        )
        .await
        .ok(201)["app"]["appId"]
        .as_str()
        .unwrap()
        .to_owned();
    let app = &w.app;
    app.store.bill_writes();
    app.issue_ticket(&w.user, &shop, SHOP).await.ok(200);
    app.clock.advance(30);
    app.store.take_bill();
    // The consent held, the app used today: the ticket and the session's record, one
    // transaction (a ticket of an app without a logout URL is its put alone: write_units.rs).
    app.issue_ticket(&w.user, &shop, SHOP).await.ok(200);
    let bill = app.store.take_bill();
    let keys: Vec<String> = bill.iter().map(|b| b.key.pk.clone()).collect();
    assert_eq!(total(&bill), 4, "{keys:?}");
    assert!(keys.iter().any(|k| k.starts_with("SESSAPP#")), "{keys:?}");
    // A second code the same day: 5 units without a logout URL (write_units.rs), 7 with one.
    w.code().await;
    app.clock.advance(30);
    app.store.take_bill();
    w.code().await;
    // (Not the session's idle refresh, once a minute.)
    let bill: Vec<_> = app
        .store
        .take_bill()
        .into_iter()
        .filter(|b| !b.key.sk.starts_with("SESSION#"))
        .collect();
    let keys: Vec<String> = bill.iter().map(|b| b.key.pk.clone()).collect();
    assert_eq!(total(&bill), 7, "{keys:?}");
    assert!(keys.iter().any(|k| k.starts_with("SESSAPP#")), "{keys:?}");
}
