//! Federated sign-in as one mechanism (docs/federation-design.md): a provider from the list
//! (`providers`), its protocol behind [`Provider`] (the HTTP side is `ciam_api::federation`'s
//! adapters; core stays free of HTTP), the browser-bound single-use state and the callback's
//! outcome (`flow`). A provider's refusals and failures are [`FedError`]s, turned into reasons by
//! one `match` ([`reason_of`]) so every provider answers alike.
//!
//! Staff is the one provider so far: its account rules (`staff::{claims, account}`: linking by
//! verified company mail, the one-time login code) sit underneath, unchanged.

mod flow;
mod providers;

pub use flow::{
    authorization_request, finish, redirect_uri, start, take_state, Callback, OidcPending,
    OidcStarted, Pending, Started, STATE_TTL,
};
pub use providers::{Facts, Items, LinkRule, ProviderId, Setting, PROVIDERS, STAFF};

use crate::{Ciam, Error, Reason};

/// Who the provider says signed in, as the flow needs it to reach an account.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExternalIdentity {
    /// The provider's stable id for the person (staff: the id_token's `sub`).
    pub subject: String,
    pub vouches: Vouches,
    /// Display only; never used to link.
    pub name: Option<String>,
    /// The provider says the person used a second factor (staff: `amr`/`acr`).
    pub mfa: bool,
}

/// What the provider vouches for about the person.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Vouches {
    /// The mail it gave, and whether it declared it verified.
    pub mail: Option<(String, bool)>,
}

/// Where the sign-in was started, from the User-Agent: an in-app browser may need another
/// authorization URL. Only the desktop browser so far (the in-app surfaces come with their
/// providers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Surface {
    Desktop,
}

impl Surface {
    /// The surface of a browser saying `user_agent`.
    pub fn of(_user_agent: &str) -> Surface {
        Surface::Desktop
    }
}

/// Why a provider's answer gave no identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FedError {
    /// The provider refused the code (invalid, used, expired or forged), declined the sign-in,
    /// or its answer does not check out: AUTHORIZATION_FAILED.
    CodeRefused(String),
    /// Ciam's side is not set up for it (not configured, wrong secret): SERVICE_UNAVAILABLE,
    /// logged as an error.
    Misconfigured(String),
    /// The provider could not be reached in time or answered nonsense: SERVICE_UNAVAILABLE.
    Unavailable(String),
}

/// The reason every provider answers for `e`.
pub fn reason_of(e: &FedError) -> Reason {
    match e {
        FedError::CodeRefused(_) => Reason::AUTHORIZATION_FAILED,
        FedError::Misconfigured(_) | FedError::Unavailable(_) => Reason::SERVICE_UNAVAILABLE,
    }
}

impl From<FedError> for Error {
    fn from(e: FedError) -> Error {
        let reason = reason_of(&e);
        let (FedError::CodeRefused(cause)
        | FedError::Misconfigured(cause)
        | FedError::Unavailable(cause)) = e;
        Error {
            cause: Some(cause),
            ..Error::new(reason)
        }
    }
}

/// One provider's protocol: the authorization request and reading the callback into an
/// identity. Implemented by the HTTP adapters (`ciam_api::federation`); the flow never knows
/// which protocol it speaks.
#[async_trait::async_trait]
pub trait Provider: Send + Sync {
    fn facts(&self) -> &'static Facts;

    /// Whether its settings and secret are present in this process.
    fn configured(&self, ciam: &Ciam) -> bool;

    /// What must be reachable before a state is stored (OpenID Connect: the discovery
    /// document), so a provider that is down costs no write.
    async fn ready(&self, ciam: &Ciam) -> Result<(), FedError>;

    /// Where the browser goes for this started sign-in.
    async fn authorization_url(
        &self,
        ciam: &Ciam,
        started: &Started,
        surface: Surface,
    ) -> Result<String, FedError>;

    /// The callback's query (its state already taken as `pending`) → the identity.
    async fn identify(
        &self,
        ciam: &Ciam,
        cb: &Callback,
        pending: &Pending,
    ) -> Result<ExternalIdentity, FedError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_code_is_authorization_failed_and_the_rest_unavailable() {
        let e: Error = FedError::CodeRefused("id_token: wrong nonce".into()).into();
        assert_eq!(e.reason, Reason::AUTHORIZATION_FAILED);
        assert_eq!(e.cause.as_deref(), Some("id_token: wrong nonce"));
        for f in [
            FedError::Misconfigured("not configured".into()),
            FedError::Unavailable("timeout".into()),
        ] {
            assert_eq!(reason_of(&f), Reason::SERVICE_UNAVAILABLE);
            assert_eq!(Error::from(f).reason.status(), 503);
        }
    }
}
