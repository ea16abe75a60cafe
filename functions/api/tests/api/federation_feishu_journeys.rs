//! Feishu (and Lark) wired as a provider, over HTTP through its real rows and the Feishu fake
//! (docs/federation-design.md §3.4, §4.1-§4.2, §5.4): a new person proves a phone and signs up,
//! an existing account links after the proof, the PKCE verifier the state keeps is the one
//! Feishu checks, Lark's hosts when the region says so, a person outside the app's availability,
//! used/expired/forged codes, replayed and foreign states, Feishu down or hanging, a suspended
//! account. The journeys that touch the store's rules run on SQLite and on DynamoDB Local.

use crate::helpers::federation::{
    down_or_hanging_is_service_unavailable_in_time, fakes, linked_ann, navigate, sign_in_calls,
    Browser, Wired,
};
use crate::helpers::TestApp;
use axum::http::Method;
use ciam_core::console::Role;
use ciam_core::federation::{ProviderConfig, ProviderId};
use ciam_fakes::feishu::{challenge_of, APP_ID, APP_SECRET};
use ciam_fakes::{Person, Platform};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::Store;
use serde_json::json;
use std::sync::Arc;

const ANN: &str = "13800138021";
const NEW: &str = "13800138023";
const TOKEN_V2: &str = "/open-apis/authen/v2/oauth/token";

/// Feishu's configuration: the fake's app, on `region`, its hosts at `base` when given.
fn config(region: Option<&str>, base: Option<&str>) -> ProviderConfig {
    let mut c = ProviderConfig::default();
    c.settings.insert("APP_ID".into(), APP_ID.into());
    if let Some(region) = region {
        c.settings.insert("REGION".into(), region.into());
    }
    if let Some(base) = base {
        c.settings.insert("ACCOUNTS_BASE".into(), base.into());
        c.settings.insert("OPEN_BASE".into(), base.into());
    }
    c.secret.insert("appSecret".into(), APP_SECRET.into());
    c
}

/// `app` with Feishu pointed at the fake (`lark`: the Lark region on the fake's Lark hosts).
async fn feishu(app: TestApp, lark: bool) -> Wired {
    let fakes = fakes().await;
    let (region, at) = if lark {
        (Some("lark"), fakes.lark_url())
    } else {
        (None, fakes.url(Platform::Feishu))
    };
    let c = config(region, Some(&at));
    Wired::new(app, fakes, ProviderId::Feishu, Platform::Feishu, at, c)
}

fn query_of(callback: &str, name: &str) -> String {
    let url = url::Url::parse(&format!("http://ciam{callback}")).expect("url");
    url.query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| panic!("no {name}: {callback}"))
}

async fn suspend(w: &Wired, user_id: &str) {
    let operator = w.app.staffer("desk", Some(Role::Operator)).await.1;
    let p = format!("/admin/accounts/{user_id}/suspend");
    let body = json!({ "reason": "fraud" });
    w.app
        .admin_call(Method::POST, &p, Some(&operator), Some(&body))
        .await
        .ok(200);
}

