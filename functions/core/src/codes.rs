//! Verification codes: 6 digits, stored as a keyed hash, valid 10 minutes, one live code per
//! purpose and identity (a resend replaces it), resend 60 s after a delivered code, a daily cap
//! per identity, and at most 5 wrong tries per code; the fifth burns the code and holds the
//! identity's checks and sends for five minutes (VERIFICATION_CODE_LIMIT).
//!
//! A used code is not deleted but kept as a tombstone (`usedBy`, `usedAt`, at most `USED_TTL`
//! more): every check treats it as absent, a new send replaces it at once, and the request that
//! used it can tell its own use (an answer lost, sent again) from someone else's.
//!
//! Items: `CODE#<purpose>#<identity>` / `CODE` {hash, sentAt, tries, deliveredAt?, lockedUntil?,
//! usedBy?, usedAt?} and `SENDS#<identity>` / `DAY#<unix day>` {n}.

use crate::captcha;
use crate::error::{Error, Result};
use crate::lock::locked_error;
use crate::signin;
use crate::user::unique_key;
use crate::validate::Identity;
use crate::{random_digits, Ciam, CodeMessage, Lang, LostRace, Purpose, Reason, SendError};
use ciam_store::{Cond, Item, Key, TxOp, Update};
use subtle::ConstantTimeEq;

pub const CODE_TTL: i64 = 600;
pub const RESEND_AFTER: i64 = 60;
pub const MAX_TRIES: i64 = 5;
pub const CHECK_LOCK: i64 = 300;
/// How long a used code is kept as a tombstone (never past its own expiry).
pub const USED_TTL: i64 = 300;
const DAY: i64 = 86_400;

pub fn code_key(purpose: Purpose, id: &Identity) -> Key {
    Key::new(format!("CODE#{}#{}", purpose.as_str(), id.as_str()), "CODE")
}

fn sends_key(id: &Identity, now: i64) -> Key {
    Key::new(
        format!("SENDS#{}", id.as_str()),
        format!("DAY#{}", now.div_euclid(DAY)),
    )
}

fn hash(ciam: &Ciam, purpose: Purpose, id: &Identity, code: &str) -> String {
    ciam.keys.keyed_hash(
        "code",
        format!("{}|{}|{code}", purpose.as_str(), id.as_str()).as_bytes(),
    )
}

/// Whether a code item is a used code's tombstone (absent for every check).
fn is_used(item: &Item) -> bool {
    item.s("usedBy").is_some()
}

/// The condition of every write to a code that is still the one read and not used.
fn unused(stored_hash: &str) -> Cond {
    Cond::eq("hash", stored_hash).and(Cond::attr_not_exists("usedBy"))
}

