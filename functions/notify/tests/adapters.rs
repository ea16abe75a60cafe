//! Both adapters against the local fakes (which check every signature): a send through each,
//! the failover under a throttle, a 5xx and no connection, none under a number's refusal or
//! its own limit, and the limits answered as Ciam's reasons.

// Test helpers unwrap too: a panic is the failure report here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use ciam_core::validate::{Email, Identity, Phone};
use ciam_core::{CodeMessage, Lang, Notice, NoticeMessage, Notifier, Purpose, Reason, SendError};
use ciam_notify::fake::{self, Answer, Fake};
use ciam_notify::{Aliyun, AliyunConfig, Failover, SmsNotifier, Templates, Tencent, TencentConfig};
use std::sync::Arc;

fn templates() -> Templates {
    Templates::parse(
        "register=SMS_100,register@en-US=SMS_101,login=SMS_102,resetPassword=SMS_103,bind=SMS_104,phoneChanged=SMS_200",
    )
    .unwrap()
}

fn aliyun_at(url: &str, secret: &str) -> Arc<dyn Notifier> {
    let a = Aliyun::new(AliyunConfig {
        endpoint: url.to_owned(),
        access_key_id: "LTAI-test".into(),
        access_key_secret: secret.into(),
        sign_name: "Ciam".into(),
    })
    .unwrap();
    Arc::new(SmsNotifier::new(a, templates()))
}

fn tencent_at(url: &str, secret: &str) -> Arc<dyn Notifier> {
    let t = Tencent::new(TencentConfig {
        endpoint: url.to_owned(),
        secret_id: "AKID-test".into(),
        secret_key: secret.into(),
        sdk_app_id: "1400006666".into(),
        sign_name: "Ciam".into(),
        region: "ap-guangzhou".into(),
    })
    .unwrap();
    Arc::new(SmsNotifier::new(t, templates()))
}

async fn fakes() -> (Fake, Fake) {
    (
        fake::aliyun("LTAI-test", "aliyun-secret").await.unwrap(),
        fake::tencent("AKID-test", "tencent-secret").await.unwrap(),
    )
}

fn code(purpose: Purpose, lang: Lang) -> CodeMessage {
    CodeMessage {
        to: Identity::Phone(Phone::parse("13800138000").unwrap()),
        purpose,
        code: "493817".into(),
        lang,
    }
}

#[tokio::test]
async fn aliyun_sends_the_template_of_the_purpose_and_language_with_named_params() {
    let (a, _) = fakes().await;
    let n = aliyun_at(&a.url, "aliyun-secret");
    n.send_code(&code(Purpose::Register, Lang::EnUs))
        .await
        .unwrap();
    n.send_code(&code(Purpose::ResetPassword, Lang::ZhCn))
        .await
        .unwrap();
    let got = a.received();
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].phone, "13800138000");
    assert_eq!(got[0].sign_name, "Ciam");
    assert_eq!(got[0].template, "SMS_101");
    assert_eq!(
        got[0].params,
        serde_json::json!({"code": "493817", "minutes": "10"})
    );
    assert_eq!(got[1].template, "SMS_103");
    assert_eq!(a.bad_signatures(), 0);
}

#[tokio::test]
async fn tencent_sends_the_template_with_positional_params() {
    let (_, t) = fakes().await;
    let n = tencent_at(&t.url, "tencent-secret");
    n.send_code(&code(Purpose::Login, Lang::ZhCn))
        .await
        .unwrap();
    let got = t.received();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].phone, "13800138000");
    assert_eq!(got[0].template, "SMS_102");
    assert_eq!(got[0].params, serde_json::json!(["493817", "10"]));
    assert_eq!(t.bad_signatures(), 0);
}

#[tokio::test]
async fn a_wrong_secret_is_caught_by_the_fakes_and_is_a_failure() {
    let (a, t) = fakes().await;
    for (n, f) in [
        (aliyun_at(&a.url, "not-the-secret"), &a),
        (tencent_at(&t.url, "not-the-secret"), &t),
    ] {
        let e = n
            .send_code(&code(Purpose::Login, Lang::ZhCn))
            .await
            .unwrap_err();
        assert!(
            matches!(&e, SendError::Failed(m) if m.contains("Signature") && m.contains("138****8000") && !m.contains("493817")),
            "{e:?}"
        );
        assert_eq!(f.bad_signatures(), 1);
    }
}

#[tokio::test]
async fn per_number_limits_are_ciams_reasons() {
    let (a, t) = fakes().await;
    for (n, f) in [
        (aliyun_at(&a.url, "aliyun-secret"), &a),
        (tencent_at(&t.url, "tencent-secret"), &t),
    ] {
        f.answer(Answer::NumberTooQuick);
        assert_eq!(
            n.send_code(&code(Purpose::Login, Lang::ZhCn)).await,
            Err(SendError::Refused(Reason::VERIFYCODE_SENDING_TOO_QUICKLY))
        );
        f.answer(Answer::NumberDayLimit);
        assert_eq!(
            n.send_code(&code(Purpose::Login, Lang::ZhCn)).await,
            Err(SendError::Refused(Reason::VERIFYCODE_SENDING_LIMIT))
        );
        f.answer(Answer::BadNumber);
        assert_eq!(
            n.send_code(&code(Purpose::Login, Lang::ZhCn)).await,
            Err(SendError::Refused(Reason::INVALID_PHONE))
        );
    }
}

