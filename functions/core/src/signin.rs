//! The sign-in record: what a password or code sign-in needs, kept on the item the account is
//! found by (`MAIL#<mail>` / `UNIQUE`, `PHONE#<phone>` / `UNIQUE`), so a sign-in is two store
//! round trips: one conditional update that finds the account AND takes an attempt, then the
//! success's writes (or, on the last allowed failure, the lock).
//!
//! The record copies `pwdHash`, `sessGen`, `enableTotp`, `mail`, `phone` and `suspendedAt` from
//! the user item (`rec` = 1 marks it). Every transaction that changes one of them on the user item carries
//! `in_step(&user_after)`, which rewrites the copy on each identity item of the account, so the
//! two never disagree after a commit. An identity item written before the record existed has no
//! `rec`: the sign-in then reads the user item (one more round trip, once) and fills the record
//! in, only if it is still missing (a change committed meanwhile wins).
//!
//! The attempt counter (`fails`, `attemptAt`) and `lockedUntil` live here too. The attempt is
//! taken BEFORE the password is hashed, by one conditional update that adds to `fails` only
//! while the account is not locked and has attempts left, so N parallel guesses get exactly
//! `MAX_FAILS` evaluations, whatever N. A success resets the counter (a code sign-in in its transaction; a password sign-in by a
//! single-item write beside the session's, `accounts::finish_password`, 3 write units in all); the
//! evaluation that used the last attempt and failed locks the account (`lock::lock_account`:
//! every identity item and the user item, so the other sign-in name and the session-side checks
//! are locked too). A count left by failures is forgotten after `LOCK_SECS` without an attempt
//! (the next attempt starts it again at 1).
//!
//! The lock reveals nothing: a sign-in name nobody registered gets the same budget of attempts,
//! on an item of its own at the same key (a "budget item": `fails`, `attemptAt`, `lockedUntil`,
//! no `userId`), so its sixth wrong password answers the lock with the same unlock time as a
//! real account's. Registration and binding take the key over (`name_free`). An unknown name
//! makes exactly the store calls a known one makes (DESIGN.md §2): the attempt is the same
//! conditional update whether the item is an account's, a budget item or absent (it makes the
//! budget item then), a count gone quiet starts again by the same second write, and the lock is
//! one transaction. The update writes no expiry, so that no real identity item ever gets one:
//! the budget's window is in its condition (`attemptAt`), as an account's is, and the item
//! expires with its lock; one that never reaches a lock stays (about 60 bytes; docs/cost.md).
//!
//! A suspended account (`suspendedAt`, the console) takes its attempt as any other and its secret
//! is judged: a wrong one is answered and counted as any wrong secret (a stranger learns
//! nothing), a right one proves the owner, who is told `ACCOUNT_SUSPENDED` and given the attempt
//! back ([`proven_suspended`]: no session, no reset of the lock). The success's reset refuses a
//! suspension that lands in between.
//!
//! Each sign-in name has its own budget of attempts; a lock reached through any of them locks
//! the whole account (docs/data-model.md).

use crate::error::{Error, Result};
use crate::lock::{LOCK_SECS, MAX_FAILS};
use crate::user::{identity_keys, live_user, unique_key, User};
use crate::validate::Identity;
use crate::{Ciam, LostRace, Reason};
use ciam_store::{Cond, Item, Key, TxOp, Update};

/// The identity item's copy of the last day a password sign-in by it succeeded.
pub const ACT_DAY: &str = "actDay";

/// What a sign-in knows about the account after taking its attempt.
#[derive(Clone, Debug, PartialEq)]
pub struct SignInRecord {
    /// The identity item it was read from.
    pub key: Key,
    pub user_id: String,
    pub pwd_hash: Option<String>,
    pub sess_gen: i64,
    pub enable_totp: bool,
    pub mail: Option<String>,
    pub phone: Option<String>,
    /// Attempts taken since the last success or lock, this one included.
    pub fails: i64,
    /// Suspended by support (`suspendedAt`): the secret is judged; a right one is told so.
    pub suspended: bool,
    /// The last day (`yyyy-mm-dd`, UTC) a password sign-in by this identity succeeded
    /// (`actDay`, written by [`SignInRecord::reset_update`]): the console's numbers skip the
    /// account's day on a repeat sign-in of the day (docs/data-model.md "The numbers").
    pub day: Option<String>,
}

