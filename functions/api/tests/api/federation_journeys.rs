//! The platforms wired as providers, over HTTP through their real rows (docs/federation-design.md
//! §3.1, §4.1-§4.2, §5.4): the browser starts at `/auth/<p>/start`, the platform's fake (ciam-fakes)
//! approves and redirects back, the callback answers the SPA's `<p>Code`, `<p>Pending` or
//! `<p>Error`, then the API calls (`/auth/login/federation`, `/auth/federation/phone`,
//! `/auth/federation/register`). One `Wired` (helpers/federation.rs) per provider, so a provider
//! joins by its configuration and its fake's controls (WeChat and DingTalk here, WeCom in
//! federation_wecom_journeys.rs), and the journeys every provider shares run over each. On
//! SQLite and DynamoDB Local.

use crate::federation_wecom_journeys::wecom;
use crate::helpers::federation::{
    down_or_hanging_is_service_unavailable_in_time, fakes, linked_ann, navigate_as, param,
    sign_in_calls, Browser, Wired, DESKTOP,
};
use crate::helpers::TestApp;
use axum::http::Method;
use ciam_core::console::Role;
use ciam_core::federation::{ProviderConfig, ProviderId};
use ciam_core::totp::{code_at, STEP_SECS};
use ciam_fakes::wechat::{OA_APP_ID, OA_SECRET, WEB_APP_ID, WEB_SECRET};
use ciam_fakes::{Fakes, Person, Platform};
use ciam_store::dynamo_local::DynamoLocal;

use serde_json::json;
use std::sync::Arc;

const ANN: &str = "13800138011";
const NEW: &str = "13800138013";

/// WeChat's configuration pointing at the fake: the website app, and the Official Account
/// when `oa`.
fn wechat_config(fakes: &Fakes, oa: bool) -> ProviderConfig {
    let base = fakes.url(Platform::Wechat);
    let mut c = ProviderConfig::default();
    let mut set = |k: &str, v: &str| c.settings.insert(k.to_owned(), v.to_owned());
    set("APP_ID", WEB_APP_ID);
    set("OPEN_BASE", &base);
    set("API_BASE", &base);
    if oa {
        set("OA_APP_ID", OA_APP_ID);
    }
    c.secret.insert("appSecret".into(), WEB_SECRET.into());
    if oa {
        c.secret.insert("oaAppSecret".into(), OA_SECRET.into());
    }
    c
}

async fn wechat(app: TestApp, oa: bool) -> Wired {
    let fakes = fakes().await;
    let config = wechat_config(&fakes, oa);
    Wired::at_fake(app, fakes, ProviderId::Wechat, Platform::Wechat, config)
}

// ---- the journeys, each on both engines ----

/// A new WeChat user on a desktop: the QR page, the phone proof, the sign-up, then straight
/// through the link (a linked person costs no userinfo call).
async fn a_new_user_via_qr_proves_a_phone_and_signs_up(app: TestApp) {
    let w = wechat(app, false).await;
    let listed = w.app.get("/auth/federation", None).await.ok(200);
    assert_eq!(listed["providers"], json!([{ "name": "wechat" }]));
    w.someone("union-new");
    let browser = Browser::new("qr");
    let at = w.start(&browser).await;
    let url = url::Url::parse(&at).expect("url");
    assert_eq!(url.path(), "/wechat/connect/qrconnect");
    assert!(at.contains(&format!("appid={WEB_APP_ID}")), "{at}");
    assert!(at.contains("scope=snsapi_login"), "{at}");
    let token = w.pending(&browser).await;
    assert_eq!(w.link_of("union-new").await, None);

    let code = w.app.fresh_code(NEW, "link").await;
    let next = w.prove(&token, &browser, NEW, &code).await;
    assert_eq!(next.status.as_u16(), 202, "{}", next.text);
    let signed_up = w.register(&token, &browser, "weixin").await.ok(200);
    let user_id = signed_up["userId"].as_str().expect("userId").to_owned();
    let info = w
        .app
        .get_info(signed_up["token"].as_str().expect("token"))
        .await
        .ok(200);
    assert_eq!(info["userName"], "weixin");
    assert_eq!(
        w.link_of("union-new").await.as_deref(),
        Some(user_id.as_str())
    );

    // Later: through the link.
    let userinfo = w.calls("/sns/userinfo");
    let code = w.login_code(&browser).await;
    let signed_in = w.redeem(&code, &browser).await.ok(200);
    assert_eq!(signed_in["userId"], user_id.as_str());
    assert_eq!(w.calls("/sns/oauth2/access_token"), 2);
    assert!(w.calls("/sns/userinfo") <= userinfo + 1);
}

#[tokio::test]
async fn a_new_user_via_qr_proves_a_phone_and_signs_up_on_sqlite() {
    a_new_user_via_qr_proves_a_phone_and_signs_up(TestApp::spawn().await).await;
}

