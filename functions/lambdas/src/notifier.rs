//! The production `Notifier`: verification codes by e-mail through SES v2 and by SMS through SNS.
//!
//! The code itself never reaches a log: errors carry the service's error, never the message,
//! and the recipient appears only masked.

use async_trait::async_trait;
use aws_sdk_sesv2::types::{Body, Content, Destination, EmailContent, Message};
use aws_sdk_sns::types::MessageAttributeValue;
use ciam_core::validate::Identity;
use ciam_core::{CodeMessage, NoticeMessage, Notifier, SendError};

/// SNS delivers transactional SMS with higher reliability (and ignores quiet hours);
/// a sign-in code is exactly that.
const SMS_TYPE: &str = "AWS.SNS.SMS.SMSType";
const TRANSACTIONAL: &str = "Transactional";

pub struct AwsNotifier {
    ses: aws_sdk_sesv2::Client,
    /// None: this function sends mail only (its row has no SMS: the webhook delivery), and an
    /// SMS fails without a call (its role could not publish one either).
    sns: Option<aws_sdk_sns::Client>,
    /// The SES sender. None: this function was deployed without one, and mail fails loudly.
    mail_from: Option<String>,
}

impl AwsNotifier {
    pub fn new(
        ses: aws_sdk_sesv2::Client,
        sns: aws_sdk_sns::Client,
        mail_from: Option<String>,
    ) -> Self {
        AwsNotifier {
            ses,
            sns: Some(sns),
            mail_from,
        }
    }

    /// Mail through SES only: no SMS client at all.
    pub fn mail_only(ses: aws_sdk_sesv2::Client, mail_from: Option<String>) -> Self {
        AwsNotifier {
            ses,
            sns: None,
            mail_from,
        }
    }

    async fn send_mail(&self, to: &str, subject: &str, text: &str) -> Result<(), String> {
        let from = self
            .mail_from
            .as_deref()
            .ok_or("CIAM_MAIL_FROM is not set: cannot send mail")?;
        let content = EmailContent::builder()
            .simple(
                Message::builder()
                    .subject(utf8(subject)?)
                    .body(Body::builder().text(utf8(text)?).build())
                    .build(),
            )
            .build();
        self.ses
            .send_email()
            .from_email_address(from)
            .destination(Destination::builder().to_addresses(to).build())
            .content(content)
            .send()
            .await
            .map(|_| ())
            .map_err(|e| {
                format!(
                    "SES SendEmail failed: {}",
                    aws_sdk_sesv2::error::DisplayErrorContext(&e)
                )
            })
    }

    async fn send_sms(&self, phone: &str, text: &str) -> Result<(), String> {
        let sms_type = MessageAttributeValue::builder()
            .data_type("String")
            .string_value(TRANSACTIONAL)
            .build()
            .map_err(|e| format!("SNS message attribute: {e}"))?;
        let sns = self
            .sns
            .as_ref()
            .ok_or("this function sends no SMS (its row allows mail only)")?;
        sns.publish()
            .phone_number(e164_cn(phone))
            .message(text)
            .message_attributes(SMS_TYPE, sms_type)
            .send()
            .await
            .map(|_| ())
            .map_err(|e| {
                format!(
                    "SNS Publish failed: {}",
                    aws_sdk_sns::error::DisplayErrorContext(&e)
                )
            })
    }
}

impl AwsNotifier {
    async fn deliver(&self, to: &Identity, subject: &str, text: &str) -> Result<(), String> {
        match to {
            Identity::Mail(mail) => self
                .send_mail(mail.as_str(), subject, text)
                .await
                .map_err(|e| format!("{e} (to {})", mail.masked())),
            Identity::Phone(phone) => self
                .send_sms(phone.as_str(), text)
                .await
                .map_err(|e| format!("{e} (to {})", phone.masked())),
        }
    }
}

#[async_trait]
impl Notifier for AwsNotifier {
    async fn send_code(&self, msg: &CodeMessage) -> Result<(), SendError> {
        Ok(self.deliver(&msg.to, msg.subject(), &msg.text()).await?)
    }

    async fn send_notice(&self, msg: &NoticeMessage) -> Result<(), String> {
        self.deliver(&msg.to, msg.subject(), &msg.text()).await
    }
}

fn utf8(text: &str) -> Result<Content, String> {
    Content::builder()
        .data(text)
        .charset("UTF-8")
        .build()
        .map_err(|e| format!("SES content: {e}"))
}