/// `POST /auth/identity`. Round trips: for a sign-in or sign-up code to a mail at a domain
/// that could be verified, 1 GetItem of its owner item first (ORG_SIGN_IN_REQUIRED when the
/// domain requires its company's sign-in, nothing written); then 1 transaction (code, daily counter, captcha, and for a
/// sign-in code the check that the account is not locked), then the notifier, then 1 update
/// marking the code delivered; a second read only on the refusal path to tell which limit (or
/// the lock's end) applied.
///
/// The 60-second hold applies to a delivered code only: after a send whose outcome is unknown
/// (a 503 whose transaction committed, its answer lost; the code was never delivered) the
/// person may ask again at once, and a used code is replaced at once. The daily cap counts
/// every send.
pub async fn send(
    ciam: &Ciam,
    id: &Identity,
    purpose: Purpose,
    captcha: Option<&str>,
    lang: Lang,
) -> Result<()> {
    if purpose == Purpose::Register {
        // Before the captcha and the text: a number the other cell serves costs nothing here.
        crate::cell::sign_up_here(&ciam.config, id)?;
    }
    if matches!(purpose, Purpose::Register | Purpose::Login) {
        // A mail whose domain requires its company's sign-in gets no code to sign up or in
        // with (docs/organizations-connections.md §0.5): refused before the captcha is used.
        crate::domains::sign_in::must_not_be_required(ciam.store.as_ref(), id).await?;
    }
    let solved = captcha::verify(ciam, captcha)?;
    let now = ciam.now();
    let code = random_digits(ciam.entropy.as_ref(), 6);
    let key = code_key(purpose, id);
    let code_hash = hash(ciam, purpose, id, &code);
    let item = Item::new(key.clone())
        .with("hash", code_hash.as_str())
        .with("sentAt", now)
        .with("tries", 0)
        .expires(now + CODE_TTL);
    let free = Cond::attr_not_exists("lockedUntil").or(Cond::le("lockedUntil", now));
    let not_held = Cond::attr_exists("usedBy")
        .or(Cond::attr_not_exists("deliveredAt"))
        .or(Cond::le("deliveredAt", now - RESEND_AFTER));
    let may_send = Cond::NotExists.or(not_held.and(free));
    let day_end = (now.div_euclid(DAY) + 1) * DAY;
    let mut ops = vec![
        TxOp::Put {
            item,
            cond: Some(may_send),
        },
        TxOp::Update {
            key: sends_key(id, now),
            ops: vec![
                Update::Add("n".into(), 1),
                Update::Expires(Some(day_end + DAY)),
            ],
            cond: Some(Cond::attr_not_exists("n").or(Cond::lt("n", ciam.config.code_daily_cap))),
        },
        solved.consume,
    ];
    // A sign-in code for a locked account would only be refused when used: the lock is answered
    // now, as password sign-in answers it (the identity item holds the lock; an unknown name has
    // no item and passes, so it answers like a known unlocked one).
    let lock_key = unique_key(id.unique_pk());
    if purpose == Purpose::Login {
        ops.push(TxOp::Check {
            key: lock_key.clone(),
            cond: signin::may_attempt(now),
        });
    }
    match ciam.store.transact(ops).await {
        Ok(()) => {}
        Err(e) if e.condition_failed_at(2) => return Err(Reason::VERIFYCAPTCHA_NOT_FOUND.into()),
        Err(e) if e.condition_failed_at(3) => {
            return Err(match ciam.store.get(&lock_key).await? {
                Some(cur) => locked_error(signin::locked_until(&cur, now)),
                // Deleted meanwhile (a deactivation): ask again.
                None => Reason::SERVICE_UNAVAILABLE.into(),
            });
        }
        Err(e) if e.condition_failed_at(0) => {
            let held = ciam
                .store
                .get(&key)
                .await?
                .and_then(|i| i.n("lockedUntil"))
                .is_some_and(|t| t > now);
            return Err(if held {
                Reason::VERIFICATION_CODE_LIMIT
            } else {
                Reason::VERIFYCODE_SENDING_TOO_QUICKLY
            }
            .into());
        }
        Err(e) if e.condition_failed_at(1) => return Err(Reason::VERIFYCODE_SENDING_LIMIT.into()),
        Err(e) => return Err(e.into()),
    }
    let msg = CodeMessage {
        to: id.clone(),
        purpose,
        code,
        lang,
    };
    let same_code = Cond::eq("sentAt", now).and(Cond::eq("hash", code_hash));
    if let Err(e) = ciam.notifier.send_code(&msg).await {
        // Undelivered: withdraw it so the person may ask again at once.
        let _ = ciam.store.delete(&key, Some(same_code)).await;
        return Err(match e {
            // The provider's own limit for this number, or a number it will not text: the
            // person is told (never a 500).
            SendError::Refused(reason) => reason.into(),
            SendError::Failed(cause) => Error::internal(format!("notifier: {cause}")),
        });
    }
    // Delivered: from now on the resend hold applies. The code is on its way whatever this
    // write does, so its failure is no failure of the send (the hold is then not in force: a
    // resend is possible sooner, still within the daily cap).
    let delivered = vec![Update::Set("deliveredAt".into(), ciam.now().into())];
    match ciam.store.update(&key, delivered, Some(same_code)).await {
        Ok(_) => {}
        // Replaced or withdrawn meanwhile: nothing to mark.
        Err(e) if e.is_condition_failed() => {}
        Err(e) => tracing::warn!(cause = %e, "could not mark a sent code delivered"),
    }
    Ok(())
}

