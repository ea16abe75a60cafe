//! The mail half of the `Notifier` port: a code or a notice to a mail address goes through the
//! relay; one to a phone goes to the SMS notifier given (the dev outbox in `ciam serve`, a
//! China SMS adapter in the `cn` cell), or fails without a call when there is none.

use crate::error::MailError;
use crate::message::Outgoing;
use crate::relay::SmtpMailer;
use async_trait::async_trait;
use ciam_core::validate::Identity;
use ciam_core::{CodeMessage, NoticeMessage, Notifier, SendError};
use std::sync::Arc;

pub struct SmtpNotifier {
    mailer: SmtpMailer,
    sms: Option<Arc<dyn Notifier>>,
}

impl SmtpNotifier {
    /// Mail through `mailer`; SMS through `sms` when given.
    pub fn new(mailer: SmtpMailer, sms: Option<Arc<dyn Notifier>>) -> SmtpNotifier {
        SmtpNotifier { mailer, sms }
    }

    async fn mail(&self, to: &Identity, subject: &str, text: &str) -> Option<Result<(), String>> {
        let Identity::Mail(mail) = to else {
            return None;
        };
        let sent = self
            .mailer
            .send(Outgoing {
                to: mail.as_str(),
                subject,
                text,
            })
            .await;
        Some(sent.map_err(|e: MailError| format!("{e} (to {})", mail.masked())))
    }

    fn sms(&self) -> Result<&Arc<dyn Notifier>, String> {
        self.sms
            .as_ref()
            .ok_or_else(|| "no SMS sender is configured beside the SMTP relay".to_owned())
    }
}

#[async_trait]
impl Notifier for SmtpNotifier {
    /// A relay's refusal of an address is a failure here, not a reason: a mail address is
    /// checked before any code is sent, and the relay's answer says nothing a person can act on.
    async fn send_code(&self, msg: &CodeMessage) -> Result<(), SendError> {
        match self.mail(&msg.to, msg.subject(), &msg.text()).await {
            Some(sent) => sent.map_err(SendError::Failed),
            None => self.sms()?.send_code(msg).await,
        }
    }

    async fn send_notice(&self, msg: &NoticeMessage) -> Result<(), String> {
        match self.mail(&msg.to, msg.subject(), &msg.text()).await {
            Some(sent) => sent,
            None => self.sms()?.send_notice(msg).await,
        }
    }
}
