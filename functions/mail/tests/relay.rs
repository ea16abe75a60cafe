//! The SMTP relay path against a real SMTP server with TLS (aiosmtpd, `tests/smtp_relay.py`):
//! what arrives (headers, both languages' subjects and bodies decoded by Python's email package,
//! the AUTH used, TLS on), over STARTTLS and implicit TLS, and how each failure is told apart.

// Helpers of the tests (not `#[test]` fns themselves) unwrap too: a panic is the failure report.
#![allow(clippy::unwrap_used)]

use async_trait::async_trait;
use ciam_core::validate::{Email, Identity, Phone};
use ciam_core::{CodeMessage, Lang, Notice, NoticeMessage, Notifier, Purpose};
use ciam_mail::testing::{RelayMode, TestRelay, USER};
use ciam_mail::{MailError, Outgoing, SmtpMailer, SmtpNotifier, Step, TlsMode};
use serde_json::Value;
use std::sync::{Arc, Mutex};

const FROM: &str = "no-reply@mail.example";

fn notifier(relay: &TestRelay, tls: TlsMode, sms: Option<Arc<dyn Notifier>>) -> SmtpNotifier {
    let mut cfg = relay.config(tls, FROM);
    cfg.from_name = Some("Ciam 账号".into());
    SmtpNotifier::new(SmtpMailer::new(cfg).unwrap(), sms)
}

fn code(to: &str, lang: Lang) -> CodeMessage {
    CodeMessage {
        to: Identity::Mail(Email::parse(to).unwrap()),
        purpose: Purpose::Register,
        code: "493817".into(),
        lang,
    }
}

/// What every message Ciam sends must look like on the wire and once parsed.
fn assert_well_formed(m: &Value, to: &str) {
    assert_eq!(m["mail_from"], FROM);
    assert_eq!(m["rcpt_tos"], serde_json::json!([to]));
    assert_eq!(m["to"], to);
    assert_eq!(
        m["auth_login"], USER,
        "AUTH was used with the configured user"
    );
    assert_eq!(m["tls"], true, "the message crossed TLS");
    let version = m["tls_version"].as_str().unwrap();
    assert!(version == "TLSv1.3" || version == "TLSv1.2", "{version}");
    assert_eq!(m["content_type"], "text/plain");
    assert_eq!(m["charset"], "utf-8");
    assert_eq!(
        m["raw_is_ascii"], true,
        "7-bit clean: no relay needs 8BITMIME"
    );
    assert_eq!(m["from_name"], "Ciam 账号");
    assert_eq!(m["auto_submitted"], "auto-generated");
    assert!(
        m["message_id"]
            .as_str()
            .unwrap()
            .ends_with("@mail.example>"),
        "{m}"
    );
    assert!(m["date"].as_str().is_some_and(|d| !d.is_empty()), "{m}");
    assert!(
        m["raw_headers"]
            .as_str()
            .unwrap()
            .contains("From: =?utf-8?b?"),
        "the display name is an encoded word: {m}"
    );
}

#[tokio::test]
async fn codes_in_both_languages_arrive_over_starttls_with_auth_plain_and_decode_exactly() {
    let relay = TestRelay::start(RelayMode::StartTls).await;
    let n = notifier(&relay, TlsMode::StartTls, None);
    let zh = code("alice@example.com", Lang::ZhCn);
    let en = code("bob@example.com", Lang::EnUs);
    n.send_code(&zh).await.unwrap();
    n.send_code(&en).await.unwrap();

    let got = relay.received();
    assert_eq!(got.len(), 2, "{got:?}");
    assert_well_formed(&got[0], "alice@example.com");
    assert_well_formed(&got[1], "bob@example.com");
    for m in &got {
        assert_eq!(m["starttls"], true, "upgraded by STARTTLS: {m}");
        assert_eq!(m["auth_mechanism"], "PLAIN");
    }
    assert_eq!(got[0]["subject"], "Ciam 验证码");
    assert_eq!(got[0]["subject"], zh.subject());
    assert_eq!(got[0]["body"].as_str().unwrap().trim_end(), zh.text());
    assert!(got[0]["body"]
        .as_str()
        .unwrap()
        .contains("您的验证码是 493817"));
    assert!(
        got[0]["raw_headers"]
            .as_str()
            .unwrap()
            .contains("Subject: Ciam =?utf-8?b?"),
        "the Chinese subject is an encoded word: {}",
        got[0]["raw_headers"]
    );
    assert_eq!(got[1]["subject"], "Your Ciam verification code");
    assert_eq!(got[1]["body"].as_str().unwrap().trim_end(), en.text());
    assert!(got[1]["raw_headers"]
        .as_str()
        .unwrap()
        .contains("Subject: Your Ciam verification code"));
}

#[tokio::test]
async fn a_notice_arrives_over_implicit_tls_with_auth_login_when_the_relay_offers_only_login() {
    let relay = TestRelay::start_with(RelayMode::Implicit, true).await;
    let n = notifier(&relay, TlsMode::Implicit, None);
    let notice = NoticeMessage {
        to: Identity::Mail(Email::parse("carol@example.com").unwrap()),
        notice: Notice::MailChanged {
            new: "ca***@example.org".into(),
        },
        lang: Lang::ZhCn,
    };
    n.send_notice(&notice).await.unwrap();

    let got = relay.received();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_well_formed(&got[0], "carol@example.com");
    assert_eq!(got[0]["starttls"], false, "TLS from the first byte");
    assert_eq!(got[0]["auth_mechanism"], "LOGIN");
    assert_eq!(got[0]["subject"], "Ciam 账号安全提醒");
    assert_eq!(got[0]["body"].as_str().unwrap().trim_end(), notice.text());
}

