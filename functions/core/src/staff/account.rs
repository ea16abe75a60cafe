//! The staff member's Ciam account (linked by mail, or created) and the one-time login code the
//! SPA redeems for a session.

use super::{bind_hash, login_code_key, take, token, StaffClaims, LOGIN_CODE_TTL};
use crate::accounts::{create_ops, finish_login, SignedIn, Who};
use crate::client::ClientInfo;
use crate::error::{Error, Result};
use crate::lock::{clear_ops, ensure_unlocked};
use crate::user::{active_user, profile_key, unique_key, User};
use crate::validate::{self, Email, Identity};
use crate::{random_digits, Ciam, LostRace, Reason};
use ciam_store::{Cond, Item, TxOp, Update};

/// A username from the mail's local part: 2 to 32 characters, no space; `attempt` > 0 adds a
/// random suffix.
fn username_candidate(ciam: &Ciam, mail: &Email, attempt: usize) -> String {
    let local = mail.as_str().split('@').next().unwrap_or_default();
    let mut base: String = local.chars().take(24).collect();
    if base.chars().count() < 2 {
        base = format!("staff-{base}");
    }
    if attempt == 0 {
        base
    } else {
        format!("{base}-{}", random_digits(ciam.entropy.as_ref(), 4))
    }
}

/// Links the company identity to its Ciam account and returns the account's id: the account
/// that owns the mail gets `eiamUid = sub` (refused with EIAM_MAIL_PERMISSION_DENIED when it is
/// linked to another company identity); without one, an internal account is created (no
/// password; the user, the mail and the username in one transaction, like registration).
/// Round trips: 2 reads (mail, user), then at most 1 write (more only on a lost race or a taken
/// username); an account created adds the numbers' new account (3 writes side by side).
pub async fn link(ciam: &Ciam, claims: &StaffClaims, mail: &Email) -> Result<String> {
    let id = Identity::Mail(mail.clone());
    let sub = claims.sub.as_str();
    for attempt in 0..5 {
        if let Some(owner) = ciam.store.get(&unique_key(id.unique_pk())).await? {
            let uid = owner.s("userId").unwrap_or_default();
            let user = active_user(ciam, uid).await?.ok_or_else(|| Error {
                cause: Some("the mail's owner is gone".into()),
                ..Error::new(Reason::AUTHORIZATION_FAILED)
            })?;
            return match user.eiam_uid.as_deref() {
                Some(linked) if linked == sub => Ok(user.id),
                Some(_) => Err(Error {
                    cause: Some("the account is linked to another company identity".into()),
                    ..Error::new(Reason::EIAM_MAIL_PERMISSION_DENIED)
                }),
                None => {
                    let cond = Cond::Exists
                        .and(Cond::eq("status", "active"))
                        .and(Cond::attr_not_exists("eiamUid").or(Cond::eq("eiamUid", sub)));
                    ciam.store
                        .update(
                            &profile_key(&user.id),
                            vec![Update::Set("eiamUid".into(), sub.into())],
                            Some(cond),
                        )
                        .await
                        .or_reason(Error {
                            cause: Some("the account changed while linking".into()),
                            ..Error::new(Reason::EIAM_MAIL_PERMISSION_DENIED)
                        })
                        .map(|_| user.id)
                }
            };
        }
        let display_name = claims
            .name
            .as_deref()
            .and_then(|n| validate::optional_text("displayName", n, 50).ok().flatten());
        let user = User {
            id: ciam.new_id(),
            user_name: username_candidate(ciam, mail, attempt),
            mail: Some(mail.as_str().to_owned()),
            display_name,
            advertisement: "unsubscribe".into(),
            eiam_uid: Some(sub.to_owned()),
            created_at: ciam.now(),
            consents: Some(0),
            ..User::default()
        };
        let mut ops = create_ops(&user, &id);
        ops.extend(crate::directory::puts(&user));
        match ciam.store.transact(ops).await {
            Ok(()) => {
                crate::numbers::count_new_account(ciam).await;
                return Ok(user.id);
            }
            // Someone took the mail meanwhile (a concurrent first sign-in): link to it.
            Err(e) if e.condition_failed_at(1) => continue,
            // The username is taken: try one with a suffix.
            Err(e) if e.condition_failed_at(2) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(Reason::SERVICE_UNAVAILABLE.into())
}

/// A one-time login code for the account (60 s, stored as a keyed hash), bound to the browser
/// that started the sign-in (the state's `bind_hash`); `mfa` when the provider says a second
/// factor was used (the session then records it). Round trips: 1.
pub async fn issue_login_code(
    ciam: &Ciam,
    user_id: &str,
    bind_hash: &str,
    mfa: bool,
) -> Result<String> {
    let code = token(ciam);
    let mut item = Item::new(login_code_key(ciam, &code))
        .with("userId", user_id)
        .with("bindHash", bind_hash);
    if mfa {
        item = item.with("mfa", true);
    }
    let item = item.expires(ciam.now() + LOGIN_CODE_TTL);
    ciam.store.put(item, Some(Cond::NotExists)).await?;
    Ok(code)
}

/// `POST /auth/login/staff`: redeems the login code once; then exactly what a password sign-in
/// does (a session, or NEED_TOTP_VERIFY with a challenge when two-factor is on). An unknown,
/// expired or used code, or a `bind` that is not the one of the browser that started the
/// sign-in, is AUTHORIZATION_FAILED (the code is used up either way). Round trips: 3 (code read,
/// conditional delete, user) and the sign-in's write.
pub async fn redeem(ciam: &Ciam, code: &str, bind: &str, client: &ClientInfo) -> Result<SignedIn> {
    if code.is_empty() || code.len() > 200 {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "code",
            "登录码无效",
            "Invalid login code",
        ));
    }
    if bind.is_empty() || bind.len() > 200 {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "bind",
            "浏览器绑定值无效",
            "Invalid browser binding",
        ));
    }
    let item = take(ciam, &login_code_key(ciam, code)).await?;
    let expected = item.s("bindHash").unwrap_or_default();
    let presented = bind_hash(bind);
    if expected.is_empty()
        || !bool::from(subtle::ConstantTimeEq::ct_eq(
            presented.as_bytes(),
            expected.as_bytes(),
        ))
    {
        return Err(Error {
            cause: Some("the login code was started by another browser".into()),
            ..Error::new(Reason::AUTHORIZATION_FAILED)
        });
    }
    let uid = item.s("userId").unwrap_or_default();
    let user = active_user(ciam, uid)
        .await?
        .filter(|u| u.eiam_uid.is_some())
        .ok_or(Reason::AUTHORIZATION_FAILED)?;
    ensure_unlocked(&user, ciam.now())?;
    let clear = clear_ops(&user).map(|ops| TxOp::Update {
        key: profile_key(&user.id),
        ops,
        cond: Some(Cond::Exists),
    });
    // The provider's second factor (its `amr`/`acr`, judged at the callback) is the session's.
    let amr = if item.bool("mfa") == Some(true) {
        vec!["mfa"]
    } else {
        Vec::new()
    };
    let who = Who {
        amr,
        ..Who::from(&user)
    };
    let lost = Reason::AUTHORIZATION_FAILED;
    finish_login(ciam, who, client, clear.into_iter().collect(), lost).await
}
