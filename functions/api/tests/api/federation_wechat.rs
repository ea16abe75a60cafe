//! The WeChat adapter against the WeChat fake, in process (docs/federation-design.md §3.1,
//! §5.3): the two authorization URLs, both flows end to end (the fake's authorize redirect
//! gives the code), and every way the callback can go wrong.

use ciam_api::wechat::{Wechat, WechatApp, WechatFlow, WechatSettings};
use ciam_core::federation::{Callback, FedError, Surface};
use ciam_core::Lang;
use ciam_fakes::wechat::{OA_APP_ID, OA_SECRET, WEB_APP_ID, WEB_SECRET};
use ciam_fakes::{Fakes, Person, Platform};
use std::time::{Duration, Instant};

const REDIRECT: &str = "http://127.0.0.1:9/ciam/v1/auth/wechat/callback?x=1";
const STATE: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const IN_WECHAT: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like \
                         Gecko) Chrome/120.0 Mobile Safari/537.36 MicroMessenger/8.0.47.2560 \
                         NetType/WIFI Language/zh_CN";
const IN_WECOM: &str =
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 \
                        (KHTML, like Gecko) Mobile/15E148 wxwork/4.1.20 MicroMessenger/7.0.1";

fn app(id: &str, secret: &str) -> Option<WechatApp> {
    Some(WechatApp {
        app_id: id.into(),
        secret: Some(secret.into()),
    })
}

/// Both apps registered at the fake, both bases pointing at it.
fn settings(fakes: &Fakes) -> WechatSettings {
    WechatSettings {
        web: app(WEB_APP_ID, WEB_SECRET),
        oa: app(OA_APP_ID, OA_SECRET),
        open_base: fakes.url(Platform::Wechat),
        api_base: fakes.url(Platform::Wechat),
        call_timeout: Duration::from_secs(3),
    }
}

async fn setup() -> (Fakes, Wechat) {
    // The test's own browser is reqwest too, built before the adapter's client installs the
    // crypto provider.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let fakes = ciam_fakes::spawn().await.unwrap();
    let wechat = Wechat::new(settings(&fakes));
    (fakes, wechat)
}

