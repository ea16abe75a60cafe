//! Two-factor authentication with an authenticator app (RFC 6238: SHA-1, 6 digits, 30 s) and
//! single-use backup codes.
//!
//! Longer than 500 lines on purpose: enrolment, the signed-in checks and the sign-in's second
//! step all share the sealing, replay (`totpLastStep`) and backup-generation rules below, and
//! read best as one state machine in one file.
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

use crate::client::ClientInfo;
use crate::error::{Error, Result};
use crate::lock::{clear_ops, ensure_unlocked, fail};
use crate::sessions::{self, same_session, Session};
use crate::user::{profile_key, user_pk, User};
use crate::{audit, password, random, random_digits, Ciam, LostRace, Reason};
use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
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

fn cipher(keys: &crate::Keys) -> Result<Aes256Gcm> {
    Aes256Gcm::new_from_slice(&keys.derive("totp-secret")).map_err(Error::internal)
}

pub fn seal(ciam: &Ciam, user_id: &str, plain: &[u8]) -> Result<Vec<u8>> {
    let nonce = random::<12>(ciam.entropy.as_ref());
    let ct = cipher(&ciam.keys)?
        .encrypt(
            Nonce::from_slice(&nonce),
            Payload {
                msg: plain,
                aad: user_id.as_bytes(),
            },
        )
        .map_err(Error::internal)?;
    Ok([nonce.as_slice(), &ct].concat())
}

