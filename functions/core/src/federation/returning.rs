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
    /// The OpenID Connect nonce the state kept (`Facts::nonce`).
    pub nonce: Option<String>,
    /// The PKCE verifier the state kept (`Facts::pkce`): the token request sends it.
    pub verifier: Option<String>,
    /// A link started in the security centre (`POST /auth/identities/link`), not a sign-in.
    pub link_for: Option<LinkFor>,
    /// An organization's connection the sign-in goes through (provider `org`), and whether it
    /// is the connection's test sign-in (`test`: signs nobody in).
    pub connection: Option<Through>,
}

/// The connection a sign-in with provider `org` goes through (`federation::org_sign_in`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Through {
    /// The connection's id (`CONN#<connId>`).
    pub conn_id: String,
    /// A test sign-in (docs/organizations-connections.md §0.8): the callback shows what the
    /// identity provider said and records the outcome; nobody is signed in.
    pub test: bool,
}

/// The account and session a link was started from: the state carries them to the callback,
/// the pending identity to the confirmation, which must come from that very session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkFor {
    pub user_id: String,
    /// `sessions::sid` of the linking session.
    pub sid: String,
}