/// A new Feishu person proves a phone and signs up; the start carries a PKCE challenge of the
/// verifier the state keeps (and no nonce); later sign-ins go straight through the link. An
/// existing account links after its phone's proof and signs in.
async fn new_and_existing_accounts_link_after_the_phone_proof(app: TestApp) {
    let w = feishu(app, false).await;
    let listed = w.app.get("/auth/federation", None).await.ok(200);
    assert_eq!(listed["providers"], json!([{ "name": "feishu" }]));

    w.someone("on-new");
    let browser = Browser::new("new");
    let at = w.start(&browser).await;
    let url = url::Url::parse(&at).expect("url");
    assert_eq!(url.path(), "/feishu/open-apis/authen/v1/authorize");
    let q = |k: &str| query_of(&format!("/?{}", url.query().unwrap_or("")), k);
    assert_eq!(q("client_id"), APP_ID);
    assert_eq!(q("code_challenge_method"), "S256");
    assert!(!at.contains("nonce"), "{at}");
    let keys = w.written("FEDSTATE#");
    let state = w.app.store.get(keys.last().expect("a state")).await;
    let state = state.expect("get").expect("the state item");
    let verifier = state.s("verifier").expect("the state keeps a verifier");
    assert_eq!(q("code_challenge"), challenge_of(verifier));
    assert_eq!(state.s("nonce"), None);

    let callback = w.approve(&at).await;
    let location = w.callback(&callback).await;
    let token = crate::helpers::federation::param(&location, "feishuPending")
        .unwrap_or_else(|| panic!("{location}"));
    assert_eq!(w.link_of("on-new").await, None);
    let code = w.app.fresh_code(NEW, "link").await;
    let next = w.prove(&token, &browser, NEW, &code).await;
    assert_eq!(next.status.as_u16(), 202, "{}", next.text);
    let signed_up = w.register(&token, &browser, "feishu-new").await.ok(200);
    let user_id = signed_up["userId"].as_str().expect("userId").to_owned();
    assert_eq!(w.link_of("on-new").await.as_deref(), Some(user_id.as_str()));

    let code = w.login_code(&browser).await;
    let signed_in = w.redeem(&code, &browser).await.ok(200);
    assert_eq!(signed_in["userId"], user_id.as_str());
    assert_eq!(w.calls(TOKEN_V2), 2);
    assert_eq!(w.calls("/oauth/v3/token"), 0);

    // An existing account: its phone's proof links it and signs in.
    let ann = w.app.sign_up("ann", ANN).await;
    w.someone("on-ann");
    let other = Browser::new("ann");
    let token = w.pending(&other).await;
    let code = w.app.fresh_code(ANN, "link").await;
    let proven = w.prove(&token, &other, ANN, &code).await.ok(200);
    assert_eq!(proven["userId"], ann.as_str());
    assert_eq!(w.link_of("on-ann").await.as_deref(), Some(ann.as_str()));
    let code = w.login_code(&other).await;
    assert_eq!(
        w.redeem(&code, &other).await.ok(200)["userId"],
        ann.as_str()
    );
}

#[tokio::test]
async fn new_and_existing_accounts_link_after_the_phone_proof_on_sqlite() {
    new_and_existing_accounts_link_after_the_phone_proof(TestApp::spawn().await).await;
}

#[tokio::test]
async fn new_and_existing_accounts_link_after_the_phone_proof_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "feishu_link").await;
    new_and_existing_accounts_link_after_the_phone_proof(app).await;
}

