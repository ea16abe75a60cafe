//! The OpenID Connect provider: discovery, exact redirect URIs, PKCE S256, single-use codes,
//! ES256 id_tokens verified with the published JWKS, userinfo, expiry and key rotation.

use crate::helpers::{json_request, request, url_encode, TestApp, TestResponse, PASSWORD};
use axum::body::Body;
use axum::http::Method;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use ciam_store::Store;
use p256::ecdsa::signature::Verifier;
use serde_json::{json, Value};
use std::sync::Arc;

pub(crate) const CB: &str = "https://factory.example.com/oidc/cb";
const OTHER_CB: &str = "https://factory.example.com/cb?x=1";
const ISSUER: &str = "http://127.0.0.1:8080/ciam/v1/oidc";
pub(crate) const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

/// A refusal case: its label, the overrides of the valid request, and what is expected.
type Case<'a> = (&'a str, Vec<(&'a str, Option<&'a str>)>, &'a str);

pub(crate) struct World {
    pub(crate) app: TestApp,
    pub(crate) app_id: String,
    pub(crate) secret: String,
    pub(crate) user: String,
    pub(crate) user_id: String,
}

pub(crate) async fn world_on(app: TestApp) -> World {
    let admin = app.admin_token().await;
    let created = app
        .create_app(
            &admin,
            &json!({
                "name": { "zh-CN": "工厂", "en-US": "Factory" },
                "logo": "https://factory.example.com/logo.png",
                "serviceUrls": [CB, OTHER_CB],
                "scopes": ["nickname", "email", "company"],
            }),
        )
        .await
        .ok(201);
    let user_id = app.sign_up("ann", "ann@example.com").await;
    let user = app.sign_in("ann@example.com", PASSWORD).await;
    World {
        app_id: created["app"]["appId"].as_str().unwrap().to_owned(),
        secret: created["appSecret"].as_str().unwrap().to_owned(),
        app,
        user,
        user_id,
    }
}

async fn world() -> World {
    world_on(TestApp::spawn().await).await
}

pub(crate) async fn get(app: &TestApp, p: &str, headers: &[(&str, &str)]) -> TestResponse {
    let mut b = request(Method::GET, p);
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    app.call(b.body(Body::empty()).unwrap()).await
}

