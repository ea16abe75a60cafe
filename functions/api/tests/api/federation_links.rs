//! Federated sign-in through links, for every provider that links (docs/federation-design.md
//! §2, §4.1-§4.2), driven end to end with the test-only `mock` provider against ciam-fakes'
//! `mock` platform: a new subject proves a phone and signs up; a phone's owner links after the
//! proof and later signs in straight through the link; a suspended owner is refused at the
//! phone step (CODE_ERROR) and through a link (AUTHORIZATION_FAILED); replayed and foreign
//! states, a used login code, a wrong bind, two accounts racing for one subject, deactivation
//! and a store failure. On SQLite and DynamoDB Local.
//!
//! The browser's navigations (start, the platform, the callback) are redirects, not API calls:
//! they go to the router directly (the mock's two rows are in no published document); every
//! API call goes through the contract check as everywhere.

use crate::faults::app_with_config;
use crate::helpers::federation::{
    activity_kinds, fakes, last_notice, link_of, mock_base, navigate, next_person, no_redirects,
    query_params, with_mock, Browser,
};
use crate::helpers::{TestApp, TestResponse, PASSWORD};
use crate::unavailable::assert_retry_later;
use axum::http::Method;
use ciam_core::console::Role;
use ciam_core::staff::bind_hash;
use ciam_core::Config;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::faults::{Fault, Faults, Op};
use ciam_store::{Key, Store};
use serde_json::{json, Value};
use std::sync::Arc;

const ANN: &str = "13800138001";
const BOB: &str = "13800138002";
const NEW: &str = "13800138003";

/// The browser leaves for the platform, which approves: the callback URI it is sent back to
/// (path and query, as the router serves it).
async fn to_platform(app: &TestApp, browser: &Browser) -> String {
    let start = format!(
        "/ciam/v1/auth/mock/start?lang=en-US&query=appId%3Dx&bindHash={}",
        bind_hash(&browser.bind)
    );
    let at_platform = navigate(app, &start).await;
    let res = no_redirects()
        .get(&at_platform)
        .send()
        .await
        .expect("platform");
    assert_eq!(res.status(), 302, "{at_platform}");
    let back =
        url::Url::parse(res.headers()["location"].to_str().expect("location")).expect("absolute");
    assert_eq!(back.path(), "/ciam/v1/auth/mock/callback");
    format!("{}?{}", back.path(), back.query().unwrap_or(""))
}

/// The sign-in screen's parameters the callback sent the browser back with.
fn params(location: &str) -> Vec<(String, String)> {
    assert!(
        location.starts_with("/en-US/passport/signin?"),
        "{location}"
    );
    query_params(location)
}

