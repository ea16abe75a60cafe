//! Feishu/Lark: authorize with PKCE, the v2 and v3 token endpoints, availability (20010),
//! user_info by Bearer, and the Lark prefix.

use crate::support::{param, qs, start, CALLBACK, FOREIGN_CALLBACK, T};
use ciam_fakes::feishu::{
    challenge_of, APP_ID, APP_SECRET, EXPIRED_CODE, INVALID_CODE, NOT_AVAILABLE, TENANT_KEY,
};
use ciam_fakes::{Person, Platform::Feishu};
use serde_json::{json, Value};

const VERIFIER: &str = "a-verifier-of-forty-three-characters-or-more-0123";
const V2: &str = "/open-apis/authen/v2/oauth/token";
const V3: &str = "/oauth/v3/token";

fn authorize_url(base: &str, redirect: &str, challenge: Option<&str>) -> String {
    let mut pairs = vec![
        ("client_id", APP_ID),
        ("redirect_uri", redirect),
        ("scope", "contact:user.base:readonly"),
        ("state", "s1"),
    ];
    let c;
    if let Some(ch) = challenge {
        c = ch.to_owned();
        pairs.push(("code_challenge", &c));
        pairs.push(("code_challenge_method", "S256"));
    }
    format!("{base}/open-apis/authen/v1/authorize{}", qs(&pairs))
}

async fn code(t: &T, challenge: Option<&str>) -> String {
    let back = t
        .authorize(&authorize_url(&t.fakes.url(Feishu), CALLBACK, challenge))
        .await
        .expect("back");
    assert_eq!(param(&back, "state").as_deref(), Some("s1"));
    param(&back, "code").expect("code")
}

