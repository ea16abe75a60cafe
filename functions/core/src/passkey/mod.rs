//! Passkeys (WebAuthn), docs/passkeys-design.md.
//!
//! - [`config`]: the RP ID and the allowed origins, from the public URL (no crate needed);
//! - [`items`]: the items, and list / rename / remove (no crate needed);
//! - `ceremony` (feature `passkeys`): options and finish of each ceremony;
//! - [`token`]: the sealed challenge token that carries a ceremony from its options to its
//!   finish (AES-256-GCM under `keys.derive("passkey-challenge")`, no store write);
//! - `rp` (cargo feature `passkeys`): the only module that names the relying-party crate
//!   (webauthn_rp). Everything that links it is behind that feature, so the `bootstrap` Lambda,
//!   which does not enable it, neither compiles nor links the crate (§1.4).

#[cfg(feature = "passkeys")]
pub mod ceremony;
pub mod config;
pub mod items;
#[cfg(feature = "passkeys")]
pub mod rp;
pub mod token;

pub use config::{ConfigError, PasskeyConfig};
pub use token::{Ceremony, Token};
