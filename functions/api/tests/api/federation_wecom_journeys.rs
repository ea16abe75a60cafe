//! WeCom wired as a provider, over HTTP through its real rows (docs/federation-design.md §3.2,
//! §4.1-§4.2, §5.4): `/auth/wecom/start` leaves for the WeCom fake's web login (or, in WeCom's
//! own browser, its in-client authorization), the fake approves and redirects back, and
//! `/auth/wecom/callback` asks WeCom who it is with the corp token cached in the table. The
//! journeys every provider shares (the suspended account among them) run over WeCom too, in
//! federation_journeys.rs. On SQLite and DynamoDB Local.

use crate::helpers::federation::{
    down_or_hanging_is_service_unavailable_in_time, fakes, linked_ann, navigate_as, param,
    sign_in_calls, Browser, Wired, DESKTOP,
};
use crate::helpers::TestApp;
use ciam_core::federation::{ProviderConfig, ProviderId};
use ciam_fakes::wecom::{AGENT_ID, CORP_ID, CORP_SECRET};
use ciam_fakes::{Fakes, Person, Platform};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::{Key, Store};
use futures_util::future::join_all;
use serde_json::json;
use std::sync::Arc;

const ANN: &str = "13800138021";
const NEW: &str = "13800138023";
const GETTOKEN: &str = "/cgi-bin/gettoken";
const GETUSERINFO: &str = "/cgi-bin/auth/getuserinfo";
const GETUSERDETAIL: &str = "/cgi-bin/auth/getuserdetail";

/// WeCom's configuration pointing every base at the fake: the corp's registered app.
fn wecom_config(fakes: &Fakes) -> ProviderConfig {
    let base = fakes.url(Platform::Wecom);
    let mut c = ProviderConfig::default();
    for (k, v) in [
        ("CORP_ID", CORP_ID),
        ("AGENT_ID", AGENT_ID),
        ("LOGIN_BASE", base.as_str()),
        ("OPEN_BASE", base.as_str()),
        ("API_BASE", base.as_str()),
    ] {
        c.settings.insert(k.to_owned(), v.to_owned());
    }
    c.secret.insert("corpSecret".into(), CORP_SECRET.into());
    c
}

/// `app` with WeCom wired to a fresh fake.
pub async fn wecom(app: TestApp) -> Wired {
    let fakes = fakes().await;
    let config = wecom_config(&fakes);
    Wired::at_fake(app, fakes, ProviderId::Wecom, Platform::Wecom, config)
}

/// The callback URI's `code` or `state`.
fn of(callback: &str, name: &str) -> String {
    let query = callback.split_once('?').expect("query").1;
    param(&format!("/en-US/passport/signin?{query}"), name).expect(name)
}

/// A new member on a desktop: the web login, the phone proof, the sign-up, then straight
/// through the link; one corp token for both callbacks.
async fn a_new_member_proves_a_phone_and_signs_up(app: TestApp) {
    let w = wecom(app).await;
    let listed = w.app.get("/auth/federation", None).await.ok(200);
    assert_eq!(listed["providers"], json!([{ "name": "wecom" }]));
    w.someone("lisi");
    let browser = Browser::new("web");
    let at = url::Url::parse(&w.start(&browser).await).expect("url");
    assert_eq!(at.path(), "/wecom/wwlogin/sso/login");
    let q: Vec<(String, String)> = at.query_pairs().into_owned().collect();
    for (k, v) in [
        ("login_type", "CorpApp"),
        ("appid", CORP_ID),
        ("agentid", AGENT_ID),
        ("lang", "en"),
    ] {
        assert!(q.contains(&(k.to_owned(), v.to_owned())), "{k}: {q:?}");
    }
    let token = w.pending(&browser).await;
    assert_eq!(w.link_of("lisi").await, None);

    let code = w.app.fresh_code(NEW, "link").await;
    let next = w.prove(&token, &browser, NEW, &code).await;
    assert_eq!(next.status.as_u16(), 202, "{}", next.text);
    let user_id = w.register(&token, &browser, "lisi").await.ok(200)["userId"]
        .as_str()
        .expect("userId")
        .to_owned();
    assert_eq!(w.link_of("lisi").await.as_deref(), Some(user_id.as_str()));

    let code = w.login_code(&browser).await;
    let signed_in = w.redeem(&code, &browser).await.ok(200);
    assert_eq!(signed_in["userId"], user_id.as_str());
    assert_eq!((w.calls(GETTOKEN), w.calls(GETUSERINFO)), (1, 2));
    assert_eq!(w.calls(GETUSERDETAIL), 0, "the web login has no ticket");
}

#[tokio::test]
async fn a_new_wecom_member_proves_a_phone_and_signs_up_on_sqlite() {
    a_new_member_proves_a_phone_and_signs_up(TestApp::spawn().await).await;
}

#[tokio::test]
async fn a_new_wecom_member_proves_a_phone_and_signs_up_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    a_new_member_proves_a_phone_and_signs_up(TestApp::on_dynamo(&local, "wecom_new").await).await;
}

