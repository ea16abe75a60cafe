//! One failure counter per account, across password and code checks: 5 consecutive failures
//! lock the account for 15 minutes. Further failures during the lock do not extend it. A
//! successful sign-in clears the count; a password reset by code clears count and lock (the
//! recovery path that always remains).

use crate::error::Error;
use crate::user::{profile_key, User};
use crate::{Ciam, Reason};
use ciam_store::{Cond, StoreError, Update};

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

/// Records one failure and returns the error to answer: `base`, or the lock when this failure
/// reached the limit. Round trips: 1, or 2 when it locks.
pub async fn fail(ciam: &Ciam, user_id: &str, base: Error) -> Error {
    let key = profile_key(user_id);
    let after = match ciam
        .store
        .update(
            &key,
            vec![Update::Add("fails".into(), 1)],
            Some(Cond::Exists),
        )
        .await
    {
        Ok(i) => i,
        Err(e) => return Error::from(e),
    };
    if after.n("fails").unwrap_or(0) < MAX_FAILS {
        return base;
    }
    let now = ciam.now();
    let until = now + LOCK_SECS;
    let not_locked = Cond::attr_not_exists("lockedUntil").or(Cond::le("lockedUntil", now));
    let lock = vec![
        Update::Set("lockedUntil".into(), until.into()),
        Update::Set("fails".into(), 0.into()),
    ];
    match ciam
        .store
        .update(&key, lock, Some(Cond::Exists.and(not_locked)))
        .await
    {
        Ok(_) => locked_error(until),
        // Someone else's failure locked it a moment ago: report that lock, unchanged.
        Err(StoreError::ConditionFailed) => match ciam.store.get(&key).await {
            Ok(Some(i)) => locked_error(i.n("lockedUntil").unwrap_or(until)),
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
