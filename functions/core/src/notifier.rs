use crate::validate::Identity;
use crate::{Lang, Reason};
use async_trait::async_trait;

/// What a verification code is for. A code only works for the purpose it was sent for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum Purpose {
    Register,
    Login,
    ResetPassword,
    Bind,
    /// The phone proof of a federated sign-in (docs/federation-design.md §4.1): sent whether or
    /// not the number has an account (the answer is alike); China SMS sends it with the
    /// approved sign-in template ([`Purpose::template`]).
    Link,
    /// An organization's domain proven by a code to one of its administrative mailboxes
    /// (docs/organizations-domains.md §1.2): mail only, never an account's sign-in.
    Domain,
}

impl Purpose {
    pub const ALL: [Purpose; 6] = [
        Purpose::Register,
        Purpose::Login,
        Purpose::ResetPassword,
        Purpose::Bind,
        Purpose::Link,
        Purpose::Domain,
    ];

    /// The SMS template key that carries the code (`register`, `login`, `resetPassword`,
    /// `bind`): a link code is a sign-in code's text, so no new template needs approval.
    pub fn template(self) -> &'static str {
        match self {
            Purpose::Link => Purpose::Login.as_str(),
            Purpose::Domain => Purpose::Bind.as_str(),
            p => p.as_str(),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::Register => "register",
            Purpose::Login => "login",
            Purpose::ResetPassword => "resetPassword",
            Purpose::Bind => "bind",
            Purpose::Link => "link",
            Purpose::Domain => "domain",
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

/// Why a code was not sent. A provider's refusal that the person can act on (the number's own
/// sending limit, a number the provider will not text) is a [`Reason`] answered as such, never a
/// 500; anything else is a failure of the service, answered as today (logged, retry later).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SendError {
    /// The provider refused this recipient: answer the reason (the code is withdrawn).
    Refused(Reason),
    /// The message could not be sent (unreachable, misconfigured, throttled everywhere).
    Failed(String),
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendError::Refused(r) => write!(f, "refused: {}", r.code()),
            SendError::Failed(cause) => f.write_str(cause),
        }
    }
}

/// Most adapters only ever fail: their `String` errors stay what they were.
impl From<String> for SendError {
    fn from(cause: String) -> Self {
        SendError::Failed(cause)
    }
}

/// The `Notifier` port: SES and SNS in AWS, Aliyun and Tencent Cloud SMS (ciam-notify), the dev
/// outbox locally.
#[async_trait]
pub trait Notifier: Send + Sync {
    async fn send_code(&self, msg: &CodeMessage) -> Result<(), SendError>;
    async fn send_notice(&self, msg: &NoticeMessage) -> Result<(), String>;
}

/// Tells `user`'s first address (its mail, else its phone) about something done to the
/// account; an account with neither is told nothing. A failure to send is logged, never the
/// change's answer: the change is made, and a lost notice must not undo it.
pub async fn tell_account(
    ciam: &crate::Ciam,
    user: &crate::user::User,
    notice: Notice,
    lang: Lang,
) {
    let Some(to) = user.identities().into_iter().next() else {
        return;
    };
    let kind = notice.kind();
    let msg = NoticeMessage { to, notice, lang };
    if let Err(cause) = ciam.notifier.send_notice(&msg).await {
        tracing::warn!(cause = %cause, kind, "could not send the notice of a change to the account");
    }
}

/// Something that happened to an account, told to an address of it (not a code).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// The account's mail moved to another address (masked).
    MailChanged { new: String },
    /// The account's phone moved to another number (masked).
    PhoneChanged { new: String },
    /// The account was deactivated.
    Deactivated,
    /// Support unlocked the account (the console).
    UnlockedBySupport,
    /// Support ended every session of the account.
    SessionsEndedBySupport,
    /// Support turned the account's two-factor sign-in off.
    TwoFactorResetBySupport,
    /// Support suspended the account.
    SuspendedBySupport,
    /// Support reactivated the account.
    ReactivatedBySupport,
    /// Support removed every passkey of the account.
    PasskeysResetBySupport,
    /// Support replaced the account's mail (`mail`) or phone with `new` (masked); told to the
    /// old address.
    IdentityReplacedBySupport { mail: bool, new: String },
    /// The user linked a provider's account (`provider`: its name, `wechat`).
    IdentityLinked { provider: String },
    /// The user removed a linked provider's account.
    IdentityUnlinked { provider: String },
    /// Support removed a linked provider's account.
    IdentityUnlinkedBySupport { provider: String },
    /// An invitation to join the organization `org` (its name in the message's language):
    /// `link` opens Ciam's sign-in (or sign-up) and accepts it (docs/organizations-design.md §3).
    OrgInvitation { org: String, link: String },
    /// Ciam disabled a webhook endpoint of the app `app` (its names, Chinese and English) at
    /// `url`: it answered 410 (`gone`), or failed for 3 days. Told to the app's owner
    /// (`ownerMail`), in both languages: the registry keeps no language for an owner.
    WebhookDisabled {
        app: (String, String),
        app_id: String,
        endpoint_id: String,
        url: String,
        gone: bool,
    },
}

