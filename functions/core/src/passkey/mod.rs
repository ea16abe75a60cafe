//! Passkeys (WebAuthn), docs/passkeys-design.md.
//!
//! - [`config`]: the RP ID and the allowed origins, from the public URL (no crate needed);
//! - [`items`]: the items, and list / rename / remove (no crate needed);
//! - `ceremony` (cargo feature `passkeys`): options and finish of each ceremony, split into
//!   registration, sign-in and the second step (two-factor step and fresh proof);
//! - [`token`]: the sealed challenge token that carries a ceremony from its options to its
//!   finish (AES-256-GCM under `keys.derive("passkey-challenge")`, no store write);
//! - `rp` (cargo feature `passkeys`): the only module that names the relying-party crate
//!   (webauthn_rp).
//!
//! The feature keeps the crate out of what does not ask for it: this crate alone (`cargo test
//! -p ciam-core` compiles neither `ceremony` nor `rp`; add `--features passkeys`). `ciam-api`
//! turns it on, so everything built over the API, both Lambda binaries included, compiles the
//! crate; only the `passkeys` binary links it. `bootstrap` leaves it out at link time: nothing
//! reachable from its main names the ceremony routes or `rp`, so fat LTO drops the crate, and
//! `npm run build:lambda` checks that `bootstrap` holds no `webauthn_rp` (docs/operations.md
//! §10, docs/passkeys-design.md §1.4).

#[cfg(feature = "passkeys")]
pub mod ceremony;
pub mod config;
pub mod items;
#[cfg(feature = "passkeys")]
pub mod rp;
pub mod token;

pub use config::{ConfigError, PasskeyConfig};
pub use token::{Ceremony, Token};
