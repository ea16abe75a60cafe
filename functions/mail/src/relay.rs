//! One SMTP session per mail, step by step (connect, STARTTLS when asked, AUTH, MAIL FROM,
//! RCPT TO, DATA) on lettre's connection, so that an error names the step that failed: a 5xx to
//! RCPT TO is a refused recipient, a 5xx elsewhere a configuration to fix. No pool: a Lambda
//! sends one mail per invocation and `ciam serve` a few a minute; a fresh session also never
//! finds a connection the relay closed while idle.

use crate::config::{SmtpConfig, TlsMode};
use crate::error::{MailError, Step};
use crate::message::{self, Outgoing};
use ciam_core::validate::Email;
use ciam_core::OsEntropy;
use lettre::address::Envelope;
use lettre::message::Mailbox;
use lettre::transport::smtp::authentication::{Credentials, Mechanism};
use lettre::transport::smtp::client::{AsyncSmtpConnection, Certificate, TlsParameters};
use lettre::transport::smtp::commands::{Data, Mail, Rcpt};
use lettre::transport::smtp::extension::ClientId;
use std::time::Duration;

/// PLAIN first (one round trip), LOGIN for relays that offer only it.
const MECHANISMS: [Mechanism; 2] = [Mechanism::Plain, Mechanism::Login];

/// Sends mail through one relay; cheap to share (`Arc`), each `send` its own session.
pub struct SmtpMailer {
    host: String,
    port: u16,
    mode: TlsMode,
    tls: TlsParameters,
    credentials: Option<Credentials>,
    from: Mailbox,
    hello: ClientId,
    timeout: Duration,
}

impl SmtpMailer {
    /// Checks the configuration (the From address, the extra root certificate) without
    /// connecting: a bad one fails at start, not at the first sign-up.
    pub fn new(cfg: SmtpConfig) -> Result<SmtpMailer, MailError> {
        if cfg.host.is_empty() {
            return Err(MailError::Config("the relay's host name is empty".into()));
        }
        let mut tls = TlsParameters::builder(cfg.host.clone());
        if let Some(pem) = &cfg.extra_root_pem {
            // lettre takes a PEM without any certificate in it as an empty list.
            if !String::from_utf8_lossy(pem).contains("-----BEGIN CERTIFICATE-----") {
                return Err(MailError::Config(
                    "the extra root certificate: no PEM certificate in it".into(),
                ));
            }
            let cert = Certificate::from_pem(pem)
                .map_err(|e| MailError::Config(format!("the extra root certificate: {e}")))?;
            tls = tls.add_root_certificate(cert);
        }
        let tls = tls
            .build_rustls()
            .map_err(|e| MailError::Config(format!("TLS: {e}")))?;
        let from = message::sender(&cfg.from, cfg.from_name.as_deref())?;
        let hello = cfg
            .hello_name
            .clone()
            .unwrap_or_else(|| from.email.domain().to_owned());
        Ok(SmtpMailer {
            host: cfg.host,
            port: cfg.port,
            mode: cfg.tls,
            tls,
            credentials: cfg
                .credentials
                .map(|(user, password)| Credentials::new(user, password)),
            from,
            hello: ClientId::Domain(hello),
            timeout: cfg.timeout,
        })
    }

    /// Sends one mail; the whole session is bounded by the configured timeout.
    pub async fn send(&self, mail: Outgoing<'_>) -> Result<(), MailError> {
        let (envelope, bytes) =
            message::build(&self.from, mail, ciam_core::random::<16>(&OsEntropy))?;
        let masked = Email::parse(mail.to)
            .map(|e| e.masked())
            .unwrap_or_else(|_| "***".to_owned());
        let hide = (mail.to, masked.as_str());
        let mut step = Step::Connect;
        match tokio::time::timeout(
            self.timeout,
            self.session(&envelope, &bytes, hide, &mut step),
        )
        .await
        {
            Ok(sent) => sent,
            Err(_) => Err(MailError::Transient {
                step,
                detail: format!("no answer within {} s", self.timeout.as_secs_f32()),
            }),
        }
    }