fn param(location: &str, name: &str) -> Option<String> {
    params(location)
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

/// The whole round trip: the location the callback answered.
async fn round_trip(app: &TestApp, browser: &Browser) -> String {
    let callback = to_platform(app, browser).await;
    let location = navigate(app, &callback).await;
    // The SPA's query comes back, after the outcome.
    assert_eq!(
        param(&location, "appId").as_deref(),
        Some("x"),
        "{location}"
    );
    location
}

/// A new subject's round trip: its pending identity.
async fn pending(app: &TestApp, browser: &Browser) -> String {
    let location = round_trip(app, browser).await;
    param(&location, "mockPending").unwrap_or_else(|| panic!("no mockPending: {location}"))
}

/// A linked subject's round trip: its login code.
async fn login_code(app: &TestApp, browser: &Browser) -> String {
    let location = round_trip(app, browser).await;
    param(&location, "mockCode").unwrap_or_else(|| panic!("no mockCode: {location}"))
}

async fn post(app: &TestApp, p: &str, body: &Value) -> TestResponse {
    app.send_json(Method::POST, p, None, body).await
}

async fn prove(
    app: &TestApp,
    token: &str,
    browser: &Browser,
    phone: &str,
    code: &str,
) -> TestResponse {
    let body = json!({ "pending": token, "bind": browser.bind, "phone": phone, "code": code });
    post(app, "/auth/federation/phone", &body).await
}

async fn register(app: &TestApp, token: &str, browser: &Browser, user_name: &str) -> TestResponse {
    let body = json!({ "pending": token, "bind": browser.bind, "userName": user_name,
        "company": "Acme Industrial", "country": "CN", "acceptTerms": true });
    post(app, "/auth/federation/register", &body).await
}

async fn redeem(app: &TestApp, code: &str, browser: &Browser) -> TestResponse {
    let body = json!({ "provider": "mock", "code": code, "bind": browser.bind });
    post(app, "/auth/login/federation", &body).await
}

async fn operator(app: &TestApp) -> String {
    app.staffer("desk", Some(Role::Operator)).await.1
}

async fn suspend(app: &TestApp, operator: &str, user_id: &str) {
    let p = format!("/admin/accounts/{user_id}/suspend");
    let body = json!({ "reason": "a fraud report" });
    app.admin_call(Method::POST, &p, Some(operator), Some(&body))
        .await
        .ok(200);
}

// ---- the journeys, each on both engines ----

async fn a_new_subject_proves_a_phone_signs_up_and_then_signs_in_through_the_link(app: TestApp) {
    let fakes = fakes().await;
    let app = with_mock(app, &fakes).await;
    let listed = app.get("/auth/federation", None).await.ok(200);
    assert_eq!(listed["providers"], json!([{ "name": "mock" }]));
    next_person(&fakes, "sub-new").await;
    let browser = Browser::new("b1");
    let token = pending(&app, &browser).await;
    assert_eq!(link_of(&app, "mock", "sub-new").await, None);

    // The code is sent whether or not the phone has an account, and answered alike.
    let code = app.fresh_code(NEW, "link").await;
    let next = prove(&app, &token, &browser, NEW, &code).await;
    assert_eq!(next.status.as_u16(), 202, "{}", next.text);
    assert_eq!(next.json(), json!({ "next": "signUp" }));
    // The code is used: a second proof with it finds none.
    prove(&app, &token, &browser, NEW, &code)
        .await
        .error(400, "VERIFYCODE_NOT_FOUND");

    // Another browser holding the pending token gets nowhere.
    register(&app, &token, &Browser::new("thief"), "mallory")
        .await
        .error(401, "AUTHORIZATION_FAILED");
    let signed_up = register(&app, &token, &browser, "zhang").await.ok(200);
    let user_id = signed_up["userId"].as_str().expect("userId").to_owned();
    let session = signed_up["token"].as_str().expect("token");
    let info = app.get_info(session).await.ok(200);
    assert_eq!(info["userName"], "zhang");
    assert_eq!(app.owner_of(NEW).await.as_deref(), Some(user_id.as_str()));
    assert_eq!(
        link_of(&app, "mock", "sub-new").await.as_deref(),
        Some(user_id.as_str())
    );
    let user = app.user_item(&user_id).await.expect("user");
    assert_eq!(user.n("links"), Some(1));
    assert!(user.s("pwdHash").is_none());
    // The pending identity is spent.
    register(&app, &token, &browser, "zhang2")
        .await
        .error(401, "AUTHORIZATION_FAILED");

    // Later: straight through the link, no phone step.
    let code = login_code(&app, &browser).await;
    let signed_in = redeem(&app, &code, &browser).await.ok(200);
    assert_eq!(signed_in["userId"], user_id.as_str());
    // A used login code is refused.
    redeem(&app, &code, &browser)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    // A login code with another browser's bind is refused, and used up.
    let code = login_code(&app, &browser).await;
    redeem(&app, &code, &Browser::new("other"))
        .await
        .error(401, "AUTHORIZATION_FAILED");
    redeem(&app, &code, &browser)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    // Staff's codes are redeemed at their own route.
    let body = json!({ "provider": "staff", "code": "x", "bind": browser.bind });
    post(&app, "/auth/login/federation", &body)
        .await
        .error(400, "INVALID_PARAMETER");

    // The console's numbers count each sign-in under its provider (the shared rows' method is
    // the code's or the pending identity's): one success and four refusals (the used phone code,
    // the used login code, another browser's twice); the sign-up's phone step (202) is no
    // outcome, and the refusal before a provider was known is no provider's.
    let numbers = app
        .admin_get("/admin/overview", &operator(&app).await)
        .await
        .ok(200);
    let today = &numbers["days"]
        .as_array()
        .and_then(|d| d.last())
        .expect("today")["signIns"];
    assert_eq!(today["byMethod"]["mock"], 5, "{today}");
    // The operator's own password sign-in is the day's other one.
    assert_eq!(today["total"], 6, "{today}");
}

#[tokio::test]
async fn a_new_subject_proves_a_phone_signs_up_and_then_signs_in_through_the_link_on_sqlite() {
    a_new_subject_proves_a_phone_signs_up_and_then_signs_in_through_the_link(
        TestApp::spawn().await,
    )
    .await;
}

#[tokio::test]
async fn a_new_subject_proves_a_phone_signs_up_and_then_signs_in_through_the_link_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "federation_new").await;
    a_new_subject_proves_a_phone_signs_up_and_then_signs_in_through_the_link(app).await;
}