#[tokio::test]
async fn a_throttle_or_a_5xx_moves_to_the_fallback() {
    for answer in [Answer::Throttled, Answer::ServerError] {
        let (a, t) = fakes().await;
        // Aliyun primary, Tencent fallback; then the other way round.
        a.answer(answer);
        let f = Failover {
            primary: aliyun_at(&a.url, "aliyun-secret"),
            fallback: tencent_at(&t.url, "tencent-secret"),
        };
        f.send_code(&code(Purpose::Register, Lang::ZhCn))
            .await
            .unwrap();
        assert_eq!(
            (a.calls(), a.received().len(), t.received().len()),
            (1, 0, 1),
            "{answer:?}"
        );

        let (a, t) = fakes().await;
        t.answer(answer);
        let f = Failover {
            primary: tencent_at(&t.url, "tencent-secret"),
            fallback: aliyun_at(&a.url, "aliyun-secret"),
        };
        f.send_code(&code(Purpose::Register, Lang::ZhCn))
            .await
            .unwrap();
        assert_eq!(
            (t.calls(), t.received().len(), a.received().len()),
            (1, 0, 1),
            "{answer:?}"
        );
    }
}

#[tokio::test]
async fn an_unreachable_primary_moves_to_the_fallback() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (a, _) = fakes().await;
    let f = Failover {
        primary: tencent_at(&format!("http://127.0.0.1:{port}"), "tencent-secret"),
        fallback: aliyun_at(&a.url, "aliyun-secret"),
    };
    f.send_code(&code(Purpose::Bind, Lang::ZhCn)).await.unwrap();
    assert_eq!(a.received().len(), 1);
}

#[tokio::test]
async fn a_number_refusal_or_its_limit_never_reaches_the_fallback() {
    for answer in [
        Answer::NumberTooQuick,
        Answer::NumberDayLimit,
        Answer::BadNumber,
    ] {
        let (a, t) = fakes().await;
        a.answer(answer);
        let f = Failover {
            primary: aliyun_at(&a.url, "aliyun-secret"),
            fallback: tencent_at(&t.url, "tencent-secret"),
        };
        let e = f
            .send_code(&code(Purpose::Login, Lang::ZhCn))
            .await
            .unwrap_err();
        assert!(matches!(e, SendError::Refused(_)), "{answer:?}: {e:?}");
        assert_eq!(t.calls(), 0, "{answer:?}: the fallback was asked");
    }
}

#[tokio::test]
async fn both_failing_is_a_failure_that_names_both() {
    let (a, t) = fakes().await;
    a.answer(Answer::ServerError);
    t.answer(Answer::Throttled);
    let f = Failover {
        primary: aliyun_at(&a.url, "aliyun-secret"),
        fallback: tencent_at(&t.url, "tencent-secret"),
    };
    let e = f
        .send_code(&code(Purpose::Login, Lang::ZhCn))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, SendError::Failed(m) if m.contains("InternalError") && m.contains("RequestLimitExceeded")),
        "{e:?}"
    );
}

#[tokio::test]
async fn notices_use_their_own_template_and_mail_is_not_theirs() {
    let (a, _) = fakes().await;
    let n = aliyun_at(&a.url, "aliyun-secret");
    let phone = Identity::Phone(Phone::parse("13800138000").unwrap());
    n.send_notice(&NoticeMessage {
        to: phone.clone(),
        notice: Notice::PhoneChanged {
            new: "139****0000".into(),
        },
        lang: Lang::ZhCn,
    })
    .await
    .unwrap();
    assert_eq!(a.received()[0].template, "SMS_200");
    assert_eq!(
        a.received()[0].params,
        serde_json::json!({"new": "139****0000"})
    );
    // No template for this kind: not sent, and said so.
    let e = n
        .send_notice(&NoticeMessage {
            to: phone,
            notice: Notice::Deactivated,
            lang: Lang::ZhCn,
        })
        .await
        .unwrap_err();
    assert!(e.contains("no template for deactivated"), "{e}");
    let mail = Identity::Mail(Email::parse("bob@example.com").unwrap());
    let e = n
        .send_code(&CodeMessage {
            to: mail,
            purpose: Purpose::Login,
            code: "1".into(),
            lang: Lang::ZhCn,
        })
        .await
        .unwrap_err();
    assert!(
        matches!(&e, SendError::Failed(m) if m.contains("SMS only")),
        "{e:?}"
    );
    assert_eq!(a.calls(), 1);
}
