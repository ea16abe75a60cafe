//! Ciam's domain: accounts, sessions, verification codes, the captcha, the account lock and the
//! Reason catalogue. No HTTP, no AWS, no SQL: storage is the `ciam_store::Store` contract, and
//! time (`Clock`), randomness (`Entropy`), secrets (`Keys`) and delivery (`Notifier`) are ports.

pub mod accounts;
pub mod app_sessions;
pub mod apps;
pub mod attempts;
pub mod audit;
pub mod avatar;
pub mod blob;
pub mod captcha;
pub mod cell;
pub mod challenge;
pub mod changes;
pub mod client;
pub mod client_limits;
pub mod codes;
pub mod consents;
pub mod console;
pub mod days;
pub mod deadline;
pub mod directory;
pub mod domains;
mod error;
pub mod events;
pub mod federation;
mod key_purpose;
mod keys;
#[cfg(test)]
mod keys_tests;
mod lang;
#[cfg(test)]
mod layering;
#[cfg(test)]
mod layering_tests;
pub mod lock;
pub mod me;
pub mod notifier;
pub mod numbers;
pub mod oidc;
pub mod once;
pub mod org;
pub mod passkey;
pub mod password;
mod passwords;
mod reason;
pub mod registration;
#[cfg(test)]
mod rotation_tests;
pub mod sealed;
pub mod sessions;
pub mod signer;
pub mod signin;
#[cfg(test)]
mod signin_tests;
#[cfg(test)]
mod size_tests;
pub mod staff;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod tickets;
pub mod totp;
pub mod user;
pub mod username_check;
pub mod validate;
pub mod webhooks;

pub use blob::{Blob, BlobStore, MemoryBlobs};
pub use ciam_store::{Clock, ManualClock, SystemClock};
pub(crate) use error::LostRace;
pub use error::{Error, Message, Result};
pub use key_purpose::{within_request, KeyPurpose, Outcome, Purposes};
pub use keys::{
    random, random_digits, DerivedSigner, Entropy, Es256Key, Keys, OsEntropy, RootError,
};
pub use lang::Lang;
pub use notifier::{CodeMessage, Notice, NoticeMessage, Notifier, Purpose, SendError};
pub use reason::Reason;
pub use signer::OidcSigner;

use ciam_store::Store;
use std::sync::Arc;

