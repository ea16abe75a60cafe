//! Webhook endpoints of partner apps and the delivery of events to them (issue 23,
//! docs/events-design.md §3). An endpoint is `WHE#<appId>` / `EP#<endpointId>` {url, events,
//! description, secret (sealed), prevSecret, prevSecretUntil, createdAt, disabledAt,
//! failingSince, lastSuccessAt}; its secret (`whsec_...`) is shown once, at creation and at
//! each rotation, and stored sealed (AES-256-GCM under `webhook-secret`, the `Webhook` key
//! purpose, bound to the endpoint id).
//!
//! `endpoints`: the registry routes; `url`: the URL's form at registration; `sign`: Standard
//! Webhooks signatures; `guard`: the SSRF guard of each attempt; `outbound`: a delivery on its way,
//! its backoff and its guarded POST (ports: [`Transport`], [`guard::Resolver`]); `deliver`: fan-out
//! of an event and one attempt; `queue`: the deliveries waiting
//! in `ciam serve` and replay; `log`: the delivery log; `notices`: the sign-out's logout notices,
//! sent through the same pipeline; `owner`: the owner's notice when Ciam disables an endpoint.

pub mod deliver;
mod endpoints;
pub mod guard;
pub mod log;
pub mod notices;
pub mod outbound;
mod owner;
pub mod queue;
pub mod sign;
pub mod url;

#[cfg(feature = "openapi")]
pub use endpoints::event_kinds_schema;
pub use endpoints::{
    create, delete, find, get, list, open_secrets, update, Endpoint, EndpointDetail,
    EndpointFields, WithSecret,
};
pub use outbound::{Answer, Outbound, Transport};

/// How long a rotated-out secret still signs (both signatures are sent meanwhile).
pub const PREVIOUS_SECRET_SECS: i64 = 24 * 60 * 60;

/// The partition of an app's endpoints.
pub const PK_PREFIX: &str = "WHE#";
