//! SMS that reaches mainland phones (issue 32 item 3): Aliyun SMS (`SendSms`, dysmsapi
//! 2017-05-25) and Tencent Cloud SMS (`SendSms`, API 3.0, 2021-01-11) behind the `Notifier`
//! port, and [`Failover`], a primary and a fallback. Written in-house on reqwest, hmac and sha2:
//! neither provider ships a Rust SDK, and two small signers are easier to check (against the
//! providers' worked examples and official SDKs) than a community crate.
//!
//! Mainland carriers only deliver registered signatures (签名) and approved templates, so a
//! message here is a template and its parameters, never free text: [`Templates`] names the
//! template of each purpose (and notice kind) per language. docs/china-messaging.md has the
//! decisions (templates, the failover rule, the limits' mapping).

pub mod aliyun;
mod client;
mod failover;
#[cfg(feature = "fake")]
pub mod fake;
pub mod settings;
pub mod sign;
mod sms;
pub mod templates;
pub mod tencent;

pub use aliyun::{Aliyun, AliyunConfig};
pub use failover::Failover;
pub use settings::{AliyunSettings, Provider, Setting, SmsSettings, TencentSettings};
pub use sms::{Sms, SmsNotifier, SmsProvider, Split};
pub use templates::Templates;
pub use tencent::{Tencent, TencentConfig};