impl Notice {
    pub fn kind(&self) -> &'static str {
        match self {
            Notice::MailChanged { .. } => "mailChanged",
            Notice::PhoneChanged { .. } => "phoneChanged",
            Notice::Deactivated => "deactivated",
            Notice::UnlockedBySupport => "unlockedBySupport",
            Notice::SessionsEndedBySupport => "sessionsEndedBySupport",
            Notice::TwoFactorResetBySupport => "twoFactorResetBySupport",
            Notice::SuspendedBySupport => "suspendedBySupport",
            Notice::ReactivatedBySupport => "reactivatedBySupport",
            Notice::PasskeysResetBySupport => "passkeysResetBySupport",
            Notice::IdentityReplacedBySupport { .. } => "identityReplacedBySupport",
            Notice::IdentityLinked { .. } => "identityLinked",
            Notice::IdentityUnlinked { .. } => "identityUnlinked",
            Notice::IdentityUnlinkedBySupport { .. } => "identityUnlinkedBySupport",
            Notice::WebhookDisabled { .. } => "webhookDisabled",
            Notice::OrgInvitation { .. } => "orgInvitation",
        }
    }
}

#[derive(Clone, Debug)]
pub struct NoticeMessage {
    pub to: Identity,
    pub notice: Notice,
    pub lang: Lang,
}

impl NoticeMessage {
    pub fn subject(&self) -> &'static str {
        if let Notice::OrgInvitation { .. } = self.notice {
            return self
                .lang
                .pick("Ciam：组织邀请", "Ciam: an invitation to an organization");
        }
        if let Notice::WebhookDisabled { .. } = self.notice {
            return "Ciam：Webhook 端点已停用 / Ciam disabled a webhook endpoint";
        }
        self.lang
            .pick("Ciam 账号安全提醒", "Ciam account security notice")
    }
    pub fn text(&self) -> String {
        let tail = self.lang.pick(
            "如非本人操作，请立即联系客服。",
            " If this was not you, contact support at once.",
        );
        match (&self.notice, self.lang) {
            (Notice::MailChanged { new }, Lang::ZhCn) => {
                format!("您的 Ciam 账号邮箱已更换为 {new}。{tail}")
            }
            (Notice::MailChanged { new }, Lang::EnUs) => {
                format!("The e-mail of your Ciam account was changed to {new}.{tail}")
            }
            (Notice::PhoneChanged { new }, Lang::ZhCn) => {
                format!("您的 Ciam 账号手机号已更换为 {new}。{tail}")
            }
            (Notice::PhoneChanged { new }, Lang::EnUs) => {
                format!("The phone number of your Ciam account was changed to {new}.{tail}")
            }
            (Notice::Deactivated, Lang::ZhCn) => format!("您的 Ciam 账号已注销。{tail}"),
            (Notice::Deactivated, Lang::EnUs) => {
                format!("Your Ciam account was deactivated.{tail}")
            }
            (Notice::UnlockedBySupport, Lang::ZhCn) => {
                format!("客服已解除您的 Ciam 账号锁定。{tail}")
            }
            (Notice::UnlockedBySupport, Lang::EnUs) => {
                format!("Support unlocked your Ciam account.{tail}")
            }
            (Notice::SessionsEndedBySupport, Lang::ZhCn) => {
                format!("客服已退出您的 Ciam 账号在所有设备上的登录。{tail}")
            }
            (Notice::SessionsEndedBySupport, Lang::EnUs) => {
                format!("Support signed your Ciam account out on every device.{tail}")
            }
            (Notice::TwoFactorResetBySupport, Lang::ZhCn) => {
                format!("客服已关闭您的 Ciam 账号的两步验证。{tail}")
            }
            (Notice::TwoFactorResetBySupport, Lang::EnUs) => {
                format!("Support turned off two-factor authentication for your Ciam account.{tail}")
            }
            (Notice::SuspendedBySupport, Lang::ZhCn) => {
                format!("客服已暂停您的 Ciam 账号，恢复前无法登录。{tail}")
            }
            (Notice::SuspendedBySupport, Lang::EnUs) => {
                format!("Support suspended your Ciam account: it cannot sign in until it is reactivated.{tail}")
            }
            (Notice::ReactivatedBySupport, Lang::ZhCn) => {
                format!("客服已恢复您的 Ciam 账号，现在可以正常登录。{tail}")
            }
            (Notice::ReactivatedBySupport, Lang::EnUs) => {
                format!("Support reactivated your Ciam account: it can sign in again.{tail}")
            }
            (Notice::PasskeysResetBySupport, Lang::ZhCn) => {
                format!("客服已删除您的 Ciam 账号的全部通行密钥。{tail}")
            }
            (Notice::PasskeysResetBySupport, Lang::EnUs) => {
                format!("Support removed every passkey of your Ciam account.{tail}")
            }
            (Notice::IdentityReplacedBySupport { mail: true, new }, Lang::ZhCn) => {
                format!("客服已将您的 Ciam 账号邮箱更换为 {new}。{tail}")
            }
            (Notice::IdentityReplacedBySupport { mail: true, new }, Lang::EnUs) => {
                format!("Support replaced the e-mail of your Ciam account with {new}.{tail}")
            }
            (Notice::IdentityReplacedBySupport { mail: false, new }, Lang::ZhCn) => {
                format!("客服已将您的 Ciam 账号手机号更换为 {new}。{tail}")
            }
            (Notice::IdentityReplacedBySupport { mail: false, new }, Lang::EnUs) => {
                format!("Support replaced the phone number of your Ciam account with {new}.{tail}")
            }
            (Notice::IdentityLinked { provider }, Lang::ZhCn) => format!(
                "您的 Ciam 账号已关联一个{}账号。如非本人操作，请在安全中心移除它并修改密码。",
                provider_label(provider, self.lang)
            ),
            (Notice::IdentityLinked { provider }, Lang::EnUs) => format!(
                "A {} account was linked to your Ciam account. Not you? Remove it in the security centre and change your password.",
                provider_label(provider, self.lang)
            ),
            (Notice::IdentityUnlinked { provider }, Lang::ZhCn) => format!(
                "您的 Ciam 账号已解除与{}账号的关联。{tail}",
                provider_label(provider, self.lang)
            ),
            (Notice::IdentityUnlinked { provider }, Lang::EnUs) => format!(
                "A {} account was unlinked from your Ciam account.{tail}",
                provider_label(provider, self.lang)
            ),
            (Notice::IdentityUnlinkedBySupport { provider }, Lang::ZhCn) => format!(
                "客服已解除您的 Ciam 账号与{}账号的关联。{tail}",
                provider_label(provider, self.lang)
            ),
            (Notice::IdentityUnlinkedBySupport { provider }, Lang::EnUs) => format!(
                "Support unlinked a {} account from your Ciam account.{tail}",
                provider_label(provider, self.lang)
            ),
            (Notice::OrgInvitation { org, link }, Lang::ZhCn) => format!(
                "您受邀加入 Ciam 上的组织“{org}”。请在 7 天内打开此链接，登录或注册后接受：{link}"
            ),
            (Notice::OrgInvitation { org, link }, Lang::EnUs) => format!(
                "You are invited to join the organization \"{org}\" on Ciam. Open this link within 7 days, sign in or sign up, and accept: {link}"
            ),
            (
                Notice::WebhookDisabled {
                    app,
                    app_id,
                    endpoint_id,
                    url,
                    gone,
                },
                _,
            ) => webhook_disabled(app, app_id, endpoint_id, url, *gone),
        }
    }
}

