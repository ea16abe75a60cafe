//! The fakes over real HTTP (reqwest, no redirects followed): each platform's documented cases,
//! the control API, and the `ciam-fakes` binary. One test binary for all of them.
// Test helpers panic on a broken fake: that is the failure report (clippy.toml allows it only
// inside #[test] functions, not in the shared helpers).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod binary;
mod controls;
mod dingtalk;
mod feishu;
mod support;
mod wechat;
mod wecom;
