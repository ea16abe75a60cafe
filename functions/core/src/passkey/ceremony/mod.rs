//! The passkey ceremonies (docs/passkeys-design.md §3): options and finish of each. Each
//! options route answers `{passkeyChallenge, publicKey}` and writes nothing; each finish opens
//! the sealed token, verifies through [`super::rp`] and commits in one transaction that also puts
//! the token's used-marker (`attribute_not_exists`), so a challenge finishes once.
//!
//! - [`register`]: a new passkey for a signed-in account;
//! - [`sign_in`]: a sign-in by passkey alone (discoverable, two factors in one);
//! - [`second_step`]: one of the account's own passkeys as a second proof: the sign-in's
//!   two-factor step, and the fresh proof of a signed-in session.
//!
//! This module holds what they share: the relying party's configuration, the sealing of the
//! state, the answer to a refusal, and the credential's update after an assertion.

mod register;
mod second_step;
mod sign_in;

pub use register::{register, register_options, Registered};
pub use second_step::{login_mfa, mfa_options, reauth, reauth_options};
pub use sign_in::{login, login_options};

use super::items::{passkey_key, used_key, PasskeyItem};
use super::rp::{self, Refusal, StoredPasskey, USER_HANDLE_LEN};
use super::token::{Ceremony, Token};
use super::PasskeyConfig;
use crate::audit::{Entry, Event};
use crate::client::ClientInfo;
use crate::sessions::Session;
use crate::user::User;
use crate::{lock, Ciam, Error, Reason, Result};
use ciam_store::{Cond, TxOp, Update};
use serde::Serialize;
use serde_json::Value as Json;

/// What an options route answers.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Options {
    /// The sealed token to send back with the answer.
    pub passkey_challenge: String,
    /// The browser's `PublicKeyCredentialCreationOptionsJSON` or `...RequestOptionsJSON`.
    pub public_key: Json,
}

/// The relying party of this deployment, or PASSKEY_UNAVAILABLE (no public URL, or an IP
/// literal host: a browser refuses an IP address as an RP ID).
pub fn config(ciam: &Ciam) -> Result<PasskeyConfig> {
    PasskeyConfig::new(
        Some(&ciam.config.public_url),
        ciam.config.passkey_rp_id.as_deref(),
        &ciam.config.passkey_origins,
    )
    .map_err(|e| Error {
        cause: Some(e.to_string()),
        ..Error::new(Reason::PASSKEY_UNAVAILABLE)
    })
}

/// A verification refusal as an answer: a body that is not a credential is INVALID_PARAMETER
/// on `credential`; anything else PASSKEY_VERIFY_FAILED.
fn refused(r: &Refusal) -> Error {
    match r {
        Refusal::Malformed(cause) => Error {
            cause: Some(cause.clone()),
            ..Error::field(
                Reason::INVALID_PARAMETER,
                "credential",
                "通行密钥应答格式不正确",
                "The passkey answer is malformed",
            )
        },
        Refusal::CounterWentBack | Refusal::Failed(_) => Error {
            cause: Some(r.to_string()),
            ..Error::new(Reason::PASSKEY_VERIFY_FAILED)
        },
    }
}

fn internal(r: Refusal) -> Error {
    Error::internal(r)
}

fn handle_of(user_id: &str) -> Result<[u8; USER_HANDLE_LEN]> {
    hex::decode(user_id)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| Error::internal("a userId that is not 32 hex digits"))
}

/// The binding of a ceremony made for a session: the user and a keyed hash of the session.
fn session_binding(ciam: &Ciam, s: &Session) -> String {
    let tag = ciam.keys.keyed_hash("passkey-session", s.key.sk.as_bytes());
    format!("{}|{}", s.user.id, &tag[..32])
}

fn seal(ciam: &Ciam, ceremony: Ceremony, binding: String, state: Vec<u8>) -> Result<String> {
    Token::new(ceremony, ciam.now(), binding, state).seal(&ciam.keys, ciam.entropy.as_ref())
}

/// The credential a ceremony verifies against, from its item.
fn stored_of(p: &PasskeyItem) -> Result<StoredPasskey> {
    p.stored()
        .ok_or_else(|| Error::internal("a malformed PASSKEY# item"))
}

/// The account's credentials as `excludeCredentials` / `allowCredentials` entries.
fn descriptors(passkeys: &[PasskeyItem]) -> Vec<(Vec<u8>, Vec<String>)> {
    passkeys
        .iter()
        .filter_map(|p| Some((p.cred_id.clone()?, p.transports.clone())))
        .collect()
}

fn not_found() -> Error {
    Error::new(Reason::PASSKEY_NOT_FOUND)
}

/// The `amr` of a passkey with user verification (RFC 8176): something you have (`hwk`: a key
/// bound to its device; `swk`: a synced passkey, whose key is backed up by its provider), its
/// unlocking (`user`), and so more than one factor (`mfa`).
fn amr_of(stored: &StoredPasskey) -> [&'static str; 3] {
    let have = if stored.be { "swk" } else { "hwk" };
    [have, "user", "mfa"]
}

/// The credential's update after an assertion: the new counter (only if nobody stored another
/// meanwhile), the flags, when it was used.
fn asserted_op(user_id: &str, h: &str, stored: &StoredPasskey, a: &rp::Asserted, now: i64) -> TxOp {
    TxOp::Update {
        key: passkey_key(user_id, h),
        ops: vec![
            Update::Set("signCount".into(), i64::from(a.sign_count).into()),
            Update::Set("uv".into(), a.uv.into()),
            Update::Set("be".into(), a.be.into()),
            Update::Set("bs".into(), a.bs.into()),
            Update::Set("lastUsedAt".into(), now.into()),
        ],
        cond: Some(Cond::Exists.and(Cond::eq("signCount", i64::from(stored.sign_count)))),
    }
}

/// A refused assertion of a known credential: a malformed body counts nothing; any other
/// refusal counts one failure on the account lock, and a counter that went back is recorded in
/// the account's activity as a possibly cloned authenticator.
async fn assertion_refused(
    ciam: &Ciam,
    user: &User,
    passkey: &PasskeyItem,
    r: &Refusal,
    client: &ClientInfo,
    token: &str,
) -> Error {
    let base = refused(r);
    if matches!(r, Refusal::Malformed(_)) {
        return base;
    }
    if matches!(r, Refusal::CounterWentBack) {
        // The very answer that already finished this challenge, sent again: a replay, not a
        // clone and not a guess.
        match ciam.store.get(&used_key(ciam, token)).await {
            Ok(Some(_)) => return Reason::PASSKEY_CHALLENGE_EXPIRED.into(),
            Ok(None) => {}
            Err(e) => return e.into(),
        }
        tracing::warn!("passkey signature counter went back: possibly a cloned authenticator");
        let entry = Entry {
            name: Some(passkey.name.clone()),
            ..crate::audit::entry(ciam, &user.id, Event::PasskeyCloneSuspected, client)
        };
        if let Err(e) = ciam.store.put(entry.to_item(), None).await {
            tracing::warn!(error = %e, "could not record passkeyCloneSuspected");
        }
    }
    lock::fail(ciam, &user.id, base).await
}