#[tokio::test]
async fn a_new_user_via_qr_proves_a_phone_and_signs_up_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "wired_new").await;
    a_new_user_via_qr_proves_a_phone_and_signs_up(app).await;
}

/// An existing account links after the phone proof; with two-factor on, the proof and the
/// link's later sign-ins ask for the second step. Inside WeChat the Official Account is used.
async fn an_account_links_after_the_proof_and_keeps_its_second_factor(app: TestApp) {
    let w = wechat(app, true).await;
    let ann = w.app.sign_up("ann", ANN).await;
    let session = w.app.sign_in(ANN, crate::helpers::PASSWORD).await;
    let url = w.app.get_totp_url(&session).await.ok(200)["url"]
        .as_str()
        .expect("url")
        .to_owned();
    let secret = crate::two_factor::secret_of(&url);
    let totp = code_at(&secret, w.app.now().div_euclid(STEP_SECS));
    w.app.totp_enable(&session, &totp).await.ok(200);

    // Inside WeChat: the Official Account's authorization, and its code exchanged with its own
    // app (the fake refuses another app's code).
    w.someone("union-ann");
    let browser = Browser::in_wechat("oa");
    let at = w.start(&browser).await;
    assert!(at.contains("/wechat/connect/oauth2/authorize"), "{at}");
    assert!(at.contains(&format!("appid={OA_APP_ID}")), "{at}");
    assert!(at.contains("scope=snsapi_userinfo"), "{at}");
    let token = w.pending(&browser).await;
    let code = w.app.fresh_code(ANN, "link").await;
    w.prove(&token, &browser, ANN, &code)
        .await
        .error(403, "NEED_TOTP_VERIFY");
    assert_eq!(w.link_of("union-ann").await.as_deref(), Some(ann.as_str()));

    // The same person from a desktop (the QR app): one unionid, one link, the second step.
    let desktop = Browser::new("desk");
    let code = w.login_code(&desktop).await;
    w.redeem(&code, &desktop)
        .await
        .error(403, "NEED_TOTP_VERIFY");
}

#[tokio::test]
async fn an_account_links_after_the_proof_and_keeps_its_second_factor_on_sqlite() {
    an_account_links_after_the_proof_and_keeps_its_second_factor(TestApp::spawn().await).await;
}

#[tokio::test]
async fn an_account_links_after_the_proof_and_keeps_its_second_factor_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "wired_link").await;
    an_account_links_after_the_proof_and_keeps_its_second_factor(app).await;
}

