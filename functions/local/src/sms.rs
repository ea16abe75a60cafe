//! `ciam serve --sms aliyun|tencent|outbox [--sms-fallback aliyun|tencent]`: texts go through
//! Aliyun SMS or Tencent Cloud SMS (ciam-notify), a primary and optionally a fallback, while
//! mail stays in the dev outbox. The endpoints can point at a fake (tests, a staging relay).

use crate::outbox::DevOutbox;
use ciam_core::Notifier;
use ciam_notify::{AliyunSettings, Provider, Setting, SmsSettings, Split, TencentSettings};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SmsChoice {
    /// Codes and notices to phones land in the dev outbox (the default).
    Outbox,
    Aliyun,
    Tencent,
}

/// Which SMS provider `ciam serve` uses, and each provider's settings.
#[derive(Clone, Debug, clap::Args)]
pub struct SmsOptions {
    /// Where texts go.
    #[arg(long, value_enum, default_value = "outbox", env = "CIAM_SMS")]
    pub sms: SmsChoice,
    /// The provider a text goes to when the first one fails (throttled, 5xx, unreachable); never
    /// when it refuses the number or the number's own limit is reached.
    #[arg(long, value_enum, env = "CIAM_SMS_FALLBACK")]
    pub sms_fallback: Option<SmsChoice>,
    /// Aliyun SMS endpoint.
    #[arg(long, env = "CIAM_ALIYUN_SMS_ENDPOINT", default_value = ciam_notify::aliyun::ENDPOINT)]
    pub aliyun_endpoint: String,
    #[arg(long, env = "CIAM_ALIYUN_ACCESS_KEY_ID", default_value = "")]
    pub aliyun_access_key_id: String,
    #[arg(
        long,
        env = "CIAM_ALIYUN_ACCESS_KEY_SECRET",
        default_value = "",
        hide_env_values = true,
        hide_default_value = true
    )]
    pub aliyun_access_key_secret: String,
    /// Aliyun's registered signature (签名).
    #[arg(long, env = "CIAM_ALIYUN_SMS_SIGN_NAME", default_value = "")]
    pub aliyun_sign_name: String,
    /// Aliyun template codes, `purpose[@lang]=code,...` (purposes register, login,
    /// resetPassword, bind; notice kinds such as phoneChanged); variables ${code}, ${minutes}.
    #[arg(long, env = "CIAM_ALIYUN_SMS_TEMPLATES", default_value = "")]
    pub aliyun_templates: String,
    /// Tencent Cloud SMS endpoint.
    #[arg(long, env = "CIAM_TENCENT_SMS_ENDPOINT", default_value = ciam_notify::tencent::ENDPOINT)]
    pub tencent_endpoint: String,
    #[arg(long, env = "CIAM_TENCENT_SECRET_ID", default_value = "")]
    pub tencent_secret_id: String,
    #[arg(
        long,
        env = "CIAM_TENCENT_SECRET_KEY",
        default_value = "",
        hide_env_values = true,
        hide_default_value = true
    )]
    pub tencent_secret_key: String,
    /// Tencent's SMS application (SmsSdkAppId).
    #[arg(long, env = "CIAM_TENCENT_SMS_SDK_APP_ID", default_value = "")]
    pub tencent_sdk_app_id: String,
    /// Tencent's registered signature (签名).
    #[arg(long, env = "CIAM_TENCENT_SMS_SIGN_NAME", default_value = "")]
    pub tencent_sign_name: String,
    /// Tencent template ids, as for Aliyun; parameters {1} the code, {2} the minutes.
    #[arg(long, env = "CIAM_TENCENT_SMS_TEMPLATES", default_value = "")]
    pub tencent_templates: String,
    #[arg(long, env = "CIAM_TENCENT_SMS_REGION", default_value = "ap-guangzhou")]
    pub tencent_region: String,
}