/// Settings an operator may change. Defaults are the product's documented policy.
#[derive(Clone, Debug)]
pub struct Config {
    /// Mail domains of internal staff (spec §6): such addresses are internal accounts.
    pub internal_domains: Vec<String>,
    /// Proof-of-work difficulty: the largest number the captcha solver may have to try.
    pub captcha_max_number: u64,
    /// Codes sent per identity per UTC day.
    pub code_daily_cap: i64,
    /// Where browsers reach this deployment (scheme, host, port; no trailing slash): the issuer
    /// of the OpenID Connect provider and the base of redirect URIs given to other parties.
    pub public_url: String,
    /// The OpenID Connect signing key in use (`oidc::` signs with it; JWKS also publishes the
    /// one before it). Raising it by one rotates the key.
    pub oidc_key_version: u32,
    /// The company's OpenID Connect identity provider for staff sign-in; None: not offered.
    pub staff_idp: Option<staff::StaffIdp>,
    /// Passkeys: the RP ID when it is not the public URL's host (a parent domain of it).
    pub passkey_rp_id: Option<String>,
    /// Passkeys: origins allowed besides the public URL's own.
    pub passkey_origins: Vec<String>,
    /// The whole request's time (`deadline`): `deadline::LOCAL_BUDGET` by default; in Lambda
    /// the function's timeout less 2 s.
    pub request_budget: std::time::Duration,
    /// How long the console's audit entries are kept (`expiresAt`), in days.
    pub audit_retention_days: u32,
    /// Whether the operator console's routes (`/admin/...`) are served: `ciam serve
    /// --no-console` and the template's `Console=false` leave them out (404).
    pub console: bool,
    /// Staff sign-in: the company provider's `acr` values that mean a second factor was used
    /// (`CIAM_STAFF_MFA_ACR`); its `amr` holding `mfa`, `otp` or `hwk` means so too. Such a staff
    /// session passes the console's second-factor check (docs/console-design.md §2).
    pub staff_mfa_acr: Vec<String>,
    /// Webhooks may go to `http://localhost` (and loopback addresses) for URLs naming it: the
    /// local-http mode of `ciam serve` (`--webhooks-strict` turns it off). Never in AWS.
    pub webhooks_local_http: bool,
    /// A password sign-in's success is counted in the console's numbers from the table's
    /// stream (`numbers::tally`), not on its request: on in AWS, where the stream function
    /// counts; off for `ciam serve`, which counts inline (docs/console-design.md §3).
    pub numbers_from_stream: bool,
    /// Per-client limits counted in the table (`client_limits`, route layer
    /// `middleware::client_limits`): on in the mainland China cell, whose API has no web ACL
    /// (`CIAM_CLIENT_LIMITS=1`, `ciam serve --client-limits`); off in the global cell, where
    /// infra/waf.yaml counts the same rules at the edge.
    pub client_limits: bool,
    /// Which cell this deployment is (`CIAM_CELL`, `ciam serve --cell`): `global` by default.
    pub cell: cell::Cell,
    /// The other cell's origin (`CIAM_OTHER_CELL`, `ciam serve --other-cell`; `cell::other_origin`),
    /// None when this is the only cell: then no answer names another service.
    pub other_cell: Option<String>,
    /// The base URL of ciam-fakes' `mock` platform, which the test-only `mock` provider speaks
    /// to (`federation::ProviderId::Mock`); None: that provider is not configured.
    #[cfg(any(test, feature = "fakes"))]
    pub mock_provider: Option<String>,
    /// The federated providers configured in this process but staff (`staff_idp`): their
    /// settings and, in a callback's function, their secret (`Facts::from_env`).
    pub federation: std::collections::HashMap<federation::ProviderId, federation::ProviderConfig>,
    /// The DNS server the verification of a domain asks (`ip:port`); None: `CIAM_DNS_RESOLVER`,
    /// else the system's (docs/organizations-domains.md §1.1). The tests name their own.
    pub dns_resolver: Option<std::net::SocketAddr>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            internal_domains: vec!["staff.ciam.example".to_owned()],
            captcha_max_number: 50_000,
            code_daily_cap: 10,
            public_url: "http://127.0.0.1:8080".to_owned(),
            oidc_key_version: 1,
            staff_idp: None,
            passkey_rp_id: None,
            passkey_origins: Vec::new(),
            request_budget: deadline::LOCAL_BUDGET,
            audit_retention_days: 400,
            console: true,
            staff_mfa_acr: Vec::new(),
            webhooks_local_http: false,
            numbers_from_stream: false,
            client_limits: false,
            cell: cell::Cell::Global,
            other_cell: None,
            #[cfg(any(test, feature = "fakes"))]
            mock_provider: None,
            federation: std::collections::HashMap::new(),
            dns_resolver: None,
        }
    }
}

/// Everything a request handler needs: the store and the ports, cheap to clone.
#[derive(Clone)]
pub struct Ciam {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
    pub entropy: Arc<dyn Entropy>,
    pub keys: Keys,
    pub notifier: Arc<dyn Notifier>,
    /// Avatars: S3 in AWS, a folder locally.
    pub blobs: Arc<dyn BlobStore>,
    /// Avatar decoding: in process locally, the decoding function in AWS (`avatar`).
    pub images: Arc<dyn avatar::ImageDecoder>,
    pub config: Config,
}

impl Ciam {
    pub fn now(&self) -> i64 {
        self.clock.now()
    }

    pub fn is_internal_mail(&self, mail: &validate::Email) -> bool {
        let d = mail.domain();
        self.config
            .internal_domains
            .iter()
            .any(|x| x.eq_ignore_ascii_case(d))
    }

    pub(crate) fn new_id(&self) -> String {
        uuid::Builder::from_random_bytes(random::<16>(self.entropy.as_ref()))
            .into_uuid()
            .simple()
            .to_string()
    }
}
