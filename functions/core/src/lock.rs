//! The account lock: 5 consecutive failures lock the account for 15 minutes; further failures
//! during the lock do not extend it. Sign-in by password or code counts on the identity item it
//! finds the account by (`signin`, attempt taken before the hash); the other checks count on the
//! user item (`fail`). A lock reached either way is written to the user item and every identity
//! item at once. A successful sign-in clears its count; a password reset by code clears counts
//! and lock (the recovery path that always remains).

use crate::error::Error;
use crate::user::{profile_key, User};
use crate::{Ciam, LostRace, Reason};
use ciam_store::{Cond, Key, TxOp, Update};

pub const MAX_FAILS: i64 = 5;
pub const LOCK_SECS: i64 = 900;

pub fn locked_error(until: i64) -> Error {
    Error::new(Reason::VERIFICATION_ATTEMPT_CODE_LIMIT).raw_message(until.to_string())
}

pub fn ensure_unlocked(user: &User, now: i64) -> Result<(), Error> {
    match user.locked_until {
        Some(t) if t > now => Err(locked_error(t)),
        _ => Ok(()),
    }
}

/// Records one failure on the user item (the checks made for a signed-in session or a
/// second step: current password, authenticator and backup codes, reset codes) and returns the
/// error to answer: `base`, or the lock when this failure reached the limit. Sign-in by
/// password or code counts on the identity item instead (`signin`). Round trips: 1, or 2 when
/// it locks.
pub async fn fail(ciam: &Ciam, user_id: &str, base: Error) -> Error {
    fail_counted(ciam, user_id, base).await.1
}

/// [`fail`], also giving the failure's number in the count (1 to `MAX_FAILS`; none when
/// nothing was counted), which `attempts` records it under.
pub async fn fail_counted(ciam: &Ciam, user_id: &str, base: Error) -> (Option<i64>, Error) {
    let key = profile_key(user_id);
    // With a token: a retry after a lost answer counts nothing more (`once`).
    let after = match crate::once::update(
        ciam,
        &key,
        vec![Update::Add("fails".into(), 1)],
        Some(Cond::Exists),
    )
    .await
    {
        Ok(Ok(i)) => i,
        // The account is gone (deactivated meanwhile): nothing to count.
        Ok(Err(_)) => return (None, base),
        Err(e) => return (None, Error::from(e)),
    };
    let n = after.n("fails").unwrap_or(0);
    if n < MAX_FAILS {
        return (Some(n), base);
    }
    let ids = crate::user::identity_keys(after.s("mail"), after.s("phone"), None);
    (Some(n), lock_account(ciam, user_id, ids, base).await)
}

/// Locks the account for `LOCK_SECS`: the user item (unless already locked: a lock never
/// moves) and every identity item in `ids` (so sign-in by any name is refused), in one
/// transaction; the counters start again at 0. Returns the lock error with the unlock time.
/// Round trips: 1 (2 when another failure locked it a moment ago).
pub async fn lock_account(ciam: &Ciam, user_id: &str, ids: Vec<Key>, base: Error) -> Error {
    let now = ciam.now();
    let until = now + LOCK_SECS;
    let key = profile_key(user_id);
    let not_locked = Cond::attr_not_exists("lockedUntil").or(Cond::le("lockedUntil", now));
    let lock = || {
        vec![
            Update::Set("lockedUntil".into(), until.into()),
            Update::Set("fails".into(), 0.into()),
        ]
    };
    let mut ops = vec![TxOp::Update {
        key: key.clone(),
        ops: lock(),
        cond: Some(Cond::Exists.and(not_locked)),
    }];
    ops.extend(ids.into_iter().map(|k| TxOp::Update {
        key: k,
        ops: lock(),
        cond: Some(Cond::eq("userId", user_id)),
    }));
    ops.push(crate::directory::locked(user_id, until));
    match ciam.store.transact(ops).await.won() {
        Ok(Some(())) => locked_error(until),
        // Someone else's failure locked it a moment ago: report that lock, unchanged.
        Ok(None) => match ciam.store.get(&key).await {
            Ok(Some(i)) => match i.n("lockedUntil").filter(|t| *t > now) {
                Some(t) => locked_error(t),
                None => locked_error(until),
            },
            Ok(None) => base,
            Err(e) => Error::from(e),
        },
        Err(e) => Error::from(e),
    }
}

/// The changes that clear the counter (and the lock), when there is anything to clear.
pub fn clear_ops(user: &User) -> Option<Vec<Update>> {
    (user.fails != 0 || user.locked_until.is_some()).then(|| {
        vec![
            Update::Set("fails".into(), 0.into()),
            Update::Remove("lockedUntil".into()),
        ]
    })
}