/// Inside WeCom: the in-client authorization (`snsapi_privateinfo`), the state remembering it
/// so the callback asks for the member's detail; an existing account links after the phone
/// proof (the corp's recorded phone is no proof), then the same member signs in from a desktop.
async fn an_account_links_inside_wecom_after_the_proof(app: TestApp) {
    let w = wecom(app).await;
    let ann = w.app.sign_up("ann", ANN).await;
    w.person(Person {
        userid: "ann".into(),
        phone: Some(ANN.into()),
        ..Person::default()
    });
    let browser = Browser::in_wecom("client");
    let at = url::Url::parse(&w.start(&browser).await).expect("url");
    assert_eq!(at.path(), "/wecom/connect/oauth2/authorize");
    assert_eq!(at.fragment(), Some("wechat_redirect"));
    let q: Vec<(String, String)> = at.query_pairs().into_owned().collect();
    for (k, v) in [
        ("appid", CORP_ID),
        ("scope", "snsapi_privateinfo"),
        ("agentid", AGENT_ID),
    ] {
        assert!(q.contains(&(k.to_owned(), v.to_owned())), "{k}: {q:?}");
    }
    let token = w.pending(&browser).await;
    assert_eq!(w.calls(GETUSERDETAIL), 1);
    assert_eq!(
        w.link_of("ann").await,
        None,
        "the recorded phone links nothing"
    );
    let code = w.app.fresh_code(ANN, "link").await;
    let signed_in = w.prove(&token, &browser, ANN, &code).await.ok(200);
    assert_eq!(signed_in["userId"], ann.as_str());
    assert_eq!(w.link_of("ann").await.as_deref(), Some(ann.as_str()));

    let desktop = Browser::new("desk");
    let code = w.login_code(&desktop).await;
    let again = w.redeem(&code, &desktop).await.ok(200);
    assert_eq!(again["userId"], ann.as_str());
    assert_eq!(w.calls(GETUSERDETAIL), 1, "the web login asks no detail");
}

#[tokio::test]
async fn an_account_links_inside_wecom_after_the_proof_on_sqlite() {
    an_account_links_inside_wecom_after_the_proof(TestApp::spawn().await).await;
}

#[tokio::test]
async fn an_account_links_inside_wecom_after_the_proof_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    an_account_links_inside_wecom_after_the_proof(TestApp::on_dynamo(&local, "wecom_link").await)
        .await;
}

/// A non-member, a member outside the app's visible range (inside WeCom), a declined sign-in,
/// used, expired and forged codes, a replayed state and another provider's: each refused,
/// nothing pending or linked, the state used up before the code is.
async fn refusals_write_nothing_and_use_up_the_state(app: TestApp) {
    let w = wecom(app).await;
    let refused = |location: &str| w.error_of(location);
    w.person(Person {
        member: false,
        ..Person::default()
    });
    let browser = Browser::new("r");
    let location = w.round_trip(&browser).await;
    assert_eq!(
        refused(&location).as_deref(),
        Some("FEDERATION_NOT_PERMITTED")
    );
    w.person(Person {
        visible: false,
        ..Person::default()
    });
    let location = w.round_trip(&Browser::in_wecom("hidden")).await;
    assert_eq!(
        refused(&location).as_deref(),
        Some("FEDERATION_NOT_PERMITTED")
    );
    w.person(Person {
        decline: true,
        ..Person::default()
    });
    let location = w.round_trip(&browser).await;
    assert_eq!(refused(&location).as_deref(), Some("FEDERATION_CANCELLED"));
    assert_eq!(
        (w.written("FEDPEND#").len(), w.written("FEDID#").len()),
        (0, 0)
    );

    // A used code (WeCom's, already redeemed, with a fresh state), then that state again.
    w.someone("codes");
    let first = w.to_platform(&browser).await;
    let second = w.to_platform(&browser).await;
    assert!(param(&w.callback(&first).await, "wecomPending").is_some());
    let used = format!(
        "/ciam/v1/auth/wecom/callback?code={}&state={}",
        of(&first, "code"),
        of(&second, "state")
    );
    let asked = w.calls(GETUSERINFO);
    let location = w.callback(&used).await;
    assert_eq!(refused(&location).as_deref(), Some("AUTHORIZATION_FAILED"));
    assert_eq!(w.calls(GETUSERINFO), asked + 1);
    let location = w.callback(&second).await;
    assert_eq!(refused(&location).as_deref(), Some("AUTHORIZATION_FAILED"));
    // Replayed.
    let location = w.callback(&first).await;
    assert_eq!(refused(&location).as_deref(), Some("AUTHORIZATION_FAILED"));
    assert_eq!(
        w.calls(GETUSERINFO),
        asked + 1,
        "no code used for a spent state"
    );

    // Expired (WeCom's 5 minutes) and forged.
    let expired = w.to_platform(&browser).await;
    w.fakes.state(Platform::Wecom).advance(301);
    let location = w.callback(&expired).await;
    assert_eq!(refused(&location).as_deref(), Some("AUTHORIZATION_FAILED"));
    let forged = w.to_platform(&browser).await;
    let forged = format!(
        "/ciam/v1/auth/wecom/callback?code=forged0000&state={}",
        of(&forged, "state")
    );
    let location = w.callback(&forged).await;
    assert_eq!(refused(&location).as_deref(), Some("AUTHORIZATION_FAILED"));

    // A WeCom state (and its code) at another provider's callback: refused there, used up.
    let foreign = w.to_platform(&browser).await;
    for other in ["dingtalk", "wechat"] {
        let at = foreign.replace("/auth/wecom/", &format!("/auth/{other}/"));
        let location = navigate_as(&w.app, &at, Some(DESKTOP)).await;
        let error = param(&location, &format!("{other}Error"));
        assert_eq!(error.as_deref(), Some("AUTHORIZATION_FAILED"), "{location}");
    }
    let location = w.callback(&foreign).await;
    assert_eq!(refused(&location).as_deref(), Some("AUTHORIZATION_FAILED"));
    assert_eq!(
        (w.written("FEDPEND#").len(), w.written("FEDID#").len()),
        (1, 0)
    );
}