impl SmsOptions {
    /// The notifier of `ciam serve`: the dev outbox, or mail to it and texts to the provider(s),
    /// built by the builder the Lambdas use (`ciam_notify::SmsSettings`).
    pub fn notifier(&self, outbox: &DevOutbox) -> Result<Arc<dyn Notifier>, String> {
        let provider = |c: SmsChoice| match c {
            SmsChoice::Outbox => None,
            SmsChoice::Aliyun => Some(Provider::Aliyun),
            SmsChoice::Tencent => Some(Provider::Tencent),
        };
        if self.sms_fallback == Some(SmsChoice::Outbox) {
            return Err("--sms-fallback outbox: the fallback is aliyun or tencent".into());
        }
        let settings = SmsSettings {
            primary: provider(self.sms),
            fallback: self.sms_fallback.and_then(provider),
            aliyun: AliyunSettings {
                endpoint: self.aliyun_endpoint.clone(),
                access_key_id: self.aliyun_access_key_id.clone(),
                access_key_secret: self.aliyun_access_key_secret.clone(),
                sign_name: self.aliyun_sign_name.clone(),
                templates: self.aliyun_templates.clone(),
            },
            tencent: TencentSettings {
                endpoint: self.tencent_endpoint.clone(),
                secret_id: self.tencent_secret_id.clone(),
                secret_key: self.tencent_secret_key.clone(),
                sdk_app_id: self.tencent_sdk_app_id.clone(),
                sign_name: self.tencent_sign_name.clone(),
                templates: self.tencent_templates.clone(),
                region: self.tencent_region.clone(),
            },
        };
        Ok(match settings.notifier(&flag)? {
            None => Arc::new(outbox.clone()),
            Some(sms) => Arc::new(Split {
                mail: Arc::new(outbox.clone()),
                sms,
            }),
        })
    }
}

/// A setting as `ciam serve` spells it: its flag.
fn flag(s: Setting) -> String {
    match s {
        Setting::Primary => "--sms aliyun|tencent",
        Setting::Fallback => "--sms-fallback",
        Setting::AliyunEndpoint => "--aliyun-endpoint",
        Setting::AliyunAccessKeyId => "--aliyun-access-key-id",
        Setting::AliyunAccessKeySecret => "--aliyun-access-key-secret",
        Setting::AliyunSignName => "--aliyun-sign-name",
        Setting::AliyunTemplates => "--aliyun-templates",
        Setting::TencentEndpoint => "--tencent-endpoint",
        Setting::TencentSecretId => "--tencent-secret-id",
        Setting::TencentSecretKey => "--tencent-secret-key",
        Setting::TencentSdkAppId => "--tencent-sdk-app-id",
        Setting::TencentSignName => "--tencent-sign-name",
        Setting::TencentTemplates => "--tencent-templates",
        Setting::TencentRegion => "--tencent-region",
    }
    .to_owned()
}

/// Texts to the dev outbox, every provider setting at its default.
impl Default for SmsOptions {
    fn default() -> Self {
        SmsOptions {
            sms: SmsChoice::Outbox,
            sms_fallback: None,
            aliyun_endpoint: ciam_notify::aliyun::ENDPOINT.into(),
            aliyun_access_key_id: String::new(),
            aliyun_access_key_secret: String::new(),
            aliyun_sign_name: String::new(),
            aliyun_templates: String::new(),
            tencent_endpoint: ciam_notify::tencent::ENDPOINT.into(),
            tencent_secret_id: String::new(),
            tencent_secret_key: String::new(),
            tencent_sdk_app_id: String::new(),
            tencent_sign_name: String::new(),
            tencent_templates: String::new(),
            tencent_region: "ap-guangzhou".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_provider_without_its_settings_is_refused_at_start_with_the_flag_to_give() {
        let outbox = DevOutbox::default();
        assert!(SmsOptions::default().notifier(&outbox).is_ok());
        let aliyun = SmsOptions {
            sms: SmsChoice::Aliyun,
            ..SmsOptions::default()
        };
        let e = aliyun.notifier(&outbox).err().unwrap_or_default();
        assert!(e.contains("--aliyun-templates"), "{e}");
        let e = SmsOptions {
            sms_fallback: Some(SmsChoice::Tencent),
            ..SmsOptions::default()
        }
        .notifier(&outbox)
        .err()
        .unwrap_or_default();
        assert!(e.contains("--sms-fallback"), "{e}");
        let e = SmsOptions {
            sms_fallback: Some(SmsChoice::Aliyun),
            ..aliyun
        }
        .notifier(&outbox)
        .err()
        .unwrap_or_default();
        assert!(e.contains("other provider"), "{e}");
    }
}