fn pairs(url: &url::Url) -> Vec<(String, String)> {
    url.query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// The browser at WeChat: follows the authorization URL to the fake, which "scans and
/// approves" as its next person and redirects back; the callback's query as Ciam reads it.
async fn approve(wechat: &Wechat, surface: Surface) -> Callback {
    let url = wechat
        .authorization_url(REDIRECT, STATE, Lang::ZhCn, surface)
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

#[tokio::test]
async fn desktop_gets_the_qr_page_with_wechat_s_parameters_in_order() {
    let (fakes, wechat) = setup().await;
    let raw = wechat
        .authorization_url(REDIRECT, STATE, Lang::ZhCn, Surface::Desktop)
        .unwrap();
    let url = url::Url::parse(&raw).unwrap();
    assert_eq!(
        raw.split('?').next().unwrap(),
        format!("{}/connect/qrconnect", fakes.url(Platform::Wechat))
    );
    let want = [
        ("appid", WEB_APP_ID),
        ("redirect_uri", REDIRECT),
        ("response_type", "code"),
        ("scope", "snsapi_login"),
        ("state", STATE),
        ("lang", "cn"),
    ];
    assert_eq!(
        pairs(&url),
        want.map(|(k, v)| (k.to_owned(), v.to_owned())).to_vec()
    );
    assert!(raw.ends_with("#wechat_redirect"), "{raw}");
    // The redirect URI travels encoded, its own query with it.
    assert!(
        raw.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fciam%2Fv1%2Fauth%2Fwechat%2Fcallback%3Fx%3D1&"),
        "{raw}"
    );
    let en = wechat
        .authorization_url(REDIRECT, STATE, Lang::EnUs, Surface::Desktop)
        .unwrap();
    assert!(en.contains("&lang=en#wechat_redirect"), "{en}");
}

#[tokio::test]
async fn inside_wechat_the_official_account_authorizes_or_the_page_says_open_the_browser() {
    let (fakes, wechat) = setup().await;
    assert_eq!(Surface::of(IN_WECHAT), Surface::InWechat);
    assert_eq!(Surface::of(IN_WECOM), Surface::InWecom);
    // WeCom's browser is not WeChat's: the QR page, as on a desktop.
    assert_eq!(wechat.flow(Surface::of(IN_WECOM)), Ok(WechatFlow::Qr));
    let raw = wechat
        .authorization_url(REDIRECT, STATE, Lang::EnUs, Surface::of(IN_WECHAT))
        .unwrap();
    assert_eq!(
        raw.split('?').next().unwrap(),
        format!("{}/connect/oauth2/authorize", fakes.url(Platform::Wechat))
    );
    let want = [
        ("appid", OA_APP_ID),
        ("redirect_uri", REDIRECT),
        ("response_type", "code"),
        ("scope", "snsapi_userinfo"),
        ("state", STATE),
    ];
    assert_eq!(
        pairs(&url::Url::parse(&raw).unwrap()),
        want.map(|(k, v)| (k.to_owned(), v.to_owned())).to_vec()
    );
    assert!(raw.ends_with("#wechat_redirect"), "{raw}");

    let no_oa = Wechat::new(WechatSettings {
        oa: None,
        ..settings(&fakes)
    });
    assert_eq!(
        no_oa.authorization_url(REDIRECT, STATE, Lang::ZhCn, Surface::InWechat),
        Err(FedError::OpenInBrowser)
    );
    assert_eq!(no_oa.flow(Surface::Desktop), Ok(WechatFlow::Qr));
}

#[tokio::test]
async fn a_base_that_is_not_https_is_misconfigured() {
    let (fakes, _) = setup().await;
    let wechat = Wechat::new(WechatSettings {
        open_base: "http://open.weixin.qq.com".into(),
        ..settings(&fakes)
    });
    let got = wechat.authorization_url(REDIRECT, STATE, Lang::ZhCn, Surface::Desktop);
    assert!(matches!(got, Err(FedError::Misconfigured(_))), "{got:?}");
    let real = Wechat::new(WechatSettings::default());
    assert!(matches!(
        real.authorization_url(REDIRECT, STATE, Lang::ZhCn, Surface::Desktop),
        Err(FedError::Misconfigured(_))
    ));
    assert_eq!(real.settings.api_base, "https://api.weixin.qq.com");
}

#[tokio::test]
async fn both_flows_find_one_person_by_unionid_with_the_openid_of_each_app() {
    let (fakes, wechat) = setup().await;
    let qr = approve(&wechat, Surface::Desktop).await;
    let a = wechat.identify(&qr, WechatFlow::Qr).await.unwrap();
    let oa = approve(&wechat, Surface::InWechat).await;
    let b = wechat
        .identify(&oa, WechatFlow::OfficialAccount)
        .await
        .unwrap();
    let person = Person::default();
    assert_eq!(a.subject, person.unionid);
    assert_eq!(b.subject, person.unionid);
    assert_eq!(
        a.app_subject,
        Some((WEB_APP_ID.to_owned(), person.openid_for(WEB_APP_ID)))
    );
    assert_eq!(
        b.app_subject,
        Some((OA_APP_ID.to_owned(), person.openid_for(OA_APP_ID)))
    );
    assert_ne!(a.app_subject, b.app_subject);
    assert_eq!(a.name.as_deref(), Some("张三"));
    assert_eq!(b.name.as_deref(), Some("张三"));
    // WeChat vouches for no mail and no second factor.
    assert_eq!(a.vouches.mail, None);
    assert!(!a.mfa);
    let s = fakes.state(Platform::Wechat);
    assert_eq!(s.calls("/sns/oauth2/access_token"), 2);
    assert_eq!(s.calls("/sns/userinfo"), 2);
}

#[tokio::test]
async fn a_snapshot_person_is_refused_before_anything_else_is_read() {
    let (fakes, wechat) = setup().await;
    let s = fakes.state(Platform::Wechat);
    s.set_person(Person {
        snapshot: true,
        ..Person::default()
    });
    for (surface, flow) in [
        (Surface::InWechat, WechatFlow::OfficialAccount),
        (Surface::Desktop, WechatFlow::Qr),
    ] {
        let cb = approve(&wechat, surface).await;
        assert_eq!(wechat.identify(&cb, flow).await, Err(FedError::Snapshot));
    }
    assert_eq!(s.calls("/sns/userinfo"), 0);
}

#[tokio::test]
async fn an_answer_without_unionid_is_misconfigured_never_keyed_on_openid() {
    let (fakes, wechat) = setup().await;
    fakes.state(Platform::Wechat).set_person(Person {
        unbound: true,
        ..Person::default()
    });
    let cb = approve(&wechat, Surface::Desktop).await;
    let got = wechat.identify(&cb, WechatFlow::Qr).await;
    assert!(
        matches!(&got, Err(FedError::Misconfigured(c)) if c.contains("unionid")),
        "{got:?}"
    );
}

fn refused(got: &Result<ciam_core::federation::ExternalIdentity, FedError>, errcode: &str) {
    assert!(
        matches!(got, Err(FedError::CodeRefused(c)) if c.contains(errcode)),
        "{got:?}"
    );
}

#[tokio::test]
async fn a_used_expired_or_forged_code_is_refused() {
    let (fakes, wechat) = setup().await;
    let cb = approve(&wechat, Surface::Desktop).await;
    assert!(wechat.identify(&cb, WechatFlow::Qr).await.is_ok());
    refused(&wechat.identify(&cb, WechatFlow::Qr).await, "40163");

    let cb = approve(&wechat, Surface::Desktop).await;
    fakes.state(Platform::Wechat).advance(601);
    refused(&wechat.identify(&cb, WechatFlow::Qr).await, "42003");

    let forged = Callback {
        code: Some("0".repeat(32)),
        ..Callback::default()
    };
    refused(&wechat.identify(&forged, WechatFlow::Qr).await, "40029");
    // A QR code redeemed as the Official Account's: bound to its app.
    let cb = approve(&wechat, Surface::Desktop).await;
    refused(
        &wechat.identify(&cb, WechatFlow::OfficialAccount).await,
        "40029",
    );
}

#[tokio::test]
async fn a_wrong_or_missing_secret_is_misconfigured() {
    let (fakes, wechat) = setup().await;
    let cb = approve(&wechat, Surface::Desktop).await;
    let wrong = Wechat::new(WechatSettings {
        web: app(WEB_APP_ID, "not-the-secret"),
        ..settings(&fakes)
    });
    let got = wrong.identify(&cb, WechatFlow::Qr).await;
    assert!(
        matches!(&got, Err(FedError::Misconfigured(c)) if c.contains("40125")),
        "{got:?}"
    );
    // The secret is checked first, so the code is still good with the right one.
    assert!(wechat.identify(&cb, WechatFlow::Qr).await.is_ok());
    let none = Wechat::new(WechatSettings {
        web: Some(WechatApp {
            app_id: WEB_APP_ID.into(),
            secret: None,
        }),
        ..settings(&fakes)
    });
    let cb = approve(&none, Surface::Desktop).await;
    assert!(matches!(
        none.identify(&cb, WechatFlow::Qr).await,
        Err(FedError::Misconfigured(_))
    ));
}

#[tokio::test]
async fn wechat_down_is_unavailable() {
    let (fakes, wechat) = setup().await;
    let cb = approve(&wechat, Surface::Desktop).await;
    let s = fakes.state(Platform::Wechat);
    for status in [500, 502, 503] {
        s.set_down(Some(status));
        let got = wechat.identify(&cb, WechatFlow::Qr).await;
        assert!(matches!(got, Err(FedError::Unavailable(_))), "{got:?}");
    }
    s.set_down(None);
    // Nothing listening at all.
    let gone = Wechat::new(WechatSettings {
        api_base: "http://127.0.0.1:9".into(),
        ..settings(&fakes)
    });
    let got = gone.identify(&cb, WechatFlow::Qr).await;
    assert!(matches!(got, Err(FedError::Unavailable(_))), "{got:?}");
    // A 200 that is not WeChat's JSON (a captive portal, a proxy's page).
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let page = axum::Router::new().fallback(|| async { "<html>hello</html>" });
    tokio::spawn(async move { axum::serve(listener, page).await });
    let html = Wechat::new(WechatSettings {
        api_base: base,
        ..settings(&fakes)
    });
    let got = html.identify(&cb, WechatFlow::Qr).await;
    assert!(matches!(got, Err(FedError::Unavailable(_))), "{got:?}");
}

#[tokio::test]
async fn wechat_slow_past_the_call_timeout_is_unavailable_in_time() {
    let (fakes, wechat) = setup().await;
    let cb = approve(&wechat, Surface::Desktop).await;
    let quick = Wechat::new(WechatSettings {
        call_timeout: Duration::from_millis(300),
        ..settings(&fakes)
    });
    fakes.state(Platform::Wechat).set_slow(5_000);
    let t = Instant::now();
    let got = quick.identify(&cb, WechatFlow::Qr).await;
    let took = t.elapsed();
    assert!(matches!(got, Err(FedError::Unavailable(_))), "{got:?}");
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_millis(300 + 1_500), "{took:?}");
}

#[tokio::test]
async fn a_declined_sign_in_is_cancelled() {
    let (fakes, wechat) = setup().await;
    let s = fakes.state(Platform::Wechat);
    s.set_person(Person {
        decline: true,
        ..Person::default()
    });
    let cb = approve(&wechat, Surface::Desktop).await;
    assert_eq!(cb.code, None);
    assert_eq!(
        wechat.identify(&cb, WechatFlow::Qr).await,
        Err(FedError::Cancelled)
    );
    let empty = Callback {
        code: Some(String::new()),
        ..Callback::default()
    };
    assert_eq!(
        wechat.identify(&empty, WechatFlow::Qr).await,
        Err(FedError::Cancelled)
    );
    assert_eq!(s.calls("/sns/oauth2/access_token"), 0);
}
