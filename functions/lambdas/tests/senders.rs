//! The cn cell's senders as a Lambda builds them (`ciam_lambdas::senders`): the two secrets read
//! from Secrets Manager (moto's server), SMS through ciam-notify's signature-checking fakes of
//! Aliyun and Tencent Cloud, mail through a real SMTP relay with TLS (aiosmtpd, ciam-mail's test
//! relay); the primary's throttle moves a code to the fallback; a malformed secret or setting
//! fails the build naming the key, never a value.
//!
//! Without moto_server the tests skip with a message, except under CI=true, where they fail.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

// Its KMS helpers are for other tests.
#[allow(dead_code)]
#[path = "support/moto.rs"]
mod moto;

use ciam_core::validate::{Email, Identity, Phone};
use ciam_core::{CodeMessage, Lang, Notifier, Purpose, SendError};
use ciam_lambdas::senders::{china_notifier, SenderVars};
use ciam_lambdas::Unavailable;
use ciam_mail::testing::{RelayMode, TestRelay};
use ciam_notify::fake::{self, Answer};
use moto::Moto;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::Arc;

const TEMPLATES: &str = "register=T_REG,login=T_LOGIN,resetPassword=T_RESET,bind=T_BIND";
const FROM: &str = "no-reply@mail.example";

struct World {
    moto: Moto,
    aliyun: fake::Fake,
    tencent: fake::Fake,
    relay: TestRelay,
}

async fn world() -> Option<World> {
    let moto = Moto::start().await?;
    Some(World {
        moto,
        aliyun: fake::aliyun("LTAI-test-id", "aliyun-test-secret")
            .await
            .unwrap(),
        tencent: fake::tencent("AKID-test-id", "tencent-test-key")
            .await
            .unwrap(),
        relay: TestRelay::start(RelayMode::Implicit).await,
    })
}

impl World {
    fn sms_secret(&self) -> Value {
        json!({
            "aliyun": {"accessKeyId": self.aliyun.key_id, "accessKeySecret": self.aliyun.secret},
            "tencent": {"secretId": self.tencent.key_id, "secretKey": self.tencent.secret},
        })
    }

    fn mail_secret(&self) -> Value {
        json!({
            "host": "127.0.0.1",
            "port": self.relay.port,
            "tls": "implicit",
            "user": ciam_mail::testing::USER,
            "password": ciam_mail::testing::PASSWORD,
        })
    }

    /// The environment a cn function gets from its stack, the endpoints pointed at the fakes.
    async fn vars(&self, sms: &Value, mail: &Value, extra: &[(&str, &str)]) -> SenderVars {
        // A new pair of secrets each time (one moto server per test, several builds per test).
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let sms_arn = self
            .moto
            .secret(&format!("ciam/sms-providers-{n}"), sms)
            .await;
        let mail_arn = self
            .moto
            .secret(&format!("ciam/mail-relay-{n}"), mail)
            .await;
        let ca = self.relay.ca_path().display().to_string();
        let mut env: HashMap<&str, String> = [
            ("CIAM_SMS_PROVIDER_SECRET", sms_arn),
            ("CIAM_MAIL_RELAY_SECRET", mail_arn),
            ("CIAM_SMS", "aliyun".into()),
            ("CIAM_SMS_FALLBACK", "tencent".into()),
            ("CIAM_ALIYUN_SMS_SIGN_NAME", "Ciam".into()),
            ("CIAM_ALIYUN_SMS_TEMPLATES", TEMPLATES.into()),
            ("CIAM_TENCENT_SMS_SDK_APP_ID", "1400006666".into()),
            ("CIAM_TENCENT_SMS_SIGN_NAME", "Ciam".into()),
            ("CIAM_TENCENT_SMS_TEMPLATES", TEMPLATES.into()),
            ("CIAM_ALIYUN_SMS_ENDPOINT", self.aliyun.url.clone()),
            ("CIAM_TENCENT_SMS_ENDPOINT", self.tencent.url.clone()),
            ("CIAM_SMTP_CA", ca),
        ]
        .into_iter()
        .collect();
        for (k, v) in extra {
            env.insert(k, (*v).to_owned());
        }
        SenderVars::from_lookup(&|name: &str| env.get(name).cloned())
    }

    async fn build(&self, vars: &SenderVars) -> Result<Arc<dyn Notifier>, String> {
        let client = aws_sdk_secretsmanager::Client::new(&self.moto.sdk().await);
        china_notifier(&client, vars, Some(FROM.into()), Arc::new(Unavailable)).await
    }
}

fn code(to: Identity, lang: Lang) -> CodeMessage {
    CodeMessage {
        to,
        purpose: Purpose::Login,
        code: "493817".into(),
        lang,
    }
}

fn phone() -> Identity {
    Identity::Phone(Phone::parse("13800138000").unwrap())
}

#[tokio::test]
async fn a_code_goes_by_sms_through_the_primary_and_by_mail_through_the_relay() {
    let Some(w) = world().await else { return };
    let vars = w.vars(&w.sms_secret(), &w.mail_secret(), &[]).await;
    let n = w.build(&vars).await.unwrap();

    n.send_code(&code(phone(), Lang::ZhCn)).await.unwrap();
    let got = w.aliyun.received();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].phone, "13800138000");
    assert_eq!(
        (got[0].sign_name.as_str(), got[0].template.as_str()),
        ("Ciam", "T_LOGIN")
    );
    assert_eq!(got[0].params["code"], "493817");
    assert_eq!(w.aliyun.bad_signatures(), 0);
    assert_eq!(w.tencent.calls(), 0);

    let mail = Identity::Mail(Email::parse("alice@example.com").unwrap());
    n.send_code(&code(mail, Lang::EnUs)).await.unwrap();
    let mails = w.relay.received();
    assert_eq!(mails.len(), 1, "{mails:?}");
    assert_eq!(mails[0]["rcpt_tos"], json!(["alice@example.com"]));
    assert_eq!(mails[0]["mail_from"], FROM);
    assert_eq!(mails[0]["tls"], true);
    assert_eq!(mails[0]["auth_login"], ciam_mail::testing::USER);
    assert!(
        mails[0]["body"]
            .as_str()
            .unwrap_or_default()
            .contains("493817"),
        "{mails:?}"
    );
}

