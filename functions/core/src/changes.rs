//! Changes to an account from the security and personal centres: marketing opt-in, binding or
//! replacing the mail or phone, and deactivation.

use crate::client::ClientInfo;
use crate::error::{Error, Result};
use crate::events::{self, Event, Kind};
use crate::sessions::{same_session, Session};
use crate::totp::{require_fresh, verify_fresh};
use crate::user::{profile_key, unique_key, User, UserInfo};
use crate::validate::Identity;
use crate::{audit, codes};
use crate::{Ciam, Lang, LostRace, Notice, NoticeMessage, Purpose, Reason};
use ciam_store::{Cond, TxOp, Update};

/// `PATCH /auth/advertisement`: "subscribe" or "unsubscribe". Round trips: 1 update.
pub async fn set_advertisement(ciam: &Ciam, s: &Session, value: &str) -> Result<UserInfo> {
    if value != "subscribe" && value != "unsubscribe" {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "advertisement",
            "只能是 subscribe 或 unsubscribe",
            "Use subscribe or unsubscribe",
        ));
    }
    let ops = vec![Update::Set("advertisement".into(), value.into())];
    let item = ciam
        .store
        .update(&profile_key(&s.user.id), ops, Some(same_session(s)))
        .await
        .or_reason(Reason::AUTHORIZATION_FAILED)?;
    Ok(User::from_item(&item)
        .ok_or_else(|| Error::internal("user item unreadable"))?
        .info(ciam))
}

/// `PATCH /auth/mail` and `PATCH /auth/phone`: binds a new identity, verified by a code sent to
/// it (purpose "bind"), in place of the old one. The uniqueness moves in one transaction: the new
/// item is taken (of two users racing for one address exactly one wins) and the old one
/// released. The old address is told. Needs a fresh proof. Round trips: 1 code read, 1
/// transaction, then the notice.
pub async fn bind(
    ciam: &Ciam,
    s: &Session,
    new: Identity,
    code: &str,
    lang: Lang,
    client: &ClientInfo,
) -> Result<UserInfo> {
    let code = crate::validate::code("code", code)?;
    let is_mail = matches!(new, Identity::Mail(_));
    let (field, current) = if is_mail {
        ("mail", s.user.mail.clone())
    } else {
        ("phone", s.user.phone.clone())
    };
    if is_mail && s.user.eiam_uid.is_some() {
        return Err(Reason::EIAM_MAIL_PERMISSION_DENIED.into());
    }
    if let Identity::Mail(m) = &new {
        if ciam.is_internal_mail(m) {
            return Err(Reason::EIAM_MAIL_PERMISSION_DENIED.into());
        }
    }
    if current.as_deref() == Some(new.as_str()) {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            field,
            "不能与当前的相同",
            "Must differ from the current one",
        ));
    }
    require_fresh(ciam, s)?;
    let verified = codes::check(ciam, &new, Purpose::Bind, &code).await?;
    let old = current.as_deref().and_then(|c| Identity::parse(c).ok());
    let mut after = s.user.clone();
    if is_mail {
        after.mail = Some(new.as_str().to_owned());
    } else {
        after.phone = Some(new.as_str().to_owned());
    }
    let new_key = unique_key(new.unique_pk());
    let mut ops = vec![
        TxOp::Put {
            item: crate::signin::new_identity_item(new_key.clone(), &after),
            cond: Some(crate::signin::name_free()),
        },
        TxOp::Update {
            key: profile_key(&s.user.id),
            ops: vec![Update::Set(field.into(), new.as_str().into())],
            cond: Some(same_session(s)),
        },
        verified.consume,
        audit::record(
            ciam,
            &s.user.id,
            if is_mail {
                audit::Event::MailChanged
            } else {
                audit::Event::PhoneChanged
            },
            client,
        ),
    ];
    // Partners with the `email` (`phone`) scope hear the new one.
    let kind = match is_mail {
        true => Kind::MailChanged,
        false => Kind::PhoneChanged,
    };
    ops.extend(events::op_for(
        ciam,
        &s.user,
        kind,
        events::identity_data(ciam, &after, is_mail),
    ));
    if let Some(old) = &old {
        ops.push(TxOp::Delete {
            key: unique_key(old.unique_pk()),
            cond: Some(Cond::eq("userId", s.user.id.as_str())),
        });
    }
    // The account's other identity item learns the new name (its lock covers both).
    ops.extend(
        crate::signin::in_step(&after)
            .into_iter()
            .filter(|op| op.key() != &new_key),
    );
    // The console's find box: a new phone's last four digits.
    ops.extend(crate::directory::moves(&s.user, &after));
    match ciam.store.transact(ops).await {
        Ok(()) => {}
        Err(e) if e.condition_failed_at(0) => return Err(new.exists_reason().into()),
        Err(e) if e.condition_failed_at(2) => return Err(Reason::VERIFYCODE_NOT_FOUND.into()),
        other => other.or_reason(Reason::AUTHORIZATION_FAILED)?,
    }
    crate::domains::enrol::after_proof(ciam, &s.user.id, &new).await;
    if let Some(old) = old {
        let masked = match &new {
            Identity::Mail(m) => Notice::MailChanged { new: m.masked() },
            Identity::Phone(p) => Notice::PhoneChanged { new: p.masked() },
        };
        if let Err(cause) = ciam
            .notifier
            .send_notice(&NoticeMessage {
                to: old,
                notice: masked,
                lang,
            })
            .await
        {
            // The change is made; a lost notice must not undo it. It is logged for follow-up.
            tracing::warn!(cause = %cause, "could not notify the previous address");
        }
    }
    Ok(after.info(ciam))
}

