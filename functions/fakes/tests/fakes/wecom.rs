//! WeCom: desktop and in-client flows, the corp token (counted, revocable, expiring), members
//! and non-members, the trusted domain, the user ticket.

use crate::support::{param, qs, start, CALLBACK, FOREIGN_CALLBACK, T};
use ciam_fakes::wecom::{AGENT_ID, CORP_ID, CORP_SECRET};
use ciam_fakes::{Person, Platform::Wecom};
use serde_json::{json, Value};

async fn desktop_code(t: &T, redirect: &str) -> String {
    let url = t.url(Wecom, "/wwlogin/sso/login")
        + &qs(&[
            ("login_type", "CorpApp"),
            ("appid", CORP_ID),
            ("agentid", AGENT_ID),
            ("redirect_uri", redirect),
            ("state", "s1"),
            ("lang", "zh"),
        ]);
    let back = t.authorize(&url).await.expect("redirect back");
    assert_eq!(param(&back, "state").as_deref(), Some("s1"));
    param(&back, "code").expect("a code")
}

async fn in_client_code(t: &T) -> String {
    let url = t.url(Wecom, "/connect/oauth2/authorize")
        + &qs(&[
            ("appid", CORP_ID),
            ("redirect_uri", CALLBACK),
            ("response_type", "code"),
            ("scope", "snsapi_privateinfo"),
            ("state", "s2"),
            ("agentid", AGENT_ID),
        ]);
    param(&t.authorize(&url).await.expect("back"), "code").expect("a code")
}

async fn gettoken(t: &T, secret: &str) -> Value {
    let url =
        t.url(Wecom, "/cgi-bin/gettoken") + &qs(&[("corpid", CORP_ID), ("corpsecret", secret)]);
    t.get_json(&url).await
}

async fn corp_token(t: &T) -> String {
    let v = gettoken(t, CORP_SECRET).await;
    assert_eq!(v["errcode"], 0);
    assert_eq!(v["expires_in"], 7200);
    v["access_token"].as_str().expect("token").to_owned()
}

async fn getuserinfo(t: &T, token: &str, code: &str) -> Value {
    let url =
        t.url(Wecom, "/cgi-bin/auth/getuserinfo") + &qs(&[("access_token", token), ("code", code)]);
    t.get_json(&url).await
}

#[tokio::test]
async fn a_member_signs_in_on_the_desktop_with_a_userid_and_no_ticket() {
    let t = start().await;
    let token = corp_token(&t).await;
    let code = desktop_code(&t, CALLBACK).await;
    let v = getuserinfo(&t, &token, &code).await;
    assert_eq!(v["errcode"], 0);
    assert_eq!(v["userid"], "zhangsan");
    assert!(v.get("user_ticket").is_none() && v.get("openid").is_none());
}

