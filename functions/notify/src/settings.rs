//! The one builder of the SMS notifier, from plain values: `ciam serve` fills [`SmsSettings`]
//! from its flags, a Lambda of the cn cell from its environment (the stack's parameters) and its
//! provider secret (Secrets Manager), and both get the same checks and the same notifier. Its
//! errors name each setting the way the caller spells it ([`Setting`], the `name` function):
//! `--aliyun-templates` for one, `CIAM_SMS_PROVIDER_SECRET: aliyun.accessKeySecret` for the other.
//!
//! A provider whose settings are incomplete is refused whole, never built half-working: every
//! key, the signature, and a template for every code purpose in every language (a language-less
//! default counts). Templates for notices stay optional (docs/china-messaging.md §2).

use crate::{Aliyun, AliyunConfig, Failover, SmsNotifier, Templates, Tencent, TencentConfig};
use ciam_core::{Lang, Notifier, Purpose};
use std::fmt;
use std::sync::Arc;

/// One of the two providers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provider {
    Aliyun,
    Tencent,
}

impl Provider {
    /// `aliyun` or `tencent`.
    pub fn parse(raw: &str) -> Option<Provider> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "aliyun" => Some(Provider::Aliyun),
            "tencent" => Some(Provider::Tencent),
            _ => None,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Provider::Aliyun => "Aliyun SMS",
            Provider::Tencent => "Tencent Cloud SMS",
        }
    }
}

/// Each setting, for the caller to name in its errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    Primary,
    Fallback,
    AliyunEndpoint,
    AliyunAccessKeyId,
    AliyunAccessKeySecret,
    AliyunSignName,
    AliyunTemplates,
    TencentEndpoint,
    TencentSecretId,
    TencentSecretKey,
    TencentSdkAppId,
    TencentSignName,
    TencentTemplates,
    TencentRegion,
}

/// Aliyun SMS: the key pair, the registered signature, the templates (`Templates::parse`).
#[derive(Clone, Default)]
pub struct AliyunSettings {
    pub endpoint: String,
    pub access_key_id: String,
    pub access_key_secret: String,
    pub sign_name: String,
    pub templates: String,
}

/// Tencent Cloud SMS: the key pair, the SMS application, the signature, the templates, the
/// API region.
#[derive(Clone, Default)]
pub struct TencentSettings {
    pub endpoint: String,
    pub secret_id: String,
    pub secret_key: String,
    pub sdk_app_id: String,
    pub sign_name: String,
    pub templates: String,
    pub region: String,
}

/// Which provider texts first, which one takes over on its failure, and each one's settings.
#[derive(Clone, Default)]
pub struct SmsSettings {
    /// None: no SMS provider (`ciam serve`'s dev outbox).
    pub primary: Option<Provider>,
    pub fallback: Option<Provider>,
    pub aliyun: AliyunSettings,
    pub tencent: TencentSettings,
}

/// Never prints a key.
impl fmt::Debug for SmsSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmsSettings")
            .field("primary", &self.primary)
            .field("fallback", &self.fallback)
            .field("aliyun_endpoint", &self.aliyun.endpoint)
            .field("aliyun_access_key_id", &self.aliyun.access_key_id)
            .field("tencent_endpoint", &self.tencent.endpoint)
            .field("tencent_secret_id", &self.tencent.secret_id)
            .finish_non_exhaustive()
    }
}

impl SmsSettings {
    /// The notifier of phones: the primary provider, behind [`Failover`] when a fallback is
    /// set; None without a primary. `name` spells a setting in the caller's words.
    pub fn notifier(
        &self,
        name: &dyn Fn(Setting) -> String,
    ) -> Result<Option<Arc<dyn Notifier>>, String> {
        let Some(primary) = self.primary else {
            return match self.fallback {
                Some(_) => Err(format!(
                    "{} needs {}",
                    name(Setting::Fallback),
                    name(Setting::Primary)
                )),
                None => Ok(None),
            };
        };
        if self.fallback == Some(primary) {
            return Err(format!(
                "{} must be the other provider",
                name(Setting::Fallback)
            ));
        }
        let first = self.provider(primary, name)?;
        Ok(Some(match self.fallback {
            None => first,
            Some(f) => Arc::new(Failover {
                primary: first,
                fallback: self.provider(f, name)?,
            }),
        }))
    }

    fn provider(
        &self,
        p: Provider,
        name: &dyn Fn(Setting) -> String,
    ) -> Result<Arc<dyn Notifier>, String> {
        let need = |s: Setting, v: &str| {
            let v = v.trim();
            if v.is_empty() {
                Err(format!("{} is needed by {}", name(s), p.label()))
            } else {
                Ok(v.to_owned())
            }
        };
        match p {
            Provider::Aliyun => {
                let a = &self.aliyun;
                let templates = templates(&need(Setting::AliyunTemplates, &a.templates)?)
                    .map_err(|e| format!("{}: {e}", name(Setting::AliyunTemplates)))?;
                let provider = Aliyun::new(AliyunConfig {
                    endpoint: need(Setting::AliyunEndpoint, &a.endpoint)?,
                    access_key_id: need(Setting::AliyunAccessKeyId, &a.access_key_id)?,
                    access_key_secret: need(Setting::AliyunAccessKeySecret, &a.access_key_secret)?,
                    sign_name: need(Setting::AliyunSignName, &a.sign_name)?,
                })
                .map_err(|e| format!("{}: {e}", name(Setting::AliyunEndpoint)))?;
                Ok(Arc::new(SmsNotifier::new(provider, templates)))
            }
            Provider::Tencent => {
                let t = &self.tencent;
                let templates = templates(&need(Setting::TencentTemplates, &t.templates)?)
                    .map_err(|e| format!("{}: {e}", name(Setting::TencentTemplates)))?;
                let provider = Tencent::new(TencentConfig {
                    endpoint: need(Setting::TencentEndpoint, &t.endpoint)?,
                    secret_id: need(Setting::TencentSecretId, &t.secret_id)?,
                    secret_key: need(Setting::TencentSecretKey, &t.secret_key)?,
                    sdk_app_id: need(Setting::TencentSdkAppId, &t.sdk_app_id)?,
                    sign_name: need(Setting::TencentSignName, &t.sign_name)?,
                    region: need(Setting::TencentRegion, &t.region)?,
                })
                .map_err(|e| format!("{}: {e}", name(Setting::TencentEndpoint)))?;
                Ok(Arc::new(SmsNotifier::new(provider, templates)))
            }
        }
    }
}