async fn token(
    t: &T,
    path: &str,
    code: &str,
    secret: &str,
    verifier: Option<&str>,
) -> (u16, Value) {
    let mut body = json!({"grant_type": "authorization_code", "client_id": APP_ID, "client_secret": secret, "code": code, "redirect_uri": CALLBACK});
    if let Some(v) = verifier {
        body["code_verifier"] = json!(v);
    }
    let r = t
        .http
        .post(t.url(Feishu, path))
        .json(&body)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

async fn user_info(t: &T, base: &str, bearer: &str) -> (u16, Value) {
    let r = t
        .http
        .get(format!("{base}/open-apis/authen/v1/user_info"))
        .bearer_auth(bearer)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

#[tokio::test]
async fn a_pkce_sign_in_answers_a_bearer_token_and_the_union_id() {
    let t = start().await;
    let c = code(&t, Some(&challenge_of(VERIFIER))).await;
    let (status, v) = token(&t, V2, &c, APP_SECRET, Some(VERIFIER)).await;
    assert_eq!((status, v["code"].as_i64()), (200, Some(0)));
    assert_eq!(v["token_type"], "Bearer");
    assert!(v.get("refresh_token").is_none(), "only with offline_access");
    let (status, u) = user_info(
        &t,
        &t.fakes.url(Feishu),
        v["access_token"].as_str().unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(u["data"]["union_id"], "ofakeunion0001");
    assert_eq!(u["data"]["tenant_key"], TENANT_KEY);
    assert_eq!(u["data"]["mobile"], "+8613800138000");
}

#[tokio::test]
async fn a_wrong_verifier_or_none_is_invalid_grant_and_v3_refuses_a_verifier_without_challenge() {
    let t = start().await;
    let c = code(&t, Some(&challenge_of(VERIFIER))).await;
    let (status, v) = token(&t, V2, &c, APP_SECRET, Some("another-verifier")).await;
    assert_eq!((status, v["error"].as_str()), (400, Some("invalid_grant")));
    let c = code(&t, Some(&challenge_of(VERIFIER))).await;
    assert_eq!(
        token(&t, V3, &c, APP_SECRET, None).await.1["error"],
        "invalid_grant"
    );
    let c = code(&t, None).await;
    assert_eq!(
        token(&t, V3, &c, APP_SECRET, Some(VERIFIER)).await.1["error"],
        "invalid_grant"
    );
    // v2 ignores a verifier sent without a challenge.
    let c = code(&t, None).await;
    assert_eq!(token(&t, V2, &c, APP_SECRET, Some(VERIFIER)).await.0, 200);
}

#[tokio::test]
async fn codes_are_single_use_five_minutes_and_unforgeable_secrets_are_checked() {
    let t = start().await;
    let c = code(&t, None).await;
    let (status, v) = token(&t, V2, &c, "nope", None).await;
    assert_eq!((status, v["error"].as_str()), (401, Some("invalid_client")));
    assert_eq!(token(&t, V2, &c, APP_SECRET, None).await.0, 200);
    assert_eq!(
        token(&t, V2, &c, APP_SECRET, None).await.1["code"],
        INVALID_CODE
    );
    assert_eq!(
        token(&t, V2, "forged", APP_SECRET, None).await.1["code"],
        INVALID_CODE
    );
    let late = code(&t, None).await;
    t.control(Feishu, "clock", json!({"advance_secs": 300}))
        .await;
    let (status, v) = token(&t, V2, &late, APP_SECRET, None).await;
    assert_eq!(
        (status, v["code"].as_i64(), v["error"].as_str()),
        (400, Some(EXPIRED_CODE), Some("invalid_grant"))
    );
}

#[tokio::test]
async fn a_person_outside_the_availability_is_20010() {
    let t = start().await;
    t.next_user(
        Feishu,
        &Person {
            available: false,
            ..Person::default()
        },
    )
    .await;
    let c = code(&t, None).await;
    assert_eq!(
        token(&t, V2, &c, APP_SECRET, None).await.1["code"],
        NOT_AVAILABLE
    );
}

#[tokio::test]
async fn user_info_refuses_forged_and_expired_tokens() {
    let t = start().await;
    assert_eq!(user_info(&t, &t.fakes.url(Feishu), "forged").await.0, 401);
    let c = code(&t, None).await;
    let (_, v) = token(&t, V2, &c, APP_SECRET, None).await;
    t.control(Feishu, "clock", json!({"advance_secs": 7200}))
        .await;
    assert_eq!(
        user_info(
            &t,
            &t.fakes.url(Feishu),
            v["access_token"].as_str().unwrap()
        )
        .await
        .0,
        401
    );
}

#[tokio::test]
async fn authorize_refuses_a_foreign_domain_and_a_decline_says_access_denied() {
    let t = start().await;
    let url = authorize_url(&t.fakes.url(Feishu), FOREIGN_CALLBACK, None);
    assert_eq!(t.authorize(&url).await.unwrap_err(), 400);
    t.next_user(
        Feishu,
        &Person {
            decline: true,
            ..Person::default()
        },
    )
    .await;
    let back = t
        .authorize(&authorize_url(&t.fakes.url(Feishu), CALLBACK, None))
        .await
        .expect("back");
    assert_eq!(
        (param(&back, "error").as_deref(), param(&back, "code")),
        (Some("access_denied"), None)
    );
}

#[tokio::test]
async fn lark_is_the_same_fake_under_its_own_name() {
    let t = start().await;
    let lark = t.fakes.lark_url();
    let back = t
        .authorize(&authorize_url(&lark, CALLBACK, None))
        .await
        .expect("back");
    let c = param(&back, "code").expect("code");
    let body = json!({"grant_type": "authorization_code", "client_id": APP_ID, "client_secret": APP_SECRET, "code": c});
    let v: Value = t
        .http
        .post(format!("{lark}{V2}"))
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let (status, u) = user_info(&t, &lark, v["access_token"].as_str().unwrap()).await;
    assert_eq!((status, u["code"].as_i64()), (200, Some(0)));
}
