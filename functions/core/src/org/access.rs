//! Who is acting on an organization, and with what rank: one of its members (their role), or an
//! operator of the console (an owner's rank, with a reason, docs/organizations-design.md §2).
//! A non-member learns nothing: `ORG_NOT_FOUND`, as for an organization that does not exist.

use super::audit::{self, Actor, OrgAction};
use super::{with_membership, Membership, OrgId, Organization, Role, Status};
use crate::console::accounts::reason_of;
use crate::console::audit::{AuditAction, Entry, RequestFacts};
use crate::console::Operator;
use crate::error::{Error, Result};
use crate::{Ciam, Reason};
use ciam_store::{StoreError, TxOp};

/// The caller of an organization route, resolved.
#[derive(Clone, Debug)]
pub struct Caller {
    pub user_id: String,
    /// What the caller may do (an operator acts as an owner).
    pub rank: Role,
    /// Their role as the audit slice shows it (`owner`, ..., or the console role).
    pub label: String,
    /// The operator's reason (required of operators, absent for members).
    pub reason: Option<String>,
    /// Writes that go with the change (the console's own audit entry).
    pub extra: Vec<TxOp>,
}

impl Caller {
    pub fn member(m: &Membership) -> Caller {
        Caller {
            user_id: m.user_id.clone(),
            rank: m.role,
            label: m.role.as_str().to_owned(),
            reason: None,
            extra: Vec::new(),
        }
    }

    /// An operator of the console (`label`: their console role), acting with `reason`.
    pub fn operator(user_id: &str, label: &str, reason: &str, extra: Vec<TxOp>) -> Caller {
        Caller {
            user_id: user_id.to_owned(),
            rank: Role::Owner,
            label: label.to_owned(),
            reason: Some(reason.to_owned()),
            extra,
        }
    }

    pub fn actor(&self) -> Actor<'_> {
        Actor {
            user_id: &self.user_id,
            role: &self.label,
        }
    }

    /// The organization's audit entry of the caller's `action` on `target` (their reason with
    /// it), for the change's transaction.
    pub fn record(
        &self,
        ciam: &Ciam,
        org: &OrgId,
        action: OrgAction,
        target: &str,
        detail: Option<String>,
    ) -> TxOp {
        audit::record(
            ciam,
            org,
            &self.actor(),
            action,
            target,
            self.reason.as_deref(),
            detail,
        )
    }

    /// `ops` and the caller's own writes (an operator's console entry), for one transaction.
    pub fn with_extra(&self, mut ops: Vec<TxOp>) -> Vec<TxOp> {
        ops.extend(self.extra.iter().cloned());
        ops
    }

    /// Writes the change `tx` with the caller's own writes in one transaction. Round trips: 1.
    pub async fn commit(&self, ciam: &Ciam, tx: Vec<TxOp>) -> std::result::Result<(), StoreError> {
        ciam.store.transact(self.with_extra(tx)).await
    }

    /// Refuses a caller whose rank does not manage members.
    pub fn must_manage(&self) -> Result<()> {
        if self.rank.manages() {
            Ok(())
        } else {
            Err(Reason::ORG_ROLE_FORBIDDEN.into())
        }
    }
}

/// An operator of the console acting on `org` with `reason` (required, at most 500 characters:
/// INVALID_PARAMETER), the console's audit entry of `action` going with the change.
pub fn operator(
    ciam: &Ciam,
    op: &Operator,
    org: &OrgId,
    action: AuditAction,
    reason: &str,
    req: &RequestFacts,
) -> Result<Caller> {
    console_caller(ciam, op, org, action, reason, None, req)
}

fn console_caller(
    ciam: &Ciam,
    op: &Operator,
    org: &OrgId,
    action: AuditAction,
    reason: &str,
    detail: Option<String>,
    req: &RequestFacts,
) -> Result<Caller> {
    let reason = reason_of(reason)?;
    let entry = Entry::new(ciam, op, action, org.as_str(), Some(&reason), detail, req);
    Ok(Caller::operator(
        &op.user.id,
        op.role.as_str(),
        &reason,
        vec![entry.put()],
    ))
}

/// The organization a path names (`raw`) and the operator `op` as its caller, as [`operator`]
/// with the console entry's `detail` (naming what and which, or none): ORG_NOT_FOUND for a
/// malformed id or one that does not exist, after the reason is checked. Round trips: 1.
pub async fn operator_of(
    ciam: &Ciam,
    op: &Operator,
    raw: &str,
    action: AuditAction,
    reason: &str,
    detail: impl Into<Option<String>>,
    req: &RequestFacts,
) -> Result<(Organization, Caller)> {
    let id = parse_id(raw)?;
    let caller = console_caller(ciam, op, &id, action, reason, detail.into(), req)?;
    let o = for_operator(ciam, &id).await?;
    Ok((o, caller))
}

/// The operator's reason as the console takes it (required, at most 500 characters).
pub fn check_reason(reason: &str) -> Result<String> {
    reason_of(reason)
}

/// The organization and the signed-in member `user_id`'s place in it (`ORG_NOT_FOUND` when it
/// does not exist or they are no member). Round trips: 1 (`get_many`).
pub async fn as_member(ciam: &Ciam, org: &OrgId, user_id: &str) -> Result<(Organization, Caller)> {
    match with_membership(ciam.store.as_ref(), org, user_id).await? {
        (Some(o), Some(m)) => Ok((o, Caller::member(&m))),
        _ => Err(Reason::ORG_NOT_FOUND.into()),
    }
}

/// The organization a path names (`raw`) and the signed-in `user_id` as its caller, one of its
/// members ([`as_member`]; ORG_NOT_FOUND for a malformed id too). Round trips: 1.
pub async fn member_of(ciam: &Ciam, raw: &str, user_id: &str) -> Result<(Organization, Caller)> {
    as_member(ciam, &parse_id(raw)?, user_id).await
}

/// The organization for an operator (`ORG_NOT_FOUND` when it does not exist). Round trips: 1.
pub async fn for_operator(ciam: &Ciam, org: &OrgId) -> Result<Organization> {
    super::get(ciam.store.as_ref(), org)
        .await?
        .ok_or_else(|| Error::new(Reason::ORG_NOT_FOUND))
}

/// Refuses changes to an organization that is not active (requested or suspended).
pub fn must_be_active(o: &Organization) -> Result<()> {
    if o.status == Status::Active {
        Ok(())
    } else {
        Err(Reason::ORG_NOT_ACTIVE.into())
    }
}

/// The id in a path, or `ORG_NOT_FOUND` (a malformed id names no organization).
pub fn parse_id(raw: &str) -> Result<OrgId> {
    OrgId::parse(raw).ok_or_else(|| Error::new(Reason::ORG_NOT_FOUND))
}
