//! The WeCom adapter against the WeCom fake, in process (docs/federation-design.md §2.2, §3.2,
//! §5.3): the two authorization URLs, both flows end to end, the corp token cached in the store
//! (fetched once for many sign-ins, on SQLite and on DynamoDB Local; again after WeCom's
//! invalid-token answer or its expiry; a store failure is 503, never a fetch), and every way the
//! callback can go wrong.

use crate::faults::app_with;
use crate::helpers::federation::fakes;
use crate::helpers::TestApp;
use ciam_api::wecom::token::{corp_token, CacheKey, LABEL};
use ciam_api::wecom::{Wecom, WecomFlow, WecomPerson, WecomSettings};
use ciam_core::federation::{reason_of, Callback, FedError};
use ciam_core::{Ciam, Lang, Reason};
use ciam_fakes::wecom::{AGENT_ID, CORP_ID, CORP_SECRET};
use ciam_fakes::{Fakes, Person, Platform};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::faults::{Fault, Faults, Op};
use ciam_store::{Key, Store};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const REDIRECT: &str = "http://127.0.0.1:9/ciam/v1/auth/wecom/callback";
const STATE: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const GETTOKEN: &str = "/cgi-bin/gettoken";

/// The corp's app registered at the fake, every base pointing at it.
fn settings(fakes: &Fakes) -> WecomSettings {
    let base = fakes.url(Platform::Wecom);
    WecomSettings {
        corp_secret: Some(CORP_SECRET.into()),
        login_base: base.clone(),
        open_base: base.clone(),
        api_base: base,
        ..WecomSettings::new(CORP_ID, AGENT_ID)
    }
}

async fn setup() -> (Fakes, Wecom, TestApp) {
    let fakes = fakes().await;
    let wecom = Wecom::new(settings(&fakes));
    (fakes, wecom, TestApp::spawn().await)
}

