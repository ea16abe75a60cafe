//! The sign-up captcha: an ALTCHA proof-of-work challenge, signed with a key of ours, expiring
//! after five minutes, and single-use (its consumption is a conditional write that callers put
//! in their own transaction). The client finds `number` with SHA-256(salt + number) = challenge.

use crate::error::{Error, Result};
use crate::{Ciam, Reason};
use altcha_lib_rs::{create_challenge, verify_solution, ChallengeOptions, Payload};
use base64::Engine;
use ciam_store::{Cond, Item, Key, TxOp};
use serde::Serialize;
use std::collections::HashMap;

pub const TTL_SECS: i64 = 300;

/// A proof-of-work challenge (ALTCHA v1): find `number` in 0..=maxnumber with
/// SHA-256(salt + number) == challenge.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "CaptchaChallenge"))]
pub struct Challenge {
    #[cfg_attr(feature = "openapi", schemars(extend("enum" = ["SHA-256"])))]
    pub algorithm: &'static str,
    pub challenge: String,
    pub maxnumber: u64,
    pub salt: String,
    pub signature: String,
}

fn key_hex(ciam: &Ciam) -> String {
    hex::encode(ciam.keys.derive("captcha"))
}

pub fn challenge(ciam: &Ciam) -> Result<Challenge> {
    let key = key_hex(ciam);
    let salt = hex::encode(crate::random::<12>(ciam.entropy.as_ref()));
    let mut params = HashMap::new();
    params.insert("expires".to_owned(), (ciam.now() + TTL_SECS).to_string());
    let max = ciam.config.captcha_max_number;
    let number = u64::from_le_bytes(crate::random::<8>(ciam.entropy.as_ref())) % (max + 1);
    let c = create_challenge(ChallengeOptions {
        hmac_key: &key,
        max_number: Some(max),
        salt: Some(salt),
        number: Some(number),
        params: Some(params),
        ..Default::default()
    })
    .map_err(Error::internal)?;
    Ok(Challenge {
        algorithm: "SHA-256",
        challenge: c.challenge,
        maxnumber: c.maxnumber,
        salt: c.salt,
        signature: c.signature,
    })
}

/// A verified solution, still to be consumed (in the caller's transaction).
pub struct Solved {
    pub consume: TxOp,
}

/// Checks a solution payload (base64 JSON, as the ALTCHA widget sends it, or plain JSON).
/// Missing, malformed, expired: VERIFYCAPTCHA_NOT_FOUND. Wrong number or signature:
/// VERIFYCAPTCHA_ERROR.
pub fn verify(ciam: &Ciam, payload: Option<&str>) -> Result<Solved> {
    let raw = payload
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .ok_or(Reason::VERIFYCAPTCHA_NOT_FOUND)?;
    let json = if raw.starts_with('{') {
        raw.as_bytes().to_vec()
    } else {
        base64::engine::general_purpose::STANDARD
            .decode(raw)
            .map_err(|_| Error::new(Reason::VERIFYCAPTCHA_NOT_FOUND))?
    };
    let p: Payload =
        serde_json::from_slice(&json).map_err(|_| Error::new(Reason::VERIFYCAPTCHA_NOT_FOUND))?;
    let expires = p
        .salt
        .split_once('?')
        .and_then(|(_, q)| q.split('&').find_map(|kv| kv.strip_prefix("expires=")))
        .and_then(|v| v.parse::<i64>().ok())
        .ok_or(Reason::VERIFYCAPTCHA_NOT_FOUND)?;
    if expires <= ciam.now() {
        return Err(Reason::VERIFYCAPTCHA_NOT_FOUND.into());
    }
    verify_solution(&p, &key_hex(ciam), false)
        .map_err(|_| Error::new(Reason::VERIFYCAPTCHA_ERROR))?;
    let item = Item::new(Key::new(format!("CAPTCHA#{}", p.challenge), "USED")).expires(expires);
    Ok(Solved {
        consume: TxOp::Put {
            item,
            cond: Some(Cond::NotExists),
        },
    })
}

/// A solved challenge in the form [`verify`] takes, made by the server for itself: for a send
/// that an operator asks for (the console's reset code), where there is no stranger to slow
/// down. Single-use like any other.
pub fn solved_by_server(ciam: &Ciam) -> Result<String> {
    let salt = hex::encode(crate::random::<12>(ciam.entropy.as_ref()));
    let mut params = HashMap::new();
    params.insert("expires".to_owned(), (ciam.now() + TTL_SECS).to_string());
    let number = 0;
    let c = create_challenge(ChallengeOptions {
        hmac_key: &key_hex(ciam),
        max_number: Some(1),
        salt: Some(salt),
        number: Some(number),
        params: Some(params),
        ..Default::default()
    })
    .map_err(Error::internal)?;
    Ok(serde_json::json!({
        "algorithm": "SHA-256",
        "challenge": c.challenge,
        "number": number,
        "salt": c.salt,
        "signature": c.signature,
    })
    .to_string())
}