fn open_under(keys: &crate::Keys, user_id: &str, sealed: &[u8]) -> Result<Option<Vec<u8>>> {
    if sealed.len() < 12 {
        return Err(Error::internal("sealed secret too short"));
    }
    let (nonce, ct) = sealed.split_at(12);
    Ok(cipher(keys)?
        .decrypt(
            Nonce::from_slice(nonce),
            Payload {
                msg: ct,
                aad: user_id.as_bytes(),
            },
        )
        .ok())
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

/// `GET /auth/totp/url`. Round trips: 1 (the pending secret), or 0 while one is still fresh.
pub async fn enrollment_uri(ciam: &Ciam, s: &Session) -> Result<String> {
    if s.user.enable_totp {
        return Err(Reason::USER_TOTP_ENABLED.into());
    }
    let now = ciam.now();
    if let Some((sealed, _)) = s
        .user
        .totp_pending
        .as_ref()
        .filter(|(_, at)| now - at < PENDING_SECS)
    {
        return Ok(uri(
            &account_label(&s.user),
            &open(ciam, &s.user.id, sealed)?,
        ));
    }
    let secret = random::<20>(ciam.entropy.as_ref());
    let ops = vec![
        Update::Set(
            "totpPending".into(),
            Value::B(seal(ciam, &s.user.id, &secret)?),
        ),
        Update::Set("totpPendingAt".into(), now.into()),
    ];
    ciam.store
        .update(&profile_key(&s.user.id), ops, Some(same_session(s)))
        .await
        .or_reason(stale())?;
    Ok(uri(&account_label(&s.user), &secret))
}

fn backup_key(ciam: &Ciam, user_id: &str, code: &str) -> Key {
    backup_key_under(&ciam.keys, user_id, code)
}

fn backup_key_under(keys: &crate::Keys, user_id: &str, code: &str) -> Key {
    let tag = keys.keyed_hash("backup-code", format!("{user_id}|{code}").as_bytes());
    Key::new(user_pk(user_id), format!("BACKUP#{}", &tag[..16]))
}

/// New backup codes: the codes to show once, and the items holding their hashes.
async fn new_backup_codes(
    ciam: &Ciam,
    user_id: &str,
    gen: i64,
) -> Result<(Vec<String>, Vec<TxOp>)> {
    let mut codes = Vec::with_capacity(BACKUP_CODES);
    let mut ops = Vec::with_capacity(BACKUP_CODES);
    while codes.len() < BACKUP_CODES {
        let code = random_digits(ciam.entropy.as_ref(), BACKUP_DIGITS);
        let key = backup_key(ciam, user_id, &code);
        if ops.iter().any(|o: &TxOp| o.key() == &key) {
            continue;
        }
        let hash = password::hash(code.clone(), random::<16>(ciam.entropy.as_ref())).await?;
        ops.push(TxOp::Put {
            item: Item::new(key).with("hash", hash).with("gen", gen),
            cond: None,
        });
        codes.push(code);
    }
    Ok((codes, ops))
}

/// Removes backup-code items of older generations; they are already invalid, this is tidying.
pub(crate) async fn sweep_backup_codes(ciam: &Ciam, user_id: &str, keep_gen: Option<i64>) {
    let Ok(items) = ciam
        .store
        .query(Query::partition(user_pk(user_id)).prefix("BACKUP#"))
        .await
    else {
        return;
    };
    for it in items
        .into_iter()
        .filter(|i| keep_gen.is_none_or(|g| i.n("gen") != Some(g)))
    {
        let _ = ciam.store.delete(&it.key, None).await;
    }
}

/// The user's two-factor state change plus the re-stamp of the current session (other sessions
/// end: a two-factor change revokes them), with the sign-in records kept in step.
fn with_session_restamp(
    s: &Session,
    enable_totp: bool,
    mut user_ops: Vec<Update>,
    extra: Vec<TxOp>,
) -> Vec<TxOp> {
    let gen = s.user.sess_gen + 1;
    let after = User {
        enable_totp,
        sess_gen: gen,
        ..s.user.clone()
    };
    user_ops.push(Update::Set("sessGen".into(), gen.into()));
    let mut ops = vec![
        TxOp::Update {
            key: profile_key(&s.user.id),
            ops: user_ops,
            cond: Some(same_session(s)),
        },
        TxOp::Update {
            key: s.key.clone(),
            ops: vec![Update::Set("gen".into(), gen.into())],
            cond: Some(Cond::Exists),
        },
    ];
    ops.extend(extra);
    ops.extend(crate::signin::in_step(&after));
    ops
}

/// `POST /auth/totp/enable`: confirms the pending secret with a code; returns the backup codes,
/// shown once. Round trips: 1 transaction.
pub async fn enable(
    ciam: &Ciam,
    s: &Session,
    code: &str,
    client: &ClientInfo,
) -> Result<Vec<String>> {
    let code = digits("code", code, DIGITS)?;
    if s.user.enable_totp {
        return Err(Reason::USER_TOTP_ENABLED.into());
    }
    require_fresh(ciam, s)?;
    let sealed = s
        .user
        .totp_pending
        .clone()
        .map(|(b, _)| b)
        .ok_or(Reason::TOTP_SECRET_ERROR)?;
    let opened = open_any(ciam, &s.user.id, &sealed)?;
    let step = matching_step(&opened.secret, &code, ciam.now()).ok_or(Reason::TOTP_SECRET_ERROR)?;
    let sealed = opened.resealed.unwrap_or(sealed);
    let gen = s.user.backup_gen + 1;
    let (codes, mut puts) = new_backup_codes(ciam, &s.user.id, gen).await?;
    puts.push(audit::record(
        ciam,
        &s.user.id,
        audit::Event::TotpEnabled,
        client,
    ));
    let user_ops = vec![
        Update::Set("enableTotp".into(), true.into()),
        Update::Set("totpSecret".into(), Value::B(sealed)),
        Update::Remove("totpPending".into()),
        Update::Remove("totpPendingAt".into()),
        Update::Set("totpLastStep".into(), step.into()),
        Update::Set("backupGen".into(), gen.into()),
    ];
    ciam.store
        .transact(with_session_restamp(s, true, user_ops, puts))
        .await
        .or_reason(stale())?;
    Ok(codes)
}

/// `POST /auth/totp/backupCodes`: new codes; the old ones stop working at once.
pub async fn regenerate(ciam: &Ciam, s: &Session, client: &ClientInfo) -> Result<Vec<String>> {
    if !s.user.enable_totp {
        return Err(Reason::USER_TOTP_NOT_ENABLED.into());
    }
    require_fresh(ciam, s)?;
    let gen = s.user.backup_gen + 1;
    let (codes, puts) = new_backup_codes(ciam, &s.user.id, gen).await?;
    let mut ops = vec![TxOp::Update {
        key: profile_key(&s.user.id),
        ops: vec![Update::Set("backupGen".into(), gen.into())],
        cond: Some(same_session(s).and(Cond::eq("backupGen", s.user.backup_gen))),
    }];
    ops.extend(puts);
    ops.push(audit::record(
        ciam,
        &s.user.id,
        audit::Event::BackupCodesRegenerated,
        client,
    ));
    ciam.store.transact(ops).await.or_reason(stale())?;
    sweep_backup_codes(ciam, &s.user.id, Some(gen)).await;
    Ok(codes)
}

/// `POST /auth/totp/disable`.
pub async fn disable(ciam: &Ciam, s: &Session, client: &ClientInfo) -> Result<()> {
    if !s.user.enable_totp {
        return Err(Reason::USER_TOTP_NOT_ENABLED.into());
    }
    require_fresh(ciam, s)?;
    let user_ops = vec![
        Update::Set("enableTotp".into(), false.into()),
        Update::Remove("totpSecret".into()),
        Update::Remove("totpLastStep".into()),
        Update::Set("backupGen".into(), (s.user.backup_gen + 1).into()),
    ];
    ciam.store
        .transact(with_session_restamp(
            s,
            false,
            user_ops,
            vec![audit::record(
                ciam,
                &s.user.id,
                audit::Event::TotpDisabled,
                client,
            )],
        ))
        .await
        .or_reason(stale())?;
    sweep_backup_codes(ciam, &s.user.id, None).await;
    Ok(())
}

/// `POST /auth/totp/verify`: a fresh proof of identity for sensitive changes: the authenticator
/// code when two-factor is on, else the password. Wrong proofs count on the account's lock.
pub async fn verify_fresh(
    ciam: &Ciam,
    s: &Session,
    code: Option<&str>,
    pw: Option<&str>,
) -> Result<()> {
    ensure_unlocked(&s.user, ciam.now())?;
    let ok = match (code, pw) {
        (Some(code), _) if s.user.enable_totp => {
            let code = digits("code", code, DIGITS)?;
            let sealed = s
                .user
                .totp_secret
                .as_deref()
                .ok_or_else(|| Error::internal("no secret"))?;
            let opened = open_any(ciam, &s.user.id, sealed)?;
            accept_step(
                ciam,
                &s.user,
                &opened.secret,
                &code,
                reseal_ops(&opened, sealed),
            )
            .await?
        }
        (_, Some(pw)) if !s.user.enable_totp => {
            password::verify(pw.to_owned(), s.user.pwd_hash.clone()).await?
        }
        _ => {
            let (field, zh, en) = if s.user.enable_totp {
                (
                    "code",
                    "请输入两步验证码",
                    "Enter the code from your authenticator app",
                )
            } else {
                ("password", "请输入当前密码", "Enter your current password")
            };
            return Err(Error::field(Reason::INVALID_PARAMETER, field, zh, en));
        }
    };
    if !ok {
        let base = if s.user.enable_totp {
            Reason::TOTP_VERIFY_FAILED
        } else {
            Reason::PASSWORD_ERROR
        };
        return Err(fail(ciam, &s.user.id, base.into()).await);
    }
    sessions::mark_fresh(ciam, s).await
}

/// Accepts a code once: its step must be later than the last accepted one (conditional write),
/// which also carries the secret's write-back under the current root, if any.
async fn accept_step(
    ciam: &Ciam,
    user: &User,
    secret: &[u8],
    code: &str,
    reseal: Option<(Update, Cond)>,
) -> Result<bool> {
    let Some(step) = matching_step(secret, code, ciam.now()) else {
        return Ok(false);
    };
    let mut cond =
        Cond::Exists.and(Cond::attr_not_exists("totpLastStep").or(Cond::lt("totpLastStep", step)));
    let mut ops = vec![Update::Set("totpLastStep".into(), step.into())];
    if let Some((op, same_secret)) = reseal {
        ops.push(op);
        cond = cond.and(same_secret);
    }
    let won = ciam
        .store
        .update(&profile_key(&user.id), ops, Some(cond))
        .await
        .won()?;
    Ok(won.is_some())
}

/// The reasons a second step answers when its challenge or its account does not qualify: the
/// authenticator route says TOTP_VERIFY_FAILED for both; the backup-code route tells the
/// password step's challenge (UNLOCKCODE_PWD_NOT_FOUND) from an account without two-factor
/// (UNLOCKCODE_TOTP_NOT_FOUND).
struct StepReasons {
    no_challenge: Reason,
    no_two_factor: Reason,
}

const TOTP_STEP: StepReasons = StepReasons {
    no_challenge: Reason::TOTP_VERIFY_FAILED,
    no_two_factor: Reason::TOTP_VERIFY_FAILED,
};
const BACKUP_STEP: StepReasons = StepReasons {
    no_challenge: Reason::UNLOCKCODE_PWD_NOT_FOUND,
    no_two_factor: Reason::UNLOCKCODE_TOTP_NOT_FOUND,
};

/// The user behind a sign-in challenge (from the password step), if it is still valid.
async fn challenged_user(ciam: &Ciam, challenge: &str, r: StepReasons) -> Result<(Key, User)> {
    let key = crate::accounts::mfa_key(ciam, challenge);
    let ch = ciam.store.get(&key).await?.ok_or(r.no_challenge)?;
    let uid = ch.s("userId").ok_or(r.no_challenge)?;
    let user = crate::user::active_user(ciam, uid)
        .await?
        .ok_or(r.no_challenge)?;
    if !user.enable_totp {
        return Err(r.no_two_factor.into());
    }
    ensure_unlocked(&user, ciam.now())?;
    Ok((key, user))
}

fn finish(
    ciam: &Ciam,
    user: &User,
    challenge: Key,
    mut ops: Vec<TxOp>,
    client: &ClientInfo,
) -> (crate::accounts::SignedIn, Vec<TxOp>) {
    let (token, session) = sessions::mint(ciam, user, client);
    // The session item is also the sign-in's activity entry (no event item).
    let expires_at = session.n("ends").unwrap_or_default();
    ops.push(TxOp::Delete {
        key: challenge,
        cond: Some(Cond::Exists),
    });
    ops.push(TxOp::Put {
        item: session,
        cond: None,
    });
    (
        crate::accounts::SignedIn {
            token,
            user_id: user.id.clone(),
            expires_at,
        },
        ops,
    )
}

/// `POST /auth/login/totp {challenge, code}`. Round trips: 2 reads, 1 transaction.
pub async fn login_totp(
    ciam: &Ciam,
    challenge: &str,
    code: &str,
    client: &ClientInfo,
) -> Result<crate::accounts::SignedIn> {
    let code = digits("code", code, DIGITS)?;
    let (ch_key, user) = challenged_user(ciam, challenge, TOTP_STEP).await?;
    let sealed = user
        .totp_secret
        .as_deref()
        .ok_or_else(|| Error::internal("no secret"))?;
    let opened = open_any(ciam, &user.id, sealed)?;
    let step = match matching_step(&opened.secret, &code, ciam.now()) {
        Some(s) if user.totp_last_step.is_none_or(|last| s > last) => s,
        _ => return Err(fail(ciam, &user.id, Reason::TOTP_VERIFY_FAILED.into()).await),
    };
    let mut user_ops = vec![Update::Set("totpLastStep".into(), step.into())];
    user_ops.extend(clear_ops(&user).unwrap_or_default());
    let mut cond =
        Cond::Exists.and(Cond::attr_not_exists("totpLastStep").or(Cond::lt("totpLastStep", step)));
    if let Some((op, same_secret)) = reseal_ops(&opened, sealed) {
        user_ops.push(op);
        cond = cond.and(same_secret);
    }
    let first = TxOp::Update {
        key: profile_key(&user.id),
        ops: user_ops,
        cond: Some(cond),
    };
    let (signed, ops) = finish(ciam, &user, ch_key, vec![first], client);
    ciam.store
        .transact(ops)
        .await
        .or_reason(Reason::TOTP_VERIFY_FAILED)?;
    Ok(signed)
}

/// `POST /auth/unlockCode {challenge, code}`: sign in with a backup code, which is used up.
/// Round trips: 3 reads, 1 transaction.
pub async fn login_backup(
    ciam: &Ciam,
    challenge: &str,
    code: &str,
    client: &ClientInfo,
) -> Result<crate::accounts::SignedIn> {
    let code = digits("code", code, BACKUP_DIGITS)?;
    let (ch_key, user) = challenged_user(ciam, challenge, BACKUP_STEP).await?;
    let mut keys = vec![backup_key(ciam, &user.id, &code)];
    if let Some(previous) = ciam.keys.previous() {
        keys.push(backup_key_under(previous, &user.id, &code));
    }
    let found = ciam
        .store
        .get_many(&keys)
        .await?
        .into_iter()
        .flatten()
        .find(|i| i.n("gen") == Some(user.backup_gen));
    let key = found
        .as_ref()
        .map_or_else(|| keys[0].clone(), |i| i.key.clone());
    let hash = found.as_ref().and_then(|i| i.s("hash")).map(str::to_owned);
    if !password::verify(code, hash.clone()).await? {
        return Err(fail(ciam, &user.id, Reason::UNLOCKCODE_NOT_FOUND.into()).await);
    }
    let mut ops = vec![TxOp::Delete {
        key,
        cond: Some(Cond::eq("hash", hash.unwrap_or_default())),
    }];
    if let Some(clear) = clear_ops(&user) {
        ops.push(TxOp::Update {
            key: profile_key(&user.id),
            ops: clear,
            cond: Some(Cond::Exists),
        });
    }
    let (signed, ops) = finish(ciam, &user, ch_key, ops, client);
    ciam.store
        .transact(ops)
        .await
        .or_reason(Reason::UNLOCKCODE_NOT_FOUND)?;
    Ok(signed)
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
