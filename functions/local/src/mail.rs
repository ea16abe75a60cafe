//! `ciam serve --mail smtp`: codes and notices by mail through an SMTP relay (the `cn` cell's
//! way, docs/multi-region.md; Aliyun DirectMail or Tencent Cloud SES over SMTP), SMS still to the
//! dev outbox. Without it every message goes to the dev outbox, as before.

use ciam_mail::{Setting, SmtpConfig, SmtpMailer, SmtpNotifier, SmtpSettings, TlsMode};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum MailChoice {
    /// Every code and notice to the dev outbox (and the console).
    #[default]
    Outbox,
    /// Mail through the SMTP relay of the --smtp-* flags; SMS to the dev outbox.
    Smtp,
}

/// The mail flags of `ciam serve`. The relay's password is read from the environment only
/// (`CIAM_SMTP_PASSWORD`): a flag would show it in the process list and the shell history.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct MailOptions {
    /// Where mail goes: the dev outbox, or an SMTP relay (with --smtp-host and --mail-from).
    #[arg(long = "mail", value_enum, default_value = "outbox", env = "CIAM_MAIL")]
    pub mail: MailChoice,
    /// The SMTP relay's host name (e.g. smtpdm.aliyun.com; gz-smtp.qcloudmail.com, Guangzhou).
    #[arg(long, env = "CIAM_SMTP_HOST")]
    pub smtp_host: Option<String>,
    /// The relay's port; 465 for implicit TLS, 587 for STARTTLS when not given.
    #[arg(long, env = "CIAM_SMTP_PORT")]
    pub smtp_port: Option<u16>,
    /// implicit (TLS from the first byte) or starttls (required, never a plaintext fallback).
    #[arg(long, env = "CIAM_SMTP_TLS", default_value = "implicit", value_parser = TlsMode::parse)]
    pub smtp_tls: Option<TlsMode>,
    /// The SMTP user for AUTH PLAIN/LOGIN; its password in the environment CIAM_SMTP_PASSWORD.
    #[arg(long, env = "CIAM_SMTP_USER")]
    pub smtp_user: Option<String>,
    /// A PEM file of a CA to trust besides the system's (a private or test relay).
    #[arg(long, env = "CIAM_SMTP_CA")]
    pub smtp_ca: Option<PathBuf>,
    /// The sender address (one the relay lets the user send as).
    #[arg(long, env = "CIAM_MAIL_FROM")]
    pub mail_from: Option<String>,
    /// The sender's display name, e.g. "Ciam".
    #[arg(long, env = "CIAM_MAIL_FROM_NAME")]
    pub mail_from_name: Option<String>,
}

impl MailOptions {
    /// The relay's configuration, None for the dev outbox; `password` is CIAM_SMTP_PASSWORD.
    /// Checked by the builder the Lambdas use (`ciam_mail::SmtpSettings`).
    pub fn smtp_config(&self, password: Option<String>) -> Result<Option<SmtpConfig>, String> {
        if self.mail == MailChoice::Outbox {
            return Ok(None);
        }
        let extra_root_pem = match &self.smtp_ca {
            Some(path) => Some(
                std::fs::read(path).map_err(|e| format!("--smtp-ca {}: {e}", path.display()))?,
            ),
            None => None,
        };
        let settings = SmtpSettings {
            host: self.smtp_host.clone(),
            port: self.smtp_port,
            tls: self.smtp_tls,
            user: self.smtp_user.clone(),
            password,
            from: self.mail_from.clone(),
            from_name: self.mail_from_name.clone(),
            extra_root_pem,
        };
        settings.config(&flag).map(Some)
    }
}

/// A setting as `ciam serve` spells it.
fn flag(s: Setting) -> String {
    match s {
        Setting::Host => "--mail smtp: --smtp-host",
        Setting::Port => "--smtp-port",
        Setting::Tls => "--smtp-tls",
        Setting::User => "--smtp-user",
        Setting::Password => "its password in CIAM_SMTP_PASSWORD",
        Setting::From => "--mail smtp: --mail-from",
    }
    .to_owned()
}

/// The notifier of `ciam serve`: the dev outbox alone, or the relay for mail beside it.
pub fn notifier(
    smtp: Option<SmtpConfig>,
    outbox: Arc<dyn ciam_core::Notifier>,
) -> Result<Arc<dyn ciam_core::Notifier>, String> {
    match smtp {
        None => Ok(outbox),
        Some(cfg) => {
            let mailer = SmtpMailer::new(cfg).map_err(|e| e.to_string())?;
            Ok(Arc::new(SmtpNotifier::new(mailer, Some(outbox))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn smtp() -> MailOptions {
        MailOptions {
            mail: MailChoice::Smtp,
            smtp_host: Some("smtpdm.aliyun.com".into()),
            mail_from: Some("no-reply@mail.example".into()),
            ..MailOptions::default()
        }
    }

    #[test]
    fn the_outbox_needs_no_relay_and_smtp_needs_a_host_and_a_sender() {
        assert!(MailOptions::default().smtp_config(None).unwrap().is_none());
        let cfg = smtp().smtp_config(None).unwrap().unwrap();
        assert_eq!((cfg.port, cfg.tls), (465, TlsMode::Implicit));
        let no_host = MailOptions {
            smtp_host: None,
            ..smtp()
        };
        assert!(no_host
            .smtp_config(None)
            .unwrap_err()
            .contains("--smtp-host"));
        let no_from = MailOptions {
            mail_from: None,
            ..smtp()
        };
        assert!(no_from
            .smtp_config(None)
            .unwrap_err()
            .contains("--mail-from"));
    }

    #[test]
    fn a_user_needs_its_password_from_the_environment_and_a_port_overrides_the_default() {
        let with_user = MailOptions {
            smtp_user: Some("no-reply@mail.example".into()),
            smtp_tls: Some(TlsMode::StartTls),
            smtp_port: Some(2525),
            ..smtp()
        };
        let e = with_user.smtp_config(None).unwrap_err();
        assert!(e.contains("CIAM_SMTP_PASSWORD"), "{e}");
        let cfg = with_user.smtp_config(Some("pw".into())).unwrap().unwrap();
        assert_eq!((cfg.port, cfg.tls), (2525, TlsMode::StartTls));
        assert_eq!(
            cfg.credentials,
            Some(("no-reply@mail.example".into(), "pw".into()))
        );
        let e = smtp().smtp_config(Some("pw".into())).unwrap_err();
        assert!(e.contains("without --smtp-user"), "{e}");
        let bad_ca = MailOptions {
            smtp_ca: Some("/nonexistent/ca.pem".into()),
            ..smtp()
        };
        assert!(bad_ca.smtp_config(None).unwrap_err().contains("--smtp-ca"));
    }
}
