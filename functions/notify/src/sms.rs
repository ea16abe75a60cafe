//! From Ciam's messages to a provider's template send: [`SmsNotifier`] picks the template and
//! its parameters, a [`SmsProvider`] sends it; [`Split`] sends mail one way and SMS another.

use crate::templates::Templates;
use async_trait::async_trait;
use ciam_core::codes::CODE_TTL;
use ciam_core::validate::Identity;
use ciam_core::{CodeMessage, Lang, Notice, NoticeMessage, Notifier, SendError};
use std::sync::Arc;

/// One templated SMS to a mainland number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sms {
    /// 11 mainland digits, as Ciam stores them.
    pub phone: String,
    pub template: String,
    /// Named parameters in the template's order (`code`, `minutes`): Aliyun takes them by name,
    /// Tencent by position.
    pub params: Vec<(&'static str, String)>,
}

/// A provider's `SendSms`. A refusal of the number or its own per-number limit is
/// [`SendError::Refused`] (no failover); anything else is [`SendError::Failed`].
#[async_trait]
pub trait SmsProvider: Send + Sync {
    fn name(&self) -> &'static str;
    async fn send(&self, sms: &Sms) -> Result<(), SendError>;
}

/// A `Notifier` that texts phones through one provider, with a template per purpose.
pub struct SmsNotifier<P> {
    provider: P,
    templates: Templates,
}

impl<P: SmsProvider> SmsNotifier<P> {
    pub fn new(provider: P, templates: Templates) -> Self {
        SmsNotifier {
            provider,
            templates,
        }
    }

    async fn text(
        &self,
        to: &Identity,
        key: &str,
        lang: Lang,
        params: Vec<(&'static str, String)>,
    ) -> Result<(), SendError> {
        let phone = match to {
            Identity::Phone(p) => p,
            Identity::Mail(m) => {
                return Err(SendError::Failed(format!(
                    "{} sends SMS only (to {})",
                    self.provider.name(),
                    m.masked()
                )))
            }
        };
        let template = self.templates.pick(key, lang).ok_or_else(|| {
            SendError::Failed(format!(
                "{}: no template for {key} in {}",
                self.provider.name(),
                lang.tag()
            ))
        })?;
        let sms = Sms {
            phone: phone.as_str().to_owned(),
            template: template.to_owned(),
            params,
        };
        self.provider.send(&sms).await.map_err(|e| match e {
            SendError::Failed(cause) => {
                SendError::Failed(format!("{cause} (to {})", phone.masked()))
            }
            refused => refused,
        })
    }
}

/// The parameters of a notice's template: the masked new address where the notice has one, the
/// provider's name (`wechat`) for a linked identity's.
fn notice_params(notice: &Notice) -> Vec<(&'static str, String)> {
    match notice {
        Notice::MailChanged { new }
        | Notice::PhoneChanged { new }
        | Notice::IdentityReplacedBySupport { new, .. } => vec![("new", new.clone())],
        Notice::IdentityLinked { provider }
        | Notice::IdentityUnlinked { provider }
        | Notice::IdentityUnlinkedBySupport { provider } => vec![("provider", provider.clone())],
        Notice::OrgInvitation { org, link } => vec![("org", org.clone()), ("link", link.clone())],
        _ => Vec::new(),
    }
}

#[async_trait]
impl<P: SmsProvider> Notifier for SmsNotifier<P> {
    async fn send_code(&self, msg: &CodeMessage) -> Result<(), SendError> {
        let params = vec![
            ("code", msg.code.clone()),
            ("minutes", (CODE_TTL / 60).to_string()),
        ];
        self.text(&msg.to, msg.purpose.template(), msg.lang, params)
            .await
    }

    /// A notice goes by SMS only where its kind has a template (phone-only accounts, and the
    /// old number after a change): one template per notice kind, like the codes.
    async fn send_notice(&self, msg: &NoticeMessage) -> Result<(), String> {
        self.text(
            &msg.to,
            msg.notice.kind(),
            msg.lang,
            notice_params(&msg.notice),
        )
        .await
        .map_err(|e| e.to_string())
    }
}

/// Mail one way (SES, an SMTP relay, the dev outbox), SMS another.
pub struct Split {
    pub mail: Arc<dyn Notifier>,
    pub sms: Arc<dyn Notifier>,
}

impl Split {
    fn pick(&self, to: &Identity) -> &dyn Notifier {
        match to {
            Identity::Mail(_) => self.mail.as_ref(),
            Identity::Phone(_) => self.sms.as_ref(),
        }
    }
}

#[async_trait]
impl Notifier for Split {
    async fn send_code(&self, msg: &CodeMessage) -> Result<(), SendError> {
        self.pick(&msg.to).send_code(msg).await
    }

    async fn send_notice(&self, msg: &NoticeMessage) -> Result<(), String> {
        self.pick(&msg.to).send_notice(msg).await
    }
}
