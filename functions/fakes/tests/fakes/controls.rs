//! The control API on every fake: down, slow, calls; the switches never touch the control API.

use crate::support::start;
use ciam_fakes::Platform;
use reqwest::StatusCode;
use serde_json::json;
use std::time::{Duration, Instant};

/// One protocol path per platform that answers 200 to a plain GET (an error body is fine).
fn probe(p: Platform) -> &'static str {
    match p {
        Platform::Wechat => "/sns/oauth2/access_token",
        Platform::Wecom => "/cgi-bin/gettoken",
        Platform::Dingtalk => "/v1.0/contact/users/me",
        Platform::Feishu => "/open-apis/authen/v1/user_info",
    }
}

#[tokio::test]
async fn a_fake_that_is_down_answers_5xx_until_it_is_back() {
    let t = start().await;
    for p in Platform::ALL {
        t.control(p, "down", json!({})).await;
        let r = t.http.get(t.url(p, probe(p))).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE, "{p:?}");
        t.control(p, "down", json!({"status": 502})).await;
        let r = t.http.get(t.url(p, probe(p))).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::BAD_GATEWAY, "{p:?}");
        t.control(p, "down", json!({"on": false})).await;
        let r = t.http.get(t.url(p, probe(p))).send().await.unwrap();
        assert!(!r.status().is_server_error(), "{p:?} back");
        assert_eq!(t.calls(p, probe(p)).await, 3, "{p:?} counted while down");
    }
}

#[tokio::test]
async fn a_slow_fake_hangs_past_a_client_deadline_and_the_controls_stay_quick() {
    let t = start().await;
    for p in Platform::ALL {
        t.control(p, "slow", json!({"ms": 1500})).await;
        let started = Instant::now();
        let r = t
            .http
            .get(t.url(p, probe(p)))
            .timeout(Duration::from_millis(300))
            .send()
            .await;
        assert!(r.is_err_and(|e| e.is_timeout()), "{p:?} times out");
        assert!(started.elapsed() < Duration::from_millis(1000));
        let quick = Instant::now();
        t.control(p, "slow", json!({"ms": 0})).await;
        assert!(
            quick.elapsed() < Duration::from_millis(500),
            "control not slowed"
        );
        let r = t
            .http
            .get(t.url(p, probe(p)))
            .timeout(Duration::from_millis(1000))
            .send()
            .await;
        assert!(r.is_ok(), "{p:?} quick again");
    }
}

#[tokio::test]
async fn each_platform_has_its_own_clock_and_counters() {
    let t = start().await;
    let before = t.fakes.state(Platform::Wechat).now();
    t.control(Platform::Wecom, "clock", json!({"advance_secs": 1000}))
        .await;
    assert!(t.fakes.state(Platform::Wecom).now() >= before + 1000);
    assert!(t.fakes.state(Platform::Wechat).now() < before + 1000);
    t.http
        .get(t.url(Platform::Wecom, "/cgi-bin/gettoken"))
        .send()
        .await
        .unwrap();
    assert_eq!(t.calls(Platform::Wecom, "/cgi-bin/gettoken").await, 1);
    assert_eq!(t.calls(Platform::Wechat, "/cgi-bin/gettoken").await, 0);
}
