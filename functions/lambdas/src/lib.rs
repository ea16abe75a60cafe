//! One AWS Lambda per /ciam/v1 route, each running one of two HTTP binaries: `bootstrap`
//! (`src/bin/bootstrap.rs`, the routes of `ciam_api::ROUTES` and the embedded page) or
//! `passkeys` (`src/bin/passkeys.rs`, the WebAuthn ceremonies of `ciam_api::CEREMONY_ROUTES`,
//! docs/passkeys-design.md §1.4). The functions without a route run `webhooks`, `hook` or
//! `decoder` (the avatar decoder, the only binary that links the image crates: `decoder.rs`). A binary reads the route id from `CIAM_ROUTE` (template.yaml
//! sets it on each function) and serves the same `ciam_api` router the local server uses,
//! restricted to that route, over `lambda_http`. `sam build` makes one build per binary (two
//! links for all the functions, docs/operations.md §10).
//!
//! What differs between the two is a [`Binary`] (`binary.rs`): its route table and the ports it
//! builds besides the store and the keys. Each `main` names its own, so the code it reaches (all
//! that fat LTO keeps) is its own table's: `bootstrap` never names `CEREMONY_ROUTES` (no WebAuthn
//! crate in it), `passkeys` never builds an S3, SES, SNS or KMS client (its notifier and blob
//! store are [`Unavailable`]).
//!
//! What a function may touch is its row's `ciam_api::Lambda` (table, keys, staff secret, KMS),
//! the same facts the template's policies are generated from (`ciam-gen`). Everything slow
//! happens once per execution environment, during init (`init.rs`), never per request.

pub mod audit_watch;
mod binary;
mod blob;
pub mod decoder;
pub mod distributor;
pub mod hook;
pub(crate) mod init;
pub mod key_refresh;
pub mod kms;
mod notifier;
pub mod origin;
pub mod page;
pub mod purpose_keys;
pub mod secrets;
pub mod senders;
mod settings;
mod setup;
pub mod tally;
mod unavailable;
pub mod viewer;
pub mod webhooks;

pub use binary::{
    route_id, route_ids, run, run_from_env, Binary, Bootstrap, Domains, Passkeys, ROUTE_VAR,
};
pub use blob::S3Blobs;
pub use init::{init, init_passkeys, init_webhooks, warm_up, KeysAtInit, Ready, WARM_UP_BUDGET};
pub use notifier::AwsNotifier;
pub use origin::OriginCheck;
pub use settings::{Settings, StaffClient};
pub use setup::load_sdk;
pub use unavailable::Unavailable;
