//! Replacing a customer's bound mail or phone (design §5, admin only): the recovery when the
//! customer lost the old one. The uniqueness moves as in the customer's own binding
//! (`changes::bind`), without the new address's code: the admin vouches for it, with a reason
//! that the audit log keeps.

use super::accounts::user_update;
use super::accounts::{load, reason_of};
use super::actions::lang_of;
use super::audit::{AuditAction, Entry, RequestFacts};
use super::Operator;
use crate::audit::{self as activity, Event};
use crate::client::ClientInfo;
use crate::error::{Error, Result};
use crate::notifier::{Notice, NoticeMessage};
use crate::user::{unique_key, User};
use crate::validate::{Email, Identity, Phone};
use crate::{signin, Ciam, LostRace, Reason};
use ciam_store::{Cond, TxOp, Update};

/// The masked form of a stored mail or phone, for the audit entry's detail.
fn masked(id: &Identity) -> String {
    match id {
        Identity::Mail(m) => m.masked(),
        Identity::Phone(p) => p.masked(),
    }
}

/// The new identity of `PUT /admin/accounts/{userId}/identity`: a mail, or a phone with its
/// country (only `CN` numbers are supported, as everywhere).
pub fn new_identity(
    mail: Option<&str>,
    phone: Option<&str>,
    country: Option<&str>,
) -> Result<Identity> {
    match (mail, phone) {
        (Some(m), None) if country.is_none() => Ok(Identity::Mail(Email::parse(m)?)),
        (None, Some(p)) => {
            if country.is_some_and(|c| c != "CN") {
                return Err(Error::field(
                    Reason::INVALID_PARAMETER,
                    "country",
                    "仅支持中国大陆手机号（CN）",
                    "Only mainland China numbers (CN) are supported",
                ));
            }
            Ok(Identity::Phone(Phone::parse(p)?))
        }
        _ => Err(Error::field(
            Reason::INVALID_PARAMETER,
            "mail",
            "请给出新的邮箱，或新的手机号及其国家",
            "Give either a new mail, or a new phone and its country",
        )),
    }
}

/// `PUT /admin/accounts/{userId}/identity`: replaces the live account's mail (or phone) with
/// `new` for the admin `op` with `reason`, in one transaction: the new identity item (only if
/// free, else MAIL_EXIST / PHONE_EXIST), the user item (its sessions end), the old identity item
/// deleted, the other identity item's record, the audit entry (`account.replaceIdentity`, the
/// kind and the masked old and new values) and the activity entry. Then a notice to the old
/// address. A staff account's mail and an internal address are refused as in the customer's own
/// binding (EIAM_MAIL_PERMISSION_DENIED); the current value, INVALID_PARAMETER. Round trips: 1
/// read, 1 transaction, then the notice (best effort).
pub async fn replace(
    ciam: &Ciam,
    op: &Operator,
    user_id: &str,
    new: Identity,
    reason: &str,
    req: &RequestFacts,
) -> Result<()> {
    let reason = reason_of(reason)?;
    let user = load(ciam, user_id).await?;
    if user.deactivated {
        return Err(Reason::ACCOUNT_NOT_FOUND.into());
    }
    op.may_act_on(&user)?;
    let is_mail = matches!(new, Identity::Mail(_));
    let (field, current) = if is_mail {
        ("mail", user.mail.clone())
    } else {
        ("phone", user.phone.clone())
    };
    if let Identity::Mail(m) = &new {
        if user.eiam_uid.is_some() || ciam.is_internal_mail(m) {
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
    let old = current.as_deref().and_then(|c| Identity::parse(c).ok());
    let mut after = User {
        sess_gen: user.sess_gen + 1,
        ..user.clone()
    };
    if is_mail {
        after.mail = Some(new.as_str().to_owned());
    } else {
        after.phone = Some(new.as_str().to_owned());
    }
    let new_key = unique_key(new.unique_pk());
    let mut ops = vec![
        TxOp::Put {
            item: signin::new_identity_item(new_key.clone(), &after),
            cond: Some(signin::name_free()),
        },
        user_update(
            &user,
            vec![
                Update::Set(field.into(), new.as_str().into()),
                Update::Set("sessGen".into(), after.sess_gen.into()),
            ],
        ),
    ];
    if let Some(old) = &old {
        ops.push(TxOp::Delete {
            key: unique_key(old.unique_pk()),
            cond: Some(Cond::eq("userId", user.id.as_str())),
        });
    }
    ops.extend(
        signin::in_step(&after)
            .into_iter()
            .filter(|op| op.key() != &new_key),
    );
    let detail = format!(
        "{field}: {} -> {}",
        old.as_ref().map_or_else(|| "-".to_owned(), masked),
        masked(&new)
    );
    let entry = Entry::new(
        ciam,
        op,
        AuditAction::AccountReplaceIdentity,
        &user.id,
        Some(&reason),
        Some(detail),
        req,
    );
    ops.push(entry.put());
    ops.push(activity::record(
        ciam,
        &user.id,
        Event::IdentityReplacedBySupport,
        &ClientInfo::default(),
    ));
    // Partners with the `email` (`phone`) scope hear the new one, as of the customer's own.
    let kind = match is_mail {
        true => crate::events::Kind::MailChanged,
        false => crate::events::Kind::PhoneChanged,
    };
    let data = crate::events::identity_data(ciam, &after, is_mail);
    // Every session ended with it (`sessGen`): their apps are told.
    ops.extend(crate::app_sessions::ending_sessions(
        crate::events::op_for(ciam, &user, kind, data),
        None,
    ));
    // The console's find box: a new phone's last four digits.
    ops.extend(crate::directory::moves(&user, &after));
    match ciam.store.transact(ops).await {
        Ok(()) => {}
        Err(e) if e.condition_failed_at(0) => return Err(new.exists_reason().into()),
        other => other.or_reason(Reason::SERVICE_UNAVAILABLE)?,
    }
    if let Some(old) = old {
        let msg = NoticeMessage {
            to: old,
            notice: Notice::IdentityReplacedBySupport {
                mail: is_mail,
                new: masked(&new),
            },
            lang: lang_of(&user),
        };
        if let Err(cause) = ciam.notifier.send_notice(&msg).await {
            tracing::warn!(cause = %cause, "could not tell the previous address of its replacement");
        }
    }
    Ok(())
}