impl SignInRecord {
    /// The record of an identity item, `None` when the item has none yet (written before the
    /// record existed).
    fn from_item(item: &Item) -> Option<SignInRecord> {
        item.n("rec")?;
        Some(SignInRecord {
            key: item.key.clone(),
            user_id: item.s("userId")?.to_owned(),
            pwd_hash: item.s("pwdHash").map(str::to_owned),
            sess_gen: item.n("sessGen").unwrap_or(0),
            enable_totp: item.bool("enableTotp").unwrap_or(false),
            mail: item.s("mail").map(str::to_owned),
            phone: item.s("phone").map(str::to_owned),
            fails: item.n("fails").unwrap_or(0),
            suspended: item.n("suspendedAt").is_some(),
            day: item.s(ACT_DAY).map(str::to_owned),
        })
    }

    fn from_user(key: Key, user: &User, fails: i64) -> SignInRecord {
        SignInRecord {
            key,
            user_id: user.id.clone(),
            pwd_hash: user.pwd_hash.clone(),
            sess_gen: user.sess_gen,
            enable_totp: user.enable_totp,
            mail: user.mail.clone(),
            phone: user.phone.clone(),
            fails,
            suspended: user.suspended_at.is_some(),
            day: None,
        }
    }

    /// Whether this attempt was the last one allowed before the lock.
    pub fn last_attempt(&self) -> bool {
        self.fails >= MAX_FAILS
    }

    /// The keys of every identity item of the account (this one first).
    pub fn identity_keys(&self) -> Vec<Key> {
        identity_keys(self.mail.as_deref(), self.phone.as_deref(), Some(&self.key))
    }

    /// The success transaction's reset of the counter (the item must still be this account's
    /// and not suspended: a deactivation meanwhile deleted it, a suspension marked it, and the
    /// sign-in is refused).
    pub fn reset(&self) -> TxOp {
        TxOp::Update {
            key: self.key.clone(),
            ops: vec![
                Update::Set("fails".into(), 0.into()),
                Update::Remove("lockedUntil".into()),
            ],
            cond: Some(self.still_signing_in()),
        }
    }

    /// The reset of a password sign-in's success, as a single-item write (no transaction,
    /// `accounts::finish_password`): the same changes and condition as [`SignInRecord::reset`],
    /// and `actDay` set to `today`, in the same write unit. Sent again, it changes nothing more.
    pub fn reset_update(&self, today: &str) -> (Vec<Update>, Cond) {
        let ops = vec![
            Update::Set("fails".into(), 0.into()),
            Update::Remove("lockedUntil".into()),
            Update::Set(ACT_DAY.into(), today.into()),
        ];
        (ops, self.still_signing_in())
    }

    /// The item is still this account's and not suspended.
    fn still_signing_in(&self) -> Cond {
        Cond::eq("userId", self.user_id.as_str()).and(Cond::attr_not_exists("suspendedAt"))
    }
}

/// The record's attributes for `user` (its state after the change being committed).
fn record_updates(user: &User) -> Vec<Update> {
    let opt = |name: &str, v: &Option<String>| match v {
        Some(v) => Update::Set(name.into(), v.as_str().into()),
        None => Update::Remove(name.into()),
    };
    vec![
        Update::Set("rec".into(), 1.into()),
        opt("pwdHash", &user.pwd_hash),
        Update::Set("sessGen".into(), user.sess_gen.into()),
        Update::Set("enableTotp".into(), user.enable_totp.into()),
        opt("mail", &user.mail),
        opt("phone", &user.phone),
        match user.suspended_at {
            Some(t) => Update::Set("suspendedAt".into(), t.into()),
            None => Update::Remove("suspendedAt".into()),
        },
    ]
}