/// Refusals, none of which links or leaves a pending identity: a wrong or missing PKCE
/// verifier (Feishu refuses the code), a person outside the app's availability, used, expired
/// and forged codes, a replayed state, a Feishu state at another provider's callback, a
/// declined authorization; and a suspended account, refused as through a password (a wrong
/// secret's answer: AUTHORIZATION_FAILED here, CODE_ERROR at the phone step).
async fn refusals_link_nothing(app: TestApp) {
    let w = feishu(app, false).await;
    w.someone("on-refused");
    let (a, b) = (Browser::new("a"), Browser::new("b"));
    let failed = |location: &str| {
        assert_eq!(
            w.error_of(location).as_deref(),
            Some("AUTHORIZATION_FAILED"),
            "{location}"
        );
    };

    // Another sign-in's verifier: A's code with B's state (B's verifier).
    let to_a = w.to_platform(&a).await;
    let to_b = w.to_platform(&b).await;
    let swapped = format!(
        "/ciam/v1/auth/feishu/callback?code={}&state={}",
        query_of(&to_a, "code"),
        query_of(&to_b, "state")
    );
    let asked = w.calls(TOKEN_V2);
    failed(&w.callback(&swapped).await);
    assert_eq!(w.calls(TOKEN_V2), asked + 1, "Feishu refused it, not Ciam");
    // A state without its verifier: no code_verifier sent, Feishu refuses the challenged code.
    let at = w.start(&a).await;
    let key = w.written("FEDSTATE#").pop().expect("a state");
    let mut item = w.app.store.get(&key).await.expect("get").expect("state");
    item.attrs.remove("verifier");
    w.app.store.put(item, None).await.expect("put");
    let callback = w.approve(&at).await;
    failed(&w.callback(&callback).await);
    assert_eq!(w.calls(TOKEN_V2), asked + 2);

    // Outside the app's availability (20010).
    w.person(Person {
        unionid: "on-outsider".into(),
        available: false,
        ..Person::default()
    });
    let location = w.round_trip(&a).await;
    assert_eq!(
        w.error_of(&location).as_deref(),
        Some("FEDERATION_NOT_PERMITTED")
    );

    // Used, expired (Feishu's 5 minutes) and forged codes; the state of each is used up.
    w.someone("on-codes");
    let first = w.to_platform(&a).await;
    let second = w.to_platform(&a).await;
    let location = w.callback(&first).await;
    assert!(location.contains("feishuPending="), "{location}");
    let used = format!(
        "/ciam/v1/auth/feishu/callback?code={}&state={}",
        query_of(&first, "code"),
        query_of(&second, "state")
    );
    failed(&w.callback(&used).await);
    failed(&w.callback(&second).await);
    let expired = w.to_platform(&a).await;
    w.fakes.state(Platform::Feishu).advance(301);
    failed(&w.callback(&expired).await);
    let forged = w.to_platform(&a).await;
    let forged = format!(
        "/ciam/v1/auth/feishu/callback?code=forged-code-0001&state={}",
        query_of(&forged, "state")
    );
    failed(&w.callback(&forged).await);
    // Replayed; and a Feishu state at DingTalk's and staff's callbacks, refused there (the
    // state items are shared with DingTalk's, the item names its provider) and used up by
    // DingTalk's: Feishu's own then refuses it too.
    failed(&w.callback(&first).await);
    let foreign = w.to_platform(&a).await;
    for other in ["dingtalk", "staff"] {
        let at_other = foreign.replace("/auth/feishu/", &format!("/auth/{other}/"));
        let location = navigate(&w.app, &at_other).await;
        let refused = format!("{other}Error=AUTHORIZATION_FAILED");
        assert!(location.contains(&refused), "{location}");
    }
    failed(&w.callback(&foreign).await);
    // Declined at Feishu.
    w.person(Person {
        unionid: "on-declined".into(),
        decline: true,
        ..Person::default()
    });
    let location = w.round_trip(&a).await;
    assert_eq!(
        w.error_of(&location).as_deref(),
        Some("FEDERATION_CANCELLED")
    );
    for subject in ["on-refused", "on-outsider", "on-declined"] {
        assert_eq!(w.link_of(subject).await, None);
    }
    let pending = w.written("FEDPEND#").len();
    assert_eq!(pending, 1, "only the accepted callback (on-codes)");

    // A suspended account: a login code issued before is refused, the callback refuses as for
    // a refused code, and a new Feishu person proving its phone gets the code sign-in's answer.
    let ann = w.app.sign_up("ann", ANN).await;
    w.someone("on-susp");
    let token = w.pending(&b).await;
    let code = w.app.fresh_code(ANN, "link").await;
    w.prove(&token, &b, ANN, &code).await.ok(200);
    let early = w.login_code(&b).await;
    suspend(&w, &ann).await;
    w.redeem(&early, &b)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    let location = w.round_trip(&b).await;
    failed(&location);
    assert!(!location.contains("feishuCode="), "{location}");
    w.someone("on-susp-2");
    let token = w.pending(&b).await;
    w.app.clock.advance(61); // the resend hold of the first link code
    let code = w.app.fresh_code(ANN, "link").await;
    w.prove(&token, &b, ANN, &code)
        .await
        .error(400, "CODE_ERROR");
    assert_eq!(w.link_of("on-susp-2").await, None);
}

