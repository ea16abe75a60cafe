//! What an operator sets for the relay. Plain values only: `ciam serve` reads them from flags and
//! the environment, a Lambda from its environment and Secrets Manager (the password), and both
//! hand them here the same way.

use std::fmt;
use std::time::Duration;

/// How the connection is secured. Both always encrypt before AUTH: there is no plaintext mode
/// (the password and the codes would cross the network in clear).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TlsMode {
    /// Port 587 by custom: plaintext greeting, then `STARTTLS`, required (a server that does not
    /// offer it is an error, never a downgrade).
    StartTls,
    /// Port 465 by custom: TLS from the first byte (RFC 8314's preference).
    Implicit,
}

impl TlsMode {
    /// `starttls` or `implicit`, as the flag and the environment spell it.
    pub fn parse(raw: &str) -> Result<TlsMode, String> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "starttls" => Ok(TlsMode::StartTls),
            "implicit" | "tls" | "smtps" => Ok(TlsMode::Implicit),
            other => Err(format!(
                "SMTP TLS mode `{other}`: expected starttls or implicit"
            )),
        }
    }

    /// The port a relay listens on for this mode when none is given.
    pub fn default_port(self) -> u16 {
        match self {
            TlsMode::StartTls => 587,
            TlsMode::Implicit => 465,
        }
    }
}

#[derive(Clone)]
pub struct SmtpConfig {
    /// The relay's host name: also the name its certificate must carry.
    pub host: String,
    pub port: u16,
    pub tls: TlsMode,
    /// The SMTP user (DirectMail: the sender address itself; Tencent SES: the sender address
    /// too) and its password. None: no AUTH (a relay that trusts the network; not the vendors').
    pub credentials: Option<(String, String)>,
    /// The envelope sender and `From:` address (one the relay lets this user send as).
    pub from: String,
    /// The `From:` display name, e.g. "Ciam"; UTF-8 allowed (encoded in the header).
    pub from_name: Option<String>,
    /// PEM certificates trusted besides the system's roots: a test relay's self-signed one, or a
    /// private relay's CA.
    pub extra_root_pem: Option<Vec<u8>>,
    /// The name said in EHLO; the From address's domain when not given.
    pub hello_name: Option<String>,
    /// For connecting and for each reply: a Lambda must answer well before its own timeout.
    pub timeout: Duration,
}

impl SmtpConfig {
    /// A configuration with the custom port of the TLS mode, the From address's domain in EHLO
    /// and a 10 s timeout.
    pub fn new(host: &str, tls: TlsMode, from: &str) -> SmtpConfig {
        SmtpConfig {
            host: host.trim().to_owned(),
            port: tls.default_port(),
            tls,
            credentials: None,
            from: from.trim().to_owned(),
            from_name: None,
            extra_root_pem: None,
            hello_name: None,
            timeout: Duration::from_secs(10),
        }
    }

    pub fn with_credentials(mut self, user: &str, password: &str) -> SmtpConfig {
        self.credentials = Some((user.to_owned(), password.to_owned()));
        self
    }
}

/// Never prints the password.
impl fmt::Debug for SmtpConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("tls", &self.tls)
            .field("user", &self.credentials.as_ref().map(|(u, _)| u))
            .field("from", &self.from)
            .field("from_name", &self.from_name)
            .field("extra_root_pem", &self.extra_root_pem.is_some())
            .field("hello_name", &self.hello_name)
            .field("timeout", &self.timeout)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tls_modes_parse_from_their_flag_spellings_and_nothing_else() {
        assert_eq!(TlsMode::parse("STARTTLS"), Ok(TlsMode::StartTls));
        assert_eq!(TlsMode::parse(" implicit "), Ok(TlsMode::Implicit));
        assert!(TlsMode::parse("none")
            .unwrap_err()
            .contains("starttls or implicit"));
        assert_eq!(TlsMode::StartTls.default_port(), 587);
        assert_eq!(TlsMode::Implicit.default_port(), 465);
    }

    #[test]
    fn the_debug_form_of_a_configuration_never_shows_the_password() {
        let c = SmtpConfig::new(
            "smtpdm.aliyun.com",
            TlsMode::Implicit,
            "no-reply@mail.example",
        )
        .with_credentials("no-reply@mail.example", "s3cret-pw");
        let shown = format!("{c:?}");
        assert!(!shown.contains("s3cret-pw"), "{shown}");
        assert!(shown.contains("no-reply@mail.example"), "{shown}");
    }
}
