//! The one builder of the relay's configuration from plain values: `ciam serve` fills
//! [`SmtpSettings`] from its flags and `CIAM_SMTP_PASSWORD`, a Lambda of the cn cell from its
//! relay secret (Secrets Manager) and `CIAM_MAIL_FROM`; both get the same checks. Errors name
//! each setting the way the caller spells it ([`Setting`], the `name` function).

use crate::config::{SmtpConfig, TlsMode};

/// Each setting, for the caller to name in its errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    Host,
    Port,
    Tls,
    User,
    Password,
    From,
}

/// What an operator gives for the relay. Absent and blank are the same.
#[derive(Clone, Default)]
pub struct SmtpSettings {
    pub host: Option<String>,
    pub port: Option<u16>,
    /// Implicit TLS when not given.
    pub tls: Option<TlsMode>,
    pub user: Option<String>,
    pub password: Option<String>,
    pub from: Option<String>,
    pub from_name: Option<String>,
    pub extra_root_pem: Option<Vec<u8>>,
}

impl SmtpSettings {
    /// The relay's configuration: a host and a sender always; a user and its password together
    /// or neither (a user without its password would fail at the first AUTH, a password without
    /// a user is a setting put in the wrong place).
    pub fn config(&self, name: &dyn Fn(Setting) -> String) -> Result<SmtpConfig, String> {
        let given = |v: &Option<String>| {
            v.as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        let host = given(&self.host).ok_or_else(|| format!("{} is needed", name(Setting::Host)))?;
        let from = given(&self.from).ok_or_else(|| format!("{} is needed", name(Setting::From)))?;
        let mut cfg = SmtpConfig::new(&host, self.tls.unwrap_or(TlsMode::Implicit), &from);
        if let Some(port) = self.port {
            if port == 0 {
                return Err(format!("{} must be a port (1-65535)", name(Setting::Port)));
            }
            cfg.port = port;
        }
        cfg.from_name = given(&self.from_name);
        // The password as given: spaces may be part of it.
        let password = self.password.clone().filter(|p| !p.is_empty());
        match (given(&self.user), password) {
            (Some(user), Some(password)) => cfg = cfg.with_credentials(&user, &password),
            (Some(_), None) => {
                return Err(format!(
                    "{} needs {}",
                    name(Setting::User),
                    name(Setting::Password)
                ))
            }
            (None, Some(_)) => {
                return Err(format!(
                    "{} is set without {}",
                    name(Setting::Password),
                    name(Setting::User)
                ))
            }
            (None, None) => {}
        }
        cfg.extra_root_pem = self.extra_root_pem.clone();
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(s: Setting) -> String {
        format!("{s:?}")
    }

    fn relay() -> SmtpSettings {
        SmtpSettings {
            host: Some("smtpdm.aliyun.com".into()),
            from: Some("no-reply@mail.example".into()),
            ..SmtpSettings::default()
        }
    }

    #[test]
    fn a_host_and_a_sender_make_an_implicit_tls_relay_on_its_port() {
        let c = relay().config(&named).unwrap();
        assert_eq!(
            (c.port, c.tls, c.credentials),
            (465, TlsMode::Implicit, None)
        );
        let c = SmtpSettings {
            port: Some(2525),
            tls: Some(TlsMode::StartTls),
            user: Some("u@mail.example".into()),
            password: Some(" pw with spaces ".into()),
            from_name: Some(" ".into()),
            ..relay()
        }
        .config(&named)
        .unwrap();
        assert_eq!((c.port, c.tls), (2525, TlsMode::StartTls));
        assert_eq!(
            c.credentials,
            Some(("u@mail.example".into(), " pw with spaces ".into()))
        );
        assert_eq!(c.from_name, None);
    }

    #[test]
    fn what_is_missing_or_misplaced_is_named() {
        let e = |s: SmtpSettings| s.config(&named).err().unwrap_or_default();
        assert_eq!(
            e(SmtpSettings {
                host: Some(" ".into()),
                ..relay()
            }),
            "Host is needed"
        );
        assert_eq!(
            e(SmtpSettings {
                from: None,
                ..relay()
            }),
            "From is needed"
        );
        assert_eq!(
            e(SmtpSettings {
                port: Some(0),
                ..relay()
            }),
            "Port must be a port (1-65535)"
        );
        let user = SmtpSettings {
            user: Some("u".into()),
            ..relay()
        };
        assert_eq!(e(user), "User needs Password");
        let password = SmtpSettings {
            password: Some("pw".into()),
            ..relay()
        };
        assert_eq!(e(password), "Password is set without User");
    }
}
