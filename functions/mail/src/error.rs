//! Why a mail did not go out, told apart the way a caller must act on it: a refused recipient is
//! final for that address (no retry, no other relay); a transient failure (a 4xx reply, no
//! connection, a TLS failure, a timeout) may succeed later or elsewhere; any other refusal is
//! the operator's to fix (credentials, sender, a relay without STARTTLS). The texts carry the
//! relay's reply but never the message, and the recipient only masked.

use std::fmt;

/// Where in the SMTP session a failure happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Connect,
    StartTls,
    Auth,
    MailFrom,
    RcptTo,
    Data,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Step::Connect => "connect",
            Step::StartTls => "STARTTLS",
            Step::Auth => "AUTH",
            Step::MailFrom => "MAIL FROM",
            Step::RcptTo => "RCPT TO",
            Step::Data => "DATA",
        })
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MailError {
    /// A 5xx reply to RCPT TO: the relay will not deliver to this address.
    #[error("SMTP relay refused the recipient (permanent, RCPT TO: {reply})")]
    RecipientRefused { reply: String },
    /// A 5xx reply at another step, or a relay that lacks what is required (STARTTLS, an AUTH
    /// mechanism Ciam speaks): retrying will not help, the configuration must change.
    #[error("SMTP relay refused at {step} (permanent: {reply})")]
    Refused { step: Step, reply: String },
    /// A 4xx reply, no connection, a TLS failure, a timeout, a dropped connection.
    #[error("SMTP relay failed at {step} (transient: {detail})")]
    Transient { step: Step, detail: String },
    /// The configuration or the message cannot be used (checked before any connection).
    #[error("SMTP configuration: {0}")]
    Config(String),
}

impl MailError {
    /// Worth trying again later or through another relay.
    pub fn is_transient(&self) -> bool {
        matches!(self, MailError::Transient { .. })
    }

    pub fn is_recipient_refused(&self) -> bool {
        matches!(self, MailError::RecipientRefused { .. })
    }

    /// Sorts lettre's error at `step`; `hide` is the recipient, masked in the relay's text (a
    /// relay may quote the address back).
    pub(crate) fn at(step: Step, e: &lettre::transport::smtp::Error, hide: (&str, &str)) -> Self {
        let text = e.to_string().replace(hide.0, hide.1);
        if e.is_permanent() {
            if step == Step::RcptTo {
                MailError::RecipientRefused { reply: text }
            } else {
                MailError::Refused { step, reply: text }
            }
        } else if e.is_client() {
            // lettre's own refusals: STARTTLS or no AUTH mechanism offered, a bad address.
            MailError::Refused { step, reply: text }
        } else {
            MailError::Transient { step, detail: text }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_texts_say_which_kind_of_failure_it_was() {
        let r = MailError::RecipientRefused {
            reply: "550 no such user".into(),
        };
        assert!(r.is_recipient_refused() && !r.is_transient());
        assert!(
            r.to_string().contains("refused the recipient (permanent"),
            "{r}"
        );
        let t = MailError::Transient {
            step: Step::Connect,
            detail: "connection refused".into(),
        };
        assert!(t.is_transient() && !t.is_recipient_refused());
        assert_eq!(
            t.to_string(),
            "SMTP relay failed at connect (transient: connection refused)"
        );
        let a = MailError::Refused {
            step: Step::Auth,
            reply: "535 bad credentials".into(),
        };
        assert!(!a.is_transient() && !a.is_recipient_refused());
        assert!(a.to_string().contains("at AUTH (permanent"), "{a}");
    }
}