/// The refusals: open in browser, snapshot, used/expired/forged codes, replayed and foreign
/// states, a suspended account (as a wrong code); nothing linked or pending for any of them.
async fn refusals_write_nothing_and_use_up_the_state(app: TestApp) {
    let w = wechat(app, false).await;
    // Inside WeChat without an Official Account: told before anything is stored.
    let location = w.start(&Browser::in_wechat("no-oa")).await;
    assert_eq!(
        w.error_of(&location).as_deref(),
        Some("FEDERATION_OPEN_IN_BROWSER"),
        "{location}"
    );
    assert_eq!(w.written("FEDSTATE#").len(), 0);

    // A snapshot-mode person: refused, no link, no pending identity.
    w.person(Person {
        unionid: "union-snap".into(),
        snapshot: true,
        ..Person::default()
    });
    let browser = Browser::new("r");
    let location = w.round_trip(&browser).await;
    assert_eq!(
        w.error_of(&location).as_deref(),
        Some("FEDERATION_SNAPSHOT_USER")
    );
    assert_eq!(w.written("FEDPEND#").len(), 0);
    assert_eq!(w.written("FEDID#").len(), 0);

    // A used code (the callback with a new state but the code WeChat already redeemed), an
    // expired one (WeChat's clock past 10 minutes) and a forged one: AUTHORIZATION_FAILED, and
    // the state is used up (replaying it is refused before WeChat is asked).
    w.someone("union-codes");
    let first = w.to_platform(&browser).await;
    let second = w.to_platform(&browser).await;
    let location = w.callback(&first).await;
    assert!(param(&location, "wechatPending").is_some(), "{location}");
    let code_of = |cb: &str| {
        param(
            &format!("/en-US/passport/signin?{}", cb.split_once('?').unwrap().1),
            "code",
        )
        .unwrap()
    };
    let state_of = |cb: &str| {
        param(
            &format!("/en-US/passport/signin?{}", cb.split_once('?').unwrap().1),
            "state",
        )
        .unwrap()
    };
    let used = format!(
        "/ciam/v1/auth/wechat/callback?code={}&state={}",
        code_of(&first),
        state_of(&second)
    );
    let asked = w.calls("/sns/oauth2/access_token");
    let location = w.callback(&used).await;
    assert_eq!(
        w.error_of(&location).as_deref(),
        Some("AUTHORIZATION_FAILED")
    );
    assert_eq!(w.calls("/sns/oauth2/access_token"), asked + 1);
    let location = w.callback(&second).await;
    assert_eq!(
        w.error_of(&location).as_deref(),
        Some("AUTHORIZATION_FAILED"),
        "the state was used up by the refused code"
    );
    assert_eq!(w.calls("/sns/oauth2/access_token"), asked + 1);
    let expired = w.to_platform(&browser).await;
    w.fakes.state(Platform::Wechat).advance(601);
    let location = w.callback(&expired).await;
    assert_eq!(
        w.error_of(&location).as_deref(),
        Some("AUTHORIZATION_FAILED")
    );
    let forged = w.to_platform(&browser).await;
    let forged = format!(
        "/ciam/v1/auth/wechat/callback?code=forged0000&state={}",
        state_of(&forged)
    );
    let location = w.callback(&forged).await;
    assert_eq!(
        w.error_of(&location).as_deref(),
        Some("AUTHORIZATION_FAILED")
    );

    // Replayed: the first callback again.
    let location = w.callback(&first).await;
    assert_eq!(
        w.error_of(&location).as_deref(),
        Some("AUTHORIZATION_FAILED")
    );
    // Another provider's callback does not know a WeChat state.
    let foreign = w.to_platform(&browser).await;
    let location = navigate_as(
        &w.app,
        &foreign.replace("/auth/wechat/callback", "/auth/staff/callback"),
        Some(DESKTOP),
    )
    .await;
    assert!(
        location.contains("staffError=AUTHORIZATION_FAILED"),
        "{location}"
    );

    // A suspended account: through WeChat exactly as a wrong code.
    let ann = w.app.sign_up("ann", ANN).await;
    w.someone("union-susp");
    let token = w.pending(&browser).await;
    let code = w.app.fresh_code(ANN, "link").await;
    w.prove(&token, &browser, ANN, &code).await.ok(200);
    let operator = w.app.staffer("desk", Some(Role::Operator)).await.1;
    let p = format!("/admin/accounts/{ann}/suspend");
    w.app
        .admin_call(
            Method::POST,
            &p,
            Some(&operator),
            Some(&json!({ "reason": "fraud" })),
        )
        .await
        .ok(200);
    let location = w.round_trip(&browser).await;
    assert_eq!(
        w.error_of(&location).as_deref(),
        Some("AUTHORIZATION_FAILED")
    );
    assert_eq!(param(&location, "wechatCode"), None);
}

#[tokio::test]
async fn refusals_write_nothing_and_use_up_the_state_on_sqlite() {
    refusals_write_nothing_and_use_up_the_state(TestApp::spawn().await).await;
}

#[tokio::test]
async fn refusals_write_nothing_and_use_up_the_state_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "wired_refusals").await;
    refusals_write_nothing_and_use_up_the_state(app).await;
}

/// WeChat down (5xx) or hanging: SERVICE_UNAVAILABLE, a hang within the call's 3 s deadline.
#[tokio::test]
async fn a_provider_down_or_hanging_is_service_unavailable_in_time() {
    let w = wechat(TestApp::spawn().await, false).await;
    down_or_hanging_is_service_unavailable_in_time(&w, "union-down").await;
}

/// The store round trips of a WeChat sign-in through a link (docs/cost.md "Federated sign-in"):
/// the start, the callback and the redemption.
#[tokio::test]
async fn a_linked_wechat_sign_in_costs_its_counted_round_trips() {
    let w = wechat(TestApp::spawn().await, false).await;
    let browser = linked_ann(&w, "union-trips", ANN).await;
    assert_eq!(sign_in_calls(&w, &browser).await, (1, 5, 6));
}

/// DingTalk's configuration pointing at the fake (any organization).
fn dingtalk_config(fakes: &Fakes) -> ProviderConfig {
    use ciam_fakes::dingtalk::{CLIENT_ID, CLIENT_SECRET};
    let base = fakes.url(Platform::Dingtalk);
    let mut c = ProviderConfig::default();
    for (k, v) in [
        ("CLIENT_ID", CLIENT_ID),
        ("LOGIN_BASE", base.as_str()),
        ("API_BASE", base.as_str()),
    ] {
        c.settings.insert(k.to_owned(), v.to_owned());
    }
    c.secret.insert("clientSecret".into(), CLIENT_SECRET.into());
    c
}

async fn dingtalk(app: TestApp) -> Wired {
    let fakes = fakes().await;
    let config = dingtalk_config(&fakes);
    Wired::at_fake(app, fakes, ProviderId::Dingtalk, Platform::Dingtalk, config)
}