/// A code that checked out; consuming it (turning it into a tombstone marked with this
/// request's own token, if still the same unused code) is left to the caller, inside its own
/// transaction when it has one.
#[derive(Debug)]
pub struct Verified {
    pub consume: TxOp,
    /// This request's mark on the code it uses (`usedBy`): a use whose answer was lost is
    /// recognised by it.
    token: String,
}

/// Checks a code without consuming it. Round trips: 1 read, plus 1 write on a wrong code.
pub async fn check(ciam: &Ciam, id: &Identity, purpose: Purpose, code: &str) -> Result<Verified> {
    let stored = read(ciam, id, purpose).await?;
    judge(ciam, id, purpose, code, stored).await
}

/// The live code item of `purpose` for `id`, if any (read beside other work: sign-in by code
/// reads it together with its attempt). Round trips: 1.
pub async fn read(ciam: &Ciam, id: &Identity, purpose: Purpose) -> Result<Option<Item>> {
    Ok(ciam.store.get(&code_key(purpose, id)).await?)
}

/// Checks `code` against the code item read by `read`, without consuming it. Round trips: 0,
/// or 1 write on a wrong code (its try is counted; the fifth burns it); with no code of this
/// purpose (or only a used one), the other purposes' codes are read (`other_kind`:
/// CODE_KIND_ERROR or VERIFYCODE_NOT_FOUND).
pub async fn judge(
    ciam: &Ciam,
    id: &Identity,
    purpose: Purpose,
    code: &str,
    stored: Option<Item>,
) -> Result<Verified> {
    let key = code_key(purpose, id);
    let now = ciam.now();
    let Some(item) = stored.filter(|i| !is_used(i)) else {
        return Err(other_kind(ciam, id, purpose, code).await);
    };
    if item.n("lockedUntil").is_some_and(|t| t > now) {
        return Err(Reason::VERIFICATION_CODE_LIMIT.into());
    }
    let stored = item
        .s("hash")
        .ok_or(Reason::VERIFYCODE_NOT_FOUND)?
        .to_owned();
    let given = hash(ciam, purpose, id, code);
    if bool::from(stored.as_bytes().ct_eq(given.as_bytes())) {
        let token = ciam.new_id();
        let kept_until = item
            .expires_at
            .map_or(now + USED_TTL, |e| e.min(now + USED_TTL));
        return Ok(Verified {
            consume: TxOp::Update {
                key,
                ops: vec![
                    Update::Set("usedBy".into(), token.as_str().into()),
                    Update::Set("usedAt".into(), now.into()),
                    Update::Expires(Some(kept_until)),
                ],
                cond: Some(unused(&stored)),
            },
            token,
        });
    }
    Err(wrong_try(ciam, &key, &stored).await?)
}

/// Whether `code` is the code already used for `purpose` and `id`: `stored` (as `read` found
/// it) is a tombstone whose hash is this code's, met by fewer than `MAX_TRIES` wrong guesses.
/// A request that committed but whose answer was lost, sent again, is told apart so from a
/// wrong or absent code. A wrong guess meeting a tombstone counts on it, so the tombstone is no
/// oracle to guess for free. Round trips: 0; 1 write when a wrong guess meets a tombstone.
pub async fn used_already(
    ciam: &Ciam,
    id: &Identity,
    purpose: Purpose,
    code: &str,
    stored: Option<&Item>,
) -> Result<bool> {
    let Some(item) = stored.filter(|i| is_used(i)) else {
        return Ok(false);
    };
    let Some(stored) = item.s("hash") else {
        return Ok(false);
    };
    if item.n("tries").unwrap_or(0) >= MAX_TRIES {
        return Ok(false);
    }
    let given = hash(ciam, purpose, id, code);
    if bool::from(stored.as_bytes().ct_eq(given.as_bytes())) {
        return Ok(true);
    }
    let same_tombstone = Cond::eq("hash", stored).and(Cond::attr_exists("usedBy"));
    ciam.store
        .update(
            &item.key,
            vec![Update::Add("tries".into(), 1)],
            Some(same_tombstone),
        )
        .await
        .won()?;
    Ok(false)
}