/// Parsed, with a template for every code purpose in every language: a sign-in that cannot
/// send its code is a broken sender, found at start rather than by the first person it fails.
fn templates(spec: &str) -> Result<Templates, String> {
    let t = Templates::parse(spec)?;
    let missing: Vec<String> = Purpose::ALL
        .iter()
        .flat_map(|p| [Lang::ZhCn, Lang::EnUs].map(move |l| (p, l)))
        .filter(|(p, l)| t.pick(p.template(), *l).is_none())
        .map(|(p, l)| format!("{}@{}", p.template(), l.tag()))
        .collect();
    if missing.is_empty() {
        Ok(t)
    } else {
        Err(format!("no template for {}", missing.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL_CODES: &str = "register=SMS_1,login=SMS_2,resetPassword=SMS_3,bind=SMS_4";

    fn flag(s: Setting) -> String {
        format!("{s:?}")
    }

    fn aliyun() -> AliyunSettings {
        AliyunSettings {
            endpoint: "https://dysmsapi.aliyuncs.com".into(),
            access_key_id: "id".into(),
            access_key_secret: "s3cr3t-a".into(),
            sign_name: "Ciam".into(),
            templates: ALL_CODES.into(),
        }
    }

    fn tencent() -> TencentSettings {
        TencentSettings {
            endpoint: "https://sms.tencentcloudapi.com".into(),
            secret_id: "id".into(),
            secret_key: "s3cr3t-t".into(),
            sdk_app_id: "1400006666".into(),
            sign_name: "Ciam".into(),
            templates: ALL_CODES.into(),
            region: "ap-guangzhou".into(),
        }
    }

    fn both(primary: Provider, fallback: Option<Provider>) -> SmsSettings {
        SmsSettings {
            primary: Some(primary),
            fallback,
            aliyun: aliyun(),
            tencent: tencent(),
        }
    }

    fn err(s: &SmsSettings) -> String {
        s.notifier(&flag).err().unwrap_or_default()
    }

    #[test]
    fn complete_settings_build_a_provider_or_a_failover_pair() {
        assert!(SmsSettings::default().notifier(&flag).unwrap().is_none());
        let one = both(Provider::Aliyun, None);
        assert!(one.notifier(&flag).unwrap().is_some());
        let pair = both(Provider::Tencent, Some(Provider::Aliyun));
        assert!(pair.notifier(&flag).unwrap().is_some());
    }

    #[test]
    fn each_missing_setting_is_named_and_nothing_is_built() {
        type Break = fn(&mut SmsSettings);
        let cases: [(&str, Break); 6] = [
            ("AliyunAccessKeySecret", |s| {
                s.aliyun.access_key_secret = " ".into()
            }),
            ("AliyunSignName", |s| s.aliyun.sign_name.clear()),
            ("TencentSdkAppId", |s| s.tencent.sdk_app_id.clear()),
            ("TencentRegion", |s| s.tencent.region.clear()),
            ("TencentTemplates", |s| s.tencent.templates.clear()),
            ("AliyunEndpoint", |s| s.aliyun.endpoint = "not a url".into()),
        ];
        for (named, break_it) in cases {
            // The fallback's settings are checked too: a pair is whole or refused.
            let mut s = both(Provider::Aliyun, Some(Provider::Tencent));
            break_it(&mut s);
            let e = err(&s);
            assert!(e.starts_with(named), "{named}: {e}");
            assert!(!e.contains("s3cr3t"), "a key leaked: {e}");
        }
    }

    #[test]
    fn a_template_set_must_cover_every_code_purpose_in_every_language() {
        let mut s = both(Provider::Aliyun, None);
        s.aliyun.templates =
            "register=SMS_1,login=SMS_2,bind=SMS_4,resetPassword@zh-CN=SMS_3".into();
        let e = err(&s);
        assert!(
            e.starts_with("AliyunTemplates: no template for resetPassword@en-US"),
            "{e}"
        );
        s.aliyun.templates = "register".into();
        assert!(err(&s).contains("expected key[@lang]=template"));
        s.aliyun.templates = format!("{ALL_CODES},phoneChanged@en-US=SMS_9");
        assert!(s.notifier(&flag).is_ok());
    }

    #[test]
    fn the_fallback_is_the_other_provider_and_needs_a_primary() {
        let e = err(&both(Provider::Aliyun, Some(Provider::Aliyun)));
        assert_eq!(e, "Fallback must be the other provider");
        let e = err(&SmsSettings {
            fallback: Some(Provider::Tencent),
            ..SmsSettings::default()
        });
        assert_eq!(e, "Fallback needs Primary");
        assert_eq!(Provider::parse(" Tencent "), Some(Provider::Tencent));
        assert_eq!(Provider::parse("outbox"), None);
    }

    #[test]
    fn the_debug_form_shows_no_key() {
        let shown = format!("{:?}", both(Provider::Aliyun, None));
        assert!(!shown.contains("s3cr3t"), "{shown}");
    }
}
