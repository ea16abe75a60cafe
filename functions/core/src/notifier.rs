use crate::validate::Identity;
use crate::Lang;
use async_trait::async_trait;

/// What a verification code is for. A code only works for the purpose it was sent for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Purpose {
    Register,
    Login,
    ResetPassword,
    Bind,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::Register => "register",
            Purpose::Login => "login",
            Purpose::ResetPassword => "resetPassword",
            Purpose::Bind => "bind",
        }
    }
}

#[derive(Clone, Debug)]
pub struct CodeMessage {
    pub to: Identity,
    pub purpose: Purpose,
    pub code: String,
    pub lang: Lang,
}

impl CodeMessage {
    /// The text sent by SMS or as the mail body.
    pub fn text(&self) -> String {
        match self.lang {
            Lang::ZhCn => format!("您的验证码是 {}，10 分钟内有效。如非本人操作，请忽略。", self.code),
            Lang::EnUs => format!(
                "Your verification code is {}. It is valid for 10 minutes. If you did not ask for it, ignore this message.",
                self.code
            ),
        }
    }
    pub fn subject(&self) -> &'static str {
        self.lang.pick("Ciam 验证码", "Your Ciam verification code")
    }
}

/// The `Notifier` port: SES and SNS in AWS, the dev outbox locally.
#[async_trait]
pub trait Notifier: Send + Sync {
    async fn send_code(&self, msg: &CodeMessage) -> Result<(), String>;
}