/// Counts a wrong guess on the code at `key` whose hash is `stored` (if it is still that code)
/// and answers the refusal: CODE_ERROR, or VERIFICATION_CODE_LIMIT when this was the fifth,
/// which burns the code. Round trips: 1, or 2 when it burns.
async fn wrong_try(ciam: &Ciam, key: &Key, stored: &str) -> Result<Error> {
    let now = ciam.now();
    // A code used meanwhile is no longer counted (it is absent for every check).
    let same_code = Some(unused(stored));
    // With a token: a retry after a lost answer counts the guess once (`once`).
    let after = match crate::once::update(
        ciam,
        key,
        vec![Update::Add("tries".into(), 1)],
        same_code.clone(),
    )
    .await?
    {
        Ok(after) => after,
        Err(_) => return Ok(Reason::VERIFYCODE_NOT_FOUND.into()),
    };
    if after.n("tries").unwrap_or(0) < MAX_TRIES {
        return Ok(Reason::CODE_ERROR.into());
    }
    let until = now + CHECK_LOCK;
    let burn = vec![
        Update::Remove("hash".into()),
        Update::Set("lockedUntil".into(), until.into()),
        Update::Expires(Some(after.expires_at.unwrap_or(until).max(until))),
    ];
    // Burnt meanwhile by another check: the answer is the same.
    ciam.store.update(key, burn, same_code).await.won()?;
    Ok(Reason::VERIFICATION_CODE_LIMIT.into())
}

/// The answer when `id` has no live code of `purpose`: CODE_KIND_ERROR when `code` is the live
/// code of another purpose (a sign-up code typed into the sign-in, say), which stays usable for
/// its own purpose; else VERIFYCODE_NOT_FOUND, and each live code of another purpose it was
/// compared with counts the wrong guess (so this answer is no oracle that guesses those codes
/// for free). Round trips: 1 (the other purposes' codes together), plus 1 write per live code
/// of another purpose when the guess matched none (usually none).
async fn other_kind(ciam: &Ciam, id: &Identity, purpose: Purpose, code: &str) -> Error {
    let others: Vec<Purpose> = Purpose::ALL.into_iter().filter(|p| *p != purpose).collect();
    let keys: Vec<Key> = others.iter().map(|p| code_key(*p, id)).collect();
    let found = match ciam.store.get_many(&keys).await {
        Ok(found) => found,
        Err(e) => return e.into(),
    };
    let now = ciam.now();
    // The live codes of the other purposes: (key, stored hash, whether `code` is it).
    let live: Vec<(Key, String, bool)> = others
        .iter()
        .zip(keys)
        .zip(found)
        .filter_map(|((p, key), item)| {
            let item = item
                .filter(|i| !is_used(i))
                .filter(|i| i.n("lockedUntil").is_none_or(|t| t <= now))?;
            let stored = item.s("hash")?.to_owned();
            let given = hash(ciam, *p, id, code);
            let same = bool::from(stored.as_bytes().ct_eq(given.as_bytes()));
            Some((key, stored, same))
        })
        .collect();
    if live.iter().any(|(_, _, same)| *same) {
        return Reason::CODE_KIND_ERROR.into();
    }
    for (key, stored, _) in &live {
        if let Err(e) = wrong_try(ciam, key, stored).await {
            return e;
        }
    }
    Reason::VERIFYCODE_NOT_FOUND.into()
}

/// Consumes a verified code on its own (when the caller has no transaction to put it in). A use
/// whose condition fails because this very request already made it (its answer lost, the
/// write sent again) is recognised by its write token (`once`). Round trips: 1.
pub async fn consume(ciam: &Ciam, v: Verified) -> Result<()> {
    let TxOp::Update { key, ops, cond } = v.consume else {
        return Err(Error::internal("a code is consumed by an update"));
    };
    // The request's token doubles as the write token (`once`): a use sent again after a lost
    // answer is recognised by the store's ring, and sent again once by `once` itself.
    let token = ciam_store::Token::new(v.token);
    match crate::once::update_with(ciam, &key, ops, cond, &token).await? {
        Ok(_) => Ok(()),
        Err(_) => Err(Reason::VERIFYCODE_NOT_FOUND.into()),
    }
}
