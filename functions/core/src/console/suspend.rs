//! The writes of suspension, reactivation and the passkey reset (design §4, §5), for
//! `actions::act`, which wraps them with the audit entry, the activity entry and the notice.
//!
//! A suspension is `suspendedAt` on the user item and on the sign-in record of every identity
//! item (`signin::in_step`): a password or code sign-in judges the secret and answers as for a
//! wrong one; passkey and staff sign-in, sessions, OpenID Connect access tokens and tickets read
//! the user item and refuse it (`User::usable`, `user::active_user`). Suspending ends the
//! sessions (`sessGen`); reactivating only removes the mark (the failure counters stay).

use super::accounts::user_update;
use crate::error::Result;
use crate::passkey::items::{delete_ops, items_of};
use crate::user::User;
use crate::{signin, Ciam};
use ciam_store::{TxOp, Update};

/// The user item's changes and the identity items' records for `after` (the account as the
/// transaction leaves it, its `sessGen` already moved when the sessions end).
fn with_records(user: &User, after: &User, mut ops: Vec<Update>) -> Vec<TxOp> {
    if after.sess_gen != user.sess_gen {
        ops.push(Update::Set("sessGen".into(), after.sess_gen.into()));
    }
    let mut tx = vec![user_update(user, ops)];
    tx.extend(signin::in_step(after));
    tx
}

/// Suspends `user` at `now` and ends its sessions; `None` when it is suspended already.
pub fn suspend(user: &User, now: i64) -> Option<Vec<TxOp>> {
    if user.suspended_at.is_some() {
        return None;
    }
    let after = User {
        suspended_at: Some(now),
        sess_gen: user.sess_gen + 1,
        ..user.clone()
    };
    let mut tx = with_records(
        user,
        &after,
        vec![Update::Set("suspendedAt".into(), now.into())],
    );
    // The console's list of suspended accounts.
    tx.push(crate::directory::suspended(&user.id, now));
    Some(tx)
}

/// Lifts the suspension of `user`; `None` when it is not suspended.
pub fn reactivate(user: &User) -> Option<Vec<TxOp>> {
    user.suspended_at?;
    let after = User {
        suspended_at: None,
        ..user.clone()
    };
    let mut tx = with_records(user, &after, vec![Update::Remove("suspendedAt".into())]);
    tx.extend(crate::directory::reactivated(user));
    Some(tx)
}

/// Removes every passkey of `user` (the credentials, their uniqueness items, the count) and ends
/// its sessions, as the customer's own removal and a two-factor reset do; `None` when it has
/// none. Round trips: 1 (the passkeys' query).
pub async fn reset_passkeys(ciam: &Ciam, user: &User) -> Result<Option<Vec<TxOp>>> {
    let items = items_of(ciam, &user.id).await?;
    if items.is_empty() {
        return Ok(None);
    }
    let count = i64::try_from(items.len()).unwrap_or(i64::MAX);
    let after = User {
        sess_gen: user.sess_gen + 1,
        ..user.clone()
    };
    let mut tx = with_records(user, &after, vec![Update::Add("passkeys".into(), -count)]);
    tx.extend(delete_ops(&user.id, &items));
    Ok(Some(tx))
}