async fn a_phone_s_owner_links_after_the_proof_and_a_suspended_one_is_refused(app: TestApp) {
    let fakes = fakes().await;
    let app = with_mock(app, &fakes).await;
    let ann = app.sign_up("ann", ANN).await;
    let bob = app.sign_up("bob", BOB).await;
    let operator = operator(&app).await;
    let browser = Browser::new("b2");

    // Ann proves her phone: the subject is linked to her account, and she is signed in.
    next_person(&fakes, "sub-ann").await;
    let token = pending(&app, &browser).await;
    let code = app.fresh_code(ANN, "link").await;
    // Another browser's bind: refused, the pending identity kept for its owner.
    prove(&app, &token, &Browser::new("thief"), ANN, &code)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    let signed_in = prove(&app, &token, &browser, ANN, &code).await.ok(200);
    assert_eq!(signed_in["userId"], ann.as_str());
    assert_eq!(
        link_of(&app, "mock", "sub-ann").await.as_deref(),
        Some(ann.as_str())
    );
    // A way in added to her account: in her security activity, and told to her address.
    let session = signed_in["token"].as_str().expect("a session");
    assert!(activity_kinds(&app, session)
        .await
        .contains(&("identityLinked".to_owned(), Some("mock".to_owned()))));
    assert_eq!(
        last_notice(&app),
        Some(ciam_core::notifier::Notice::IdentityLinked {
            provider: "mock".into()
        })
    );
    let code = login_code(&app, &browser).await;
    redeem(&app, &code, &browser).await.ok(200);

    // Suspended: through the link the callback is refused like a refused code, no login code.
    suspend(&app, &operator, &ann).await;
    let location = round_trip(&app, &browser).await;
    assert_eq!(
        param(&location, "mockError").as_deref(),
        Some("AUTHORIZATION_FAILED"),
        "{location}"
    );
    assert_eq!(param(&location, "mockCode"), None);

    // Bob suspended: a new subject proving his phone gets CODE_ERROR, the code used up.
    suspend(&app, &operator, &bob).await;
    next_person(&fakes, "sub-bob").await;
    let token = pending(&app, &browser).await;
    let code = app.fresh_code(BOB, "link").await;
    prove(&app, &token, &browser, BOB, &code)
        .await
        .error(400, "CODE_ERROR");
    prove(&app, &token, &browser, BOB, &code)
        .await
        .error(400, "VERIFYCODE_NOT_FOUND");
    assert_eq!(link_of(&app, "mock", "sub-bob").await, None);
}

#[tokio::test]
async fn a_phone_s_owner_links_after_the_proof_and_a_suspended_one_is_refused_on_sqlite() {
    a_phone_s_owner_links_after_the_proof_and_a_suspended_one_is_refused(TestApp::spawn().await)
        .await;
}

#[tokio::test]
async fn a_phone_s_owner_links_after_the_proof_and_a_suspended_one_is_refused_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "federation_owner").await;
    a_phone_s_owner_links_after_the_proof_and_a_suspended_one_is_refused(app).await;
}

async fn a_state_works_once_and_only_for_its_provider(app: TestApp) {
    let fakes = fakes().await;
    let app = with_mock(app, &fakes).await;
    next_person(&fakes, "sub-state").await;
    let browser = Browser::new("b3");
    let callback = to_platform(&app, &browser).await;
    // Another provider's callback does not know the state (staff's prefix, not the mock's).
    let foreign = callback.replace("/auth/mock/callback", "/auth/staff/callback");
    let location = navigate(&app, &foreign).await;
    assert!(
        location.contains("staffError=AUTHORIZATION_FAILED"),
        "{location}"
    );
    // Its own works once; replayed, it is refused before the platform is asked again.
    let location = navigate(&app, &callback).await;
    assert!(param(&location, "mockPending").is_some(), "{location}");
    let location = navigate(&app, &callback).await;
    assert!(
        location.contains("mockError=AUTHORIZATION_FAILED"),
        "{location}"
    );
    // A forged state.
    let forged = "/ciam/v1/auth/mock/callback?code=x&state=0123456789abcdef";
    let location = navigate(&app, forged).await;
    assert!(
        location.contains("mockError=AUTHORIZATION_FAILED"),
        "{location}"
    );
}

#[tokio::test]
async fn a_state_works_once_and_only_for_its_provider_on_sqlite() {
    a_state_works_once_and_only_for_its_provider(TestApp::spawn().await).await;
}

#[tokio::test]
async fn a_state_works_once_and_only_for_its_provider_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "federation_state").await;
    a_state_works_once_and_only_for_its_provider(app).await;
}

