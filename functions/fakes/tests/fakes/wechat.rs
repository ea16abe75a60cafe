//! WeChat: the QR and Official Account flows, codes, secrets, domains, snapshot users.

use crate::support::{param, qs, start, CALLBACK, FOREIGN_CALLBACK, T};
use ciam_fakes::wechat::{OA_APP_ID, OA_SECRET, WEB_APP_ID, WEB_SECRET};
use ciam_fakes::{Person, Platform::Wechat};
use serde_json::Value;

async fn qr_code(t: &T) -> String {
    let url = t.url(Wechat, "/connect/qrconnect")
        + &qs(&[
            ("appid", WEB_APP_ID),
            ("redirect_uri", CALLBACK),
            ("response_type", "code"),
            ("scope", "snsapi_login"),
            ("state", "s1"),
            ("lang", "cn"),
        ]);
    let back = t.authorize(&url).await.expect("redirect back");
    assert_eq!(param(&back, "state").as_deref(), Some("s1"));
    param(&back, "code").expect("a code")
}

async fn oa_code(t: &T, scope: &str) -> String {
    let url = t.url(Wechat, "/connect/oauth2/authorize")
        + &qs(&[
            ("appid", OA_APP_ID),
            ("redirect_uri", CALLBACK),
            ("response_type", "code"),
            ("scope", scope),
            ("state", "s2"),
        ]);
    let back = t.authorize(&url).await.expect("redirect back");
    param(&back, "code").expect("a code")
}

async fn exchange(t: &T, app: &str, secret: &str, code: &str) -> Value {
    let url = t.url(Wechat, "/sns/oauth2/access_token")
        + &qs(&[
            ("appid", app),
            ("secret", secret),
            ("code", code),
            ("grant_type", "authorization_code"),
        ]);
    t.get_json(&url).await
}

#[tokio::test]
async fn a_qr_sign_in_answers_the_unionid_and_the_apps_openid() {
    let t = start().await;
    let code = qr_code(&t).await;
    let v = exchange(&t, WEB_APP_ID, WEB_SECRET, &code).await;
    assert_eq!(v["unionid"], "ofakeunion0001");
    assert_eq!(v["expires_in"], 7200);
    assert_eq!(v["scope"], "snsapi_login");
    assert!(v["openid"].as_str().is_some_and(|o| o.contains(WEB_APP_ID)));
    assert!(
        v.get("is_snapshotuser").is_none(),
        "absent for a real person"
    );
    let info = t
        .get_json(
            &(t.url(Wechat, "/sns/userinfo")
                + &qs(&[
                    ("access_token", v["access_token"].as_str().unwrap()),
                    ("openid", v["openid"].as_str().unwrap()),
                ])),
        )
        .await;
    assert_eq!(info["nickname"], "张三");
    assert_eq!(info["unionid"], "ofakeunion0001");
}

#[tokio::test]
async fn a_code_is_single_use_expires_after_ten_minutes_and_cannot_be_forged() {
    let t = start().await;
    let code = qr_code(&t).await;
    assert!(exchange(&t, WEB_APP_ID, WEB_SECRET, &code).await["access_token"].is_string());
    assert_eq!(
        exchange(&t, WEB_APP_ID, WEB_SECRET, &code).await["errcode"],
        40163
    );

    let late = qr_code(&t).await;
    t.control(Wechat, "clock", serde_json::json!({"advance_secs": 600}))
        .await;
    assert_eq!(
        exchange(&t, WEB_APP_ID, WEB_SECRET, &late).await["errcode"],
        42003
    );

    let forged = "0123456789abcdef0123456789abcdef";
    assert_eq!(
        exchange(&t, WEB_APP_ID, WEB_SECRET, forged).await["errcode"],
        40029
    );
    // A code is bound to the app that asked for it.
    let web = qr_code(&t).await;
    assert_eq!(
        exchange(&t, OA_APP_ID, OA_SECRET, &web).await["errcode"],
        40029
    );
}

#[tokio::test]
async fn a_wrong_secret_or_app_is_refused_and_leaves_the_code_usable() {
    let t = start().await;
    let code = qr_code(&t).await;
    assert_eq!(
        exchange(&t, WEB_APP_ID, "nope", &code).await["errcode"],
        40125
    );
    assert_eq!(
        exchange(&t, "wxunknown", WEB_SECRET, &code).await["errcode"],
        40013
    );
    assert!(exchange(&t, WEB_APP_ID, WEB_SECRET, &code).await["access_token"].is_string());
}

