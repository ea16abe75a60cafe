//! The DingTalk adapter against the DingTalk fake, in process (docs/federation-design.md §3.3,
//! §5.3): the authorization URL, the whole flow (the fake's authorize redirect gives the
//! `authCode`), the organization rule, and every way the callback can go wrong.

use ciam_api::dingtalk::{Dingtalk, DingtalkRegion, DingtalkSettings, CODE_PARAM};
use ciam_core::federation::{reason_of, Callback, FedError};
use ciam_core::Reason;
use ciam_fakes::dingtalk::{CLIENT_ID, CLIENT_SECRET, CORP_ID};
use ciam_fakes::{Fakes, Person, Platform};
use std::time::{Duration, Instant};

const REDIRECT: &str = "http://127.0.0.1:9/ciam/v1/auth/dingtalk/callback";
const STATE: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// The app registered at the fake, both bases pointing at it.
fn settings(fakes: &Fakes) -> DingtalkSettings {
    DingtalkSettings {
        client_secret: Some(CLIENT_SECRET.into()),
        login_base: fakes.url(Platform::Dingtalk),
        api_base: fakes.url(Platform::Dingtalk),
        ..DingtalkSettings::new(CLIENT_ID, DingtalkRegion::Mainland)
    }
}

async fn setup() -> (Fakes, Dingtalk) {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let fakes = ciam_fakes::spawn().await.unwrap();
    let dingtalk = Dingtalk::new(settings(&fakes));
    (fakes, dingtalk)
}