#[tokio::test]
async fn in_the_client_the_ticket_gives_the_recorded_phone_and_mail() {
    let t = start().await;
    let token = corp_token(&t).await;
    let v = getuserinfo(&t, &token, &in_client_code(&t).await).await;
    let ticket = v["user_ticket"]
        .as_str()
        .expect("ticket with snsapi_privateinfo");
    let url = t.url(Wecom, "/cgi-bin/auth/getuserdetail") + &qs(&[("access_token", &token)]);
    let d: Value = t
        .http
        .post(&url)
        .json(&json!({"user_ticket": ticket}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(d["mobile"], "13800138000");
    assert_eq!(d["biz_mail"], "zhangsan@example.com");
    // The ticket lives 1800 s.
    t.control(Wecom, "clock", json!({"advance_secs": 1800}))
        .await;
    let token = corp_token(&t).await;
    let url = t.url(Wecom, "/cgi-bin/auth/getuserdetail") + &qs(&[("access_token", &token)]);
    let d: Value = t
        .http
        .post(&url)
        .json(&json!({"user_ticket": ticket}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(d["errcode"], 40129);
}

#[tokio::test]
async fn a_non_member_gets_an_openid_not_a_userid() {
    let t = start().await;
    let outsider = Person {
        member: false,
        ..Person::default()
    };
    t.next_user(Wecom, &outsider).await;
    let token = corp_token(&t).await;
    let v = getuserinfo(&t, &token, &desktop_code(&t, CALLBACK).await).await;
    assert_eq!(v["errcode"], 0);
    assert!(v["openid"].is_string() && v.get("userid").is_none());
}

#[tokio::test]
async fn codes_are_single_use_five_minutes_and_unforgeable_all_40029() {
    let t = start().await;
    let token = corp_token(&t).await;
    let code = desktop_code(&t, CALLBACK).await;
    assert_eq!(getuserinfo(&t, &token, &code).await["errcode"], 0);
    assert_eq!(getuserinfo(&t, &token, &code).await["errcode"], 40029);
    assert_eq!(getuserinfo(&t, &token, "forged").await["errcode"], 40029);
    let late = desktop_code(&t, CALLBACK).await;
    t.control(Wecom, "clock", json!({"advance_secs": 300}))
        .await;
    assert_eq!(getuserinfo(&t, &token, &late).await["errcode"], 40029);
}

#[tokio::test]
async fn a_redirect_outside_the_trusted_domain_is_50001_at_getuserinfo() {
    let t = start().await;
    let token = corp_token(&t).await;
    let code = desktop_code(&t, FOREIGN_CALLBACK).await;
    assert_eq!(getuserinfo(&t, &token, &code).await["errcode"], 50001);
}

#[tokio::test]
async fn gettoken_refuses_a_wrong_secret_and_counts_every_call() {
    let t = start().await;
    assert_eq!(gettoken(&t, "nope").await["errcode"], 40001);
    corp_token(&t).await;
    assert_eq!(t.calls(Wecom, "/cgi-bin/gettoken").await, 2);
    assert_eq!(t.fakes.state(Wecom).calls("/cgi-bin/gettoken"), 2);
    // The control API is never counted.
    assert_eq!(t.calls(Wecom, "/_control/calls").await, 0);
}

#[tokio::test]
async fn an_invalidated_token_is_40014_and_the_code_survives_for_the_retry() {
    let t = start().await;
    let token = corp_token(&t).await;
    let code = desktop_code(&t, CALLBACK).await;
    let revoked = t.control(Wecom, "invalidate-token", json!({})).await;
    assert_eq!(revoked["revoked"], 1);
    assert_eq!(getuserinfo(&t, &token, &code).await["errcode"], 40014);
    let fresh = corp_token(&t).await;
    assert_eq!(getuserinfo(&t, &fresh, &code).await["userid"], "zhangsan");
    assert_eq!(t.calls(Wecom, "/cgi-bin/gettoken").await, 2);
}

#[tokio::test]
async fn a_corp_token_expires_after_7200_seconds_as_42001() {
    let t = start().await;
    let token = corp_token(&t).await;
    t.control(Wecom, "clock", json!({"advance_secs": 7200}))
        .await;
    let code = desktop_code(&t, CALLBACK).await;
    assert_eq!(getuserinfo(&t, &token, &code).await["errcode"], 42001);
}

#[tokio::test]
async fn authorize_checks_login_type_app_agent_and_scope_and_a_decline_has_no_code() {
    let t = start().await;
    let bad = t.url(Wecom, "/wwlogin/sso/login")
        + &qs(&[
            ("login_type", "CorpApp"),
            ("appid", CORP_ID),
            ("agentid", "999"),
            ("redirect_uri", CALLBACK),
        ]);
    assert_eq!(t.authorize(&bad).await.unwrap_err(), 400);
    let no_agent = t.url(Wecom, "/connect/oauth2/authorize")
        + &qs(&[
            ("appid", CORP_ID),
            ("redirect_uri", CALLBACK),
            ("response_type", "code"),
            ("scope", "snsapi_privateinfo"),
        ]);
    assert_eq!(t.authorize(&no_agent).await.unwrap_err(), 400);

    t.next_user(
        Wecom,
        &Person {
            decline: true,
            ..Person::default()
        },
    )
    .await;
    let url = t.url(Wecom, "/wwlogin/sso/login")
        + &qs(&[
            ("login_type", "CorpApp"),
            ("appid", CORP_ID),
            ("agentid", AGENT_ID),
            ("redirect_uri", CALLBACK),
            ("state", "s"),
        ]);
    let back = t.authorize(&url).await.expect("back");
    assert_eq!(
        (param(&back, "code"), param(&back, "state").as_deref()),
        (None, Some("s"))
    );
}

#[tokio::test]
async fn a_member_outside_the_visible_range_gets_a_userid_but_no_ticket() {
    let t = start().await;
    let hidden = Person {
        visible: false,
        ..Person::default()
    };
    t.next_user(Wecom, &hidden).await;
    let token = corp_token(&t).await;
    let v = getuserinfo(&t, &token, &in_client_code(&t).await).await;
    assert_eq!(v["userid"], "zhangsan");
    assert!(v.get("user_ticket").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_gettoken_calls_are_each_counted() {
    let t = start().await;
    let url = t.url(Wecom, "/cgi-bin/gettoken")
        + &qs(&[("corpid", CORP_ID), ("corpsecret", CORP_SECRET)]);
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..30 {
        let (http, url) = (t.http.clone(), url.clone());
        set.spawn(async move { http.get(url).send().await?.json::<Value>().await });
    }
    let answers = set.join_all().await;
    assert!(answers
        .iter()
        .all(|v| v.as_ref().is_ok_and(|v| v["errcode"] == 0)));
    assert_eq!(t.calls(Wecom, "/cgi-bin/gettoken").await, 30);
}
