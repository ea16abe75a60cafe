//! The Feishu/Lark adapter against the Feishu fake, in process (docs/federation-design.md §3.4,
//! §5.3): the authorization URL with PKCE, the whole flow on both hosts (Feishu and Lark) and
//! both token endpoints, and every way the callback can go wrong.

use ciam_api::feishu::{Feishu, FeishuPerson, FeishuRegion, FeishuSettings, FeishuToken};
use ciam_core::federation::{reason_of, Callback, FedError};
use ciam_core::Reason;
use ciam_fakes::feishu::{challenge_of, APP_ID, APP_SECRET, TENANT_KEY};
use ciam_fakes::{Fakes, Person, Platform};
use std::time::{Duration, Instant};

const REDIRECT: &str = "http://127.0.0.1:9/ciam/v1/auth/feishu/callback";
const STATE: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const VERIFIER: &str = "a-verifier-of-forty-three-or-more-characters-0123456789";

/// The app registered at the fake, on the Feishu (or Lark) prefix.
fn settings(fakes: &Fakes, region: FeishuRegion) -> FeishuSettings {
    let base = match region {
        FeishuRegion::Feishu => fakes.url(Platform::Feishu),
        FeishuRegion::Lark => fakes.lark_url(),
    };
    FeishuSettings {
        app_secret: Some(APP_SECRET.into()),
        accounts_base: base.clone(),
        open_base: base,
        ..FeishuSettings::new(APP_ID, region)
    }
}

async fn setup() -> (Fakes, Feishu) {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let fakes = ciam_fakes::spawn().await.unwrap();
    let feishu = Feishu::new(settings(&fakes, FeishuRegion::Feishu));
    (fakes, feishu)
}

