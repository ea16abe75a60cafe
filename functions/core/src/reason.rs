//! The Reason catalogue: every `reason` a response can carry, its HTTP status and its message in
//! both languages. The one place that maps domain errors to statuses. The web app checks its own
//! catalogue against `Reason::ALL` (see docs/api.md).

use crate::Lang;

macro_rules! reasons {
    ($( $variant:ident = $status:literal, $en:literal, $zh:literal; )*) => {
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Reason { $( $variant, )* }

        impl Reason {
            pub const ALL: &'static [Reason] = &[ $( Reason::$variant, )* ];

            /// The stable wire name, e.g. `PASSWORD_ERROR`.
            pub fn code(self) -> &'static str {
                match self { $( Reason::$variant => to_screaming(stringify!($variant)), )* }
            }

            pub fn status(self) -> u16 {
                match self { $( Reason::$variant => $status, )* }
            }

            pub fn message(self, lang: Lang) -> &'static str {
                match self { $( Reason::$variant => lang.pick($zh, $en), )* }
            }
        }
    };
}

// The wire names are SCREAMING_SNAKE_CASE; the variants are written that way too so that a
// grep for a reason finds its definition.
const fn to_screaming(s: &'static str) -> &'static str {
    s
}

reasons! {
    // Spec §8, with the spec's texts where it gives them.
    CONTENT_MISSING = 400, "Content missing", "内容缺失";
    INTERNAL_SERVER_ERROR = 500, "Internal server error", "服务器内部错误";
    PASSWORD_COMPLEXITY_ERROR = 400, "Password does not meet the rules", "密码不符合规则";
    PASSWORD_ERROR = 401, "Incorrect account or password", "账号或密码错误";
    CODE_KIND_ERROR = 400, "Incorrect code type", "验证码类型错误";
    CODE_ERROR = 400, "Invalid verification code", "验证码无效";
    TICKET_NOT_FOUND = 404, "Ticket not found", "票据不存在";
    VERIFYCODE_NOT_FOUND = 400, "Verification code incorrect", "验证码不正确";
    UNLOCKCODE_NOT_FOUND = 400, "Unlock code is invalid, try again", "解锁码无效，请重试";
    VERIFYCODE_SENDING_TOO_QUICKLY = 429, "You are trying too often", "操作过于频繁";
    PHONE_NOT_FOUND = 404, "The phone number is not registered", "该手机号未注册";
    APPID_NOT_FOUND = 404, "APP ID not found", "应用 ID 不存在";
    APPSECRET_ERROR = 401, "", "";
    PHONE_EXIST = 409, "The phone number has already been bound", "该手机号已被绑定";
    INVALID_PHONE = 400, "Invalid phone number: only mainland China numbers are supported", "手机号格式不正确，仅支持中国大陆手机号";
    APPNAME_EXIST = 409, "APP name already exists", "应用名称已存在";
    VERIFYCODE_SENDING_LIMIT = 429, "Daily SMS limit reached, try tomorrow", "今日发送次数已达上限，请明天再试";
    VERIFICATION_CODE_LIMIT = 429, "Five-minute check limit reached", "验证次数过多，请五分钟后再试";
    VERIFYCAPTCHA_NOT_FOUND = 400, "Figure verification failure", "图形验证失败";
    VERIFYCAPTCHA_ERROR = 400, "Verification failure", "验证失败";
    NEED_TOTP_VERIFY = 403, "Verification required", "需要二次验证";
    TOTP_VERIFY_FAILED = 400, "Invalid or expired code", "验证码无效或已过期";
    UNLOCKCODE_PWD_NOT_FOUND = 400, "Unlock failed", "解锁失败";
    UNLOCKCODE_TOTP_NOT_FOUND = 400, "Unlock failed", "解锁失败";
    TOTP_SECRET_ERROR = 400, "Invalid two-factor code", "两步验证码无效";
    PASSWORD_SAME_ERROR = 400, "New password must differ from your current one", "新密码不能与当前密码相同";
    AUTHORIZATION_FAILED = 401, "Please sign in again", "请重新登录";
    VERIFICATION_ATTEMPT_CODE_LIMIT = 423, "Your account has been locked, please try again later", "您的账号已被锁定，请稍后再试";
    EIAM_PASSWORD_UNSET = 403, "Please set a password for your staff account first", "请先为员工账号设置密码";
    USER_TOTP_ENABLED = 409, "Two-factor authentication is already enabled", "两步验证已开启";
    // Spec §8 names these without texts; ours.
    INVALID_PARAMETER = 400, "Invalid parameter", "参数错误";
    INVALID_MAIL = 400, "Invalid e-mail", "邮箱格式不正确";
    MAIL_NOT_FOUND = 404, "The e-mail address is not registered", "该邮箱未注册";
    MAIL_EXIST = 409, "The e-mail address has already been bound", "该邮箱已被绑定";
    USERNAME_EXIST = 409, "The username is already taken", "用户名已被占用";
    EIAM_DEACTIVATE_ERROR = 403, "Staff accounts cannot be deactivated", "员工账号不能注销";
    EIAM_MAIL_PERMISSION_DENIED = 403, "Staff e-mail addresses cannot be used here", "员工邮箱不能用于此操作";
    EIAM_INVALID_MAIL = 400, "This is not a staff e-mail address", "不是有效的员工邮箱";
    PASSWORD_EXPIRED = 403, "Your password has expired, please reset it", "密码已过期，请重置";
    USER_TOTP_NOT_ENABLED = 409, "Two-factor authentication is not enabled", "未开启两步验证";
    // Added by Ciam (documented in docs/api.md).
    NOT_FOUND = 404, "Not found", "资源不存在";
    METHOD_NOT_ALLOWED = 405, "Method not allowed", "不支持的请求方法";
    REAUTH_REQUIRED = 403, "Please confirm it is you (password or two-factor code) and try again", "请先验证身份（密码或两步验证码）后重试";
    SERVICE_UNAVAILABLE = 503, "Service busy, please retry", "服务繁忙，请重试";
    AVATAR_TOO_LARGE = 400, "The image is larger than 1 MB", "图片不能超过 1 MB";
    AVATAR_INVALID = 400, "Use a PNG, JPEG or WebP image", "请使用 PNG、JPEG 或 WebP 图片";
    PERMISSION_DENIED = 403, "You do not have permission to do this", "您没有执行此操作的权限";
    // Passkeys (docs/passkeys-design.md §3.7).
    PASSKEY_VERIFY_FAILED = 401, "Passkey verification failed", "通行密钥验证失败";
    PASSKEY_CHALLENGE_EXPIRED = 400, "The passkey request expired, please try again", "通行密钥请求已过期，请重试";
    PASSKEY_NOT_FOUND = 404, "Passkey not found", "未找到该通行密钥";
    PASSKEY_EXISTS = 409, "This passkey is already registered", "该通行密钥已注册";
    PASSKEY_LIMIT = 409, "An account can have at most 10 passkeys", "每个账号最多可添加 10 个通行密钥";
    PASSKEY_UNAVAILABLE = 503, "Passkeys are not available on this site", "当前站点暂不支持通行密钥";
    // The operator console (docs/console-design.md).
    CONSOLE_MFA_REQUIRED = 403, "Turn on two-factor sign-in and sign in with it to use the console", "请先开启两步验证并使用它登录后再使用控制台";
    ACCOUNT_NOT_FOUND = 404, "No account matches", "未找到该账号";
    // Told only to whoever proved the account's password, sign-in code or passkey, or completed a
    // reset by code (docs/console-design.md §4): a stranger still gets the wrong secret's answer.
    ACCOUNT_SUSPENDED = 403, "This account is suspended: contact support", "该账号已被暂停，请联系客服";
    // Webhook endpoints (docs/events-design.md §3).
    WEBHOOK_NOT_FOUND = 404, "Webhook endpoint not found", "未找到该 Webhook 地址";
    WEBHOOK_URL_INVALID = 400, "The webhook URL is not a valid absolute URL", "Webhook 地址不是有效的完整网址";
    WEBHOOK_URL_NOT_HTTPS = 400, "Webhook URLs must use https", "Webhook 地址必须使用 https";
    WEBHOOK_URL_USERINFO = 400, "Webhook URLs cannot carry credentials (user:password@)", "Webhook 地址不能包含用户名或密码";
    WEBHOOK_URL_FRAGMENT = 400, "Webhook URLs cannot carry a fragment (#...)", "Webhook 地址不能包含片段（#...）";
    WEBHOOK_URL_TOO_LONG = 400, "Webhook URLs are at most 2048 characters", "Webhook 地址不能超过 2048 个字符";
    WEBHOOK_URL_PRIVATE = 400, "Webhook URLs cannot point at private, loopback, link-local or metadata addresses", "Webhook 地址不能指向内网、回环、链路本地或元数据地址";
    // Which cell serves whom (docs/multi-region.md §14): phones are mainland-only, so a global
    // cell with a mainland sibling sends phone sign-ups there (the body's `otherCell` is its URL).
    PHONE_MAINLAND_SERVICE_ONLY = 400, "Mainland China mobile numbers sign up with the Mainland China service", "中国大陆手机号请在中国大陆服务注册";
    // Federated sign-in (docs/federation-design.md §3.5): the person's own refusals, told apart
    // from a failure so the page can say what to do.
    FEDERATION_CANCELLED = 401, "You cancelled the sign-in. Try again or choose another way", "您已取消登录，请重试或选择其他方式";
    FEDERATION_NOT_PERMITTED = 403, "Your account at this provider may not use this app; ask your administrator", "您在该平台的账号无权使用此应用，请联系管理员";
    FEDERATION_SNAPSHOT_USER = 403, "You are viewing a preview. Tap Use full service (使用完整服务) at the bottom, then sign in with WeChat again", "您正在预览页面。请点击底部的“使用完整服务”，然后重新使用微信登录";
    FEDERATION_OPEN_IN_BROWSER = 400, "Open this page in your browser: tap ··· (top right), then Open in Browser", "请在浏览器中打开本页：点击右上角“···”，然后选择“在浏览器中打开”";
    FEDERATION_LINK_EXISTS = 409, "This account of the provider is already linked to a Ciam account", "该第三方账号已关联到其他账号";
    FEDERATION_LAST_WAY_IN = 409, "This is the account's last way to sign in: add a password, a phone, an e-mail or a passkey first", "这是账号最后一种登录方式：请先设置密码、手机号、邮箱或通行密钥";
    // Organizations' verified domains (docs/organizations-domains.md).
    DOMAIN_INVALID = 400, "This is not a valid domain name, e.g. example.com", "域名格式不正确，例如 example.com";
    DOMAIN_PUBLIC = 422, "This domain is shared by many companies (a public suffix or a free mail provider) and cannot belong to an organization", "该域名为公共后缀或免费邮箱服务商所有，不能归属于某个组织";
    DOMAIN_ALREADY_VERIFIED = 409, "This domain is already verified", "该域名已被验证";
    DOMAIN_TXT_NOT_FOUND = 422, "The TXT record was not found: publish it, wait for DNS to update, then verify again", "未找到 TXT 记录：请添加该记录，待 DNS 生效后再次验证";
    DOMAIN_DNS_UNAVAILABLE = 503, "DNS did not answer in time; try again in a minute", "DNS 未及时响应，请稍后重试";
    DOMAIN_MAIL_NOT_ADMIN = 422, "Use one of the domain's administrative addresses: admin, administrator, webmaster, hostmaster or postmaster", "请使用该域名的管理邮箱：admin、administrator、webmaster、hostmaster 或 postmaster";
    DOMAIN_NOT_FOUND = 404, "This domain is not among the organization's domains", "该组织未添加此域名";
    DOMAIN_LIMIT = 409, "An organization has at most 20 domains: remove one first", "一个组织最多添加 20 个域名，请先删除一个";
    DOMAIN_NOT_VERIFIED = 409, "Verify this domain first", "请先验证该域名";
    // Organizations' own sign-in connections (docs/organizations-connections.md).
    CONNECTION_NOT_FOUND = 404, "This sign-in connection is not among the organization's connections", "该组织没有此登录连接";
    CONNECTION_NOT_ON = 409, "Turn this sign-in connection on first: only a connection that is on can sign people in", "请先开启该登录连接：只有已开启的连接才能用于登录";
    CONNECTION_CHANGED = 409, "This sign-in connection changed meanwhile: reload it and try again", "该登录连接刚刚被修改，请刷新后重试";
    // Organizations (issue 35, docs/organizations-design.md).
    ORG_NOT_FOUND = 404, "Organization not found", "组织不存在";
    ORG_NOT_ACTIVE = 409, "The organization is not active", "该组织未启用";
    ORG_ROLE_FORBIDDEN = 403, "Your role in this organization does not allow this", "你在该组织中的角色无权执行此操作";
    ORG_LAST_OWNER = 409, "An organization keeps at least one owner: make someone else owner first", "组织至少保留一名所有者：请先指定其他所有者";
    ORG_MEMBER_NOT_FOUND = 404, "Not a member of this organization", "不是该组织的成员";
    ORG_ALREADY_MEMBER = 409, "You are already a member of this organization", "你已是该组织的成员";
    ORG_REQUEST_LIMIT = 409, "You already have 3 organization requests waiting for review", "你已有 3 个组织申请等待审核";
    ORG_INVITATION_LIMIT = 409, "Too many pending invitations: revoke some first", "待接受的邀请过多：请先撤销部分邀请";
    ORG_INVITATION_NOT_FOUND = 404, "Invitation not found", "邀请不存在";
    ORG_INVITATION_EXPIRED = 410, "The invitation has expired: ask for a new one", "邀请已过期：请让管理员重新邀请";
    ORG_INVITATION_REVOKED = 410, "The invitation was withdrawn", "邀请已被撤销";
    ORG_INVITATION_USED = 409, "The invitation has already been used", "邀请已被使用";
    // The organization's sign-in policy when an app asks for it (docs/oidc.md "Organizations").
    ORG_MFA_REQUIRED = 403, "This organization requires two-factor authentication: confirm it is you with yours, or turn it on in your security centre", "该组织要求两步验证：请完成两步验证，或先在安全中心开启";
    ORG_METHOD_NOT_ALLOWED = 403, "This organization does not allow the way you signed in: sign in with one of the methods it allows", "该组织不允许你本次的登录方式：请使用它允许的方式重新登录";
    // The company's own sign-in (docs/organizations-connections.md §0.5): the address's domain
    // is routed to its organization's connection with "required"; the body's `connection` names
    // it. Told after a right password only (a wrong one answers PASSWORD_ERROR as ever).
    ORG_SIGN_IN_REQUIRED = 403, "Your company asks you to sign in with its own account", "你的公司要求使用公司账号登录";
    ORG_INVITATION_NOT_YOURS = 403, "This invitation was sent to another e-mail address or phone number", "此邀请发送给了其他邮箱或手机号";
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_has_a_status_and_both_messages() {
        for r in Reason::ALL {
            assert!((400..600).contains(&r.status()), "{r}");
            if *r != Reason::APPSECRET_ERROR {
                assert!(!r.message(Lang::EnUs).is_empty(), "{r}");
                assert!(!r.message(Lang::ZhCn).is_empty(), "{r}");
            }
            assert!(
                r.code().chars().all(|c| c.is_ascii_uppercase() || c == '_'),
                "{r}"
            );
        }
    }
}