/// The writes that keep the sign-in record of every identity item of `user` in step with the
/// user item, for the transaction that changes the user item (`user` as it will be after it).
/// Appended at the end of a transaction, so the indices its callers check stay the same.
pub fn in_step(user: &User) -> Vec<TxOp> {
    in_step_with(user, Vec::new())
}

/// `in_step`, plus `extra` changes on each identity item (e.g. clearing the lock).
pub fn in_step_with(user: &User, extra: Vec<Update>) -> Vec<TxOp> {
    identity_keys(user.mail.as_deref(), user.phone.as_deref(), None)
        .into_iter()
        .map(|key| {
            let mut ops = record_updates(user);
            ops.extend(extra.iter().cloned());
            TxOp::Update {
                key,
                ops,
                cond: Some(Cond::eq("userId", user.id.as_str())),
            }
        })
        .collect()
}

/// The record a new identity item is created with (registration, staff accounts, binding).
pub fn new_identity_item(key: Key, user: &User) -> Item {
    Item::new(key)
        .with("userId", user.id.as_str())
        .with("rec", 1)
        .with("sessGen", user.sess_gen)
        .with("enableTotp", user.enable_totp)
        .with_opt("pwdHash", user.pwd_hash.clone())
        .with_opt("mail", user.mail.clone())
        .with_opt("phone", user.phone.clone())
        .with_opt("suspendedAt", user.suspended_at)
}

/// The outcome of taking an attempt.
#[derive(Debug)]
pub enum Attempt {
    /// No account signs in with this identity (or it is deactivated); the attempt is counted on
    /// the name's budget item.
    NoAccount(Budget),
    /// The account (or the unknown name) is locked, or its last attempts are being evaluated,
    /// until this time.
    Locked(i64),
    /// The attempt is counted; evaluate the secret.
    Taken(SignInRecord),
}

/// The attempts counted on a sign-in name nobody registered (see the module).
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    pub key: Key,
    /// Attempts taken since the budget item was made, this one included.
    pub fails: i64,
}

/// The condition under which an identity item lets a sign-in be attempted at `now`: the account
/// is not locked and has attempts left. Also true of an absent item (an unknown sign-in name).
pub fn may_attempt(now: i64) -> Cond {
    let not_locked = Cond::attr_not_exists("lockedUntil").or(Cond::le("lockedUntil", now));
    // A counter left at the limit by a lock that was never written (a crash between the two)
    // frees itself after the lock time.
    let attempts_left = Cond::attr_not_exists("fails")
        .or(Cond::lt("fails", MAX_FAILS))
        .or(Cond::le("attemptAt", now - LOCK_SECS));
    not_locked.and(attempts_left)
}

/// True when the failures counted on `cur` are older than `LOCK_SECS`: the count starts again.
fn quiet_since(cur: &Item, now: i64) -> bool {
    cur.n("fails").unwrap_or(0) > 0 && cur.n("attemptAt").is_some_and(|t| t <= now - LOCK_SECS)
}

/// Until when the identity item `cur`, which failed [`may_attempt`], refuses sign-ins: its lock,
/// or the end of the lock its used-up attempts are about to write.
pub fn locked_until(cur: &Item, now: i64) -> i64 {
    cur.n("lockedUntil")
        .filter(|t| *t > now)
        .unwrap_or_else(|| cur.n("attemptAt").unwrap_or(now) + LOCK_SECS)
}

/// The condition under which the identity item at a key may be made for a new account or a new
/// binding: there is none, or only an unknown name's budget item.
pub fn name_free() -> Cond {
    Cond::NotExists.or(Cond::attr_not_exists("userId"))
}

