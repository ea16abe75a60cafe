//! Two-factor authentication with an authenticator app (RFC 6238: SHA-1, 6 digits, 30 s) and
//! single-use backup codes.
//!
//! - Secrets are 160 random bits, encrypted at rest with AES-256-GCM under a key derived from the
//!   root secret (`Keys`), with the user id as associated data (a sealed secret copied to another
//!   user does not open). During a root rotation's overlap a secret sealed under the previous
//!   root still opens, and the next accepted code writes it back sealed under the current root
//!   in the write that accepts the code (no extra round trip).
//! - Window: the current time step ± 1 (a code is accepted for 30 s either side of its own step).
//!   Replay protection: the last accepted step is kept on the user and only later steps are
//!   accepted, by a conditional write, so one code never works twice.
//! - Backup codes: 10 codes of 8 digits, each stored as an argon2id hash in its own item
//!   `USER#<id>` / `BACKUP#<tag>`, where the tag is a short keyed hash of the code that finds
//!   the item in one read. Consumed by a conditional delete: exactly one of many concurrent
//!   redemptions wins. Regenerating bumps `backupGen`; older codes are invalid at once. During a
//!   root rotation's overlap that read also asks for the tag under the previous root (same
//!   round trip); tags cannot be migrated (the codes are not kept), so codes from before a
//!   rotation stop working once the previous root is removed.
//!
//! Here: codes, sealing and the rules the two halves share. `settings`: enrolment, backup codes,
//! turning it off and the signed-in checks; `login`: the sign-in's second step.

mod login;
mod settings;

// For the passkey as the second step (passkey::ceremony, feature `passkeys`).
#[cfg(feature = "passkeys")]
pub(crate) use login::{finish as finish_step, passkey_step_user};
pub use login::{login_backup, login_totp};
pub(crate) use settings::sweep_backup_codes;
pub use settings::{disable, enable, enrollment_uri, regenerate, verify_fresh};

use crate::client::ClientInfo;
use crate::error::{Error, Result};
use crate::lock::{clear_ops, ensure_unlocked, fail};
use crate::sessions::{self, same_session, Session};
use crate::user::{profile_key, user_pk, User};
use crate::{audit, password, random, random_digits, Ciam, LostRace, Reason};
use ciam_store::{Cond, Item, Key, Query, TxOp, Update, Value};
use hmac::{Hmac, Mac};
use sha1::Sha1;
use subtle::ConstantTimeEq;
pub const STEP_SECS: i64 = 30;

pub const DIGITS: usize = 6;

pub const BACKUP_CODES: usize = 10;

pub const BACKUP_DIGITS: usize = 8;

/// How long a proof of identity (sign-in, password, two-factor code) counts as fresh.
pub const FRESH_SECS: i64 = 300;

/// An unfinished enrolment keeps its secret this long, so reloading the page keeps the QR.
pub const PENDING_SECS: i64 = 600;

pub const ISSUER: &str = "Ciam";

/// HOTP (RFC 4226) of `counter`, as `DIGITS` decimal digits.
pub fn code_at(secret: &[u8], counter: i64) -> String {
    let Ok(mut mac) = <Hmac<Sha1> as Mac>::new_from_slice(secret) else {
        return String::new();
    };
    mac.update(&(counter as u64).to_be_bytes());
    let h = mac.finalize().into_bytes();
    let off = (h[19] & 0x0f) as usize;
    let bin = u32::from_be_bytes([h[off] & 0x7f, h[off + 1], h[off + 2], h[off + 3]]);
    format!("{:0width$}", bin % 10u32.pow(DIGITS as u32), width = DIGITS)
}

/// The time step within ±1 of `now` whose code is `code`, if any.
pub fn matching_step(secret: &[u8], code: &str, now: i64) -> Option<i64> {
    let cur = now.div_euclid(STEP_SECS);
    (cur - 1..=cur + 1).find(|s| bool::from(code_at(secret, *s).as_bytes().ct_eq(code.as_bytes())))
}

