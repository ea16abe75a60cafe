//! Black-box tests of the /ciam/v1 API: requests in, responses out, through the same router the
//! Lambdas and the local binary serve. Each test builds its own `TestApp` over a fresh store.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod after_503;
mod apps;
mod attempts;
mod avatar;
mod bodies;
mod captcha;
mod cells;
mod changes;
mod client_errors;
mod client_limits;
mod codes;
mod consents;
mod console;
mod console_actions;
mod console_apps;
mod console_audit;
mod console_find;
mod console_gate;
mod console_review;
mod console_suspend;
mod contract;
mod conventions;
mod directory;
mod dynamo;
mod events;
mod fault_matrix;
mod faults;
mod federation_dingtalk;
mod federation_feishu;
mod federation_identities;
mod federation_journeys;
mod federation_links;
mod federation_wechat;
mod federation_wecom;
mod helpers;
mod input;
mod journey;
mod key_purposes;
mod lock_alike;
mod login;
mod logout_delivery;
mod lost_answers;
mod me;
mod numbers;
mod oidc;
mod oidc_logout;
mod passkeys;
mod passwords;
mod races;
mod registration;
mod round_trips;
mod sessions;
mod sign_in_log;
mod staff;
mod suspended_truth;
mod two_factor;
mod unavailable;
mod username_check;
mod validation;
mod webhooks;
mod write_units;
