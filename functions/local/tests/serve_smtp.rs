//! `ciam serve --mail smtp`: a sign-up code by mail goes through a real SMTP relay with TLS
//! (aiosmtpd, ciam-mail's test relay), and the code that arrives there completes the sign-up.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_mail::testing::{RelayMode, TestRelay, PASSWORD, USER};
use serde_json::{json, Value};
use std::process::{Command, Stdio};

mod common;

#[tokio::test]
async fn a_sign_up_code_by_mail_arrives_at_the_smtp_relay_and_completes_the_sign_up() {
    let relay = TestRelay::start(RelayMode::StartTls).await;
    let data = std::env::temp_dir().join(format!("ciam-serve-smtp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let server = common::serve(&data, |cmd| {
        cmd.args(["--mail", "smtp", "--smtp-host", "127.0.0.1", "--smtp-port"])
            .arg(relay.port.to_string())
            .args(["--smtp-tls", "starttls", "--smtp-user", USER])
            .arg("--smtp-ca")
            .arg(relay.ca_path())
            .args([
                "--mail-from",
                "no-reply@mail.example",
                "--mail-from-name",
                "Ciam 账号",
            ])
            .env("CIAM_SMTP_PASSWORD", PASSWORD)
            .stderr(Stdio::inherit());
    })
    .await;
    let base = server.base.clone();
    let http = reqwest::Client::new();

    let captcha = common::solved_captcha(&http, &base).await;
    let res = http
        .post(format!("{base}/ciam/v1/auth/identity"))
        .header("accept-language", "en-US")
        .json(&json!({"account": "ann@example.com", "purpose": "register", "captcha": captcha}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200, "{:?}", res.text().await);

    let got = relay.received();
    assert_eq!(got.len(), 1, "one mail at the relay: {got:?}");
    let m = &got[0];
    assert_eq!(m["rcpt_tos"], json!(["ann@example.com"]));
    assert_eq!(m["mail_from"], "no-reply@mail.example");
    assert_eq!(m["from_name"], "Ciam 账号");
    assert_eq!((&m["tls"], &m["starttls"]), (&json!(true), &json!(true)));
    assert_eq!(m["auth_login"], USER);
    assert_eq!(m["subject"], "Your Ciam verification code");
    let body = m["body"].as_str().unwrap();
    let code: String = body
        .split_whitespace()
        .find(|w| {
            w.trim_end_matches('.').len() == 6 && w.chars().take(6).all(|c| c.is_ascii_digit())
        })
        .map(|w| w.trim_end_matches('.').to_owned())
        .unwrap_or_else(|| panic!("a 6-digit code in {body:?}"));

    // Mail went to the relay only: the dev outbox holds no mail code.
    let outbox: Value = http
        .get(format!("{base}/ciam/dev/outbox"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(outbox, json!([]), "{outbox}");

    let pw = "Ciam-Journey-2026!";
    let reg = json!({"userName": "ann", "company": "Acme", "account": "ann@example.com",
        "code": code, "password": pw, "confirmPassword": pw, "country": "CN", "acceptTerms": true});
    let res = http
        .post(format!("{base}/ciam/v1/auth/register"))
        .json(&reg)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 201, "{:?}", res.text().await);
    let _ = std::fs::remove_dir_all(&data);
}

#[test]
fn ciam_serve_refuses_to_start_with_an_incomplete_smtp_configuration() {
    let out = Command::new(env!("CARGO_BIN_EXE_ciam"))
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--mail",
            "smtp",
            "--smtp-host",
            "smtp.example",
        ])
        .env_remove("CIAM_MAIL_FROM")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--mail-from"), "{err}");
}
