//! Who sends a function's codes and notices. The global cell: SES for mail and SNS for SMS
//! ([`crate::AwsNotifier`]). The cn cell has neither: its stack gives the sending functions the
//! names of two secrets, `CIAM_MAIL_RELAY_SECRET` (the SMTP relay) and `CIAM_SMS_PROVIDER_SECRET`
//! (the SMS providers' keys), and the stack's parameters in the environment (which provider is
//! primary, the signatures, the template codes: the variables `ciam serve` reads too). Then mail
//! goes through ciam-mail's relay and SMS through ciam-notify's providers, built by the builders
//! `ciam serve` uses (`ciam_mail::SmtpSettings`, `ciam_notify::SmsSettings`).
//!
//! The secrets are read once, during init, beside the others (`secrets::TIMEOUT`). A secret or a
//! setting that is missing or malformed fails the cold start with the variable and the key
//! (never a value), never a sender that works for some messages only. The senders are linked
//! only into the cn cell's build (feature `china`); another build given these variables fails
//! its init saying so. docs/china-messaging.md §5 has the secrets' shapes.

use crate::{AwsNotifier, Settings};
use ciam_api::Lambda;
use ciam_core::Notifier;
use std::future::Future;
use std::sync::Arc;

pub const SMS_SECRET_VAR: &str = "CIAM_SMS_PROVIDER_SECRET";
pub const MAIL_SECRET_VAR: &str = "CIAM_MAIL_RELAY_SECRET";

/// The environment variables of the China senders besides the two secrets: the stack's
/// parameters (the first eight, set on every function that texts) and, for tests and private
/// relays only, the providers' endpoints and a CA to trust.
pub const VARS: [&str; 12] = [
    "CIAM_SMS",
    "CIAM_SMS_FALLBACK",
    "CIAM_ALIYUN_SMS_SIGN_NAME",
    "CIAM_ALIYUN_SMS_TEMPLATES",
    "CIAM_TENCENT_SMS_SDK_APP_ID",
    "CIAM_TENCENT_SMS_SIGN_NAME",
    "CIAM_TENCENT_SMS_TEMPLATES",
    "CIAM_TENCENT_SMS_REGION",
    "CIAM_MAIL_FROM_NAME",
    "CIAM_ALIYUN_SMS_ENDPOINT",
    "CIAM_TENCENT_SMS_ENDPOINT",
    "CIAM_SMTP_CA",
];

/// What the environment says of the senders (`Settings::senders`).
#[derive(Clone, Debug, Default)]
pub struct SenderVars {
    /// `CIAM_SMS_PROVIDER_SECRET`: the secret's name or ARN.
    pub sms_secret: Option<String>,
    /// `CIAM_MAIL_RELAY_SECRET`.
    pub mail_secret: Option<String>,
    /// The set ones of [`VARS`].
    pub env: Vec<(&'static str, String)>,
}

impl SenderVars {
    pub fn from_lookup(lookup: &impl Fn(&str) -> Option<String>) -> SenderVars {
        let present = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        SenderVars {
            sms_secret: present(SMS_SECRET_VAR),
            mail_secret: present(MAIL_SECRET_VAR),
            env: VARS
                .iter()
                .filter_map(|name| present(name).map(|v| (*name, v)))
                .collect(),
        }
    }