pub(crate) fn query(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", url_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

pub(crate) fn location(res: &TestResponse) -> String {
    assert_eq!(res.status.as_u16(), 302, "body: {}", res.text);
    res.headers["location"].to_str().unwrap().to_owned()
}

/// The query parameters of a URL.
fn params(url: &str) -> Vec<(String, String)> {
    let q = url.split_once('?').map(|(_, q)| q).unwrap_or("");
    url::form_urlencoded::parse(q.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

pub(crate) fn param(url: &str, name: &str) -> Option<String> {
    params(url)
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

impl World {
    /// A valid authorization request with these overrides (a None value drops the parameter).
    pub(crate) fn authorize_query(&self, overrides: &[(&str, Option<&str>)]) -> String {
        let mut base: Vec<(&str, Option<&str>)> = vec![
            ("response_type", Some("code")),
            ("client_id", Some(self.app_id.as_str())),
            ("redirect_uri", Some(CB)),
            ("scope", Some("openid nickname email phone")),
            ("state", Some("st-123")),
            ("nonce", Some("n-456")),
            ("code_challenge", Some(CHALLENGE)),
            ("code_challenge_method", Some("S256")),
        ];
        for (k, v) in overrides {
            match base.iter_mut().find(|(b, _)| b == k) {
                Some(slot) => slot.1 = *v,
                None => base.push((k, *v)),
            }
        }
        let kept: Vec<(&str, &str)> = base
            .into_iter()
            .filter_map(|(k, v)| v.map(|v| (k, v)))
            .collect();
        query(&kept)
    }

    pub(crate) async fn authorize(&self, overrides: &[(&str, Option<&str>)]) -> TestResponse {
        let q = self.authorize_query(overrides);
        get(&self.app, &format!("/oidc/authorize?{q}"), &[]).await
    }

    /// A stored request's id.
    pub(crate) async fn request_id(&self, overrides: &[(&str, Option<&str>)]) -> String {
        let to = location(&self.authorize(overrides).await);
        param(&to, "oidcRequest").unwrap_or_else(|| panic!("no request in {to}"))
    }

    pub(crate) async fn view(&self, id: &str) -> TestResponse {
        get(
            &self.app,
            &format!("/oidc/requests/{id}"),
            &[
                ("authorization", &format!("Bearer {}", self.user)),
                ("accept-language", "en-US"),
            ],
        )
        .await
    }

    pub(crate) async fn allow(&self, id: &str) -> TestResponse {
        self.app
            .call(json_request(
                Method::POST,
                &format!("/oidc/requests/{id}"),
                Some(&self.user),
                &json!({}),
            ))
            .await
    }

    /// The whole front channel: request, Allow; answers the code.
    pub(crate) async fn code(&self) -> String {
        let id = self.request_id(&[]).await;
        let to = self.allow(&id).await.ok(200)["redirect"]
            .as_str()
            .unwrap()
            .to_owned();
        param(&to, "code").expect("code")
    }

    /// The same client, signed in as `token`.
    pub(crate) fn as_user(&self, token: &str) -> World {
        World {
            app: self.app.clone(),
            app_id: self.app_id.clone(),
            secret: self.secret.clone(),
            user: token.to_owned(),
            user_id: self.user_id.clone(),
        }
    }

    /// An id_token of the whole code flow through this session.
    pub(crate) async fn id_token(&self) -> String {
        let code = self.code().await;
        let tokens = self.redeem(&code, VERIFIER, CB).await.ok(200);
        tokens["id_token"].as_str().unwrap().to_owned()
    }

    fn basic(&self) -> String {
        let e = |s: &str| url_encode(s);
        STANDARD.encode(format!("{}:{}", e(&self.app_id), e(&self.secret)))
    }

    /// `POST /token` with the client's credentials by Basic.
    pub(crate) async fn redeem(
        &self,
        code: &str,
        verifier: &str,
        redirect_uri: &str,
    ) -> TestResponse {
        let body = query(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", verifier),
        ]);
        token(&self.app, Some(&self.basic()), &body).await
    }
}

pub(crate) async fn token(app: &TestApp, basic: Option<&str>, body: &str) -> TestResponse {
    let mut b = request(Method::POST, "/oidc/token")
        .header("content-type", "application/x-www-form-urlencoded");
    if let Some(creds) = basic {
        b = b.header("authorization", format!("Basic {creds}"));
    }
    app.call(b.body(Body::from(body.to_owned())).unwrap()).await
}

pub(crate) async fn userinfo(app: &TestApp, access_token: &str) -> TestResponse {
    get(
        app,
        "/oidc/userinfo",
        &[("authorization", &format!("Bearer {access_token}"))],
    )
    .await
}

#[track_caller]
pub(crate) fn oauth_error(res: &TestResponse, status: u16, error: &str) {
    assert_eq!(res.status.as_u16(), status, "body: {}", res.text);
    assert_eq!(res.json()["error"], error, "body: {}", res.text);
    assert!(res.json()["error_description"].is_string());
}

/// Verifies a compact ES256 JWS (`typ` JWT) with the key of its `kid` in `jwks`; answers header
/// and claims.
pub(crate) fn verify_jwt(jwt: &str, jwks: &Value) -> Result<(Value, Value), String> {
    let (header, claims) = verify_jws(jwt, jwks)?;
    assert_eq!(header["typ"], "JWT");
    Ok((header, claims))
}

/// Verifies a compact ES256 JWS of any `typ` with the key of its `kid` in `jwks`.
pub(crate) fn verify_jws(jwt: &str, jwks: &Value) -> Result<(Value, Value), String> {
    let parts: Vec<&str> = jwt.split('.').collect();
    assert_eq!(parts.len(), 3, "{jwt}");
    let dec = |s: &str| URL_SAFE_NO_PAD.decode(s).expect("base64url");
    let header: Value = serde_json::from_slice(&dec(parts[0])).unwrap();
    let claims: Value = serde_json::from_slice(&dec(parts[1])).unwrap();
    assert_eq!(header["alg"], "ES256");
    let jwk = jwks["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kid"] == header["kid"])
        .ok_or_else(|| format!("kid {} is not in the JWKS", header["kid"]))?;
    assert_eq!(
        (&jwk["kty"], &jwk["crv"], &jwk["alg"], &jwk["use"]),
        (
            &json!("EC"),
            &json!("P-256"),
            &json!("ES256"),
            &json!("sig")
        )
    );
    let coord = |n: &str| dec(jwk[n].as_str().unwrap());
    let (x, y) = (coord("x"), coord("y"));
    let point = p256::EncodedPoint::from_affine_coordinates(
        p256::FieldBytes::from_slice(&x),
        p256::FieldBytes::from_slice(&y),
        false,
    );
    let key = p256::ecdsa::VerifyingKey::from_encoded_point(&point).map_err(|e| e.to_string())?;
    let sig = p256::ecdsa::Signature::from_slice(&dec(parts[2])).map_err(|e| e.to_string())?;
    key.verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &sig)
        .map_err(|e| format!("bad signature: {e}"))?;
    Ok((header, claims))
}

#[tokio::test]
async fn discovery_and_jwks_describe_the_provider() {
    let app = TestApp::spawn().await;
    let res = get(&app, "/oidc/.well-known/openid-configuration", &[]).await;
    let d = res.ok(200);
    assert_eq!(d["issuer"], ISSUER);
    assert_eq!(d["authorization_endpoint"], format!("{ISSUER}/authorize"));
    assert_eq!(d["token_endpoint"], format!("{ISSUER}/token"));
    assert_eq!(d["userinfo_endpoint"], format!("{ISSUER}/userinfo"));
    assert_eq!(d["jwks_uri"], format!("{ISSUER}/jwks"));
    assert_eq!(d["response_types_supported"], json!(["code"]));
    assert_eq!(d["grant_types_supported"], json!(["authorization_code"]));
    assert_eq!(d["subject_types_supported"], json!(["public"]));
    assert_eq!(d["id_token_signing_alg_values_supported"], json!(["ES256"]));
    assert_eq!(d["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(
        d["token_endpoint_auth_methods_supported"],
        json!(["client_secret_basic", "client_secret_post"])
    );
    assert_eq!(
        d["scopes_supported"],
        json!([
            "openid",
            "avatar",
            "nickname",
            "company",
            "phone",
            "email",
            "organization"
        ])
    );
    for c in [
        "sub",
        "nonce",
        "nickname",
        "picture",
        "email",
        "phone_number",
    ] {
        assert!(
            d["claims_supported"]
                .as_array()
                .unwrap()
                .contains(&json!(c)),
            "{c}"
        );
    }
    assert!(res.headers["cache-control"]
        .to_str()
        .unwrap()
        .contains("max-age"));

    let res = get(&app, "/oidc/jwks", &[]).await;
    let jwks = res.ok(200);
    let keys = jwks["keys"].as_array().unwrap();
    let kids: Vec<&str> = keys.iter().map(|k| k["kid"].as_str().unwrap()).collect();
    assert_eq!(
        kids,
        [
            app.ciam.keys.es256(1).kid(),
            app.ciam.keys.es256(2).kid(),
            app.ciam.keys.logout_es256(1).kid()
        ],
        "the current key and the next one (version 1 has no predecessor), then the logout \
         tokens' own key: {jwks}"
    );
    assert!(
        keys.iter().all(|k| k.get("d").is_none()),
        "never the private part"
    );
    assert!(res.headers["cache-control"]
        .to_str()
        .unwrap()
        .starts_with("public, max-age="));
}

#[tokio::test]
async fn a_bad_client_or_redirect_uri_is_refused_here_and_never_redirected() {
    let w = world().await;
    let cases: Vec<Case> = vec![
        ("no client", vec![("client_id", None)], "client_id"),
        (
            "unknown client",
            vec![("client_id", Some("0123456789abcdef"))],
            "client_id",
        ),
        (
            "no redirect_uri",
            vec![("redirect_uri", None)],
            "redirect_uri",
        ),
        (
            "trailing slash",
            vec![("redirect_uri", Some("https://factory.example.com/oidc/cb/"))],
            "redirect_uri",
        ),
        (
            "change of case",
            vec![("redirect_uri", Some("https://factory.example.com/OIDC/cb"))],
            "redirect_uri",
        ),
        (
            "added query",
            vec![(
                "redirect_uri",
                Some("https://factory.example.com/oidc/cb?a=1"),
            )],
            "redirect_uri",
        ),
        (
            "downgrade to http",
            vec![("redirect_uri", Some("http://factory.example.com/oidc/cb"))],
            "redirect_uri",
        ),
        (
            "another site",
            vec![("redirect_uri", Some("https://evil.example/oidc/cb"))],
            "redirect_uri",
        ),
    ];
    for (case, overrides, field) in cases {
        let res = w.authorize(&overrides).await;
        assert!(!res.headers.contains_key("location"), "{case}: redirected");
        let body = res.error(400, "INVALID_PARAMETER");
        assert_eq!(body["field"], field, "{case}");
    }
    // A repeated redirect_uri is refused too, even when one copy is registered.
    let q = format!(
        "{}&redirect_uri={}",
        w.authorize_query(&[]),
        url_encode("https://evil.example/")
    );
    let res = get(&w.app, &format!("/oidc/authorize?{q}"), &[]).await;
    assert!(!res.headers.contains_key("location"));
    res.error(400, "INVALID_PARAMETER");
}

#[tokio::test]
async fn other_refusals_go_back_to_the_client_with_the_state() {
    let w = world().await;
    let cases: Vec<Case> = vec![
        (
            "no PKCE",
            vec![("code_challenge", None), ("code_challenge_method", None)],
            "invalid_request",
        ),
        (
            "no challenge",
            vec![("code_challenge", None)],
            "invalid_request",
        ),
        (
            "no method (plain)",
            vec![("code_challenge_method", None)],
            "invalid_request",
        ),
        (
            "plain",
            vec![("code_challenge_method", Some("plain"))],
            "invalid_request",
        ),
        (
            "implicit",
            vec![("response_type", Some("id_token token"))],
            "unsupported_response_type",
        ),
        (
            "token",
            vec![("response_type", Some("token"))],
            "unsupported_response_type",
        ),
        (
            "no openid",
            vec![("scope", Some("nickname email"))],
            "invalid_request",
        ),
        (
            "no response_type",
            vec![("response_type", None)],
            "invalid_request",
        ),
    ];
    for (case, overrides, error) in cases {
        let to = location(&w.authorize(&overrides).await);
        assert!(to.starts_with(&format!("{CB}?")), "{case}: {to}");
        assert_eq!(param(&to, "error").as_deref(), Some(error), "{case}: {to}");
        assert!(param(&to, "error_description").is_some(), "{case}");
        assert_eq!(param(&to, "state").as_deref(), Some("st-123"), "{case}");
        assert_eq!(param(&to, "iss").as_deref(), Some(ISSUER), "{case}");
        assert!(param(&to, "code").is_none());
    }
    // No state sent, none returned.
    let to = location(
        &w.authorize(&[("state", None), ("code_challenge_method", Some("plain"))])
            .await,
    );
    assert!(param(&to, "state").is_none(), "{to}");
    // A URI registered with a query keeps it.
    let to = location(
        &w.authorize(&[("redirect_uri", Some(OTHER_CB)), ("scope", Some("email"))])
            .await,
    );
    assert!(
        to.starts_with(&format!("{OTHER_CB}&error=invalid_request")),
        "{to}"
    );
}

#[tokio::test]
async fn the_code_flow_signs_in_and_the_id_token_verifies_with_the_jwks() {
    let w = world().await;
    let app = &w.app;
    // The language comes from ui_locales, else Accept-Language, else zh-CN.
    let to = location(&w.authorize(&[("ui_locales", Some("fr en-US"))]).await);
    assert!(
        to.starts_with("/en-US/passport/authorize?oidcRequest="),
        "{to}"
    );
    let to = location(
        &get(
            app,
            &format!("/oidc/authorize?{}", w.authorize_query(&[])),
            &[("accept-language", "en-US")],
        )
        .await,
    );
    assert!(to.starts_with("/en-US/passport/authorize?"), "{to}");
    let to = location(&w.authorize(&[]).await);
    assert!(
        to.starts_with("/zh-CN/passport/authorize?oidcRequest="),
        "{to}"
    );
    let id = param(&to, "oidcRequest").unwrap();

    // The consent screen's view needs a session.
    get(app, &format!("/oidc/requests/{id}"), &[])
        .await
        .error(401, "AUTHORIZATION_FAILED");
    let view = w.view(&id).await.ok(200);
    assert_eq!(view["appId"], w.app_id.as_str());
    assert_eq!(view["name"], "Factory");
    assert_eq!(view["logo"], "https://factory.example.com/logo.png");
    assert_eq!(
        view["scopes"],
        json!(["email", "nickname"]),
        "asked ∩ the app's"
    );
    assert_eq!(view["granted"], false);
    let cancel = view["cancelUrl"].as_str().unwrap();
    assert!(
        cancel.starts_with(&format!("{CB}?error=access_denied")),
        "{cancel}"
    );
    assert_eq!(param(cancel, "state").as_deref(), Some("st-123"));

    let redirect = w.allow(&id).await.ok(200)["redirect"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(redirect.starts_with(&format!("{CB}?code=")), "{redirect}");
    assert_eq!(param(&redirect, "state").as_deref(), Some("st-123"));
    assert_eq!(param(&redirect, "iss").as_deref(), Some(ISSUER));
    let code = param(&redirect, "code").unwrap();
    assert!(URL_SAFE_NO_PAD.decode(&code).unwrap().len() >= 32);
    // The request is single use.
    w.allow(&id).await.error(404, "NOT_FOUND");
    w.view(&id).await.error(404, "NOT_FOUND");
    // The code is stored only as a keyed hash.
    let written = format!("{:?}", app.store.written());
    assert!(!written.contains(&code));

    let res = w.redeem(&code, VERIFIER, CB).await;
    let tokens = res.ok(200);
    assert_eq!(res.headers["cache-control"], "no-store");
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["expires_in"], 3600);
    assert_eq!(tokens["scope"], "openid email nickname");
    let jwks = get(app, "/oidc/jwks", &[]).await.ok(200);
    let (header, claims) = verify_jwt(tokens["id_token"].as_str().unwrap(), &jwks).unwrap();
    assert_eq!(header["kid"], app.ciam.keys.es256(1).kid());
    assert_eq!(claims["iss"], ISSUER);
    assert_eq!(claims["aud"], w.app_id.as_str());
    assert_eq!(claims["azp"], w.app_id.as_str());
    assert_eq!(claims["sub"], w.user_id.as_str());
    assert_eq!(claims["nonce"], "n-456");
    assert_eq!(claims["iat"], app.now());
    assert_eq!(claims["exp"], app.now() + 3600);
    assert!(claims["auth_time"].as_i64().unwrap() <= app.now());
    assert_eq!(claims["email"], "ann@example.com");
    assert_eq!(claims["nickname"], "ann");
    assert!(claims.get("company").is_none(), "not asked for");
    assert!(claims.get("phone_number").is_none(), "not the app's scope");
    // A tampered token does not verify.
    let id_token = tokens["id_token"].as_str().unwrap();
    let mut parts: Vec<String> = id_token.split('.').map(str::to_owned).collect();
    parts[1] = URL_SAFE_NO_PAD.encode(
        claims
            .to_string()
            .replace(w.user_id.as_str(), &"0".repeat(32)),
    );
    assert!(verify_jwt(&parts.join("."), &jwks).is_err());

    let access = tokens["access_token"].as_str().unwrap();
    let info = userinfo(app, access).await.ok(200);
    assert_eq!(
        info,
        json!({ "sub": w.user_id, "nickname": "ann", "email": "ann@example.com", "email_verified": true })
    );
    // POST works too, with the header or the form field.
    let res = app
        .call(
            request(Method::POST, "/oidc/userinfo")
                .header("content-type", "application/x-www-form-urlencoded")
                .body(Body::from(format!("access_token={access}")))
                .unwrap(),
        )
        .await;
    assert_eq!(res.ok(200)["sub"], w.user_id.as_str());

    // The consent is remembered, and the app is among the recent ones.
    let id = w.request_id(&[]).await;
    assert_eq!(w.view(&id).await.ok(200)["granted"], true);
    let recent = app.get_recent_apps(&w.user).await.ok(200);
    assert!(recent.to_string().contains(&w.app_id), "{recent}");

    // client_secret_post, and a request without nonce: no nonce claim.
    let id = w.request_id(&[("nonce", None)]).await;
    let to = w.allow(&id).await.ok(200)["redirect"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = query(&[
        ("grant_type", "authorization_code"),
        ("code", &param(&to, "code").unwrap()),
        ("redirect_uri", CB),
        ("code_verifier", VERIFIER),
        ("client_id", &w.app_id),
        ("client_secret", &w.secret),
    ]);
    let tokens = token(app, None, &body).await.ok(200);
    let (_, claims) = verify_jwt(tokens["id_token"].as_str().unwrap(), &jwks).unwrap();
    assert!(claims.get("nonce").is_none());
}

#[tokio::test]
async fn codes_are_single_use_and_bound_to_client_uri_and_verifier() {
    let w = world().await;
    let app = &w.app;

    // Reuse.
    let code = w.code().await;
    w.redeem(&code, VERIFIER, CB).await.ok(200);
    oauth_error(&w.redeem(&code, VERIFIER, CB).await, 400, "invalid_grant");

    // A wrong verifier burns the code.
    let code = w.code().await;
    let wrong = "x".repeat(43);
    oauth_error(&w.redeem(&code, &wrong, CB).await, 400, "invalid_grant");
    oauth_error(&w.redeem(&code, VERIFIER, CB).await, 400, "invalid_grant");
    // So does a missing verifier and another redirect_uri.
    let code = w.code().await;
    oauth_error(&w.redeem(&code, "", CB).await, 400, "invalid_grant");
    let code = w.code().await;
    oauth_error(
        &w.redeem(&code, VERIFIER, OTHER_CB).await,
        400,
        "invalid_grant",
    );
    oauth_error(&w.redeem(&code, VERIFIER, CB).await, 400, "invalid_grant");

    // A wrong secret is invalid_client and leaves the code alone.
    let code = w.code().await;
    let bad = STANDARD.encode(format!("{}:{}", w.app_id, "not-the-secret"));
    let body = query(&[
        ("grant_type", "authorization_code"),
        ("code", &code),
        ("redirect_uri", CB),
        ("code_verifier", VERIFIER),
    ]);
    let res = token(app, Some(&bad), &body).await;
    oauth_error(&res, 401, "invalid_client");
    assert!(res.headers["www-authenticate"]
        .to_str()
        .unwrap()
        .starts_with("Basic"));
    let post_bad = format!(
        "{body}&{}",
        query(&[("client_id", &w.app_id), ("client_secret", "nope")])
    );
    oauth_error(&token(app, None, &post_bad).await, 401, "invalid_client");
    oauth_error(&token(app, None, &body).await, 401, "invalid_client");
    // Both methods at once are refused.
    let both = format!("{body}&client_secret={}", w.secret);
    oauth_error(
        &token(app, Some(&w.basic()), &both).await,
        400,
        "invalid_request",
    );
    w.redeem(&code, VERIFIER, CB).await.ok(200);

    // Another client's code: refused, and burned.
    let admin = app.admin_session("admin@example.com").await;
    let other = app
        .create_app(
            &admin,
            &json!({ "name": { "zh-CN": "别家", "en-US": "Other" }, "serviceUrls": [CB] }),
        )
        .await
        .ok(201);
    let creds = STANDARD.encode(format!(
        "{}:{}",
        other["app"]["appId"].as_str().unwrap(),
        other["appSecret"].as_str().unwrap()
    ));
    let code = w.code().await;
    let body = query(&[
        ("grant_type", "authorization_code"),
        ("code", &code),
        ("redirect_uri", CB),
        ("code_verifier", VERIFIER),
    ]);
    oauth_error(&token(app, Some(&creds), &body).await, 400, "invalid_grant");
    oauth_error(&w.redeem(&code, VERIFIER, CB).await, 400, "invalid_grant");

    // Other grants and shapes.
    let body = query(&[("grant_type", "client_credentials")]);
    oauth_error(
        &token(app, Some(&w.basic()), &body).await,
        400,
        "unsupported_grant_type",
    );
    let res = app
        .call(json_request(
            Method::POST,
            "/oidc/token",
            None,
            &json!({ "grant_type": "authorization_code" }),
        ))
        .await;
    oauth_error(&res, 400, "invalid_request");
    oauth_error(&userinfo(app, "made-up").await, 401, "invalid_token");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_redemptions_of_one_code_have_one_winner() {
    let w = world().await;
    let code = w.code().await;
    let results =
        futures_util::future::join_all((0..20).map(|_| w.redeem(&code, VERIFIER, CB))).await;
    let wins = results.iter().filter(|r| r.status == 200).count();
    assert_eq!(
        wins,
        1,
        "{:?}",
        results.iter().map(|r| &r.text).collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn requests_codes_and_access_tokens_expire() {
    let w = world().await;
    let app = &w.app;
    // A request lives 10 minutes.
    let id = w.request_id(&[]).await;
    app.clock.advance(10 * 60);
    w.view(&id).await.error(404, "NOT_FOUND");
    w.allow(&id).await.error(404, "NOT_FOUND");
    // A code lives 5 minutes.
    let code = w.code().await;
    app.clock.advance(5 * 60);
    oauth_error(&w.redeem(&code, VERIFIER, CB).await, 400, "invalid_grant");
    let code = w.code().await;
    app.clock.advance(5 * 60 - 1);
    let tokens = w.redeem(&code, VERIFIER, CB).await.ok(200);
    // An access token lives an hour.
    let access = tokens["access_token"].as_str().unwrap();
    app.clock.advance(60 * 60 - 1);
    userinfo(app, access).await.ok(200);
    app.clock.advance(1);
    let res = userinfo(app, access).await;
    oauth_error(&res, 401, "invalid_token");
    assert!(res.headers["www-authenticate"]
        .to_str()
        .unwrap()
        .contains(r#"error="invalid_token""#));
}

#[tokio::test]
async fn an_access_token_used_on_a_new_day_counts_the_account_active() {
    let w = world().await;
    let code = w.code().await;
    let tokens = w.redeem(&code, VERIFIER, CB).await.ok(200);
    let access = tokens["access_token"].as_str().unwrap();
    // As if the account last signed in yesterday and the partner kept its token.
    let key = ciam_core::user::profile_key(&w.user_id);
    let ops = vec![ciam_store::Update::Set(
        "activeDay".into(),
        "2000-01-01".into(),
    )];
    w.app.store.update(&key, ops, None).await.unwrap();
    userinfo(&w.app, access).await.ok(200);
    let user = w.app.user_item(&w.user_id).await.unwrap();
    let today = ciam_core::days::day_of(w.app.now());
    assert_eq!(user.s("activeDay"), Some(today.as_str()));
}

#[tokio::test]
async fn a_deactivated_account_loses_its_access_tokens() {
    let w = world().await;
    let code = w.code().await;
    let tokens = w.redeem(&code, VERIFIER, CB).await.ok(200);
    let access = tokens["access_token"].as_str().unwrap();
    userinfo(&w.app, access).await.ok(200);
    w.app
        .deactivate(&w.user, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    let res = userinfo(&w.app, access).await;
    oauth_error(&res, 401, "invalid_token");
    assert!(res.headers["www-authenticate"]
        .to_str()
        .unwrap()
        .contains(r#"Bearer"#));
}

/// The same store and clock, served with another signing-key version.
async fn with_key_version(w: &World, version: u32, req: axum::http::Request<Body>) -> TestResponse {
    let mut ciam = w.app.ciam.clone();
    ciam.config.oidc_key_version = version;
    crate::helpers::call_router(ciam_api::router(ciam), req)
        .await
        .as_text()
}

fn jwks_request() -> axum::http::Request<Body> {
    request(Method::GET, "/oidc/jwks")
        .body(Body::empty())
        .unwrap()
}

/// The id_token keys' kids (the logout tokens' key, published after them, left out).
fn kids(jwks: &Value) -> Vec<String> {
    jwks["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kid"].as_str().unwrap().to_owned())
        .filter(|k| !k.contains("-logout-"))
        .collect()
}

#[tokio::test]
async fn a_rotation_switches_to_a_key_already_published_and_old_id_tokens_verify_once_more() {
    let w = world().await;
    let kid = |v: u32| w.app.ciam.keys.es256(v).kid().to_owned();
    // Before the rotation: versions 1 and 2 (the next one) are published, and cached by clients.
    let jwks1 = with_key_version(&w, 1, jwks_request()).await.ok(200);
    assert_eq!(kids(&jwks1), [kid(1), kid(2)]);
    let code = w.code().await;
    let tokens = w.redeem(&code, VERIFIER, CB).await.ok(200);
    let old = tokens["id_token"].as_str().unwrap().to_owned();

    // After it: N-1, N and N+1.
    let jwks2 = with_key_version(&w, 2, jwks_request()).await.ok(200);
    assert_eq!(kids(&jwks2), [kid(2), kid(3), kid(1)]);
    verify_jwt(&old, &jwks2).expect("one rotation later the old key is still published");

    // New tokens are signed with version 2, which a client holding the old JWKS already knows.
    let code = w.code().await;
    let body = query(&[
        ("grant_type", "authorization_code"),
        ("code", &code),
        ("redirect_uri", CB),
        ("code_verifier", VERIFIER),
    ]);
    let req = request(Method::POST, "/oidc/token")
        .header("content-type", "application/x-www-form-urlencoded")
        .header("authorization", format!("Basic {}", w.basic()))
        .body(Body::from(body))
        .unwrap();
    let new = with_key_version(&w, 2, req).await.ok(200);
    let new = new["id_token"].as_str().unwrap().to_owned();
    let (header, _) = verify_jwt(&new, &jwks2).unwrap();
    assert_eq!(header["kid"], kid(2));
    assert_ne!(kid(2), kid(1));
    verify_jwt(&new, &jwks1).expect("the cached JWKS of before the rotation has the new key");

    // Two rotations later the first key is gone.
    let jwks3 = with_key_version(&w, 3, jwks_request()).await.ok(200);
    assert_eq!(kids(&jwks3), [kid(3), kid(4), kid(2)]);
    let err = verify_jwt(&old, &jwks3).unwrap_err();
    assert!(err.contains("not in the JWKS"), "{err}");
    verify_jwt(&new, &jwks3).expect("version 2 is still there");
}

#[tokio::test]
async fn an_allow_remembers_only_the_scopes_the_screen_showed() {
    let w = world().await;
    let view = |scope: &'static str| {
        let w = &w;
        async move {
            let id = w.request_id(&[("scope", Some(scope))]).await;
            (id.clone(), w.view(&id).await.ok(200))
        }
    };
    let (id, v) = view("openid email").await;
    assert_eq!(
        (v["scopes"].clone(), v["granted"].clone()),
        (json!(["email"]), json!(false))
    );
    w.allow(&id).await.ok(200);
    // The same scopes again: no screen. Anything more: the screen again.
    assert_eq!(view("openid email").await.1["granted"], true);
    assert_eq!(view("openid").await.1["granted"], true);
    let (id, v) = view("openid email company").await;
    assert_eq!(v["granted"], false, "company was never shown: {v}");
    // The ticket flow asks for all the app's scopes: not allowed either.
    let ctx = w.app.get_consent(&w.user, &w.app_id, CB).await.ok(200);
    assert_eq!(ctx["granted"], false);
    let consents = w.app.get_consents(&w.user, "en-US").await.ok(200);
    assert_eq!(consents["apps"][0]["scopes"], json!(["email"]));

    // Allowing more adds to what was allowed before.
    w.allow(&id).await.ok(200);
    let consents = w.app.get_consents(&w.user, "en-US").await.ok(200);
    assert_eq!(consents["apps"][0]["scopes"], json!(["company", "email"]));
    assert_eq!(view("openid company").await.1["granted"], true);
    assert_eq!(view("openid nickname email").await.1["granted"], false);

    // A scope the app dropped since the request is neither shown nor granted.
    let (id, _) = view("openid nickname email").await;
    let admin = w.app.admin_session("admin@example.com").await;
    w.app
        .patch_app(
            &admin,
            &w.app_id,
            &json!({ "scopes": ["email", "company"] }),
        )
        .await
        .ok(200);
    let v = w.view(&id).await.ok(200);
    assert_eq!(
        (v["scopes"].clone(), v["granted"].clone()),
        (json!(["email"]), json!(true))
    );
    let to = w.allow(&id).await.ok(200)["redirect"]
        .as_str()
        .unwrap()
        .to_owned();
    let tokens = w
        .redeem(&param(&to, "code").unwrap(), VERIFIER, CB)
        .await
        .ok(200);
    assert_eq!(tokens["scope"], "openid email");
}

#[tokio::test]
async fn redeeming_a_code_twice_revokes_the_access_token_of_the_first_redemption() {
    let w = world().await;
    let app = &w.app;
    let code = w.code().await;
    let tokens = w.redeem(&code, VERIFIER, CB).await.ok(200);
    let access = tokens["access_token"].as_str().unwrap().to_owned();
    userinfo(app, &access).await.ok(200);
    // Later than the code itself would have lived: the spent code remembers its token.
    app.clock.advance(20 * 60);
    oauth_error(&w.redeem(&code, VERIFIER, CB).await, 400, "invalid_grant");
    oauth_error(&userinfo(app, &access).await, 401, "invalid_token");
    // Only that code's token: another one stays.
    let keep = w.redeem(&w.code().await, VERIFIER, CB).await.ok(200);
    let keep = keep["access_token"].as_str().unwrap().to_owned();

    // A replay that fails its checks revokes just the same; wrong client credentials do not.
    let code = w.code().await;
    let access = w.redeem(&code, VERIFIER, CB).await.ok(200)["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let bad = STANDARD.encode(format!("{}:{}", w.app_id, "not-the-secret"));
    let body = query(&[
        ("grant_type", "authorization_code"),
        ("code", &code),
        ("redirect_uri", CB),
        ("code_verifier", VERIFIER),
    ]);
    oauth_error(&token(app, Some(&bad), &body).await, 401, "invalid_client");
    userinfo(app, &access).await.ok(200);
    oauth_error(&w.redeem(&code, "", OTHER_CB).await, 400, "invalid_grant");
    oauth_error(&userinfo(app, &access).await, 401, "invalid_token");
    userinfo(app, &keep).await.ok(200);
    // The token is stored as a keyed hash, also on the spent code.
    assert!(!format!("{:?}", app.store.written()).contains(&access));
}

#[tokio::test]
async fn revoking_the_consent_stops_the_apps_access_tokens() {
    let w = world().await;
    let code = w.code().await;
    let access = w.redeem(&code, VERIFIER, CB).await.ok(200)["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    userinfo(&w.app, &access).await.ok(200);
    w.app.delete_consent(&w.user, &w.app_id).await.ok(200);
    let res = userinfo(&w.app, &access).await;
    oauth_error(&res, 401, "invalid_token");
    // Allowing again later gives new tokens; the old one stays revoked.
    w.app.clock.advance(1);
    let id = w.request_id(&[]).await;
    assert_eq!(w.view(&id).await.ok(200)["granted"], false);
    let to = w.allow(&id).await.ok(200)["redirect"]
        .as_str()
        .unwrap()
        .to_owned();
    let fresh = w
        .redeem(&param(&to, "code").unwrap(), VERIFIER, CB)
        .await
        .ok(200);
    userinfo(&w.app, fresh["access_token"].as_str().unwrap())
        .await
        .ok(200);
    oauth_error(&userinfo(&w.app, &access).await, 401, "invalid_token");
}

#[tokio::test]
async fn without_a_public_url_the_provider_answers_503_rather_than_a_wrong_issuer() {
    let w = world().await;
    let code = w.code().await;
    let access = w.redeem(&code, VERIFIER, CB).await.ok(200)["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let id = w.request_id(&[]).await;
    let app = w.app.clone().configure(|c| c.public_url = String::new());
    let unavailable = |res: TestResponse| {
        res.error(503, "SERVICE_UNAVAILABLE");
    };
    unavailable(get(&app, "/oidc/.well-known/openid-configuration", &[]).await);
    let q = w.authorize_query(&[]);
    unavailable(get(&app, &format!("/oidc/authorize?{q}"), &[]).await);
    let auth = format!("Bearer {}", w.user);
    unavailable(
        get(
            &app,
            &format!("/oidc/requests/{id}"),
            &[("authorization", &auth)],
        )
        .await,
    );
    unavailable(
        app.call(json_request(
            Method::POST,
            &format!("/oidc/requests/{id}"),
            Some(&w.user),
            &json!({}),
        ))
        .await,
    );
    let body = query(&[
        ("grant_type", "authorization_code"),
        ("code", "whatever"),
        ("redirect_uri", CB),
        ("code_verifier", VERIFIER),
    ]);
    unavailable(token(&app, Some(&w.basic()), &body).await);
    unavailable(userinfo(&app, &access).await);
    // The keys do not depend on the issuer.
    get(&app, "/oidc/jwks", &[]).await.ok(200);
    // Nothing was consumed: the configured deployment still serves them.
    userinfo(&w.app, &access).await.ok(200);
    w.view(&id).await.ok(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_whole_flow_and_the_single_use_code_hold_on_dynamodb() {
    let local = Arc::new(ciam_store::dynamo_local::DynamoLocal::start().await);
    // DynamoDB Local lives as long as `local`: keep it past the set-up.
    let keep = local.clone();
    let app = TestApp::spawn_on(move |clock| {
        Box::pin(async move {
            let store: Arc<dyn Store> = Arc::new(local.store("oidc", Arc::new(clock)).await);
            store
        })
    })
    .await;
    let w = world_on(app).await;
    let id = w.request_id(&[]).await;
    assert_eq!(w.view(&id).await.ok(200)["granted"], false);
    let to = w.allow(&id).await.ok(200)["redirect"]
        .as_str()
        .unwrap()
        .to_owned();
    w.allow(&id).await.error(404, "NOT_FOUND");
    let code = param(&to, "code").unwrap();
    let results =
        futures_util::future::join_all((0..10).map(|_| w.redeem(&code, VERIFIER, CB))).await;
    let winners: Vec<&TestResponse> = results.iter().filter(|r| r.status == 200).collect();
    assert_eq!(
        winners.len(),
        1,
        "{:?}",
        results.iter().map(|r| &r.text).collect::<Vec<_>>()
    );
    let tokens = winners[0].json();
    let jwks = get(&w.app, "/oidc/jwks", &[]).await.ok(200);
    let (_, claims) = verify_jwt(tokens["id_token"].as_str().unwrap(), &jwks).unwrap();
    assert_eq!(claims["sub"], w.user_id.as_str());
    // The other redemptions were replays: the winner's access token is revoked.
    let res = userinfo(&w.app, tokens["access_token"].as_str().unwrap()).await;
    oauth_error(&res, 401, "invalid_token");
    // A code redeemed once serves userinfo.
    let tokens = w.redeem(&w.code().await, VERIFIER, CB).await.ok(200);
    let info = userinfo(&w.app, tokens["access_token"].as_str().unwrap())
        .await
        .ok(200);
    assert_eq!(info["email"], "ann@example.com");
    oauth_error(&w.redeem(&code, VERIFIER, CB).await, 400, "invalid_grant");
    let id = w.request_id(&[]).await;
    assert_eq!(w.view(&id).await.ok(200)["granted"], true);
    drop(keep);
}

/// The id_token's `amr` after signing in with `token` (the code flow through Allow).
async fn amr_for(w: &World, token: &str) -> Value {
    let w = World {
        app: w.app.clone(),
        app_id: w.app_id.clone(),
        secret: w.secret.clone(),
        user: token.to_owned(),
        user_id: w.user_id.clone(),
    };
    let code = w.code().await;
    let tokens = w.redeem(&code, VERIFIER, CB).await.ok(200);
    let jwks = get(&w.app, "/oidc/jwks", &[]).await.ok(200);
    let (_, claims) = verify_jwt(tokens["id_token"].as_str().unwrap(), &jwks).unwrap();
    claims.get("amr").cloned().unwrap_or(Value::Null)
}

#[tokio::test]
async fn the_id_token_says_how_the_user_signed_in_amr() {
    use crate::passkeys::{add, assertion, soft};
    let w = world_on(crate::passkeys::app().await).await;
    let disco = get(&w.app, "/oidc/.well-known/openid-configuration", &[])
        .await
        .ok(200);
    assert!(disco["claims_supported"]
        .as_array()
        .unwrap()
        .contains(&json!("amr")));
    assert_eq!(amr_for(&w, &w.user).await, json!(["pwd"]));

    // A device-bound passkey, then a synced one.
    let mut bound = soft(40);
    add(&w.app, &w.user, &mut bound).await.ok(200);
    let body = assertion(&w.app, &mut bound, &w.user_id).await;
    let token = w.app.passkey_login(&body).await.ok(200)["token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(amr_for(&w, &token).await, json!(["hwk", "user", "mfa"]));
    let mut synced = soft(41);
    synced.flags |= ciam_core::testing::passkey::BE | ciam_core::testing::passkey::BS;
    add(&w.app, &w.user, &mut synced).await.ok(200);
    let body = assertion(&w.app, &mut synced, &w.user_id).await;
    let token = w.app.passkey_login(&body).await.ok(200)["token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(amr_for(&w, &token).await, json!(["swk", "user", "mfa"]));

    // A fresh proof by passkey adds to the password's (as a proof by code does): the sign-in's
    // method stays first (an organization's `allowedMethods` reads it).
    let o = w.app.passkey_reauth_options(&w.user).await.ok(200);
    let credential = bound.get(&o["publicKey"], &crate::passkeys::handle(&w.user_id));
    w.app
        .passkey_reauth(
            &w.user,
            &json!({ "passkeyChallenge": o["passkeyChallenge"], "credential": credential }),
        )
        .await
        .ok(200);
    assert_eq!(
        amr_for(&w, &w.user).await,
        json!(["pwd", "hwk", "user", "mfa"])
    );
}

#[tokio::test]
async fn the_id_token_of_a_two_factor_sign_in_names_both_steps() {
    let e = crate::two_factor::enrolled_in(crate::passkeys::app().await).await;
    let w = world_on(e.app.clone()).await;
    e.next_step();
    let ch = e.challenge().await;
    let token = e.app.login_totp(&ch, &e.code()).await.ok(200)["token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(amr_for(&w, &token).await, json!(["pwd", "otp", "mfa"]));
}