#[tokio::test]
async fn authorize_refuses_a_foreign_domain_a_wrong_scope_or_app() {
    let t = start().await;
    let base = t.url(Wechat, "/connect/qrconnect");
    let with = |app: &str, uri: &str, scope: &str| {
        base.clone()
            + &qs(&[
                ("appid", app),
                ("redirect_uri", uri),
                ("response_type", "code"),
                ("scope", scope),
                ("state", "s"),
            ])
    };
    for url in [
        with(WEB_APP_ID, FOREIGN_CALLBACK, "snsapi_login"),
        with(WEB_APP_ID, CALLBACK, "snsapi_userinfo"),
        with(OA_APP_ID, CALLBACK, "snsapi_login"),
    ] {
        assert_eq!(t.authorize(&url).await.unwrap_err(), 400, "{url}");
    }
}

#[tokio::test]
async fn the_official_account_gives_the_unionid_only_with_snsapi_userinfo() {
    let t = start().await;
    let code = oa_code(&t, "snsapi_base").await;
    let v = exchange(&t, OA_APP_ID, OA_SECRET, &code).await;
    assert!(v.get("unionid").is_none());
    let info = t
        .get_json(
            &(t.url(Wechat, "/sns/userinfo")
                + &qs(&[
                    ("access_token", v["access_token"].as_str().unwrap()),
                    ("openid", v["openid"].as_str().unwrap()),
                ])),
        )
        .await;
    assert_eq!(info["errcode"], 48001);

    let code = oa_code(&t, "snsapi_userinfo").await;
    let v = exchange(&t, OA_APP_ID, OA_SECRET, &code).await;
    assert_eq!(v["unionid"], "ofakeunion0001");
    assert!(v["openid"].as_str().is_some_and(|o| o.contains(OA_APP_ID)));
}

#[tokio::test]
async fn a_snapshot_person_is_flagged_and_an_unbound_app_has_no_unionid() {
    let t = start().await;
    let snap = Person {
        snapshot: true,
        ..Person::default()
    };
    t.next_user(Wechat, &snap).await;
    let code = oa_code(&t, "snsapi_userinfo").await;
    assert_eq!(
        exchange(&t, OA_APP_ID, OA_SECRET, &code).await["is_snapshotuser"],
        1
    );

    let unbound = Person {
        unbound: true,
        ..Person::default()
    };
    t.next_user(Wechat, &unbound).await;
    let code = qr_code(&t).await;
    let v = exchange(&t, WEB_APP_ID, WEB_SECRET, &code).await;
    assert!(v["openid"].is_string() && v.get("unionid").is_none());
}

#[tokio::test]
async fn a_declined_authorization_comes_back_with_the_state_only() {
    let t = start().await;
    let declines = Person {
        decline: true,
        ..Person::default()
    };
    t.next_user(Wechat, &declines).await;
    let url = t.url(Wechat, "/connect/qrconnect")
        + &qs(&[
            ("appid", WEB_APP_ID),
            ("redirect_uri", CALLBACK),
            ("response_type", "code"),
            ("scope", "snsapi_login"),
            ("state", "s9"),
        ]);
    let back = t.authorize(&url).await.expect("redirect back");
    assert_eq!(param(&back, "state").as_deref(), Some("s9"));
    assert_eq!(param(&back, "code"), None);
}

#[tokio::test]
async fn a_web_token_expires_after_its_lifetime() {
    let t = start().await;
    let code = qr_code(&t).await;
    let v = exchange(&t, WEB_APP_ID, WEB_SECRET, &code).await;
    t.control(Wechat, "clock", serde_json::json!({"advance_secs": 7200}))
        .await;
    let info = t
        .get_json(
            &(t.url(Wechat, "/sns/userinfo")
                + &qs(&[
                    ("access_token", v["access_token"].as_str().unwrap()),
                    ("openid", v["openid"].as_str().unwrap()),
                ])),
        )
        .await;
    assert_eq!(info["errcode"], 42001);
}
