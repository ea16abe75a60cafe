//! Password changes (with a session and the current password) and resets (by code, the way out
//! of a lock).

use crate::client::ClientInfo;
use crate::error::{Error, Result};
use crate::lock::{ensure_unlocked, fail};
use crate::sessions::{same_session, Session};
use crate::signin;
use crate::user::{live_user, profile_key, unique_key, User};
use crate::validate::{self, Identity};
use crate::{audit, codes, events, password, random, Ciam, LostRace, Purpose, Reason};
use ciam_store::{Cond, TxOp, Update};

/// Clears the lock and the counter (a new password ends the lock, on every item that holds it).
fn clear_lock() -> Vec<Update> {
    vec![
        Update::Set("fails".into(), 0.into()),
        Update::Remove("lockedUntil".into()),
    ]
}

fn new_password_ops(hash: String, next_gen: i64) -> Vec<Update> {
    vec![
        Update::Set("pwdHash".into(), hash.into()),
        Update::Set("sessGen".into(), next_gen.into()),
        Update::Set("fails".into(), 0.into()),
        Update::Remove("lockedUntil".into()),
    ]
}

/// `PATCH /auth/pwd` with a session: the current password is required, the new one must differ.
/// Every other session of the account is revoked; this one stays. Round trips: 1 transaction.
pub async fn change_password(
    ciam: &Ciam,
    s: &Session,
    old: &str,
    new: &str,
    confirm: &str,
    client: &ClientInfo,
) -> Result<()> {
    if old.is_empty() {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "oldPassword",
            "请输入当前密码",
            "Enter your current password",
        ));
    }
    password::check_new(new)?;
    validate::confirm_matches(new, confirm)?;
    ensure_unlocked(&s.user, ciam.now())?;
    if !password::verify(old.to_owned(), s.user.pwd_hash.clone()).await? {
        return Err(fail(ciam, &s.user.id, Reason::PASSWORD_ERROR.into()).await);
    }
    if old == new {
        return Err(Reason::PASSWORD_SAME_ERROR.into());
    }
    let hash = password::hash(new.to_owned(), random::<16>(ciam.entropy.as_ref())).await?;
    let gen = s.user.sess_gen + 1;
    let mut ops = vec![
        TxOp::Update {
            key: profile_key(&s.user.id),
            ops: new_password_ops(hash.clone(), gen),
            cond: Some(same_session(s)),
        },
        TxOp::Update {
            key: s.key.clone(),
            ops: vec![Update::Set("gen".into(), gen.into())],
            cond: Some(Cond::Exists),
        },
    ];
    ops.push(audit::record(
        ciam,
        &s.user.id,
        audit::Event::PasswordChanged,
        client,
    ));
    let after = User {
        pwd_hash: Some(hash),
        sess_gen: gen,
        ..s.user.clone()
    };
    ops.extend(signin::in_step_with(&after, clear_lock()));
    // This session stays: its apps are not told (the event item names it, no payload does).
    ops.extend(crate::app_sessions::keeping(
        all_sessions_ended(ciam, &s.user),
        &s.key,
    ));
    ciam.store
        .transact(ops)
        .await
        .or_reason(Reason::AUTHORIZATION_FAILED)
}

/// `PATCH /auth/pwd` with a code (find password). Clears the lock and revokes every session.
/// A suspended account's password is set too, then answered ACCOUNT_SUSPENDED (the code proved
/// the owner; docs/console-design.md §4); a wrong code is answered as for any account.
/// Staff accounts cannot reset through their company mail once they have a password (spec §6);
/// a staff account without one sets its first password here. Round trips: 2 reads for the
/// user, 1 for the code, 1 transaction.
pub async fn reset_password(
    ciam: &Ciam,
    account: &str,
    code: &str,
    new: &str,
    confirm: &str,
    client: &ClientInfo,
) -> Result<()> {
    let id = Identity::parse(account)?;
    let code = validate::code("code", code)?;
    password::check_new(new)?;
    validate::confirm_matches(new, confirm)?;
    let user = find_user(ciam, &id).await?;
    let verified = match codes::check(ciam, &id, Purpose::ResetPassword, &code).await {
        Ok(v) => v,
        Err(e) => {
            return Err(match (&user, e.reason) {
                (Some(u), Reason::CODE_ERROR) => fail(ciam, &u.id, e).await,
                _ => e,
            })
        }
    };
    let user = user.ok_or_else(|| Error::new(id.not_found_reason()))?;
    if let Identity::Mail(m) = &id {
        if user.eiam_uid.is_some() && user.pwd_hash.is_some() && ciam.is_internal_mail(m) {
            return Err(Reason::EIAM_MAIL_PERMISSION_DENIED.into());
        }
    }
    if user.pwd_hash.is_some() && password::verify(new.to_owned(), user.pwd_hash.clone()).await? {
        return Err(Reason::PASSWORD_SAME_ERROR.into());
    }
    let hash = password::hash(new.to_owned(), random::<16>(ciam.entropy.as_ref())).await?;
    let mut ops = vec![
        TxOp::Update {
            key: profile_key(&user.id),
            ops: new_password_ops(hash.clone(), user.sess_gen + 1),
            cond: Some(Cond::Exists.and(Cond::eq("sessGen", user.sess_gen))),
        },
        verified.consume,
        audit::record(ciam, &user.id, audit::Event::PasswordReset, client),
    ];
    let after = User {
        pwd_hash: Some(hash),
        sess_gen: user.sess_gen + 1,
        ..user.clone()
    };
    ops.extend(signin::in_step_with(&after, clear_lock()));
    // Out of the console's list of locked accounts.
    ops.extend(crate::directory::unlocked(&user));
    ops.extend(all_sessions_ended(ciam, &user));
    match ciam.store.transact(ops).await {
        // The right code proved the owner: the password is set, and a suspended account is told
        // why it still cannot sign in, instead of "done" and then a wrong password's answer.
        Ok(()) if user.suspended_at.is_some() => Err(Reason::ACCOUNT_SUSPENDED.into()),
        Ok(()) => Ok(()),
        Err(e) if e.condition_failed_at(1) => Err(Reason::VERIFYCODE_NOT_FOUND.into()),
        other => other.or_reason(Reason::SERVICE_UNAVAILABLE),
    }
}

/// A new password ends the account's sessions (all but the changing one): partners hear
/// `session.ended` (`all_sessions`, no `sid`).
fn all_sessions_ended(ciam: &Ciam, user: &User) -> Option<TxOp> {
    let data = events::session_ended(None, events::ALL_SESSIONS);
    events::op_for(ciam, user, events::Kind::SessionEnded, data)
}

/// The owner of an identity, if any. Round trips: 2 (uniqueness item, then user).
async fn find_user(ciam: &Ciam, id: &Identity) -> Result<Option<User>> {
    let Some(owner) = ciam.store.get(&unique_key(id.unique_pk())).await? else {
        return Ok(None);
    };
    let Some(uid) = owner.s("userId") else {
        return Ok(None);
    };
    Ok(live_user(ciam, uid).await?)
}