/// `PATCH /auth/deactivation`. Needs a proof in the body (password, or the authenticator code
/// when two-factor is on) or one from the last 5 minutes. Staff accounts cannot deactivate.
///
/// Policy (docs/api.md): the profile is emptied to a tombstone (user name, status, time), every
/// session ends (sessGen), the mail and phone items are released at once, so the person may sign
/// up again with them, while the username stays reserved so nobody can take a name others knew.
/// Pending codes, backup codes and remembered consents are deleted, the passkeys (and their
/// uniqueness items) in the same transaction as the tombstone. A later sign-in answers
/// PASSWORD_ERROR; a ticket issued before is refused at verification (the user is read there).
pub async fn deactivate(
    ciam: &Ciam,
    s: &Session,
    pw: Option<&str>,
    code: Option<&str>,
    lang: Lang,
) -> Result<()> {
    if s.user.eiam_uid.is_some() {
        return Err(Reason::EIAM_DEACTIVATE_ERROR.into());
    }
    if pw.is_some() || code.is_some() {
        verify_fresh(ciam, s, code, pw).await?;
    } else {
        require_fresh(ciam, s)?;
    }
    let u = &s.user;
    let tombstone = User {
        id: u.id.clone(),
        user_name: u.user_name.clone(),
        deactivated: true,
        sess_gen: u.sess_gen + 1,
        backup_gen: u.backup_gen + 1,
        created_at: u.created_at,
        advertisement: "unsubscribe".into(),
        consents: Some(0),
        ..User::default()
    };
    let mut ops = vec![TxOp::Put {
        item: tombstone.to_item().with("deactivatedAt", ciam.now()),
        cond: Some(same_session(s)),
    }];
    // The apps with a consent hear it; the consents are deleted after the commit, so the event
    // names them (its audience: 1 more read, only for an account with a consent).
    if events::heard(u) {
        let audience = crate::consents::audience_now(ciam, &u.id).await?;
        if !audience.is_empty() {
            let mut event = Event::new(ciam, &u.id, Kind::Deactivated, Default::default());
            event.audience = Some(audience);
            ops.push(event.op());
        }
    }
    let ids = u.identities();
    for id in &ids {
        ops.push(TxOp::Delete {
            key: unique_key(id.unique_pk()),
            cond: Some(Cond::eq("userId", u.id.as_str())),
        });
    }
    // The passkeys go with the account, in the same commit (at most 20 operations).
    let passkeys = crate::passkey::items::items_of(ciam, &u.id).await?;
    ops.extend(crate::passkey::items::delete_ops(&u.id, &passkeys));
    // Its links to providers (docs/federation-design.md §2.2): the account's items and their
    // lookups, so the subjects may link again (1 more read, only for an account with links).
    if u.links > 0 {
        ops.extend(crate::federation::links::delete_ops(ciam, &u.id).await?);
    }
    // The support desk's notes go with it (docs/console-design.md §5).
    ops.push(TxOp::Delete {
        key: crate::console::notes::key(&u.id),
        cond: None,
    });
    // And its entries in the console's lists, and its console role's index item.
    ops.extend(crate::directory::deletes(u));
    if !u.roles.is_empty() {
        ops.push(TxOp::Delete {
            key: crate::user::role_index_key(&u.id),
            cond: None,
        });
    }
    ciam.store
        .transact(ops)
        .await
        .or_reason(Reason::AUTHORIZATION_FAILED)?;
    // Tidying after the fact: these are unusable already (released identities, bumped gens).
    for id in &ids {
        for p in [
            Purpose::Register,
            Purpose::Login,
            Purpose::ResetPassword,
            Purpose::Bind,
        ] {
            let _ = ciam.store.delete(&codes::code_key(p, id), None).await;
        }
    }
    crate::totp::sweep_backup_codes(ciam, &u.id, None).await;
    crate::consents::forget_all(ciam, &u.id).await;
    if let Some(key) = u.avatar.as_deref().and_then(crate::avatar::key_of) {
        if let Err(cause) = ciam.blobs.delete(key).await {
            tracing::warn!(cause = %cause, "could not delete the avatar of a deactivated account");
        }
    }
    if let Some(to) = ids.into_iter().next() {
        if let Err(cause) = ciam
            .notifier
            .send_notice(&NoticeMessage {
                to,
                notice: Notice::Deactivated,
                lang,
            })
            .await
        {
            tracing::warn!(cause = %cause, "could not send the deactivation notice");
        }
    }
    Ok(())
}