fn mail(to: &str) -> Outgoing<'_> {
    Outgoing {
        to,
        subject: "Ciam 验证码",
        text: "您的验证码是 493817。",
    }
}

#[tokio::test]
async fn a_refused_recipient_is_permanent_and_masked_and_a_busy_one_is_transient() {
    let relay = TestRelay::start(RelayMode::StartTls).await;
    let mailer = SmtpMailer::new(relay.config(TlsMode::StartTls, FROM)).unwrap();

    let e = mailer.send(mail("refused@example.com")).await.unwrap_err();
    assert!(e.is_recipient_refused() && !e.is_transient(), "{e}");
    let text = e.to_string();
    assert!(
        text.starts_with("SMTP relay refused the recipient (permanent, RCPT TO:"),
        "{text}"
    );
    assert!(text.contains("550"), "{text}");
    assert!(
        text.contains("re***@example.com"),
        "the relay's echo is masked: {text}"
    );
    assert!(!text.contains("refused@example.com"), "{text}");
    assert!(!text.contains("493817"), "{text}");

    let e = mailer.send(mail("busy@example.com")).await.unwrap_err();
    assert!(e.is_transient(), "{e}");
    assert!(
        matches!(
            e,
            MailError::Transient {
                step: Step::RcptTo,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("451"), "{e}");

    assert!(relay.received().is_empty());
}

#[tokio::test]
async fn wrong_credentials_are_a_permanent_refusal_at_auth() {
    let relay = TestRelay::start(RelayMode::Implicit).await;
    let cfg = relay
        .config(TlsMode::Implicit, FROM)
        .with_credentials(USER, "not-the-password");
    let e = SmtpMailer::new(cfg)
        .unwrap()
        .send(mail("alice@example.com"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            e,
            MailError::Refused {
                step: Step::Auth,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("535"), "{e}");
    assert!(!e.to_string().contains("not-the-password"), "{e}");
    assert!(relay.received().is_empty());
}

#[tokio::test]
async fn a_certificate_the_client_does_not_trust_is_a_tls_failure_before_any_auth() {
    for (mode, tls, step) in [
        (RelayMode::Implicit, TlsMode::Implicit, Step::Connect),
        (RelayMode::StartTls, TlsMode::StartTls, Step::StartTls),
    ] {
        let relay = TestRelay::start(mode).await;
        let mut cfg = relay.config(tls, FROM);
        cfg.extra_root_pem = None;
        let e = SmtpMailer::new(cfg)
            .unwrap()
            .send(mail("alice@example.com"))
            .await
            .unwrap_err();
        assert!(e.is_transient(), "{e}");
        match &e {
            MailError::Transient { step: s, detail } => {
                assert_eq!(*s, step, "{e}");
                assert!(
                    detail.contains("tls") || detail.contains("certificate"),
                    "{e}"
                );
            }
            other => panic!("{other}"),
        }
        assert!(relay.received().is_empty());
    }
}

#[tokio::test]
async fn a_relay_without_starttls_is_refused_rather_than_used_in_clear() {
    let relay = TestRelay::start(RelayMode::Plain).await;
    let e = SmtpMailer::new(relay.config(TlsMode::StartTls, FROM))
        .unwrap()
        .send(mail("alice@example.com"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            e,
            MailError::Refused {
                step: Step::StartTls,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("STARTTLS"), "{e}");
    assert!(relay.received().is_empty());
}

/// Records what reaches it: the SMS half beside the relay.
#[derive(Default)]
struct Texts(Mutex<Vec<String>>);

#[async_trait]
impl Notifier for Texts {
    async fn send_code(&self, msg: &CodeMessage) -> Result<(), ciam_core::SendError> {
        self.0.lock().unwrap().push(msg.to.as_str().to_owned());
        Ok(())
    }
    async fn send_notice(&self, msg: &NoticeMessage) -> Result<(), String> {
        self.0.lock().unwrap().push(msg.to.as_str().to_owned());
        Ok(())
    }
}

#[tokio::test]
async fn a_phone_goes_to_the_sms_notifier_and_fails_without_one() {
    let relay = TestRelay::start(RelayMode::StartTls).await;
    let texts = Arc::new(Texts::default());
    let n = notifier(&relay, TlsMode::StartTls, Some(texts.clone()));
    let sms = CodeMessage {
        to: Identity::Phone(Phone::parse("13800138000").unwrap()),
        purpose: Purpose::Login,
        code: "493817".into(),
        lang: Lang::ZhCn,
    };
    n.send_code(&sms).await.unwrap();
    assert_eq!(*texts.0.lock().unwrap(), ["13800138000"]);

    let alone = notifier(&relay, TlsMode::StartTls, None);
    let e = alone.send_code(&sms).await.unwrap_err().to_string();
    assert!(e.contains("no SMS sender"), "{e}");
    assert!(relay.received().is_empty());
}

#[tokio::test]
async fn a_failed_mail_through_the_port_names_the_recipient_masked_only() {
    let relay = TestRelay::start(RelayMode::StartTls).await;
    let n = notifier(&relay, TlsMode::StartTls, None);
    let e = n
        .send_code(&code("refused@example.com", Lang::EnUs))
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("(to re***@example.com)"), "{e}");
    assert!(
        !e.contains("refused@example.com") && !e.contains("493817"),
        "{e}"
    );
}
