//! `ciam serve --sms aliyun|tencent` over real HTTP against the providers' fakes (which check
//! every signature): a phone sign-up, a code sign-in and a password reset through each adapter,
//! the failover to the other under a throttle, and a number's own limit answered as Ciam's
//! reason without the fallback.

// Test code: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_notify::fake::{self, Answer, Fake};
use serde_json::{json, Value};

const TEMPLATES: &str = "register=T_REG,login=T_LOGIN,resetPassword=T_RESET,bind=T_BIND";
const PW: &str = "Ciam-Journey-2026!";
const PW2: &str = "Ciam-Journey-2027!";

mod common;

/// `ciam serve` with the SMS flags, and the API's base under it.
struct Server {
    serve: common::Serve,
    base: String,
    http: reqwest::Client,
}

fn provider_flags(name: &str, f: &Fake) -> Vec<String> {
    let v = match name {
        "aliyun" => vec![
            ("--aliyun-endpoint", f.url.as_str()),
            ("--aliyun-access-key-id", f.key_id.as_str()),
            ("--aliyun-access-key-secret", f.secret.as_str()),
            ("--aliyun-sign-name", "Ciam"),
            ("--aliyun-templates", TEMPLATES),
        ],
        _ => vec![
            ("--tencent-endpoint", f.url.as_str()),
            ("--tencent-secret-id", f.key_id.as_str()),
            ("--tencent-secret-key", f.secret.as_str()),
            ("--tencent-sdk-app-id", "1400006666"),
            ("--tencent-sign-name", "Ciam"),
            ("--tencent-templates", TEMPLATES),
        ],
    };
    v.into_iter()
        .flat_map(|(k, v)| [k.to_owned(), v.to_owned()])
        .collect()
}

async fn start(name: &str, flags: &[String]) -> Server {
    let data = std::env::temp_dir().join(format!("ciam-sms-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let serve = common::serve(&data, |cmd| {
        cmd.args(flags);
    })
    .await;
    Server {
        base: format!("{}/ciam/v1", serve.base),
        serve,
        http: reqwest::Client::new(),
    }
}

impl Server {
    async fn call(&self, method: &str, path: &str, body: Value) -> (u16, Value) {
        let res = self
            .http
            .request(method.parse().unwrap(), format!("{}{path}", self.base))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    async fn send_code(&self, phone: &str, purpose: &str) -> (u16, Value) {
        let captcha = common::solved_captcha(&self.http, &self.serve.base).await;
        self.call(
            "POST",
            "/auth/identity",
            json!({"account": phone, "purpose": purpose, "captcha": captcha}),
        )
        .await
    }
}

/// The code of the last text a fake accepted, and its template.
fn last_code(f: &Fake) -> (String, String) {
    let m = f.received().pop().expect("a text reached the provider");
    let code = if m.params.is_array() {
        &m.params[0]
    } else {
        &m.params["code"]
    };
    (code.as_str().unwrap().to_owned(), m.template)
}

async fn fakes() -> (Fake, Fake) {
    (
        fake::aliyun("LTAI-serve", "aliyun-serve-secret")
            .await
            .unwrap(),
        fake::tencent("AKID-serve", "tencent-serve-secret")
            .await
            .unwrap(),
    )
}

async fn journey(name: &str) {
    let (a, t) = fakes().await;
    let f = if name == "aliyun" { &a } else { &t };
    let mut flags = vec!["--sms".to_owned(), name.to_owned()];
    flags.extend(provider_flags(name, f));
    let s = start(name, &flags).await;
    let phone = "13800138000";

    let (st, body) = s.send_code(phone, "register").await;
    assert_eq!(st, 200, "{body}");
    let (code, template) = last_code(f);
    assert_eq!(template, "T_REG");
    let reg = json!({"userName": "ann", "company": "Acme", "account": phone, "code": code,
        "password": PW, "confirmPassword": PW, "country": "CN", "acceptTerms": true});
    let (st, body) = s.call("POST", "/auth/register", reg).await;
    assert_eq!(st, 201, "{body}");

    assert_eq!(s.send_code(phone, "login").await.0, 200);
    let (code, template) = last_code(f);
    assert_eq!(template, "T_LOGIN");
    let (st, body) = s
        .call(
            "POST",
            "/auth/login/code",
            json!({"account": phone, "code": code}),
        )
        .await;
    assert_eq!(st, 200, "{body}");
    assert!(body["token"].is_string(), "{body}");

    assert_eq!(s.send_code(phone, "resetPassword").await.0, 200);
    let (code, template) = last_code(f);
    assert_eq!(template, "T_RESET");
    let reset = json!({"account": phone, "code": code, "password": PW2, "confirmPassword": PW2});
    let (st, body) = s.call("PATCH", "/auth/pwd", reset).await;
    assert_eq!(st, 200, "{body}");
    let (st, body) = s
        .call(
            "POST",
            "/auth/login/password",
            json!({"account": phone, "password": PW2}),
        )
        .await;
    assert_eq!(st, 200, "{body}");
    assert_eq!(f.bad_signatures(), 0);
}

#[tokio::test]
async fn a_phone_signs_up_signs_in_by_code_and_resets_its_password_through_aliyun() {
    journey("aliyun").await;
}

#[tokio::test]
async fn a_phone_signs_up_signs_in_by_code_and_resets_its_password_through_tencent() {
    journey("tencent").await;
}

#[tokio::test]
async fn a_throttled_primary_falls_over_and_a_numbers_limit_does_not() {
    let (a, t) = fakes().await;
    let mut flags: Vec<String> = ["--sms", "aliyun", "--sms-fallback", "tencent"]
        .map(str::to_owned)
        .to_vec();
    flags.extend(provider_flags("aliyun", &a));
    flags.extend(provider_flags("tencent", &t));
    let s = start("failover", &flags).await;

    a.answer(Answer::Throttled);
    let (st, body) = s.send_code("13800138001", "register").await;
    assert_eq!(st, 200, "{body}");
    assert_eq!((a.received().len(), t.received().len()), (0, 1));

    a.answer(Answer::NumberTooQuick);
    let (st, body) = s.send_code("13800138002", "register").await;
    assert_eq!(
        (st, body["reason"].as_str()),
        (429, Some("VERIFYCODE_SENDING_TOO_QUICKLY"))
    );
    a.answer(Answer::NumberDayLimit);
    let (st, body) = s.send_code("13800138002", "register").await;
    assert_eq!(
        (st, body["reason"].as_str()),
        (429, Some("VERIFYCODE_SENDING_LIMIT"))
    );
    assert_eq!(t.calls(), 1, "a number's limit never reaches the fallback");
}
