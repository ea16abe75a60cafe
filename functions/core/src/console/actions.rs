//! An operator's actions on a customer's account (design §5, §8): unlock, end every session,
//! turn two-factor sign-in off, send a password-reset code, suspend and reactivate, remove every
//! passkey (the last three's writes: `suspend`). Each needs a reason, writes an
//! audit entry and a security-activity entry on the account (in the same transaction as its
//! effect where it has one), and tells the customer by a notice (the reset code's own message
//! is its notice).

use super::accounts::{load, reason_of, user_update};
use super::audit::{AuditAction, Entry, RequestFacts};
use super::{suspend, Operator};
use crate::audit::{self as activity, Event};
use crate::client::ClientInfo;
use crate::error::{Error, Result};
use crate::events::{self, Kind};
use crate::notifier::Notice;
use crate::user::User;
use crate::{captcha, codes, signin, Ciam, Lang, LostRace, Purpose, Reason};
use ciam_store::{TxOp, Update};

/// One of the operator's account actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Clears the failure counters and the lock (user item and every identity item).
    Unlock,
    /// Ends every session and OpenID Connect access token (`sessGen`).
    EndSessions,
    /// Turns TOTP off and voids the backup codes; passkeys stay.
    ResetTwoFactor,
    /// Sends a password-reset code to the mail (else the phone); the operator never sees it.
    SendResetCode,
    /// Suspends the account (`suspendedAt`): no sign-in by any method, its sessions end.
    Suspend,
    /// Lifts a suspension; the failure counters stay as they are.
    Reactivate,
    /// Removes every passkey; the sessions end.
    ResetPasskeys,
}

impl Action {
    pub const ALL: [Action; 7] = [
        Action::Unlock,
        Action::EndSessions,
        Action::ResetTwoFactor,
        Action::SendResetCode,
        Action::Suspend,
        Action::Reactivate,
        Action::ResetPasskeys,
    ];

    /// The audit log's action name.
    pub const fn audit_name(self) -> AuditAction {
        match self {
            Action::Unlock => AuditAction::AccountUnlock,
            Action::EndSessions => AuditAction::AccountEndSessions,
            Action::ResetTwoFactor => AuditAction::AccountResetTwoFactor,
            Action::SendResetCode => AuditAction::AccountSendResetCode,
            Action::Suspend => AuditAction::AccountSuspend,
            Action::Reactivate => AuditAction::AccountReactivate,
            Action::ResetPasskeys => AuditAction::AccountResetPasskeys,
        }
    }

    /// The entry the customer's security activity shows.
    pub const fn event(self) -> Event {
        match self {
            Action::Unlock => Event::UnlockedBySupport,
            Action::EndSessions => Event::SessionsEndedBySupport,
            Action::ResetTwoFactor => Event::TwoFactorResetBySupport,
            Action::SendResetCode => Event::ResetCodeSentBySupport,
            Action::Suspend => Event::SuspendedBySupport,
            Action::Reactivate => Event::ReactivatedBySupport,
            Action::ResetPasskeys => Event::PasskeysResetBySupport,
        }
    }

    fn notice(self) -> Option<Notice> {
        match self {
            Action::Unlock => Some(Notice::UnlockedBySupport),
            Action::EndSessions => Some(Notice::SessionsEndedBySupport),
            Action::ResetTwoFactor => Some(Notice::TwoFactorResetBySupport),
            Action::SendResetCode => None,
            Action::Suspend => Some(Notice::SuspendedBySupport),
            Action::Reactivate => Some(Notice::ReactivatedBySupport),
            Action::ResetPasskeys => Some(Notice::PasskeysResetBySupport),
        }
    }
}

/// The customer's language for a notice: Chinese for an account in China, else English.
pub(super) fn lang_of(user: &User) -> Lang {
    match user.country.as_deref() {
        Some("CN") | None => Lang::ZhCn,
        Some(_) => Lang::EnUs,
    }
}

fn clear_lock() -> Vec<Update> {
    vec![
        Update::Set("fails".into(), 0.into()),
        Update::Remove("lockedUntil".into()),
    ]
}

/// The writes of `action`'s effect on `user` (empty for the reset code, sent on its own), or
/// `None` when there is nothing to do (two-factor sign-in already off, the account already
/// suspended or not suspended, no passkey). Round trips: 0; 1 for the passkeys (their query).
async fn effect(ciam: &Ciam, action: Action, user: &User) -> Result<Option<Vec<TxOp>>> {
    Ok(match action {
        Action::Suspend => suspend::suspend(user, ciam.now()),
        Action::Reactivate => suspend::reactivate(user),
        Action::ResetPasskeys => suspend::reset_passkeys(ciam, user).await?,
        _ => plain_effect(action, user),
    })
}