#[tokio::test]
async fn a_throttled_primary_moves_the_code_to_the_fallback_and_a_number_limit_does_not() {
    let Some(w) = world().await else { return };
    let vars = w.vars(&w.sms_secret(), &w.mail_secret(), &[]).await;
    let n = w.build(&vars).await.unwrap();

    w.aliyun.answer(Answer::Throttled);
    n.send_code(&code(phone(), Lang::EnUs)).await.unwrap();
    assert_eq!(w.aliyun.calls(), 1);
    let got = w.tencent.received();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].template, "T_LOGIN");
    assert_eq!(w.tencent.bad_signatures(), 0);

    w.aliyun.answer(Answer::NumberTooQuick);
    let refused = n.send_code(&code(phone(), Lang::EnUs)).await.unwrap_err();
    assert_eq!(
        refused,
        SendError::Refused(ciam_core::Reason::VERIFYCODE_SENDING_TOO_QUICKLY)
    );
    assert_eq!(
        w.tencent.calls(),
        1,
        "a number's own limit never fails over"
    );
}

#[tokio::test]
async fn tencent_can_be_the_primary_alone() {
    let Some(w) = world().await else { return };
    let secret = json!({"tencent": {"secretId": w.tencent.key_id, "secretKey": w.tencent.secret}});
    let extra = [("CIAM_SMS", "tencent"), ("CIAM_SMS_FALLBACK", "")];
    let vars = w.vars(&secret, &w.mail_secret(), &extra).await;
    let n = w.build(&vars).await.unwrap();
    n.send_code(&code(phone(), Lang::ZhCn)).await.unwrap();
    assert_eq!(w.tencent.received().len(), 1);
    assert_eq!(w.aliyun.calls(), 0);
}

#[tokio::test]
async fn a_malformed_secret_or_setting_fails_the_build_by_its_key() {
    let Some(w) = world().await else { return };
    let (sms, mail) = (w.sms_secret(), w.mail_secret());
    let mut no_secret_key = sms.clone();
    no_secret_key["aliyun"]
        .as_object_mut()
        .unwrap()
        .remove("accessKeySecret");
    let mut typo = sms.clone();
    typo["tencent"]["secretKy"] = json!("x");
    let mut number = mail.clone();
    number["password"] = json!(12345);
    let mut port = mail.clone();
    port["port"] = json!("smtp");
    // (SMS secret, relay secret, variables changed, the error's start)
    type Case<'a> = (Value, Value, Vec<(&'a str, &'a str)>, &'a str);
    let cases: Vec<Case> = vec![
        (
            no_secret_key,
            mail.clone(),
            vec![],
            "CIAM_SMS_PROVIDER_SECRET: aliyun.accessKeySecret is needed by Aliyun SMS",
        ),
        (
            typo,
            mail.clone(),
            vec![],
            "CIAM_SMS_PROVIDER_SECRET: tencent.secretKy is not a key of this secret",
        ),
        (
            json!({"aliyun": sms["aliyun"].clone()}),
            mail.clone(),
            vec![],
            "CIAM_SMS_PROVIDER_SECRET: tencent is missing",
        ),
        (
            sms.clone(),
            number,
            vec![],
            "CIAM_MAIL_RELAY_SECRET: password must be a string",
        ),
        (
            sms.clone(),
            port,
            vec![],
            "CIAM_MAIL_RELAY_SECRET: port must be a port number",
        ),
        (
            sms.clone(),
            mail.clone(),
            vec![("CIAM_ALIYUN_SMS_TEMPLATES", "register=T_REG,login=T_LOGIN")],
            "CIAM_ALIYUN_SMS_TEMPLATES: no template for resetPassword@zh-CN",
        ),
        (
            sms.clone(),
            mail.clone(),
            vec![("CIAM_SMS_FALLBACK", "aliyun")],
            "CIAM_SMS_FALLBACK must be the other provider",
        ),
        (
            sms.clone(),
            json!("not an object"),
            vec![],
            "CIAM_MAIL_RELAY_SECRET: the secret is not a JSON object",
        ),
    ];
    for (sms, mail, extra, expected) in cases {
        let vars = w.vars(&sms, &mail, &extra).await;
        let err = w.build(&vars).await.err().unwrap_or_default();
        assert!(
            err.starts_with(expected),
            "expected {expected:?}, got {err:?}"
        );
        for value in [w.aliyun.secret.as_str(), w.tencent.secret.as_str(), "12345"] {
            assert!(!err.contains(value), "a value leaked: {err}");
        }
    }
}

#[tokio::test]
async fn an_unreadable_secret_fails_the_build_by_its_variable() {
    let Some(w) = world().await else { return };
    let mut vars = w.vars(&w.sms_secret(), &w.mail_secret(), &[]).await;
    vars.mail_secret = Some("ciam/no-such-secret".into());
    let err = w.build(&vars).await.err().unwrap_or_default();
    assert!(
        err.starts_with("CIAM_MAIL_RELAY_SECRET: cannot read the secret"),
        "{err}"
    );
}