fn pairs(url: &url::Url) -> Vec<(String, String)> {
    url.query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// The browser at WeCom, back to `redirect`: the callback's query as Ciam reads it.
async fn approve_to(wecom: &Wecom, flow: WecomFlow, redirect: &str) -> Callback {
    let url = wecom
        .authorization_url(redirect, STATE, Lang::ZhCn, flow)
        .unwrap();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = client.get(&url).send().await.unwrap();
    assert_eq!(res.status(), 302, "{url}");
    let back = url::Url::parse(res.headers()["location"].to_str().unwrap()).unwrap();
    assert!(back.as_str().starts_with(redirect), "{back}");
    let q = pairs(&back);
    let get = |k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    assert_eq!(get("state").as_deref(), Some(STATE));
    Callback {
        code: get("code"),
        error: get("error"),
        iss: None,
    }
}

async fn approve(wecom: &Wecom, flow: WecomFlow) -> Callback {
    approve_to(wecom, flow, REDIRECT).await
}

#[track_caller]
fn unavailable(got: &Result<WecomPerson, FedError>) {
    match got {
        Err(e @ FedError::Unavailable(_)) => {
            assert_eq!(reason_of(e), Reason::SERVICE_UNAVAILABLE)
        }
        other => panic!("not Unavailable: {other:?}"),
    }
}

fn gettoken_calls(fakes: &Fakes) -> u64 {
    fakes.state(Platform::Wecom).calls(GETTOKEN)
}

#[tokio::test]
async fn desktop_gets_the_web_login_and_wecom_s_browser_the_in_client_authorization() {
    let (fakes, wecom, _) = setup().await;
    let base = fakes.url(Platform::Wecom);
    let raw = wecom
        .authorization_url(REDIRECT, STATE, Lang::EnUs, WecomFlow::Desktop)
        .unwrap();
    assert_eq!(
        raw.split('?').next().unwrap(),
        format!("{base}/wwlogin/sso/login")
    );
    let want = [
        ("login_type", "CorpApp"),
        ("appid", CORP_ID),
        ("agentid", AGENT_ID),
        ("redirect_uri", REDIRECT),
        ("state", STATE),
        ("lang", "en"),
    ];
    assert_eq!(
        pairs(&url::Url::parse(&raw).unwrap()),
        want.map(|(k, v)| (k.to_owned(), v.to_owned())).to_vec()
    );
    let in_wecom = "Mozilla/5.0 (iPhone) AppleWebKit/605.1.15 wxwork/4.1.20 MicroMessenger/7.0.1";
    let raw = wecom
        .authorization_url(REDIRECT, STATE, Lang::ZhCn, WecomFlow::of(in_wecom))
        .unwrap();
    assert_eq!(
        raw.split('?').next().unwrap(),
        format!("{base}/connect/oauth2/authorize")
    );
    let want = [
        ("appid", CORP_ID),
        ("redirect_uri", REDIRECT),
        ("response_type", "code"),
        ("scope", "snsapi_privateinfo"),
        ("state", STATE),
        ("agentid", AGENT_ID),
    ];
    assert_eq!(
        pairs(&url::Url::parse(&raw).unwrap()),
        want.map(|(k, v)| (k.to_owned(), v.to_owned())).to_vec()
    );
    assert!(raw.ends_with("#wechat_redirect"), "{raw}");
    let real = Wecom::new(WecomSettings::new(CORP_ID, AGENT_ID));
    let raw = real
        .authorization_url(REDIRECT, STATE, Lang::ZhCn, WecomFlow::Desktop)
        .unwrap();
    assert!(
        raw.starts_with("https://login.work.weixin.qq.com/wwlogin/sso/login?"),
        "{raw}"
    );
    assert!(raw.ends_with("&lang=zh"), "{raw}");
}

#[tokio::test]
async fn a_member_signs_in_as_corp_and_userid_with_the_recorded_phone_only_in_the_client() {
    let (fakes, wecom, app) = setup().await;
    let cb = approve(&wecom, WecomFlow::Desktop).await;
    let desk = wecom
        .identify(&app.ciam, &cb, WecomFlow::Desktop)
        .await
        .unwrap();
    assert_eq!(desk.identity.subject, format!("{CORP_ID}/zhangsan"));
    assert_eq!(
        (desk.corp_id.as_str(), desk.userid.as_str()),
        (CORP_ID, "zhangsan")
    );
    assert_eq!(
        (desk.mobile.as_deref(), desk.identity.vouches.mail.as_ref()),
        (None, None)
    );
    let cb = approve(&wecom, WecomFlow::InClient).await;
    let inside = wecom
        .identify(&app.ciam, &cb, WecomFlow::InClient)
        .await
        .unwrap();
    assert_eq!(inside.identity.subject, desk.identity.subject);
    assert_eq!(inside.mobile.as_deref(), Some("13800138000"));
    assert_eq!(inside.biz_mail.as_deref(), Some("zhangsan@example.com"));
    // Admin-entered: never declared verified.
    assert_eq!(
        inside.identity.vouches.mail,
        Some(("zhangsan@example.com".to_owned(), false))
    );
    let s = fakes.state(Platform::Wecom);
    assert_eq!(s.calls(GETTOKEN), 1, "one token for both sign-ins");
    assert_eq!(s.calls("/cgi-bin/auth/getuserinfo"), 2);
    assert_eq!(s.calls("/cgi-bin/auth/getuserdetail"), 1);

    // Outside the app's visible range: a userid but no ticket inside WeCom, which says the
    // corp's admins did not open the app to this member: not permitted, no detail asked.
    s.set_person(Person {
        visible: false,
        ..Person::default()
    });
    let cb = approve(&wecom, WecomFlow::InClient).await;
    let hidden = wecom.identify(&app.ciam, &cb, WecomFlow::InClient).await;
    assert!(
        matches!(&hidden, Err(e @ FedError::NotPermitted(c))
            if c.contains("visible range") && reason_of(e) == Reason::FEDERATION_NOT_PERMITTED),
        "{hidden:?}"
    );
    assert_eq!(s.calls("/cgi-bin/auth/getuserdetail"), 1);
}

/// The store operations since the last look, in order.
fn store_calls(app: &TestApp) -> Vec<&'static str> {
    app.store
        .take_calls()
        .into_iter()
        .map(|(op, _)| op)
        .collect()
}