fn pairs(url: &url::Url) -> Vec<(String, String)> {
    url.query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// The browser at Feishu: follows the authorization URL to the fake, which approves as its next
/// person and redirects back; the callback's query as the handler reads it.
async fn approve(feishu: &Feishu) -> Callback {
    let url = feishu
        .authorization_url(REDIRECT, STATE, &challenge_of(VERIFIER))
        .unwrap();
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
    Callback {
        code: get("code"),
        error: get("error"),
        iss: None,
    }
}

#[track_caller]
fn unavailable(got: &Result<FeishuPerson, FedError>) {
    match got {
        Err(e @ FedError::Unavailable(_)) => {
            assert_eq!(reason_of(e), Reason::SERVICE_UNAVAILABLE)
        }
        other => panic!("not Unavailable: {other:?}"),
    }
}

#[track_caller]
fn refused(got: &Result<FeishuPerson, FedError>) {
    match got {
        Err(e @ FedError::CodeRefused(c)) => {
            assert!(c.contains("invalid_grant"), "{c}");
            assert_eq!(reason_of(e), Reason::AUTHORIZATION_FAILED);
        }
        other => panic!("not refused: {other:?}"),
    }
}

#[tokio::test]
async fn the_authorization_url_is_the_current_one_with_pkce() {
    let (fakes, feishu) = setup().await;
    let challenge = challenge_of(VERIFIER);
    let raw = feishu
        .authorization_url(REDIRECT, STATE, &challenge)
        .unwrap();
    assert_eq!(
        raw.split('?').next().unwrap(),
        format!(
            "{}/open-apis/authen/v1/authorize",
            fakes.url(Platform::Feishu)
        )
    );
    let want = [
        ("client_id", APP_ID),
        ("response_type", "code"),
        ("redirect_uri", REDIRECT),
        ("state", STATE),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
    ];
    assert_eq!(
        pairs(&url::Url::parse(&raw).unwrap()),
        want.map(|(k, v)| (k.to_owned(), v.to_owned())).to_vec()
    );
    assert!(!raw.contains("passport"), "{raw}");
    let scoped = Feishu::new(FeishuSettings {
        scope: "contact:user.email:readonly".into(),
        ..settings(&fakes, FeishuRegion::Feishu)
    });
    let raw = scoped
        .authorization_url(REDIRECT, STATE, &challenge)
        .unwrap();
    assert!(
        raw.contains("&scope=contact%3Auser.email%3Areadonly&state="),
        "{raw}"
    );
    // The real hosts of each region, and only https.
    for (region, host) in [
        (FeishuRegion::Feishu, "https://accounts.feishu.cn/"),
        (FeishuRegion::Lark, "https://accounts.larksuite.com/"),
    ] {
        let real = Feishu::new(FeishuSettings::new(APP_ID, region));
        let raw = real.authorization_url(REDIRECT, STATE, &challenge).unwrap();
        assert!(raw.starts_with(host), "{raw}");
    }
    let plain = Feishu::new(FeishuSettings {
        accounts_base: "http://accounts.feishu.cn".into(),
        ..settings(&fakes, FeishuRegion::Feishu)
    });
    assert!(matches!(
        plain.authorization_url(REDIRECT, STATE, &challenge),
        Err(FedError::Misconfigured(_))
    ));
}

#[tokio::test]
async fn feishu_and_lark_sign_ins_find_the_person_by_union_id_on_both_token_endpoints() {
    let (fakes, _) = setup().await;
    let person = Person::default();
    for region in [FeishuRegion::Feishu, FeishuRegion::Lark] {
        for token in [FeishuToken::V2, FeishuToken::V3] {
            let feishu = Feishu::new(FeishuSettings {
                token,
                ..settings(&fakes, region)
            });
            let cb = approve(&feishu).await;
            let got = feishu.identify(&cb, REDIRECT, VERIFIER).await.unwrap();
            assert_eq!(got.identity.subject, person.unionid, "{region:?} {token:?}");
            assert_eq!(
                got.identity.app_subject,
                Some((APP_ID.to_owned(), person.openid_for(APP_ID)))
            );
            assert_eq!(got.identity.name.as_deref(), Some("张三"));
            assert_eq!(
                got.identity.vouches.mail,
                Some(("zhangsan@example.com".to_owned(), false))
            );
            assert_eq!(got.tenant_key.as_deref(), Some(TENANT_KEY));
            assert_eq!(got.mobile.as_deref(), Some("+8613800138000"));
            assert!(!got.identity.mfa);
        }
    }
    let s = fakes.state(Platform::Feishu);
    assert_eq!(s.calls("/open-apis/authen/v2/oauth/token"), 2);
    assert_eq!(s.calls("/oauth/v3/token"), 2);
    assert_eq!(s.calls("/open-apis/authen/v1/user_info"), 4);
}

#[tokio::test]
async fn a_used_expired_or_forged_code_or_a_wrong_verifier_is_refused() {
    let (fakes, feishu) = setup().await;
    let cb = approve(&feishu).await;
    assert!(feishu.identify(&cb, REDIRECT, VERIFIER).await.is_ok());
    refused(&feishu.identify(&cb, REDIRECT, VERIFIER).await);

    let cb = approve(&feishu).await;
    fakes.state(Platform::Feishu).advance(301);
    refused(&feishu.identify(&cb, REDIRECT, VERIFIER).await);

    let forged = Callback {
        code: Some("0".repeat(32)),
        ..Callback::default()
    };
    refused(&feishu.identify(&forged, REDIRECT, VERIFIER).await);

    // A code stolen on its way back is useless without the state's verifier (PKCE), and is
    // bound to its redirect URI.
    let cb = approve(&feishu).await;
    refused(&feishu.identify(&cb, REDIRECT, "another-verifier").await);
    let cb = approve(&feishu).await;
    refused(
        &feishu
            .identify(&cb, "http://127.0.0.1:9/elsewhere", VERIFIER)
            .await,
    );
}

#[tokio::test]
async fn a_person_outside_the_app_s_availability_is_not_permitted() {
    let (fakes, feishu) = setup().await;
    fakes.state(Platform::Feishu).set_person(Person {
        available: false,
        ..Person::default()
    });
    let cb = approve(&feishu).await;
    let got = feishu.identify(&cb, REDIRECT, VERIFIER).await;
    assert!(
        matches!(&got, Err(e @ FedError::NotPermitted(c))
            if c.starts_with("not permitted") && c.contains("20010")
                && reason_of(e) == Reason::FEDERATION_NOT_PERMITTED),
        "{got:?}"
    );
}

#[tokio::test]
async fn a_wrong_or_missing_secret_is_misconfigured() {
    let (fakes, feishu) = setup().await;
    let cb = approve(&feishu).await;
    let wrong = Feishu::new(FeishuSettings {
        app_secret: Some("not-the-secret".into()),
        ..settings(&fakes, FeishuRegion::Feishu)
    });
    let got = wrong.identify(&cb, REDIRECT, VERIFIER).await;
    assert!(
        matches!(&got, Err(e @ FedError::Misconfigured(c))
            if c.contains("invalid_client") && reason_of(e) == Reason::SERVICE_UNAVAILABLE),
        "{got:?}"
    );
    // The client is checked first: the code is still good with the right secret.
    assert!(feishu.identify(&cb, REDIRECT, VERIFIER).await.is_ok());
    let none = Feishu::new(FeishuSettings {
        app_secret: None,
        ..settings(&fakes, FeishuRegion::Feishu)
    });
    assert!(matches!(
        none.identify(&cb, REDIRECT, VERIFIER).await,
        Err(FedError::Misconfigured(_))
    ));
}

#[tokio::test]
async fn a_declined_sign_in_is_cancelled() {
    let (fakes, feishu) = setup().await;
    let s = fakes.state(Platform::Feishu);
    s.set_person(Person {
        decline: true,
        ..Person::default()
    });
    let cb = approve(&feishu).await;
    assert_eq!(cb.code, None);
    assert_eq!(cb.error.as_deref(), Some("access_denied"));
    assert_eq!(
        feishu.identify(&cb, REDIRECT, VERIFIER).await,
        Err(FedError::Cancelled)
    );
    assert_eq!(s.calls("/open-apis/authen/v2/oauth/token"), 0);
}

#[tokio::test]
async fn feishu_down_is_unavailable_on_both_hosts() {
    let (fakes, _) = setup().await;
    for region in [FeishuRegion::Feishu, FeishuRegion::Lark] {
        let feishu = Feishu::new(settings(&fakes, region));
        let cb = approve(&feishu).await;
        let s = fakes.state(Platform::Feishu);
        for status in [500, 502, 503] {
            s.set_down(Some(status));
            unavailable(&feishu.identify(&cb, REDIRECT, VERIFIER).await);
        }
        s.set_down(None);
        assert!(feishu.identify(&cb, REDIRECT, VERIFIER).await.is_ok());
    }
    let gone = Feishu::new(FeishuSettings {
        open_base: "http://127.0.0.1:9".into(),
        ..settings(&fakes, FeishuRegion::Lark)
    });
    let cb = Callback {
        code: Some("x".into()),
        ..Callback::default()
    };
    unavailable(&gone.identify(&cb, REDIRECT, VERIFIER).await);
}

#[tokio::test]
async fn feishu_slow_past_the_call_timeout_is_unavailable_in_time() {
    let (fakes, _) = setup().await;
    let quick = Feishu::new(FeishuSettings {
        call_timeout: Duration::from_millis(300),
        ..settings(&fakes, FeishuRegion::Lark)
    });
    let cb = approve(&quick).await;
    fakes.state(Platform::Feishu).set_slow(5_000);
    let t = Instant::now();
    let got = quick.identify(&cb, REDIRECT, VERIFIER).await;
    let took = t.elapsed();
    unavailable(&got);
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_millis(300 + 1_500), "{took:?}");
}

#[tokio::test]
async fn no_call_is_started_past_the_request_deadline() {
    let (fakes, feishu) = setup().await;
    let cb = approve(&feishu).await;
    let short = ciam_core::deadline::within(
        Duration::from_millis(500),
        feishu.identify(&cb, REDIRECT, VERIFIER),
    );
    let got = short.await;
    assert!(
        matches!(&got, Err(FedError::Unavailable(c)) if c.contains("request deadline")),
        "{got:?}"
    );
    let s = fakes.state(Platform::Feishu);
    assert_eq!(s.calls("/open-apis/authen/v2/oauth/token"), 0);
    let room = ciam_core::deadline::within(
        Duration::from_secs(10),
        feishu.identify(&cb, REDIRECT, VERIFIER),
    );
    assert!(room.await.is_ok());
}