    async fn session(
        &self,
        envelope: &Envelope,
        bytes: &[u8],
        hide: (&str, &str),
        step: &mut Step,
    ) -> Result<(), MailError> {
        let implicit = (self.mode == TlsMode::Implicit).then(|| self.tls.clone());
        let mut conn = AsyncSmtpConnection::connect_tokio1(
            (self.host.as_str(), self.port),
            Some(self.timeout),
            &self.hello,
            implicit,
            None,
        )
        .await
        .map_err(|e| MailError::at(Step::Connect, &e, hide))?;
        let sent = self
            .transaction(&mut conn, envelope, bytes, hide, step)
            .await;
        match sent {
            // The mail is accepted once DATA is: a failed QUIT changes nothing.
            Ok(()) => {
                let _ = conn.quit().await;
            }
            // A failed STARTTLS leaves lettre's connection without a stream (its QUIT would
            // panic) or already aborted: dropping it closes the socket.
            Err(_) if *step == Step::StartTls => drop(conn),
            Err(_) => conn.abort().await,
        }
        sent
    }

    async fn transaction(
        &self,
        conn: &mut AsyncSmtpConnection,
        envelope: &Envelope,
        bytes: &[u8],
        hide: (&str, &str),
        step: &mut Step,
    ) -> Result<(), MailError> {
        let at =
            |step: Step| move |e: lettre::transport::smtp::Error| MailError::at(step, &e, hide);
        if self.mode == TlsMode::StartTls {
            *step = Step::StartTls;
            conn.starttls(self.tls.clone(), &self.hello)
                .await
                .map_err(at(Step::StartTls))?;
        }
        if !conn.is_encrypted() {
            // Unreachable with lettre's connection as it is; never AUTH or DATA in clear.
            return Err(MailError::Refused {
                step: *step,
                reply: "the connection is not encrypted".into(),
            });
        }
        if let Some(credentials) = &self.credentials {
            *step = Step::Auth;
            conn.auth(&MECHANISMS, credentials)
                .await
                .map_err(at(Step::Auth))?;
        }
        *step = Step::MailFrom;
        conn.command(Mail::new(envelope.from().cloned(), vec![]))
            .await
            .map_err(at(Step::MailFrom))?;
        *step = Step::RcptTo;
        for to in envelope.to() {
            conn.command(Rcpt::new(to.clone(), vec![]))
                .await
                .map_err(at(Step::RcptTo))?;
        }
        *step = Step::Data;
        conn.command(Data).await.map_err(at(Step::Data))?;
        conn.message(bytes).await.map_err(at(Step::Data))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_that_cannot_work_fails_before_any_connection() {
        let bad_from = SmtpConfig::new("smtp.example", TlsMode::Implicit, "nobody");
        assert!(matches!(
            SmtpMailer::new(bad_from),
            Err(MailError::Config(_))
        ));
        let mut bad_root = SmtpConfig::new("smtp.example", TlsMode::Implicit, "a@mail.example");
        bad_root.extra_root_pem = Some(b"not a certificate".to_vec());
        let e = SmtpMailer::new(bad_root).err().unwrap();
        assert!(e.to_string().contains("extra root certificate"), "{e}");
        let no_host = SmtpConfig::new(" ", TlsMode::StartTls, "a@mail.example");
        assert!(matches!(
            SmtpMailer::new(no_host),
            Err(MailError::Config(_))
        ));
    }

    #[tokio::test]
    async fn a_relay_that_is_not_listening_is_a_transient_failure_at_connect() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut cfg = SmtpConfig::new("127.0.0.1", TlsMode::Implicit, "a@mail.example");
        cfg.port = port;
        let mailer = SmtpMailer::new(cfg).unwrap();
        let e = mailer
            .send(Outgoing {
                to: "bob@example.com",
                subject: "s",
                text: "493817",
            })
            .await
            .unwrap_err();
        assert!(e.is_transient(), "{e}");
        assert!(
            e.to_string()
                .starts_with("SMTP relay failed at connect (transient"),
            "{e}"
        );
        assert!(!e.to_string().contains("493817"), "{e}");
    }

    #[tokio::test]
    async fn a_relay_that_never_answers_is_a_transient_failure_within_the_timeout() {
        // Accepts the connection and says nothing: the greeting never comes.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let _held = tokio::spawn(async move {
            let (socket, _) = listener.accept().await.unwrap();
            tokio::time::sleep(Duration::from_secs(30)).await;
            drop(socket);
        });
        let mut cfg = SmtpConfig::new("127.0.0.1", TlsMode::StartTls, "a@mail.example");
        cfg.port = port;
        cfg.timeout = Duration::from_millis(300);
        let started = std::time::Instant::now();
        let e = SmtpMailer::new(cfg)
            .unwrap()
            .send(Outgoing {
                to: "bob@example.com",
                subject: "s",
                text: "t",
            })
            .await
            .unwrap_err();
        assert!(e.is_transient(), "{e}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
