//! A sign-in coming back from its provider: what its state held (read by `flow::take_state`,
//! used by the provider's `identify` and by `links::arrive`).

use super::Surface;
use crate::Lang;

/// A sign-in coming back from the provider.
#[derive(Debug)]
pub struct Pending {
    pub lang: Lang,
    /// Already safe for `staff::signin_url`.
    pub query: String,
    /// The hash of the `bind` of the browser that started the sign-in.
    pub bind_hash: String,
    /// Where the sign-in was started (`Started::surface`).
    pub surface: Surface,
    /// For an OpenID Connect provider.
    pub oidc: Option<OidcPending>,
}

/// The OpenID Connect part of a sign-in coming back.
#[derive(Debug)]
pub struct OidcPending {
    pub nonce: String,
    pub verifier: String,
}