/// A provider's name as a person reads it (`wechat` → 微信 / WeChat); a provider without one
/// here is named as it is.
pub fn provider_label(name: &str, lang: Lang) -> &str {
    let (zh, en) = match name {
        "wechat" => ("微信", "WeChat"),
        "wecom" => ("企业微信", "WeCom"),
        "dingtalk" => ("钉钉", "DingTalk"),
        "feishu" => ("飞书", "Feishu"),
        "staff" => ("公司", "company"),
        _ => return name,
    };
    lang.pick(zh, en)
}

/// The owner's notice of a disabled webhook endpoint, in Chinese then English.
fn webhook_disabled(
    (zh, en): &(String, String),
    app_id: &str,
    endpoint_id: &str,
    url: &str,
    gone: bool,
) -> String {
    let (why_zh, why_en) = if gone {
        ("它回复了 410 Gone", "it answered 410 Gone")
    } else {
        (
            "它已连续 3 天投递失败",
            "every delivery to it failed for 3 days",
        )
    };
    format!(
        "Ciam 已停用应用「{zh}」（{app_id}）的 Webhook 端点 {url}（{endpoint_id}），因为{why_zh}。\
         停用期间的事件不会投递。修复接收端后，请在 Ciam 控制台的应用页面重新启用它\
         （或 PATCH /ciam/v1/admin/apps/{app_id}/webhooks/{endpoint_id} {{\"enabled\": true, \"reason\": …}}），\
         再按时间段重放错过的事件。\n\n\
         Ciam disabled the webhook endpoint {url} ({endpoint_id}) of the app \"{en}\" \
         ({app_id}) because {why_en}. Events are not delivered while it is disabled. Once the \
         receiver is fixed, enable it again on the app's page of the Ciam console (or PATCH \
         /ciam/v1/admin/apps/{app_id}/webhooks/{endpoint_id} {{\"enabled\": true, \"reason\": …}}) \
         and replay the \
         events it missed by time range."
    )
}