/// [`effect`] of the actions that need nothing but the user item.
fn plain_effect(action: Action, user: &User) -> Option<Vec<TxOp>> {
    Some(match action {
        Action::Unlock => {
            let mut ops = vec![user_update(user, clear_lock())];
            let after = User {
                fails: 0,
                locked_until: None,
                ..user.clone()
            };
            ops.extend(signin::in_step_with(&after, clear_lock()));
            // Out of the console's list of locked accounts.
            ops.extend(crate::directory::unlocked(user));
            ops
        }
        Action::EndSessions => {
            let gen = user.sess_gen + 1;
            let mut ops = vec![user_update(
                user,
                vec![Update::Set("sessGen".into(), gen.into())],
            )];
            ops.extend(signin::in_step(&User {
                sess_gen: gen,
                ..user.clone()
            }));
            ops
        }
        Action::ResetTwoFactor => {
            if !user.enable_totp {
                return None;
            }
            // As the customer's own `totp::disable`: other sessions end with a two-factor change.
            let gen = user.sess_gen + 1;
            let mut ops = vec![user_update(
                user,
                vec![
                    Update::Set("enableTotp".into(), false.into()),
                    Update::Remove("totpSecret".into()),
                    Update::Remove("totpLastStep".into()),
                    Update::Set("backupGen".into(), (user.backup_gen + 1).into()),
                    Update::Set("sessGen".into(), gen.into()),
                ],
            )];
            ops.extend(signin::in_step(&User {
                enable_totp: false,
                sess_gen: gen,
                ..user.clone()
            }));
            ops
        }
        Action::SendResetCode => Vec::new(),
        Action::Suspend | Action::Reactivate | Action::ResetPasskeys => return None,
    })
}

/// What partners hear of `action`'s change to `user` (when one could: `events::op_for`): the
/// suspension (never its reason) and its end of the sessions, the reactivation, the support
/// desk's end of the sessions, a second factor reset.
fn partner_events(ciam: &Ciam, action: Action, user: &User) -> Vec<TxOp> {
    let ended = || events::session_ended(None, events::SUPPORT);
    let of = |kind, data| events::op_for(ciam, user, kind, data);
    let ops = match action {
        Action::Suspend => vec![
            of(Kind::Suspended, Default::default()),
            of(Kind::SessionEnded, ended()),
        ],
        Action::Reactivate => vec![of(Kind::Reactivated, Default::default())],
        Action::EndSessions => vec![of(Kind::SessionEnded, ended())],
        // Every session ended with it (`sessGen`): their apps are told.
        Action::ResetTwoFactor => vec![crate::app_sessions::ending_sessions(
            events::two_factor_changed(ciam, user, user.passkeys > 0),
            None,
        )],
        Action::ResetPasskeys => vec![events::two_factor_changed(ciam, user, user.enable_totp)],
        Action::Unlock | Action::SendResetCode => Vec::new(),
    };
    ops.into_iter().flatten().collect()
}

/// `POST /admin/accounts/{userId}/<action>`: does `action` on the live account `user_id` (else
/// ACCOUNT_NOT_FOUND) for the operator `op` with `reason` (required, at most 500 characters).
/// Resetting two-factor sign-in that is already off, suspending a suspended account,
/// reactivating an active one or resetting the passkeys of an account without any changes
/// nothing but is recorded (detail `nothing to change`).
/// Round trips: 1 read, 1 transaction (the effect, the audit entry, the activity entry), then
/// the notice (best effort); the reset code: 1 read, the code's send, 1 transaction.
pub async fn act(
    ciam: &Ciam,
    op: &Operator,
    user_id: &str,
    action: Action,
    reason: &str,
    req: &RequestFacts,
) -> Result<()> {
    let reason = reason_of(reason)?;
    let user = load(ciam, user_id).await?;
    if user.deactivated {
        return Err(Reason::ACCOUNT_NOT_FOUND.into());
    }
    op.may_act_on(&user)?;
    let lang = lang_of(&user);
    if action == Action::SendResetCode {
        let to = user.identities().into_iter().next().ok_or_else(|| Error {
            cause: Some("no mail or phone to send to".to_owned()),
            ..Error::new(Reason::ACCOUNT_NOT_FOUND)
        })?;
        let solved = captcha::solved_by_server(ciam)?;
        codes::send(ciam, &to, Purpose::ResetPassword, Some(&solved), lang).await?;
    }
    let effect = effect(ciam, action, &user).await?;
    let changed = effect.is_some();
    // The operator's act is recorded even when it changed nothing; the customer hears of a
    // change only.
    let detail = (!changed).then(|| "nothing to change".to_owned());
    let mut ops = effect.unwrap_or_default();
    let entry = Entry::new(
        ciam,
        op,
        action.audit_name(),
        &user.id,
        Some(&reason),
        detail,
        req,
    );
    ops.push(entry.put());
    if changed {
        ops.push(activity::record(
            ciam,
            &user.id,
            action.event(),
            &ClientInfo::default(),
        ));
        ops.extend(partner_events(ciam, action, &user));
    }
    ciam.store
        .transact(ops)
        .await
        .or_reason(Reason::SERVICE_UNAVAILABLE)?;
    if !changed {
        return Ok(());
    }
    if action == Action::ResetTwoFactor {
        crate::totp::sweep_backup_codes(ciam, &user.id, None).await;
    }
    if let Some(notice) = action.notice() {
        crate::notifier::tell_account(ciam, &user, notice, lang).await;
    }
    Ok(())
}