/// Finds the account of `id` and takes one attempt, atomically: one conditional update of the
/// identity item (the attempt is refused while the account is locked or its attempts are used
/// up), the same for a name nobody registered (the update makes or counts its budget item).
/// Round trips: 1 (2 once for an identity item without a record, see the module; 2 when a
/// count older than `LOCK_SECS` starts again, known name or not).
pub async fn take_attempt(ciam: &Ciam, id: &Identity) -> Result<Attempt> {
    let now = ciam.now();
    let key = unique_key(id.unique_pk());
    let recent = Cond::attr_not_exists("fails")
        .or(Cond::eq("fails", 0))
        .or(Cond::gt("attemptAt", now - LOCK_SECS));
    // True of an absent item too: an unknown name's attempt is this same write.
    let cond = may_attempt(now).and(recent);
    let ops = vec![
        Update::Add("fails".into(), 1),
        Update::Set("attemptAt".into(), now.into()),
    ];
    let mut tries = 0;
    // One token for the attempt: a retry of its write (the SDK's, or ours after a lost answer)
    // is recognised and counts nothing more.
    let token = crate::once::token(ciam);
    let item = loop {
        tries += 1;
        let taken =
            crate::once::update_with(ciam, &key, ops.clone(), Some(cond.clone()), &token).await?;
        let cur = match taken {
            Ok(item) => break item,
            // Cannot be (the condition holds on an absent item): nothing counted.
            Err(None) => return Ok(Attempt::NoAccount(Budget { key, fails: 0 })),
            Err(Some(cur)) => cur,
        };
        if cur.n("lockedUntil").is_some_and(|t| t > now) || !quiet_since(&cur, now) {
            return Ok(Attempt::Locked(locked_until(&cur, now)));
        }
        if let Some(item) = restart(ciam, &key, &cur, now).await? {
            break item;
        }
        // Another attempt restarted or counted it a moment ago: take the attempt again.
        if tries >= 3 {
            return Err(Reason::SERVICE_UNAVAILABLE.into());
        }
    };
    if item.s("userId").is_none() {
        return Ok(Attempt::NoAccount(Budget {
            key,
            fails: item.n("fails").unwrap_or(1),
        }));
    }
    if let Some(rec) = SignInRecord::from_item(&item) {
        return Ok(Attempt::Taken(rec));
    }
    // An identity item from before the record: read the account, then fill the record in
    // unless a change committed meanwhile already did.
    let fails = item.n("fails").unwrap_or(1);
    let Some(uid) = item.s("userId") else {
        return Ok(Attempt::NoAccount(Budget { key, fails }));
    };
    let Some(user) = live_user(ciam, uid).await? else {
        // Deactivated meanwhile: answered as an unknown name, this attempt counting nothing.
        return Ok(Attempt::NoAccount(Budget { key, fails: 0 }));
    };
    if let Some(t) = user.locked_until.filter(|t| *t > now) {
        return Ok(Attempt::Locked(t));
    }
    let fill = ciam
        .store
        .update(
            &key,
            record_updates(&user),
            Some(Cond::eq("userId", user.id.as_str()).and(Cond::attr_not_exists("rec"))),
        )
        .await;
    // Filled in meanwhile by another attempt: fine.
    if let Err(e) = fill.won() {
        tracing::warn!(error = %e, "could not fill in a sign-in record");
    }
    Ok(Attempt::Taken(SignInRecord::from_user(key, &user, fails)))
}

/// Starts a count whose failures are older than `LOCK_SECS` again at this attempt (an
/// account's or a budget item's alike), unless another attempt changed it since `cur` was read
/// (`None`).
async fn restart(ciam: &Ciam, key: &Key, cur: &Item, now: i64) -> Result<Option<Item>> {
    let owner = match cur.s("userId") {
        Some(user_id) => Cond::eq("userId", user_id),
        None => Cond::Exists.and(Cond::attr_not_exists("userId")),
    };
    let same = owner
        .and(Cond::eq("attemptAt", cur.n("attemptAt").unwrap_or(0)))
        .and(Cond::attr_not_exists("lockedUntil").or(Cond::le("lockedUntil", now)));
    let ops = vec![
        Update::Set("fails".into(), 1.into()),
        Update::Set("attemptAt".into(), now.into()),
    ];
    Ok(ciam
        .store
        .update_or_current(key, ops, Some(same))
        .await?
        .ok())
}