/// Phones are stored as 11 mainland-China digits; SNS wants E.164.
fn e164_cn(phone: &str) -> String {
    format!("+86{phone}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_sesv2::config::{BehaviorVersion, Credentials, Region};
    use axum::body::Bytes;
    use axum::extract::State;
    use axum::http::{HeaderMap, StatusCode};
    use axum::response::IntoResponse;
    use ciam_core::validate::{Email, Phone};
    use ciam_core::{Lang, Purpose};
    use std::sync::{Arc, Mutex};

    /// Captures what the SDK sends, and answers like SES v2 (JSON) or SNS (XML) would.
    #[derive(Clone, Default)]
    struct Capture(Arc<Mutex<Vec<(String, String)>>>);

    async fn aws_double(
        State(cap): State<Capture>,
        headers: HeaderMap,
        body: Bytes,
    ) -> impl IntoResponse {
        let ctype = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let body = String::from_utf8_lossy(&body).into_owned();
        cap.0.lock().unwrap().push((ctype.clone(), body));
        if ctype.starts_with("application/x-www-form-urlencoded") {
            (
                StatusCode::OK,
                [("content-type", "text/xml")],
                "<PublishResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\">\
                 <PublishResult><MessageId>m-1</MessageId></PublishResult>\
                 <ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata>\
                 </PublishResponse>",
            )
        } else {
            (
                StatusCode::OK,
                [("content-type", "application/json")],
                "{\"MessageId\":\"m-1\"}",
            )
        }
    }

    async fn notifier(mail_from: Option<&str>) -> (AwsNotifier, Capture) {
        let cap = Capture::default();
        let app = axum::Router::new()
            .fallback(aws_double)
            .with_state(cap.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        let sdk = aws_config::SdkConfig::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(aws_sdk_sesv2::config::SharedCredentialsProvider::new(
                Credentials::new("test", "test", None, None, "test"),
            ))
            .endpoint_url(endpoint)
            .build();
        let n = AwsNotifier::new(
            aws_sdk_sesv2::Client::new(&sdk),
            aws_sdk_sns::Client::new(&sdk),
            mail_from.map(str::to_owned),
        );
        (n, cap)
    }

    fn message(to: Identity) -> CodeMessage {
        CodeMessage {
            to,
            purpose: Purpose::Login,
            code: "493817".into(),
            lang: Lang::EnUs,
        }
    }

    #[tokio::test]
    async fn a_mail_code_goes_out_as_one_ses_simple_message_from_the_configured_sender() {
        let (n, cap) = notifier(Some("no-reply@ciam.example")).await;
        let to = Identity::Mail(Email::parse("Alice@Example.com").unwrap());
        n.send_code(&message(to)).await.unwrap();

        let sent = cap.0.lock().unwrap().clone();
        assert_eq!(sent.len(), 1);
        let body: serde_json::Value = serde_json::from_str(&sent[0].1).unwrap();
        assert_eq!(body["FromEmailAddress"], "no-reply@ciam.example");
        assert_eq!(
            body["Destination"]["ToAddresses"],
            serde_json::json!(["alice@example.com"])
        );
        let simple = &body["Content"]["Simple"];
        assert_eq!(simple["Subject"]["Data"], "Your Ciam verification code");
        assert!(simple["Body"]["Text"]["Data"]
            .as_str()
            .unwrap()
            .contains("493817"));
        assert_eq!(simple["Body"]["Text"]["Charset"], "UTF-8");
    }

    #[tokio::test]
    async fn a_phone_code_goes_out_as_a_transactional_sms_to_the_chinese_number() {
        let (n, cap) = notifier(None).await;
        let to = Identity::Phone(Phone::parse("138-0013-8000").unwrap());
        n.send_code(&message(to)).await.unwrap();

        let sent = cap.0.lock().unwrap().clone();
        assert_eq!(sent.len(), 1);
        let form = &sent[0].1;
        assert!(form.contains("Action=Publish"), "{form}");
        assert!(form.contains("PhoneNumber=%2B8613800138000"), "{form}");
        assert!(form.contains("493817"), "{form}");
        assert!(form.contains("AWS.SNS.SMS.SMSType"), "{form}");
        assert!(form.contains("StringValue=Transactional"), "{form}");
    }

    #[tokio::test]
    async fn mail_without_a_configured_sender_fails_without_calling_ses() {
        let (n, cap) = notifier(None).await;
        let to = Identity::Mail(Email::parse("bob@example.com").unwrap());
        let err = n.send_code(&message(to)).await.unwrap_err().to_string();
        assert!(err.contains("CIAM_MAIL_FROM"), "{err}");
        assert!(
            !err.contains("493817"),
            "the code leaked into the error: {err}"
        );
        assert!(err.contains("bo***@example.com"), "{err}");
        assert!(cap.0.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_refused_send_is_an_error_that_does_not_carry_the_code() {
        // Nothing listens on this endpoint's port once the listener is dropped.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let sdk = aws_config::SdkConfig::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(aws_sdk_sesv2::config::SharedCredentialsProvider::new(
                Credentials::new("test", "test", None, None, "test"),
            ))
            .endpoint_url(format!("http://127.0.0.1:{port}"))
            .retry_config(aws_config::retry::RetryConfig::disabled())
            .build();
        let n = AwsNotifier::new(
            aws_sdk_sesv2::Client::new(&sdk),
            aws_sdk_sns::Client::new(&sdk),
            Some("no-reply@ciam.example".into()),
        );
        let to = Identity::Phone(Phone::parse("13800138000").unwrap());
        let err = n.send_code(&message(to)).await.unwrap_err().to_string();
        assert!(err.starts_with("SNS Publish failed"), "{err}");
        assert!(
            !err.contains("493817"),
            "the code leaked into the error: {err}"
        );
        assert!(err.contains("138****8000"), "{err}");
    }
}