#[tokio::test]
async fn the_cached_token_is_sealed_bound_to_its_corp_and_app() {
    let (fakes, wecom, app) = setup().await;
    store_calls(&app);
    let cb = approve(&wecom, WecomFlow::Desktop).await;
    wecom
        .identify(&app.ciam, &cb, WecomFlow::Desktop)
        .await
        .unwrap();
    // The first sign-in: read (nothing), lease, put. The next ones: one read, no write.
    assert_eq!(store_calls(&app), ["get", "update_or_current", "put"]);
    let cb = approve(&wecom, WecomFlow::Desktop).await;
    wecom
        .identify(&app.ciam, &cb, WecomFlow::Desktop)
        .await
        .unwrap();
    assert_eq!(store_calls(&app), ["get"]);
    let key = CacheKey {
        corp_id: CORP_ID,
        agent_id: AGENT_ID,
    };
    let pk = format!("FEDTOKEN#wecom#{CORP_ID}#{AGENT_ID}");
    assert_eq!(key.key(), Key::new(pk.clone(), "TOKEN"));
    let item = app.store.get(&key.key()).await.unwrap().expect("cached");
    // The cached token is used: this fetch would fail.
    let token = corp_token(&app.ciam, key, || async {
        Err::<(String, i64), _>(FedError::Unavailable("not the cached token".into()))
    })
    .await
    .unwrap();
    let sealed = item.b("token").expect("sealed bytes");
    let plain = token.value.as_bytes();
    assert!(!sealed.windows(plain.len()).any(|w| w == plain), "sealed");
    let opened = ciam_core::sealed::open(&app.ciam.keys, LABEL, &pk, sealed).unwrap();
    assert_eq!(opened.as_deref(), Some(plain));
    let elsewhere = ciam_core::sealed::open(&app.ciam.keys, LABEL, "FEDTOKEN#wecom#x#1", sealed);
    assert_eq!(elsewhere.unwrap(), None, "bound to its item");
    // Usable until 300 s before WeCom's 7200, which is also its expiry.
    let now = app.now();
    assert_eq!(item.n("fetchedAt"), Some(now));
    assert_eq!(item.n("usableUntil"), Some(now + 7200 - 300));
    assert_eq!(item.expires_at, Some(now + 6900));
    assert_eq!(gettoken_calls(&fakes), 1);
}