    /// A variable of [`VARS`], empty when unset.
    pub fn var(&self, name: &str) -> &str {
        self.env
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("", |(_, v)| v.as_str())
    }
}

/// The function's notifier, ready when awaited (init joins it with the other reads). Mail only
/// where the row sends no SMS (`Lambda::sms`): its provider secret is then not even read.
pub(crate) fn notifier(
    sdk: &aws_config::SdkConfig,
    lambda: &Lambda,
    settings: &mut Settings,
) -> impl Future<Output = Result<Arc<dyn Notifier>, String>> {
    let mut vars = std::mem::take(&mut settings.senders);
    if !lambda.sms {
        vars.sms_secret = None;
    }
    let from = settings.mail_from.take();
    let ses = aws_sdk_sesv2::Client::new(sdk);
    let plain = vars.sms_secret.is_none() && vars.mail_secret.is_none();
    let aws: Arc<dyn Notifier> = if plain && lambda.sms {
        Arc::new(AwsNotifier::new(
            ses,
            aws_sdk_sns::Client::new(sdk),
            from.clone(),
        ))
    } else {
        Arc::new(AwsNotifier::mail_only(ses, from.clone()))
    };
    let client = (!plain).then(|| aws_sdk_secretsmanager::Client::new(sdk));
    async move {
        match client {
            None => Ok(aws),
            Some(client) => china(&client, &vars, from, aws).await,
        }
    }
}

#[cfg(not(feature = "china"))]
async fn china(
    _: &aws_sdk_secretsmanager::Client,
    _: &SenderVars,
    _: Option<String>,
    _: Arc<dyn Notifier>,
) -> Result<Arc<dyn Notifier>, String> {
    Err(format!(
        "{SMS_SECRET_VAR} or {MAIL_SECRET_VAR} is set, but this build has no China senders: the \
         cn cell's functions are built from functions/lambdas-cn (feature `china`)"
    ))
}

#[cfg(feature = "china")]
async fn china(
    client: &aws_sdk_secretsmanager::Client,
    vars: &SenderVars,
    from: Option<String>,
    ses: Arc<dyn Notifier>,
) -> Result<Arc<dyn Notifier>, String> {
    cn::build(client, vars, from, ses).await
}

#[cfg(feature = "china")]
pub use cn::build as china_notifier;

#[cfg(feature = "china")]
mod cn {
    use super::{SenderVars, MAIL_SECRET_VAR, SMS_SECRET_VAR};
    use crate::secrets::{read, TIMEOUT};
    use ciam_core::Notifier;
    use ciam_mail::{SmtpMailer, SmtpNotifier, SmtpSettings, TlsMode};
    use ciam_notify::{Provider, Setting, SmsSettings, Split};
    use serde_json::{Map, Value};
    use std::sync::Arc;

    /// The notifier of the cn cell: mail through the relay of `CIAM_MAIL_RELAY_SECRET` (else
    /// `ses`, which the cn stack never leaves in place), SMS through the providers of
    /// `CIAM_SMS_PROVIDER_SECRET` when given. Both secrets are read concurrently.
    pub async fn build(
        client: &aws_sdk_secretsmanager::Client,
        vars: &SenderVars,
        from: Option<String>,
        ses: Arc<dyn Notifier>,
    ) -> Result<Arc<dyn Notifier>, String> {
        let one = |var: &'static str, id: Option<&String>| {
            let id = id.cloned();
            async move {
                match id {
                    Some(id) => read(client, var, &id, TIMEOUT).await.map(Some),
                    None => Ok(None),
                }
            }
        };
        let (sms, mail) = tokio::try_join!(
            one(SMS_SECRET_VAR, vars.sms_secret.as_ref()),
            one(MAIL_SECRET_VAR, vars.mail_secret.as_ref()),
        )?;
        let sms = match sms {
            Some(secret) => Some(sms_notifier(&secret.into_fields(), vars)?),
            None => None,
        };
        Ok(match mail {
            Some(secret) => {
                let config =
                    smtp_settings(&secret.into_fields(), vars, from)?.config(&relay_key)?;
                let mailer = SmtpMailer::new(config)
                    .map_err(|e| format!("{MAIL_SECRET_VAR}: the relay: {e}"))?;
                Arc::new(SmtpNotifier::new(mailer, sms))
            }
            None => match sms {
                Some(sms) => Arc::new(Split { mail: ses, sms }),
                None => ses,
            },
        })
    }