#[tokio::test]
async fn refusals_link_nothing_on_sqlite() {
    refusals_link_nothing(TestApp::spawn().await).await;
}

#[tokio::test]
async fn refusals_link_nothing_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "feishu_refusals").await;
    refusals_link_nothing(app).await;
}

/// `REGION=lark`: the browser goes to Lark's accounts host (the real one by default) and the
/// sign-in page is told the brand; with the hosts at the fake's Lark name the whole sign-up
/// runs there. An unknown region is Ciam's set-up error: nothing stored, SERVICE_UNAVAILABLE.
#[tokio::test]
async fn lark_s_hosts_are_used_when_the_region_says_so() {
    let w = feishu(TestApp::spawn().await, true).await;
    let listed = w.app.get("/auth/federation", None).await.ok(200);
    assert_eq!(
        listed["providers"],
        json!([{ "name": "feishu", "brand": "lark" }])
    );
    w.someone("on-lark");
    let browser = Browser::new("lark");
    let token = w.pending(&browser).await;
    let code = w.app.fresh_code(NEW, "link").await;
    let next = w.prove(&token, &browser, NEW, &code).await;
    assert_eq!(next.status.as_u16(), 202, "{}", next.text);
    w.register(&token, &browser, "lark-user").await.ok(200);
    assert!(w.link_of("on-lark").await.is_some());

    let real = w.app.configure(|c| {
        c.federation
            .insert(ProviderId::Feishu, config(Some("lark"), None));
    });
    let w = Wired { app: real, ..w };
    let at = w.start(&browser).await;
    assert!(
        at.starts_with("https://accounts.larksuite.com/open-apis/authen/v1/authorize?"),
        "{at}"
    );
    let plain = w.app.configure(|c| {
        c.federation.insert(ProviderId::Feishu, config(None, None));
    });
    let w = Wired { app: plain, ..w };
    let at = w.start(&browser).await;
    assert!(
        at.starts_with("https://accounts.feishu.cn/open-apis/authen/v1/authorize?"),
        "{at}"
    );
    let listed = w.app.get("/auth/federation", None).await.ok(200);
    assert_eq!(listed["providers"], json!([{ "name": "feishu" }]));

    let wrong = w.app.configure(|c| {
        c.federation
            .insert(ProviderId::Feishu, config(Some("larksuite"), None));
    });
    let w = Wired { app: wrong, ..w };
    let states = w.written("FEDSTATE#").len();
    let location = w.start(&browser).await;
    assert_eq!(
        w.error_of(&location).as_deref(),
        Some("SERVICE_UNAVAILABLE")
    );
    assert_eq!(w.written("FEDSTATE#").len(), states);
}

/// Feishu down (5xx) or hanging: SERVICE_UNAVAILABLE, a hang within the call's 3 s deadline.
#[tokio::test]
async fn feishu_down_or_hanging_is_service_unavailable_in_time() {
    let w = feishu(TestApp::spawn().await, false).await;
    down_or_hanging_is_service_unavailable_in_time(&w, "on-down").await;
}

/// The store round trips of a Feishu sign-in through a link (docs/cost.md "Federated
/// sign-in"): the start, the callback and the redemption; two calls to Feishu.
#[tokio::test]
async fn a_linked_feishu_sign_in_costs_its_counted_round_trips() {
    let w = feishu(TestApp::spawn().await, false).await;
    let browser = linked_ann(&w, "on-trips", ANN).await;
    let calls = (w.calls(TOKEN_V2), w.calls("/open-apis/authen/v1/user_info"));
    assert_eq!(sign_in_calls(&w, &browser).await, (1, 5, 6));
    let now = (w.calls(TOKEN_V2), w.calls("/open-apis/authen/v1/user_info"));
    assert_eq!(now, (calls.0 + 1, calls.1 + 1));
}
