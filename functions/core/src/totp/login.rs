//! The sign-in's second step: an authenticator code or a backup code against the challenge
//! that the password (or login code) step answered.

use super::*;
use crate::attempts::failed_second_factor;

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

/// A passkey as the second step (passkey::ceremony): a challenge that is gone, or an account
/// without two-factor, means starting again.
#[cfg(feature = "passkeys")]
const PASSKEY_STEP: StepReasons = StepReasons {
    no_challenge: Reason::PASSKEY_CHALLENGE_EXPIRED,
    no_two_factor: Reason::PASSKEY_CHALLENGE_EXPIRED,
};

/// The challenge item and the user of a second step by passkey.
#[cfg(feature = "passkeys")]
pub(crate) async fn passkey_step_user(
    ciam: &Ciam,
    challenge: &str,
) -> Result<(Key, User, crate::challenge::Challenge)> {
    challenged_user(ciam, challenge, PASSKEY_STEP).await
}

/// The user behind a sign-in challenge (from the password step), if it is still valid.
/// Also answers the first step (its `amr`, and the organization of its connection).
async fn challenged_user(
    ciam: &Ciam,
    challenge: &str,
    r: StepReasons,
) -> Result<(Key, User, crate::challenge::Challenge)> {
    let key = crate::challenge::mfa_key(ciam, challenge);
    let ch = ciam
        .store
        .get(&key)
        .await?
        .as_ref()
        .and_then(crate::challenge::Challenge::from_item)
        .ok_or(r.no_challenge)?;
    let user = crate::user::active_user(ciam, &ch.user_id)
        .await?
        .ok_or(r.no_challenge)?;
    if !user.enable_totp {
        return Err(r.no_two_factor.into());
    }
    ensure_unlocked(&user, ciam.now())?;
    Ok((key, user, ch))
}

/// The session of a finished second step (after the first step `first`), and `ops` with the challenge's delete and the
/// session's put.
pub(crate) fn finish(
    ciam: &Ciam,
    user: &User,
    challenge: Key,
    mut ops: Vec<TxOp>,
    client: &ClientInfo,
    amr: &[String],
    first: crate::challenge::Challenge,
) -> (crate::accounts::SignedIn, Vec<TxOp>) {
    let (token, mut session) = sessions::mint_for(ciam, &user.id, user.sess_gen, client);
    session.amr = amr.to_vec();
    // The first step's organization and provider are the session's.
    session.org = first.org;
    session.method = first.method;
    // The session item is also the sign-in's activity entry (no event item).
    let expires_at = session.deadline();
    ops.push(TxOp::Delete {
        key: challenge,
        cond: Some(Cond::Exists),
    });
    ops.push(TxOp::Put {
        item: session.to_item(),
        cond: None,
    });
    (
        crate::accounts::SignedIn {
            token,
            user_id: user.id.clone(),
            expires_at,
            active_today: false,
            counted_later: false,
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
    let (ch_key, user, first) = challenged_user(ciam, challenge, TOTP_STEP).await?;
    let sealed = user
        .totp_secret
        .as_deref()
        .ok_or_else(|| Error::internal("no secret"))?;
    let opened = open_any(ciam, &user.id, sealed)?;
    let step = match matching_step(&opened.secret, &code, ciam.now()) {
        Some(s) if user.totp_last_step.is_none_or(|last| s > last) => s,
        _ => {
            let base = Reason::TOTP_VERIFY_FAILED.into();
            return Err(failed_second_factor(ciam, &user.id, client, base).await);
        }
    };
    let mut user_ops = vec![Update::Set("totpLastStep".into(), step.into())];
    user_ops.extend(clear_ops(&user).unwrap_or_default());
    let mut cond =
        Cond::Exists.and(Cond::attr_not_exists("totpLastStep").or(Cond::lt("totpLastStep", step)));
    if let Some((op, same_secret)) = reseal_ops(&opened, sealed) {
        user_ops.push(op);
        cond = cond.and(same_secret);
    }
    let user_op = TxOp::Update {
        key: profile_key(&user.id),
        ops: user_ops,
        cond: Some(cond),
    };
    let amr = sessions::amr_after(&first.amr, &["otp", "mfa"]);
    let (signed, ops) = finish(ciam, &user, ch_key, vec![user_op], client, &amr, first);
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
    let (ch_key, user, first) = challenged_user(ciam, challenge, BACKUP_STEP).await?;
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
        let base = Reason::UNLOCKCODE_NOT_FOUND.into();
        return Err(failed_second_factor(ciam, &user.id, client, base).await);
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
    let amr = sessions::amr_after(&first.amr, &["otp", "mfa"]);
    let (signed, ops) = finish(ciam, &user, ch_key, ops, client, &amr, first);
    ciam.store
        .transact(ops)
        .await
        .or_reason(Reason::UNLOCKCODE_NOT_FOUND)?;
    Ok(signed)
}