    /// `{"aliyun": {"accessKeyId", "accessKeySecret"}, "tencent": {"secretId", "secretKey"}}`
    /// (only the providers `CIAM_SMS` and `CIAM_SMS_FALLBACK` name), with the environment's
    /// choice, signatures and templates.
    fn sms_notifier(
        secret: &Map<String, Value>,
        vars: &SenderVars,
    ) -> Result<Arc<dyn Notifier>, String> {
        only_keys(secret, SMS_SECRET_VAR, "", &["aliyun", "tencent"])?;
        let provider = |var: &str| match vars.var(var) {
            "" => Ok(None),
            v => Provider::parse(v)
                .map(Some)
                .ok_or_else(|| format!("{var} must be aliyun or tencent")),
        };
        let (primary, fallback) = (provider("CIAM_SMS")?, provider("CIAM_SMS_FALLBACK")?);
        let uses = |p: Provider| primary == Some(p) || fallback == Some(p);
        let keys = |name: &str, id: &str, key: &str, used: bool| {
            let object = match secret.get(name) {
                None | Some(Value::Null) if !used => return Ok((String::new(), String::new())),
                None | Some(Value::Null) => {
                    return Err(format!("{SMS_SECRET_VAR}: {name} is missing"))
                }
                Some(Value::Object(o)) => o,
                Some(_) => return Err(format!("{SMS_SECRET_VAR}: {name} must be an object")),
            };
            only_keys(object, SMS_SECRET_VAR, name, &[id, key])?;
            Ok((
                string(object, SMS_SECRET_VAR, name, id)?.unwrap_or_default(),
                string(object, SMS_SECRET_VAR, name, key)?.unwrap_or_default(),
            ))
        };
        let (ali_id, ali_secret) = keys(
            "aliyun",
            "accessKeyId",
            "accessKeySecret",
            uses(Provider::Aliyun),
        )?;
        let (tc_id, tc_key) = keys("tencent", "secretId", "secretKey", uses(Provider::Tencent))?;
        let endpoint = |var: &str, default: &str| match vars.var(var) {
            "" => default.to_owned(),
            v => v.to_owned(),
        };
        let settings = SmsSettings {
            primary,
            fallback,
            aliyun: ciam_notify::AliyunSettings {
                endpoint: endpoint("CIAM_ALIYUN_SMS_ENDPOINT", ciam_notify::aliyun::ENDPOINT),
                access_key_id: ali_id,
                access_key_secret: ali_secret,
                sign_name: vars.var("CIAM_ALIYUN_SMS_SIGN_NAME").to_owned(),
                templates: vars.var("CIAM_ALIYUN_SMS_TEMPLATES").to_owned(),
            },
            tencent: ciam_notify::TencentSettings {
                endpoint: endpoint("CIAM_TENCENT_SMS_ENDPOINT", ciam_notify::tencent::ENDPOINT),
                secret_id: tc_id,
                secret_key: tc_key,
                sdk_app_id: vars.var("CIAM_TENCENT_SMS_SDK_APP_ID").to_owned(),
                sign_name: vars.var("CIAM_TENCENT_SMS_SIGN_NAME").to_owned(),
                templates: vars.var("CIAM_TENCENT_SMS_TEMPLATES").to_owned(),
                region: endpoint("CIAM_TENCENT_SMS_REGION", "ap-guangzhou"),
            },
        };
        settings.notifier(&sms_key)?.ok_or_else(|| {
            format!("{SMS_SECRET_VAR} is set: CIAM_SMS must name the primary provider")
        })
    }

    /// A setting of the SMS builder as the cn cell spells it.
    fn sms_key(s: Setting) -> String {
        let secret = |key: &str| format!("{SMS_SECRET_VAR}: {key}");
        match s {
            Setting::Primary => "CIAM_SMS".into(),
            Setting::Fallback => "CIAM_SMS_FALLBACK".into(),
            Setting::AliyunEndpoint => "CIAM_ALIYUN_SMS_ENDPOINT".into(),
            Setting::AliyunAccessKeyId => secret("aliyun.accessKeyId"),
            Setting::AliyunAccessKeySecret => secret("aliyun.accessKeySecret"),
            Setting::AliyunSignName => "CIAM_ALIYUN_SMS_SIGN_NAME".into(),
            Setting::AliyunTemplates => "CIAM_ALIYUN_SMS_TEMPLATES".into(),
            Setting::TencentEndpoint => "CIAM_TENCENT_SMS_ENDPOINT".into(),
            Setting::TencentSecretId => secret("tencent.secretId"),
            Setting::TencentSecretKey => secret("tencent.secretKey"),
            Setting::TencentSdkAppId => "CIAM_TENCENT_SMS_SDK_APP_ID".into(),
            Setting::TencentSignName => "CIAM_TENCENT_SMS_SIGN_NAME".into(),
            Setting::TencentTemplates => "CIAM_TENCENT_SMS_TEMPLATES".into(),
            Setting::TencentRegion => "CIAM_TENCENT_SMS_REGION".into(),
        }
    }