/// 30 sign-ins at once on `ciam`: WeCom's `gettoken` is called once.
async fn many_sign_ins_fetch_once(fakes: &Fakes, wecom: &Wecom, ciam: &Ciam) {
    let mut cbs = Vec::new();
    for _ in 0..30 {
        cbs.push(approve(wecom, WecomFlow::Desktop).await);
    }
    let all = futures_util::future::join_all(
        cbs.iter()
            .map(|cb| wecom.identify(ciam, cb, WecomFlow::Desktop)),
    )
    .await;
    assert!(all.iter().all(Result::is_ok), "{all:?}");
    assert_eq!(gettoken_calls(fakes), 1);
    assert_eq!(
        fakes
            .state(Platform::Wecom)
            .calls("/cgi-bin/auth/getuserinfo"),
        30
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_wecom_sign_ins_fetch_the_corp_token_once_on_sqlite() {
    let (fakes, wecom, app) = setup().await;
    many_sign_ins_fetch_once(&fakes, &wecom, &app.ciam).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_wecom_sign_ins_fetch_the_corp_token_once_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let fakes = fakes().await;
    let wecom = Wecom::new(settings(&fakes));
    let app = TestApp::on_dynamo(&local, "wecom-token").await;
    many_sign_ins_fetch_once(&fakes, &wecom, &app.ciam).await;
    // And again after WeCom revokes it, once.
    fakes.state(Platform::Wecom).invalidate_corp_tokens();
    let cb = approve(&wecom, WecomFlow::Desktop).await;
    assert!(wecom
        .identify(&app.ciam, &cb, WecomFlow::Desktop)
        .await
        .is_ok());
    assert_eq!(gettoken_calls(&fakes), 2);
}

/// The corp's cache key at the fake.
fn cache_key() -> CacheKey<'static> {
    CacheKey {
        corp_id: CORP_ID,
        agent_id: AGENT_ID,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn callers_wait_for_a_slow_fetch_instead_of_fetching_too() {
    let app = TestApp::spawn().await;
    let fetches = Arc::new(AtomicUsize::new(0));
    let fetch = || {
        let fetches = fetches.clone();
        async move {
            fetches.fetch_add(1, Ordering::SeqCst);
            // WeCom (or the store behind it) slow: well over the first waits, under the lease.
            tokio::time::sleep(Duration::from_millis(1_500)).await;
            Ok::<_, FedError>(("slow-token".to_owned(), 7_200))
        }
    };
    let all =
        futures_util::future::join_all((0..10).map(|_| corp_token(&app.ciam, cache_key(), &fetch)))
            .await;
    for got in &all {
        assert_eq!(got.as_ref().unwrap().value, "slow-token");
    }
    assert_eq!(fetches.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_lease_whose_holder_never_fills_the_cache_is_waited_out_once_then_fetched() {
    let app = TestApp::spawn().await;
    let key = cache_key();
    // A holder that took the lease and died (its Lambda timed out): by the store's clock the
    // lease is still held.
    let lease = vec![ciam_store::Update::Set(
        "leaseUntil".into(),
        ciam_store::Value::N(app.now() + 3_600),
    )];
    app.store.update(&key.key(), lease, None).await.unwrap();
    let began = Instant::now();
    let token = corp_token(&app.ciam, key, || async {
        Ok::<_, FedError>(("own-token".to_owned(), 7_200))
    })
    .await
    .unwrap();
    let waited = began.elapsed();
    assert_eq!(token.value, "own-token");
    // Bounded: about the lease's length (5 s), never a stall.
    assert!(waited >= Duration::from_secs(5), "{waited:?}");
    assert!(waited < Duration::from_secs(30), "{waited:?}");
    // And cached for the next caller, which does not wait.
    let began = Instant::now();
    let again = corp_token(&app.ciam, key, || async {
        Err::<(String, i64), _>(FedError::Unavailable("not the cached token".into()))
    })
    .await
    .unwrap();
    assert_eq!(again.value, "own-token");
    assert!(began.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn an_invalid_token_answer_refetches_once_and_the_sign_in_succeeds() {
    let (fakes, wecom, app) = setup().await;
    let cb = approve(&wecom, WecomFlow::Desktop).await;
    assert!(wecom
        .identify(&app.ciam, &cb, WecomFlow::Desktop)
        .await
        .is_ok());
    assert_eq!(gettoken_calls(&fakes), 1);
    // WeCom revokes the token early (40014): the code survives and is used with a new token.
    assert_eq!(fakes.state(Platform::Wecom).invalidate_corp_tokens(), 1);
    let cb = approve(&wecom, WecomFlow::InClient).await;
    let got = wecom
        .identify(&app.ciam, &cb, WecomFlow::InClient)
        .await
        .unwrap();
    assert_eq!(got.mobile.as_deref(), Some("13800138000"));
    assert_eq!(gettoken_calls(&fakes), 2);
    // The new token is the cached one now.
    for _ in 0..3 {
        let cb = approve(&wecom, WecomFlow::Desktop).await;
        assert!(wecom
            .identify(&app.ciam, &cb, WecomFlow::Desktop)
            .await
            .is_ok());
    }
    assert_eq!(gettoken_calls(&fakes), 2);
}

#[tokio::test]
async fn an_expired_token_is_fetched_again_before_or_after_wecom_says_so() {
    let (fakes, wecom, app) = setup().await;
    let cb = approve(&wecom, WecomFlow::Desktop).await;
    assert!(wecom
        .identify(&app.ciam, &cb, WecomFlow::Desktop)
        .await
        .is_ok());
    // WeCom's clock runs ahead: it says 42001 while Ciam still thinks the token usable.
    let s = fakes.state(Platform::Wecom);
    s.advance(7_201);
    let cb = approve(&wecom, WecomFlow::Desktop).await;
    assert!(wecom
        .identify(&app.ciam, &cb, WecomFlow::Desktop)
        .await
        .is_ok());
    assert_eq!(gettoken_calls(&fakes), 2);
    // Ciam's own clock: past usableUntil the token is fetched before any call is refused.
    app.clock.advance(6_901);
    let cb = approve(&wecom, WecomFlow::Desktop).await;
    assert!(wecom
        .identify(&app.ciam, &cb, WecomFlow::Desktop)
        .await
        .is_ok());
    assert_eq!(gettoken_calls(&fakes), 3);
    // 1, then 2 (refused with 42001, retried), then 1: no call refused the last time.
    assert_eq!(s.calls("/cgi-bin/auth/getuserinfo"), 4);
}

/// A WeCom that refuses every corp token (40014) and counts: the adapter fetches a second
/// token once, retries once, then gives up.
#[tokio::test]
async fn a_second_invalid_token_answer_is_unavailable() {
    use axum::routing::get;
    let (_, _, app) = setup().await;
    let fetched = Arc::new(AtomicUsize::new(0));
    let asked = Arc::new(AtomicUsize::new(0));
    let (f, a) = (fetched.clone(), asked.clone());
    let wecom_api = axum::Router::new()
        .route(
            GETTOKEN,
            get(move || async move {
                let n = f.fetch_add(1, Ordering::SeqCst);
                axum::Json(serde_json::json!({
                    "errcode": 0, "access_token": format!("t{n}"), "expires_in": 7200
                }))
            }),
        )
        .route(
            "/cgi-bin/auth/getuserinfo",
            get(move || async move {
                a.fetch_add(1, Ordering::SeqCst);
                axum::Json(serde_json::json!({"errcode": 40014, "errmsg": "invalid access_token"}))
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, wecom_api).await });
    let wecom = Wecom::new(WecomSettings {
        corp_secret: Some(CORP_SECRET.into()),
        api_base: base,
        ..WecomSettings::new(CORP_ID, AGENT_ID)
    });
    let cb = Callback {
        code: Some("a-code".into()),
        ..Callback::default()
    };
    let got = wecom.identify(&app.ciam, &cb, WecomFlow::Desktop).await;
    unavailable(&got);
    assert_eq!(
        (fetched.load(Ordering::SeqCst), asked.load(Ordering::SeqCst)),
        (2, 2)
    );
}

#[track_caller]
fn refused(got: &Result<WecomPerson, FedError>, what: &str) {
    match got {
        Err(e @ FedError::CodeRefused(c)) => {
            assert!(c.contains(what), "{c}");
            assert_eq!(reason_of(e), Reason::AUTHORIZATION_FAILED);
        }
        other => panic!("not refused: {other:?}"),
    }
}

#[tokio::test]
async fn used_expired_and_forged_codes_and_non_members_are_refused() {
    let (fakes, wecom, app) = setup().await;
    let cb = approve(&wecom, WecomFlow::Desktop).await;
    assert!(wecom
        .identify(&app.ciam, &cb, WecomFlow::Desktop)
        .await
        .is_ok());
    refused(
        &wecom.identify(&app.ciam, &cb, WecomFlow::Desktop).await,
        "40029",
    );
    let s = fakes.state(Platform::Wecom);
    let cb = approve(&wecom, WecomFlow::Desktop).await;
    s.advance(301);
    refused(
        &wecom.identify(&app.ciam, &cb, WecomFlow::Desktop).await,
        "40029",
    );
    let forged = Callback {
        code: Some("0".repeat(32)),
        ..Callback::default()
    };
    refused(
        &wecom.identify(&app.ciam, &forged, WecomFlow::Desktop).await,
        "40029",
    );
    s.set_person(Person {
        member: false,
        ..Person::default()
    });
    let cb = approve(&wecom, WecomFlow::InClient).await;
    let got = wecom.identify(&app.ciam, &cb, WecomFlow::InClient).await;
    assert!(
        matches!(&got, Err(e @ FedError::NotPermitted(c))
            if c.contains("not permitted") && reason_of(e) == Reason::FEDERATION_NOT_PERMITTED),
        "{got:?}"
    );
}

#[tokio::test]
async fn a_callback_outside_the_trusted_domain_or_a_wrong_secret_is_misconfigured() {
    let (fakes, wecom, app) = setup().await;
    let cb = approve_to(&wecom, WecomFlow::Desktop, "http://ciam.invalid/cb").await;
    let got = wecom.identify(&app.ciam, &cb, WecomFlow::Desktop).await;
    assert!(
        matches!(&got, Err(e @ FedError::Misconfigured(c))
            if c.contains("50001") && reason_of(e) == Reason::SERVICE_UNAVAILABLE),
        "{got:?}"
    );
    let wrong = Wecom::new(WecomSettings {
        corp_secret: Some("not-the-secret".into()),
        ..settings(&fakes)
    });
    let other = TestApp::spawn().await;
    let cb = approve(&wrong, WecomFlow::Desktop).await;
    let got = wrong.identify(&other.ciam, &cb, WecomFlow::Desktop).await;
    assert!(
        matches!(&got, Err(FedError::Misconfigured(c)) if c.contains("40001")),
        "{got:?}"
    );
    // Nothing cached for a refused secret; the code is untouched.
    assert!(wecom
        .identify(&other.ciam, &cb, WecomFlow::Desktop)
        .await
        .is_ok());
}

#[tokio::test]
async fn a_declined_sign_in_is_cancelled_without_a_call() {
    let (fakes, wecom, app) = setup().await;
    let s = fakes.state(Platform::Wecom);
    s.set_person(Person {
        decline: true,
        ..Person::default()
    });
    let cb = approve(&wecom, WecomFlow::Desktop).await;
    assert_eq!(cb.code, None);
    assert_eq!(
        wecom.identify(&app.ciam, &cb, WecomFlow::Desktop).await,
        Err(FedError::Cancelled)
    );
    assert_eq!(s.calls(GETTOKEN), 0);
}

#[tokio::test]
async fn a_store_failure_reading_the_cache_is_unavailable_and_fetches_nothing() {
    let fakes = fakes().await;
    let wecom = Wecom::new(settings(&fakes));
    let faults = Faults::new();
    let app = app_with(&faults).await;
    let cb = approve(&wecom, WecomFlow::Desktop).await;
    for fault in [Fault::Throttling, Fault::ServerError, Fault::Busy] {
        faults.inject_on(Op::Get, "FEDTOKEN#", fault, 1);
        unavailable(&wecom.identify(&app.ciam, &cb, WecomFlow::Desktop).await);
    }
    assert_eq!(gettoken_calls(&fakes), 0, "never a fetch storm");
    // The code is still good once the store answers.
    assert!(wecom
        .identify(&app.ciam, &cb, WecomFlow::Desktop)
        .await
        .is_ok());
    assert_eq!(gettoken_calls(&fakes), 1);
}

#[tokio::test]
async fn wecom_down_or_slow_is_unavailable_in_time() {
    let (fakes, wecom, app) = setup().await;
    let cb = approve(&wecom, WecomFlow::Desktop).await;
    let s = fakes.state(Platform::Wecom);
    for status in [500, 502, 503] {
        s.set_down(Some(status));
        unavailable(&wecom.identify(&app.ciam, &cb, WecomFlow::Desktop).await);
    }
    s.set_down(None);
    // A failed fetch ended its lease: the next sign-in fetches at once.
    let t = Instant::now();
    assert!(wecom
        .identify(&app.ciam, &cb, WecomFlow::Desktop)
        .await
        .is_ok());
    assert!(
        t.elapsed() < Duration::from_millis(250),
        "{:?}",
        t.elapsed()
    );

    let quick = Wecom::new(WecomSettings {
        call_timeout: Duration::from_millis(300),
        ..settings(&fakes)
    });
    let cb = approve(&quick, WecomFlow::Desktop).await;
    s.set_slow(5_000);
    let t = Instant::now();
    let got = quick.identify(&app.ciam, &cb, WecomFlow::Desktop).await;
    let took = t.elapsed();
    unavailable(&got);
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_millis(300 + 1_500), "{took:?}");
}

#[tokio::test]
async fn no_call_is_started_past_the_request_deadline() {
    let (fakes, wecom, app) = setup().await;
    let cb = approve(&wecom, WecomFlow::Desktop).await;
    let short = ciam_core::deadline::within(
        Duration::from_millis(500),
        wecom.identify(&app.ciam, &cb, WecomFlow::Desktop),
    );
    let got = short.await;
    assert!(
        matches!(&got, Err(FedError::Unavailable(c)) if c.contains("request deadline")),
        "{got:?}"
    );
    assert_eq!(gettoken_calls(&fakes), 0);
    // The refused fetch ended its lease: with room, the same code signs in at once.
    let room = ciam_core::deadline::within(
        Duration::from_secs(10),
        wecom.identify(&app.ciam, &cb, WecomFlow::Desktop),
    );
    let t = Instant::now();
    assert!(room.await.is_ok());
    assert!(
        t.elapsed() < Duration::from_millis(250),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(gettoken_calls(&fakes), 1);
}

#[tokio::test]
async fn a_root_rotation_keeps_the_cached_token_and_a_foreign_root_fetches_anew() {
    let (fakes, wecom, app) = setup().await;
    let cb = approve(&wecom, WecomFlow::Desktop).await;
    assert!(wecom
        .identify(&app.ciam, &cb, WecomFlow::Desktop)
        .await
        .is_ok());
    // The next root, with this one as the previous: the token still opens.
    let rotated = app.clone().with_keys(
        ciam_core::Keys::from_root([7; 32]).with_previous_keys(app.ciam.keys.clone(), true),
    );
    let cb = approve(&wecom, WecomFlow::Desktop).await;
    assert!(wecom
        .identify(&rotated.ciam, &cb, WecomFlow::Desktop)
        .await
        .is_ok());
    assert_eq!(gettoken_calls(&fakes), 1);
    // A root that never sealed it: fetched again, then cached under that root.
    let foreign = app.clone().with_keys(ciam_core::Keys::from_root([9; 32]));
    for _ in 0..2 {
        let cb = approve(&wecom, WecomFlow::Desktop).await;
        assert!(wecom
            .identify(&foreign.ciam, &cb, WecomFlow::Desktop)
            .await
            .is_ok());
    }
    assert_eq!(gettoken_calls(&fakes), 2);
}