fn pairs(url: &url::Url) -> Vec<(String, String)> {
    url.query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// The browser at DingTalk: follows the authorization URL to the fake, which approves as its
/// next person and redirects back; the callback's query as the handler reads it (`authCode`
/// into `code`).
async fn approve(dingtalk: &Dingtalk) -> Callback {
    let url = dingtalk.authorization_url(REDIRECT, STATE).unwrap();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = client.get(&url).send().await.unwrap();
    assert_eq!(res.status(), 302, "{url}");
    let back = url::Url::parse(res.headers()["location"].to_str().unwrap()).unwrap();
    assert!(back.as_str().starts_with(REDIRECT), "{back}");
    let q = pairs(&back);
    let get = |k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    assert_eq!(get("state").as_deref(), Some(STATE));
    assert_eq!(get("code"), None, "DingTalk says authCode");
    Callback {
        code: get(CODE_PARAM),
        error: get("error"),
        iss: None,
    }
}

#[track_caller]
fn unavailable(got: &Result<impl std::fmt::Debug, FedError>) {
    match got {
        Err(e @ FedError::Unavailable(_)) => {
            assert_eq!(reason_of(e), Reason::SERVICE_UNAVAILABLE)
        }
        other => panic!("not Unavailable: {other:?}"),
    }
}

#[tokio::test]
async fn the_authorization_url_has_dingtalk_s_parameters_in_order() {
    let (fakes, dingtalk) = setup().await;
    let raw = dingtalk.authorization_url(REDIRECT, STATE).unwrap();
    assert_eq!(
        raw.split('?').next().unwrap(),
        format!("{}/oauth2/auth", fakes.url(Platform::Dingtalk))
    );
    let want = [
        ("redirect_uri", REDIRECT),
        ("response_type", "code"),
        ("client_id", CLIENT_ID),
        ("scope", "openid"),
        ("state", STATE),
        ("prompt", "consent"),
    ];
    assert_eq!(
        pairs(&url::Url::parse(&raw).unwrap()),
        want.map(|(k, v)| (k.to_owned(), v.to_owned())).to_vec()
    );
    // One organization only: the corpid scope is asked too.
    let one_corp = Dingtalk::new(DingtalkSettings {
        corp_id: Some(CORP_ID.into()),
        ..settings(&fakes)
    });
    let raw = one_corp.authorization_url(REDIRECT, STATE).unwrap();
    assert!(raw.contains("&scope=openid+corpid&"), "{raw}");
    // The real hosts, and only https.
    let real = Dingtalk::new(DingtalkSettings::new(
        CLIENT_ID,
        DingtalkRegion::International,
    ));
    let raw = real.authorization_url(REDIRECT, STATE).unwrap();
    assert!(
        raw.starts_with("https://login.dingtalk.io/oauth2/auth?"),
        "{raw}"
    );
    let plain = Dingtalk::new(DingtalkSettings {
        login_base: "http://login.dingtalk.com".into(),
        ..settings(&fakes)
    });
    assert!(matches!(
        plain.authorization_url(REDIRECT, STATE),
        Err(FedError::Misconfigured(_))
    ));
}

#[tokio::test]
async fn a_dingtalk_sign_in_finds_the_person_by_union_id() {
    let (fakes, dingtalk) = setup().await;
    let cb = approve(&dingtalk).await;
    let got = dingtalk.identify(&cb).await.unwrap();
    let person = Person::default();
    assert_eq!(got.identity.subject, person.unionid);
    assert_eq!(
        got.identity.app_subject,
        Some((CLIENT_ID.to_owned(), person.openid_for(CLIENT_ID)))
    );
    assert_eq!(got.identity.name.as_deref(), Some("张三"));
    // A typed mail, never declared verified; the phone is a prefill with its country code.
    assert_eq!(
        got.identity.vouches.mail,
        Some(("zhangsan@example.com".to_owned(), false))
    );
    assert_eq!(got.mobile.as_deref(), Some("+86 13800138000"));
    assert_eq!(got.corp_id, None, "no corpid scope, no organization");
    assert!(!got.identity.mfa);
    let s = fakes.state(Platform::Dingtalk);
    assert_eq!(s.calls("/v1.0/oauth2/userAccessToken"), 1);
    assert_eq!(s.calls("/v1.0/contact/users/me"), 1);
}

#[tokio::test]
async fn with_one_organization_a_member_of_another_is_refused() {
    let (fakes, _) = setup().await;
    let one_corp = Dingtalk::new(DingtalkSettings {
        corp_id: Some(CORP_ID.into()),
        ..settings(&fakes)
    });
    let cb = approve(&one_corp).await;
    let got = one_corp.identify(&cb).await.unwrap();
    assert_eq!(got.corp_id.as_deref(), Some(CORP_ID));

    let s = fakes.state(Platform::Dingtalk);
    s.set_person(Person {
        corp: Some("dingothercorp".into()),
        ..Person::default()
    });
    let cb = approve(&one_corp).await;
    let got = one_corp.identify(&cb).await;
    assert!(
        matches!(&got, Err(e @ FedError::NotPermitted(c))
            if c.contains("not permitted") && reason_of(e) == Reason::FEDERATION_NOT_PERMITTED),
        "{got:?}"
    );
    assert_eq!(
        s.calls("/v1.0/contact/users/me"),
        1,
        "nothing read about them"
    );
}

fn refused(got: &Result<ciam_api::dingtalk::DingtalkPerson, FedError>) {
    match got {
        Err(e @ FedError::CodeRefused(c)) => {
            assert!(c.contains("invalidAuthCode"), "{c}");
            assert_eq!(reason_of(e), Reason::AUTHORIZATION_FAILED);
        }
        other => panic!("not refused: {other:?}"),
    }
}

#[tokio::test]
async fn a_used_expired_or_forged_code_is_refused() {
    let (fakes, dingtalk) = setup().await;
    let cb = approve(&dingtalk).await;
    assert!(dingtalk.identify(&cb).await.is_ok());
    refused(&dingtalk.identify(&cb).await);

    let cb = approve(&dingtalk).await;
    fakes.state(Platform::Dingtalk).advance(301);
    refused(&dingtalk.identify(&cb).await);

    let forged = Callback {
        code: Some("0".repeat(32)),
        ..Callback::default()
    };
    refused(&dingtalk.identify(&forged).await);
}

#[tokio::test]
async fn a_wrong_or_missing_secret_is_misconfigured() {
    let (fakes, dingtalk) = setup().await;
    let cb = approve(&dingtalk).await;
    let wrong = Dingtalk::new(DingtalkSettings {
        client_secret: Some("not-the-secret".into()),
        ..settings(&fakes)
    });
    let got = wrong.identify(&cb).await;
    assert!(
        matches!(&got, Err(e @ FedError::Misconfigured(c))
            if c.contains("invalid.client") && reason_of(e) == Reason::SERVICE_UNAVAILABLE),
        "{got:?}"
    );
    let none = Dingtalk::new(DingtalkSettings {
        client_secret: None,
        ..settings(&fakes)
    });
    assert!(matches!(
        none.identify(&cb).await,
        Err(FedError::Misconfigured(_))
    ));
}

#[tokio::test]
async fn a_declined_sign_in_is_cancelled() {
    let (fakes, dingtalk) = setup().await;
    let s = fakes.state(Platform::Dingtalk);
    s.set_person(Person {
        decline: true,
        ..Person::default()
    });
    let cb = approve(&dingtalk).await;
    assert_eq!(cb.code, None);
    assert_eq!(cb.error.as_deref(), Some("access_denied"));
    let got = dingtalk.identify(&cb).await;
    assert!(
        matches!(&got, Err(e @ FedError::Cancelled) if reason_of(e) == Reason::FEDERATION_CANCELLED),
        "{got:?}"
    );
    assert_eq!(s.calls("/v1.0/oauth2/userAccessToken"), 0);
}

#[tokio::test]
async fn dingtalk_down_is_unavailable() {
    let (fakes, dingtalk) = setup().await;
    let cb = approve(&dingtalk).await;
    let s = fakes.state(Platform::Dingtalk);
    for status in [500, 502, 503] {
        s.set_down(Some(status));
        unavailable(&dingtalk.identify(&cb).await);
    }
    s.set_down(None);
    // The code survived the outage (DingTalk never saw it).
    assert!(dingtalk.identify(&cb).await.is_ok());
    let gone = Dingtalk::new(DingtalkSettings {
        api_base: "http://127.0.0.1:9".into(),
        ..settings(&fakes)
    });
    unavailable(&gone.identify(&cb).await);
}

#[tokio::test]
async fn dingtalk_slow_past_the_call_timeout_is_unavailable_in_time() {
    let (fakes, _) = setup().await;
    let quick = Dingtalk::new(DingtalkSettings {
        call_timeout: Duration::from_millis(300),
        ..settings(&fakes)
    });
    let cb = approve(&quick).await;
    fakes.state(Platform::Dingtalk).set_slow(5_000);
    let t = Instant::now();
    let got = quick.identify(&cb).await;
    let took = t.elapsed();
    unavailable(&got);
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_millis(300 + 1_500), "{took:?}");
}

#[tokio::test]
async fn no_call_is_started_past_the_request_deadline() {
    let (fakes, dingtalk) = setup().await;
    let cb = approve(&dingtalk).await;
    let short = ciam_core::deadline::within(Duration::from_millis(500), dingtalk.identify(&cb));
    let got = short.await;
    assert!(
        matches!(&got, Err(FedError::Unavailable(c)) if c.contains("request deadline")),
        "{got:?}"
    );
    let s = fakes.state(Platform::Dingtalk);
    assert_eq!(s.calls("/v1.0/oauth2/userAccessToken"), 0);
    // With room for its calls, the same code signs in.
    let room = ciam_core::deadline::within(Duration::from_secs(10), dingtalk.identify(&cb));
    assert!(room.await.is_ok());
}