    /// `{"host", "port"?, "tls"?, "user"?, "password"?}`, the sender from `CIAM_MAIL_FROM`.
    fn smtp_settings(
        secret: &Map<String, Value>,
        vars: &SenderVars,
        from: Option<String>,
    ) -> Result<SmtpSettings, String> {
        only_keys(
            secret,
            MAIL_SECRET_VAR,
            "",
            &["host", "port", "tls", "user", "password"],
        )?;
        let port = match secret.get("port") {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => n.as_u64(),
            Some(Value::String(s)) => s.trim().parse().ok(),
            Some(_) => Some(0),
        }
        .map(|p| u16::try_from(p).unwrap_or(0));
        let bad_port = secret.get("port").is_some_and(|v| !v.is_null()) && port.is_none();
        if bad_port {
            return Err(format!("{MAIL_SECRET_VAR}: port must be a port number"));
        }
        let tls = string(secret, MAIL_SECRET_VAR, "", "tls")?
            .map(|t| TlsMode::parse(&t).map_err(|e| format!("{MAIL_SECRET_VAR}: tls: {e}")))
            .transpose()?;
        let ca = match vars.var("CIAM_SMTP_CA") {
            "" => None,
            path => Some(std::fs::read(path).map_err(|e| format!("CIAM_SMTP_CA {path}: {e}"))?),
        };
        Ok(SmtpSettings {
            host: string(secret, MAIL_SECRET_VAR, "", "host")?,
            port,
            tls,
            user: string(secret, MAIL_SECRET_VAR, "", "user")?,
            password: string(secret, MAIL_SECRET_VAR, "", "password")?,
            from,
            from_name: Some(vars.var("CIAM_MAIL_FROM_NAME").to_owned()),
            extra_root_pem: ca,
        })
    }

    /// A setting of the relay as the cn cell spells it.
    fn relay_key(s: ciam_mail::Setting) -> String {
        use ciam_mail::Setting as S;
        match s {
            S::From => "CIAM_MAIL_FROM (the stack's MailFrom)".into(),
            S::Host => format!("{MAIL_SECRET_VAR}: host"),
            S::Port => format!("{MAIL_SECRET_VAR}: port"),
            S::Tls => format!("{MAIL_SECRET_VAR}: tls"),
            S::User => format!("{MAIL_SECRET_VAR}: user"),
            S::Password => format!("{MAIL_SECRET_VAR}: password"),
        }
    }

    /// `object[key]` as a string: absent or null is None, another type an error naming it.
    fn string(
        object: &Map<String, Value>,
        var: &str,
        at: &str,
        key: &str,
    ) -> Result<Option<String>, String> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("{var}: {} must be a string", path(at, key))),
        }
    }

    /// Refuses a key the shape does not have (a misspelt `accesKeyId` is not silently absent).
    fn only_keys(
        object: &Map<String, Value>,
        var: &str,
        at: &str,
        keys: &[&str],
    ) -> Result<(), String> {
        match object.keys().find(|k| !keys.contains(&k.as_str())) {
            Some(k) => Err(format!(
                "{var}: {} is not a key of this secret (expected {})",
                path(at, k),
                keys.join(", ")
            )),
            None => Ok(()),
        }
    }

    fn path(at: &str, key: &str) -> String {
        if at.is_empty() {
            key.to_owned()
        } else {
            format!("{at}.{key}")
        }
    }
}