/// What every wired provider does alike: a new person proves a phone and signs up, signs in
/// through the link, a used code is refused, and once the account is suspended the callback
/// refuses exactly as for a wrong code.
async fn every_provider_signs_up_links_and_refuses_a_suspended_account(w: Wired) {
    w.someone("union-every");
    let browser = Browser::new("every");
    let token = w.pending(&browser).await;
    let code = w.app.fresh_code(NEW, "link").await;
    let next = w.prove(&token, &browser, NEW, &code).await;
    assert_eq!(next.status.as_u16(), 202, "{}", next.text);
    let user_id = w.register(&token, &browser, "every").await.ok(200)["userId"]
        .as_str()
        .expect("userId")
        .to_owned();
    assert_eq!(
        w.link_of("union-every").await.as_deref(),
        Some(user_id.as_str())
    );
    let code = w.login_code(&browser).await;
    w.redeem(&code, &browser).await.ok(200);
    w.redeem(&code, &browser)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    let callback = w.to_platform(&browser).await;
    w.callback(&callback).await;
    let replayed = w.callback(&callback).await;
    assert_eq!(
        w.error_of(&replayed).as_deref(),
        Some("AUTHORIZATION_FAILED")
    );

    let operator = w.app.staffer("desk", Some(Role::Operator)).await.1;
    let p = format!("/admin/accounts/{user_id}/suspend");
    w.app
        .admin_call(
            Method::POST,
            &p,
            Some(&operator),
            Some(&json!({ "reason": "fraud" })),
        )
        .await
        .ok(200);
    let location = w.round_trip(&browser).await;
    assert_eq!(
        w.error_of(&location).as_deref(),
        Some("AUTHORIZATION_FAILED")
    );
    assert_eq!(param(&location, &format!("{}Code", w.name())), None);
}

#[tokio::test]
async fn every_provider_signs_up_links_and_refuses_a_suspended_account_on_sqlite() {
    every_provider_signs_up_links_and_refuses_a_suspended_account(
        wechat(TestApp::spawn().await, false).await,
    )
    .await;
    every_provider_signs_up_links_and_refuses_a_suspended_account(
        dingtalk(TestApp::spawn().await).await,
    )
    .await;
    every_provider_signs_up_links_and_refuses_a_suspended_account(
        wecom(TestApp::spawn().await).await,
    )
    .await;
}

#[tokio::test]
async fn every_provider_signs_up_links_and_refuses_a_suspended_account_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "wired_every_wechat").await;
    every_provider_signs_up_links_and_refuses_a_suspended_account(wechat(app, false).await).await;
    let app = TestApp::on_dynamo(&local, "wired_every_dingtalk").await;
    every_provider_signs_up_links_and_refuses_a_suspended_account(dingtalk(app).await).await;
    let app = TestApp::on_dynamo(&local, "wired_every_wecom").await;
    every_provider_signs_up_links_and_refuses_a_suspended_account(wecom(app).await).await;
}

/// DingTalk with one required organization: a member of another is not permitted.
#[tokio::test]
async fn a_dingtalk_account_of_another_organization_is_not_permitted() {
    let w = dingtalk(TestApp::spawn().await).await;
    let mut config = dingtalk_config(&w.fakes);
    config
        .settings
        .insert("CORP_ID".into(), ciam_fakes::dingtalk::CORP_ID.to_owned());
    let w = Wired {
        app: w.app.configure(move |c| {
            c.federation.insert(ProviderId::Dingtalk, config);
        }),
        ..w
    };
    w.person(Person {
        unionid: "union-other".into(),
        corp: Some("dingothercorp".into()),
        ..Person::default()
    });
    let location = w.round_trip(&Browser::new("corp")).await;
    assert_eq!(
        w.error_of(&location).as_deref(),
        Some("FEDERATION_NOT_PERMITTED")
    );
    assert_eq!(w.written("FEDPEND#").len(), 0);
}

/// Through the in-process app (the contract's recorder sees every exchange): a provider that is
/// not configured answers its start with a redirect back to sign-in saying so, and a callback
/// with a state nobody started is refused, for each customer provider's rows.
#[tokio::test]
async fn unconfigured_providers_start_and_callback_answer_with_redirects() {
    let app = TestApp::spawn().await;
    let bind = "a".repeat(43);
    for p in ["wechat", "wecom", "dingtalk", "feishu"] {
        let res = app
            .get(&format!("/auth/{p}/start?lang=zh-CN&bindHash={bind}"), None)
            .await;
        assert_eq!(res.status, 302, "{p}: {}", res.text);
        let res = app
            .get(&format!("/auth/{p}/callback?state=nobody&code=x"), None)
            .await;
        assert_eq!(res.status, 302, "{p}: {}", res.text);
    }
}
