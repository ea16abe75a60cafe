//! The message as the relay receives it: `text/plain; charset=utf-8`, the body in a
//! transfer encoding that is 7-bit clean (quoted-printable or base64, lettre picks the shorter:
//! no relay needs 8BITMIME), a Chinese subject or display name as RFC 2047 encoded words, and
//! `Auto-Submitted: auto-generated` (RFC 3834) so that vacation responders stay quiet.

use crate::error::MailError;
use lettre::address::Envelope;
use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::message::Mailbox;
use lettre::{Address, Message};

/// One mail to send: the recipient's address, the subject and the plain-text body.
#[derive(Clone, Copy, Debug)]
pub struct Outgoing<'a> {
    pub to: &'a str,
    pub subject: &'a str,
    pub text: &'a str,
}

/// The sender's mailbox (address and display name), checked once at start.
pub(crate) fn sender(from: &str, name: Option<&str>) -> Result<Mailbox, MailError> {
    let address: Address = from
        .parse()
        .map_err(|e| MailError::Config(format!("the From address `{from}`: {e}")))?;
    let name = name.map(str::trim).filter(|n| !n.is_empty());
    Ok(Mailbox::new(name.map(str::to_owned), address))
}

/// The envelope and the bytes of the message to `mail.to`, from `from`; `id` makes the
/// Message-ID unique (random bytes from the caller).
pub(crate) fn build(
    from: &Mailbox,
    mail: Outgoing<'_>,
    id: [u8; 16],
) -> Result<(Envelope, Vec<u8>), MailError> {
    let to: Address = mail
        .to
        .parse()
        .map_err(|e| MailError::Config(format!("the recipient address: {e}")))?;
    let id: String = id.iter().map(|b| format!("{b:02x}")).collect();
    let auto = HeaderName::new_from_ascii_str("Auto-Submitted");
    let message = Message::builder()
        .from(from.clone())
        .to(Mailbox::new(None, to))
        .subject(mail.subject)
        .message_id(Some(format!("<{id}@{}>", from.email.domain())))
        .raw_header(HeaderValue::new(auto, "auto-generated".to_owned()))
        .header(ContentType::TEXT_PLAIN)
        .body(mail.text.to_owned())
        .map_err(|e| MailError::Config(format!("the message: {e}")))?;
    Ok((message.envelope().clone(), message.formatted()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn formatted(subject: &str, text: &str, name: Option<&str>) -> String {
        let from = sender("no-reply@mail.example", name).unwrap();
        let mail = Outgoing {
            to: "alice@example.com",
            subject,
            text,
        };
        let (envelope, bytes) = build(&from, mail, [0xab; 16]).unwrap();
        assert_eq!(
            envelope.from().unwrap().to_string(),
            "no-reply@mail.example"
        );
        assert_eq!(envelope.to()[0].to_string(), "alice@example.com");
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn a_chinese_message_is_seven_bit_with_an_encoded_subject_and_sender_name() {
        let m = formatted("Ciam 验证码", "您的验证码是 493817。", Some("Ciam 账号"));
        assert!(m.is_ascii(), "{m}");
        // Only the words that need it are encoded (RFC 2047 §5).
        assert!(m.contains("Subject: Ciam =?utf-8?b?"), "{m}");
        assert!(m.contains("From: =?utf-8?"), "{m}");
        assert!(m.contains("Content-Type: text/plain; charset=utf-8"), "{m}");
        assert!(m.contains("Auto-Submitted: auto-generated"), "{m}");
        assert!(
            m.contains(&format!("Message-ID: <{}@mail.example>", "ab".repeat(16))),
            "{m}"
        );
        assert!(m.contains("Date: "), "{m}");
    }

    #[test]
    fn an_english_message_keeps_its_subject_readable() {
        let m = formatted("Your Ciam verification code", "Your code is 493817.", None);
        assert!(m.contains("Subject: Your Ciam verification code"), "{m}");
        assert!(m.contains("From: no-reply@mail.example"), "{m}");
    }

    #[test]
    fn a_bad_sender_or_recipient_is_a_configuration_error() {
        assert!(matches!(
            sender("not an address", None),
            Err(MailError::Config(_))
        ));
        let from = sender("no-reply@mail.example", None).unwrap();
        let mail = Outgoing {
            to: "nobody",
            subject: "s",
            text: "t",
        };
        assert!(matches!(
            build(&from, mail, [0; 16]),
            Err(MailError::Config(_))
        ));
    }
}