#[tokio::test]
async fn wecom_refusals_write_nothing_and_use_up_the_state_on_sqlite() {
    refusals_write_nothing_and_use_up_the_state(TestApp::spawn().await).await;
}

#[tokio::test]
async fn wecom_refusals_write_nothing_and_use_up_the_state_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    refusals_write_nothing_and_use_up_the_state(TestApp::on_dynamo(&local, "wecom_refusals").await)
        .await;
}

/// Many sign-ins through the routes, at once: one `gettoken`. Then WeCom revokes the token early
/// (40014), later it expires on WeCom's clock before Ciam's (42001): each time one more fetch,
/// one retried call, and the sign-in goes on.
async fn the_corp_token_is_fetched_once_then_again_after_an_invalid_token_answer(app: TestApp) {
    let w = wecom(app).await;
    let browsers: Vec<Browser> = (0..6).map(|i| Browser::new(&format!("many{i}"))).collect();
    let mut callbacks = Vec::new();
    for b in &browsers {
        callbacks.push(w.to_platform(b).await);
    }
    let locations = join_all(callbacks.iter().map(|cb| w.callback(cb))).await;
    for location in &locations {
        assert!(param(location, "wecomPending").is_some(), "{location}");
    }
    assert_eq!((w.calls(GETTOKEN), w.calls(GETUSERINFO)), (1, 6));

    let fake = w.fakes.state(Platform::Wecom);
    assert_eq!(fake.invalidate_corp_tokens(), 1);
    assert!(param(&w.round_trip(&browsers[0]).await, "wecomPending").is_some());
    assert_eq!((w.calls(GETTOKEN), w.calls(GETUSERINFO)), (2, 8));
    assert!(param(&w.round_trip(&browsers[1]).await, "wecomPending").is_some());
    assert_eq!((w.calls(GETTOKEN), w.calls(GETUSERINFO)), (2, 9));

    fake.advance(7_201);
    assert!(param(&w.round_trip(&browsers[2]).await, "wecomPending").is_some());
    assert_eq!((w.calls(GETTOKEN), w.calls(GETUSERINFO)), (3, 11));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_corp_token_is_fetched_once_then_again_after_an_invalid_token_answer_on_sqlite() {
    the_corp_token_is_fetched_once_then_again_after_an_invalid_token_answer(TestApp::spawn().await)
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_corp_token_is_fetched_once_then_again_after_an_invalid_token_answer_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "wecom_token").await;
    the_corp_token_is_fetched_once_then_again_after_an_invalid_token_answer(app).await;
}

/// WeCom down (5xx) or hanging: SERVICE_UNAVAILABLE, a hang within the call's 3 s deadline.
#[tokio::test]
async fn wecom_down_or_hanging_is_service_unavailable_in_time() {
    let w = wecom(TestApp::spawn().await).await;
    down_or_hanging_is_service_unavailable_in_time(&w, "down").await;
}

/// The store round trips of a linked WeCom sign-in (docs/cost.md "Federated sign-in"): the
/// callback reads the cached corp token (one more than WeChat's); with none cached it also takes
/// the lease and puts the token.
#[tokio::test]
async fn a_linked_wecom_sign_in_costs_its_counted_round_trips() {
    let w = wecom(TestApp::spawn().await).await;
    let browser = linked_ann(&w, "trips", ANN).await;
    let mut counted = Vec::new();
    for cached in [true, false] {
        if !cached {
            let key = Key::new(format!("FEDTOKEN#wecom#{CORP_ID}#{AGENT_ID}"), "TOKEN");
            w.app.store.delete(&key, None).await.expect("delete");
        }
        counted.push(sign_in_calls(&w, &browser).await);
    }
    assert_eq!(counted, [(1, 6, 6), (1, 8, 6)]);
}
