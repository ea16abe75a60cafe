//! Mail through an SMTP relay: the `cn` cell has no SES, so its codes and notices go to Aliyun
//! DirectMail or Tencent Cloud SES over SMTP with TLS (issue 32 item 3), with the same texts as
//! everywhere else (`CodeMessage::text`/`subject`, `NoticeMessage`).
//!
//! Layers, each a file: `config` (what an operator sets: relay, TLS mode, credentials, sender),
//! `message` (the MIME message: UTF-8 plain text, encoded headers), `relay` (one SMTP session,
//! step by step, so a failure says where it happened), `error` (refused recipient, other refusals,
//! transient failures: told apart), `notifier` (the mail half of the `Notifier` port; phones go
//! to another notifier).
//!
//! SMTP and MIME come from `lettre` (tokio + rustls 0.23 on aws-lc-rs, the workspace's one TLS
//! stack): a maintained client that already gets dot-stuffing, header folding, RFC 2047 words
//! and AUTH right, for five crates more in the lock file.

mod config;
mod error;
mod message;
mod notifier;
mod relay;
mod settings;
#[cfg(feature = "testing")]
pub mod testing;

pub use config::{SmtpConfig, TlsMode};
pub use error::{MailError, Step};
pub use message::Outgoing;
pub use notifier::SmtpNotifier;
pub use relay::SmtpMailer;
pub use settings::{Setting, SmtpSettings};
