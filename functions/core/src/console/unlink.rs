//! The operator's unlinking of a customer's linked identity (docs/federation-design.md §4.4):
//! the unlink the security centre makes (`federation::identities::unlink_ops`, the same
//! FEDERATION_LAST_WAY_IN rule), with a reason, the audit entry (`account.unlinkIdentity`,
//! detail `provider: <name>`), the activity entry `identityUnlinkedBySupport` and the partner
//! event in one transaction; then the customer's notice.

use super::accounts::{load, reason_of};
use super::actions::lang_of;
use super::audit::{self, AuditAction, Entry, RequestFacts};
use super::Operator;
use crate::audit::{self as activity, Event};
use crate::client::ClientInfo;
use crate::error::Result;
use crate::federation::identities::{unlink_ops, unlink_refused};
use crate::federation::links::provider_named;
use crate::notifier::{tell_account, Notice};
use crate::{events, Ciam, Reason};

/// `POST /admin/accounts/{userId}/unlink-identity {provider, reason}`: removes the live
/// account's link to `provider` (ACCOUNT_NOT_FOUND for an unknown or deactivated account;
/// FEDERATION_LAST_WAY_IN when it would leave no way in). An account without that link
/// changes nothing but the act is recorded (detail `provider: <name>; nothing to change`), as
/// every console action. Round trips: 1 (the user), 1 (its link), 1 (the transaction), then the
/// notice.
pub async fn unlink_identity(
    ciam: &Ciam,
    op: &Operator,
    user_id: &str,
    provider: &str,
    reason: &str,
    req: &RequestFacts,
) -> Result<()> {
    let reason = reason_of(reason)?;
    let p = provider_named(provider)?;
    let user = load(ciam, user_id).await?;
    if user.deactivated {
        return Err(Reason::ACCOUNT_NOT_FOUND.into());
    }
    op.may_act_on(&user)?;
    // As every console action: a link that is not there changes nothing but is recorded.
    let (mut ops, detail) = match unlink_ops(ciam, &user, p, None).await {
        Ok(ops) => (ops, format!("provider: {}", p.name())),
        Err(e) if e.reason == Reason::INVALID_PARAMETER => (
            Vec::new(),
            format!("provider: {}; nothing to change", p.name()),
        ),
        Err(e) => return Err(e),
    };
    if ops.is_empty() {
        let action = AuditAction::AccountUnlinkIdentity;
        return audit::record(ciam, op, action, &user.id, Some(&reason), Some(detail), req).await;
    }
    let entry = Entry::new(
        ciam,
        op,
        AuditAction::AccountUnlinkIdentity,
        &user.id,
        Some(&reason),
        Some(detail),
        req,
    );
    ops.push(entry.put());
    ops.push(activity::record_named(
        ciam,
        &user.id,
        Event::IdentityUnlinkedBySupport,
        p.name(),
        &ClientInfo::default(),
    ));
    ops.extend(events::identity_changed(ciam, &user, p.name(), false));
    ciam.store
        .transact(ops)
        .await
        .map_err(|e| unlink_refused(e, Reason::FEDERATION_LAST_WAY_IN))?;
    let provider = p.name().to_owned();
    let notice = Notice::IdentityUnlinkedBySupport { provider };
    tell_account(ciam, &user, notice, lang_of(&user)).await;
    Ok(())
}