async fn of_two_accounts_racing_for_one_subject_exactly_one_links(app: TestApp) {
    let fakes = fakes().await;
    let app = with_mock(app, &fakes).await;
    let ann = app.sign_up("ann", ANN).await;
    let bob = app.sign_up("bob", BOB).await;
    next_person(&fakes, "sub-race").await;
    let (b1, b2) = (Browser::new("race1"), Browser::new("race2"));
    let t1 = pending(&app, &b1).await;
    let t2 = pending(&app, &b2).await;
    let c1 = app.fresh_code(ANN, "link").await;
    let c2 = app.fresh_code(BOB, "link").await;
    let (r1, r2) = tokio::join!(
        prove(&app, &t1, &b1, ANN, &c1),
        prove(&app, &t2, &b2, BOB, &c2)
    );
    let mut statuses = [r1.status.as_u16(), r2.status.as_u16()];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 409], "{} / {}", r1.text, r2.text);
    let (winner, loser) = if r1.status.as_u16() == 200 {
        (&ann, &r2)
    } else {
        (&bob, &r1)
    };
    loser.error(409, "FEDERATION_LINK_EXISTS");
    assert_eq!(
        link_of(&app, "mock", "sub-race").await.as_deref(),
        Some(winner.as_str())
    );
    let mut links = 0;
    for u in [&ann, &bob] {
        links += app
            .user_item(u)
            .await
            .and_then(|i| i.n("links"))
            .unwrap_or(0);
    }
    assert_eq!(links, 1);
}

#[tokio::test]
async fn of_two_accounts_racing_for_one_subject_exactly_one_links_on_sqlite() {
    of_two_accounts_racing_for_one_subject_exactly_one_links(TestApp::spawn().await).await;
}

#[tokio::test]
async fn of_two_accounts_racing_for_one_subject_exactly_one_links_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "federation_race").await;
    of_two_accounts_racing_for_one_subject_exactly_one_links(app).await;
}

async fn deactivation_ends_the_account_s_links(app: TestApp) {
    let fakes = fakes().await;
    let app = with_mock(app, &fakes).await;
    let ann = app.sign_up("ann", ANN).await;
    next_person(&fakes, "sub-gone").await;
    let browser = Browser::new("b4");
    let token = pending(&app, &browser).await;
    let code = app.fresh_code(ANN, "link").await;
    prove(&app, &token, &browser, ANN, &code).await.ok(200);
    assert_eq!(
        link_of(&app, "mock", "sub-gone").await.as_deref(),
        Some(ann.as_str())
    );
    let session = app.sign_in(ANN, PASSWORD).await;
    app.deactivate(&session, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    assert_eq!(link_of(&app, "mock", "sub-gone").await, None);
    let account_link = Key::new(format!("USER#{ann}"), "FED#mock");
    assert!(app.store.get(&account_link).await.expect("get").is_none());
    // The subject is new again: it waits for a phone proof.
    pending(&app, &browser).await;
}

#[tokio::test]
async fn deactivation_ends_the_account_s_links_on_sqlite() {
    deactivation_ends_the_account_s_links(TestApp::spawn().await).await;
}

#[tokio::test]
async fn deactivation_ends_the_account_s_links_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "federation_gone").await;
    deactivation_ends_the_account_s_links(app).await;
}

#[tokio::test]
async fn a_store_failure_is_503_never_a_verdict_and_costs_no_code() {
    let fakes = fakes().await;
    let faults = Faults::new();
    let config = Config {
        mock_provider: Some(mock_base(&fakes)),
        ..Config::default()
    };
    let app = app_with_config(&faults, config).await;
    let ann = app.sign_up("ann", ANN).await;
    next_person(&fakes, "sub-fault").await;
    let browser = Browser::new("b5");

    // The link's transaction fails: 503, then the same proof (same code) goes through.
    let token = pending(&app, &browser).await;
    let code = app.fresh_code(ANN, "link").await;
    faults.inject(Op::Transact, Fault::Throttling, 1);
    assert_retry_later(&prove(&app, &token, &browser, ANN, &code).await);
    prove(&app, &token, &browser, ANN, &code).await.ok(200);

    // The login code's read fails: 503, then the same code works.
    let code = login_code(&app, &browser).await;
    faults.inject(Op::Get, Fault::Throttling, 1);
    assert_retry_later(&redeem(&app, &code, &browser).await);
    let signed_in = redeem(&app, &code, &browser).await.ok(200);
    assert_eq!(signed_in["userId"], ann.as_str());

    // A new subject's sign-up transaction fails: 503, then the same sign-up goes through.
    next_person(&fakes, "sub-fault-new").await;
    let token = pending(&app, &browser).await;
    let code = app.fresh_code(NEW, "link").await;
    assert_eq!(prove(&app, &token, &browser, NEW, &code).await.status, 202);
    faults.inject(Op::Transact, Fault::Throttling, 1);
    assert_retry_later(&register(&app, &token, &browser, "newbie").await);
    register(&app, &token, &browser, "newbie").await.ok(200);
}
