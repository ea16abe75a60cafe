//! DingTalk: `authCode` back, the JSON token exchange, `users/me` by header, the corp.

use crate::support::{param, qs, start, CALLBACK, FOREIGN_CALLBACK, T};
use ciam_fakes::dingtalk::{CLIENT_ID, CLIENT_SECRET, CORP_ID, INVALID_CLIENT, INVALID_CODE};
use ciam_fakes::{Person, Platform::Dingtalk};
use serde_json::{json, Value};

fn auth_url(t: &T, redirect: &str, scope: &str) -> String {
    t.url(Dingtalk, "/oauth2/auth")
        + &qs(&[
            ("redirect_uri", redirect),
            ("response_type", "code"),
            ("client_id", CLIENT_ID),
            ("scope", scope),
            ("state", "s1"),
            ("prompt", "consent"),
        ])
}

async fn auth_code(t: &T, scope: &str) -> String {
    let back = t
        .authorize(&auth_url(t, CALLBACK, scope))
        .await
        .expect("back");
    assert_eq!(param(&back, "code"), None, "DingTalk says authCode");
    param(&back, "authCode").expect("authCode")
}

async fn exchange(t: &T, secret: &str, code: &str) -> (u16, Value) {
    let body = json!({"clientId": CLIENT_ID, "clientSecret": secret, "code": code, "grantType": "authorization_code"});
    let r = t
        .http
        .post(t.url(Dingtalk, "/v1.0/oauth2/userAccessToken"))
        .json(&body)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

async fn me(t: &T, token: &str) -> (u16, Value) {
    let r = t
        .http
        .get(t.url(Dingtalk, "/v1.0/contact/users/me"))
        .header("x-acs-dingtalk-access-token", token)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

#[tokio::test]
async fn a_sign_in_answers_the_token_the_corp_and_the_profile() {
    let t = start().await;
    let (status, v) = exchange(&t, CLIENT_SECRET, &auth_code(&t, "openid corpid").await).await;
    assert_eq!(status, 200);
    assert_eq!(v["expireIn"], 7200);
    assert_eq!(v["corpId"], CORP_ID);
    let (status, p) = me(&t, v["accessToken"].as_str().unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(p["unionId"], "ofakeunion0001");
    assert_eq!(
        (p["mobile"].as_str(), p["stateCode"].as_str()),
        (Some("13800138000"), Some("86"))
    );
    // Without the corpid scope no organization is named.
    let (_, v) = exchange(&t, CLIENT_SECRET, &auth_code(&t, "openid").await).await;
    assert!(v.get("corpId").is_none());
}

#[tokio::test]
async fn another_corp_is_answered_as_the_person_chose_it() {
    let t = start().await;
    let other = Person {
        corp: Some("dingothercorp".into()),
        ..Person::default()
    };
    t.next_user(Dingtalk, &other).await;
    let (_, v) = exchange(&t, CLIENT_SECRET, &auth_code(&t, "openid corpid").await).await;
    assert_eq!(v["corpId"], "dingothercorp");
}

#[tokio::test]
async fn codes_are_single_use_expire_and_cannot_be_forged_secrets_are_checked() {
    let t = start().await;
    let code = auth_code(&t, "openid").await;
    let (status, v) = exchange(&t, "nope", &code).await;
    assert_eq!((status, v["code"].as_str()), (400, Some(INVALID_CLIENT)));
    assert_eq!(exchange(&t, CLIENT_SECRET, &code).await.0, 200);
    let (status, v) = exchange(&t, CLIENT_SECRET, &code).await;
    assert_eq!((status, v["code"].as_str()), (400, Some(INVALID_CODE)));
    assert_eq!(
        exchange(&t, CLIENT_SECRET, "forged").await.1["code"],
        INVALID_CODE
    );
    let late = auth_code(&t, "openid").await;
    t.control(Dingtalk, "clock", json!({"advance_secs": 300}))
        .await;
    assert_eq!(
        exchange(&t, CLIENT_SECRET, &late).await.1["code"],
        INVALID_CODE
    );
}

#[tokio::test]
async fn users_me_refuses_a_missing_forged_or_expired_token() {
    let t = start().await;
    assert_eq!(me(&t, "forged").await.0, 401);
    let (_, v) = exchange(&t, CLIENT_SECRET, &auth_code(&t, "openid").await).await;
    t.control(Dingtalk, "clock", json!({"advance_secs": 7200}))
        .await;
    assert_eq!(me(&t, v["accessToken"].as_str().unwrap()).await.0, 401);
}

#[tokio::test]
async fn authorize_refuses_a_foreign_domain_and_a_decline_says_access_denied() {
    let t = start().await;
    assert_eq!(
        t.authorize(&auth_url(&t, FOREIGN_CALLBACK, "openid"))
            .await
            .unwrap_err(),
        400
    );
    t.next_user(
        Dingtalk,
        &Person {
            decline: true,
            ..Person::default()
        },
    )
    .await;
    let back = t
        .authorize(&auth_url(&t, CALLBACK, "openid"))
        .await
        .expect("back");
    assert_eq!(param(&back, "error").as_deref(), Some("access_denied"));
    assert_eq!(param(&back, "authCode"), None);
}