/// After an attempt on an unknown name failed: locks the name, as an account's last failure
/// locks the account (the same calls: one transaction, and a read when another failure locked
/// it a moment ago), and returns the error to answer (`base`, or the lock with its unlock
/// time). The budget item expires with its lock. Round trips: 0, or 1 when it locks (2 when
/// another failure locked it a moment ago).
pub async fn failed_unknown(ciam: &Ciam, budget: &Budget, base: Error) -> Error {
    if budget.fails < MAX_FAILS {
        return base;
    }
    let now = ciam.now();
    let until = now + LOCK_SECS;
    let ops = vec![
        Update::Set("lockedUntil".into(), until.into()),
        Update::Set("fails".into(), 0.into()),
        Update::Expires(Some(until)),
    ];
    let cond = Cond::Exists
        .and(Cond::attr_not_exists("userId"))
        .and(Cond::attr_not_exists("lockedUntil").or(Cond::le("lockedUntil", now)));
    let lock = TxOp::Update {
        key: budget.key.clone(),
        ops,
        cond: Some(cond),
    };
    match ciam.store.transact(vec![lock]).await.won() {
        Ok(Some(())) => crate::lock::locked_error(until),
        // Locked a moment ago by another failure: that lock, unchanged.
        Ok(None) => match ciam.store.get(&budget.key).await {
            Ok(Some(cur)) => match cur.n("lockedUntil").filter(|t| *t > now) {
                Some(t) => crate::lock::locked_error(t),
                None => base,
            },
            Ok(None) => base,
            Err(e) => Error::from(e),
        },
        Err(e) => Error::from(e),
    }
}

/// Gives back the attempt of a right secret whose request could not finish (the success
/// transaction failed with a retryable store fault, so the request answers 503): the person did
/// nothing wrong and is told to retry, which must not bring the lock closer. Only while the
/// account still counts an attempt (the success may have committed, answer lost, and reset the
/// count already). Best effort, within the request's deadline. Round trips: 1.
pub async fn refund(ciam: &Ciam, rec: &SignInRecord) {
    let cond = Cond::eq("userId", rec.user_id.as_str()).and(Cond::gt("fails", 0));
    let ops = vec![Update::Add("fails".into(), -1)];
    match crate::once::update(ciam, &rec.key, ops, Some(cond)).await {
        Ok(_) => {}
        Err(e) => tracing::warn!(store_kind = e.kind(), cause = %e, "sign-in attempt not refunded"),
    }
}

/// The answer of a sign-in whose secret was right: `answer`, after giving the attempt back
/// when it is a 503 (`refund`).
pub async fn settle<T>(ciam: &Ciam, rec: &SignInRecord, answer: Result<T>) -> Result<T> {
    if let Err(e) = &answer {
        if e.reason == Reason::SERVICE_UNAVAILABLE {
            refund(ciam, rec).await;
        }
    }
    answer
}

/// After a taken attempt failed: locks the account when it was the last one allowed, and
/// returns the error to answer (`base`, or the lock). Round trips: 0, or 1 when it locks.
pub async fn failed(ciam: &Ciam, rec: &SignInRecord, base: Error) -> Error {
    if !rec.last_attempt() {
        return base;
    }
    crate::lock::lock_account(ciam, &rec.user_id, rec.identity_keys(), base).await
}

/// The answer to a suspended account's right secret (password or sign-in code):
/// `ACCOUNT_SUSPENDED`, after giving back the attempt this proof took (it was no guess, so it
/// must not bring the lock closer). Nothing else is written: the counter keeps earlier
/// failures, a lock stays, no session is issued. Round trips: 1 (the refund).
pub async fn proven_suspended(ciam: &Ciam, rec: &SignInRecord) -> Error {
    refund(ciam, rec).await;
    Reason::ACCOUNT_SUSPENDED.into()
}