fn pct(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'@' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The Key-Uri-Format URI an authenticator app scans.
pub fn uri(account: &str, secret: &[u8]) -> String {
    let b32 = data_encoding::BASE32_NOPAD.encode(secret);
    format!(
        "otpauth://totp/{}:{}?secret={b32}&issuer={}&algorithm=SHA1&digits={DIGITS}&period={STEP_SECS}",
        pct(ISSUER),
        pct(account),
        pct(ISSUER)
    )
}

const SEAL_LABEL: &str = "totp-secret";

pub fn seal(ciam: &Ciam, user_id: &str, plain: &[u8]) -> Result<Vec<u8>> {
    crate::sealed::seal(
        &ciam.keys,
        ciam.entropy.as_ref(),
        SEAL_LABEL,
        user_id,
        plain,
    )
}

fn open_under(keys: &crate::Keys, user_id: &str, sealed: &[u8]) -> Result<Option<Vec<u8>>> {
    crate::sealed::open(keys, SEAL_LABEL, user_id, sealed)
}

/// A sealed secret, opened.
struct Opened {
    secret: Vec<u8>,
    /// Only the previous root opened it: the same secret sealed under the current root, for the
    /// caller's next write.
    resealed: Option<Vec<u8>>,
}

fn open_any(ciam: &Ciam, user_id: &str, sealed: &[u8]) -> Result<Opened> {
    if let Some(secret) = open_under(&ciam.keys, user_id, sealed)? {
        return Ok(Opened {
            secret,
            resealed: None,
        });
    }
    if let Some(previous) = ciam.keys.previous() {
        if let Some(secret) = open_under(previous, user_id, sealed)? {
            let resealed = if ciam.keys.writes_back() {
                Some(seal(ciam, user_id, &secret)?)
            } else {
                None
            };
            return Ok(Opened { secret, resealed });
        }
    }
    Err(Error::internal("sealed secret does not open"))
}

/// Opens a secret sealed under the current root or, during a rotation's overlap, the previous.
pub fn open(ciam: &Ciam, user_id: &str, sealed: &[u8]) -> Result<Vec<u8>> {
    Ok(open_any(ciam, user_id, sealed)?.secret)
}

/// The write-back of a secret only the previous root opened, and the condition that it is still
/// the secret on the profile (a concurrent disable or re-enrolment wins).
fn reseal_ops(opened: &Opened, sealed: &[u8]) -> Option<(Update, Cond)> {
    let fresh = opened.resealed.clone()?;
    Some((
        Update::Set("totpSecret".into(), Value::B(fresh)),
        Cond::Eq("totpSecret".into(), Value::B(sealed.to_vec())),
    ))
}

fn digits(field: &'static str, raw: &str, n: usize) -> Result<String> {
    let s = raw.trim();
    if s.len() == n && s.bytes().all(|b| b.is_ascii_digit()) {
        Ok(s.to_owned())
    } else if n == DIGITS {
        Err(Error::field(
            Reason::INVALID_PARAMETER,
            field,
            "请输入 6 位数字",
            "Please enter 6 digits",
        ))
    } else {
        Err(Error::field(
            Reason::INVALID_PARAMETER,
            field,
            "请输入 8 位数字",
            "Please enter 8 digits",
        ))
    }
}

fn account_label(user: &User) -> String {
    user.mail
        .clone()
        .or_else(|| user.phone.clone())
        .unwrap_or_else(|| user.user_name.clone())
}

fn stale() -> Error {
    Error::new(Reason::AUTHORIZATION_FAILED)
}

/// Sensitive changes need a proof of identity from the last 5 minutes.
pub fn require_fresh(ciam: &Ciam, s: &Session) -> Result<()> {
    if ciam.now() - s.auth_at <= FRESH_SECS {
        Ok(())
    } else {
        Err(Reason::REAUTH_REQUIRED.into())
    }
}

fn backup_key(ciam: &Ciam, user_id: &str, code: &str) -> Key {
    backup_key_under(&ciam.keys, user_id, code)
}

fn backup_key_under(keys: &crate::Keys, user_id: &str, code: &str) -> Key {
    let tag = keys.keyed_hash("backup-code", format!("{user_id}|{code}").as_bytes());
    Key::new(user_pk(user_id), format!("BACKUP#{}", &tag[..16]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_the_rfc_6238_sha1_vectors() {
        let secret = b"12345678901234567890";
        // RFC 6238 Appendix B (8 digits there; the last 6 are the 6-digit code).
        assert_eq!(code_at(secret, 59 / 30), "287082");
        assert_eq!(code_at(secret, 1_111_111_109 / 30), "081804");
        assert_eq!(code_at(secret, 1_234_567_890 / 30), "005924");
        assert_eq!(code_at(secret, 2_000_000_000 / 30), "279037");
    }

    #[test]
    fn the_window_is_the_current_step_plus_or_minus_one() {
        let secret = b"12345678901234567890";
        let now = 1_800_000_015;
        let cur = now / 30;
        for (delta, ok) in [(-2, false), (-1, true), (0, true), (1, true), (2, false)] {
            let code = code_at(secret, cur + delta);
            assert_eq!(
                matching_step(secret, &code, now).is_some(),
                ok,
                "step {delta}"
            );
        }
    }

    #[test]
    fn the_uri_follows_key_uri_format() {
        let u = uri("ann@example.com", b"12345678901234567890");
        assert_eq!(
            u,
            "otpauth://totp/Ciam:ann@example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Ciam&algorithm=SHA1&digits=6&period=30"
        );
    }
}
