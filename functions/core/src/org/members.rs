//! Members: the list (paged), removal (or leaving), a role's change. At least one owner is always
//! kept: a write that takes an owner away updates the organization's `owners` under `owners > 1`
//! in the same transaction (docs/organizations-design.md §2).

use super::access::{must_be_active, Caller};
use super::audit::OrgAction;
use super::{member_key, org_key, org_pk, side_key, Membership, OrgId, Organization, Role};
use crate::error::{LostRace, Result};
use crate::events::Kind;
use crate::{Ciam, Reason};
use ciam_store::{Cond, Query, Store, StoreError, TxOp, Update};

/// Most members a page holds.
pub const PAGE: usize = 50;

/// A page of members in user id order, after `after` (the last user id of the previous page).
/// Round trips: 1.
pub async fn page(
    store: &dyn Store,
    org: &OrgId,
    after: Option<&str>,
) -> Result<Vec<Membership>, StoreError> {
    let mut q = Query::partition(org_pk(org)).prefix("MEM#").limit(PAGE);
    if let Some(a) = after {
        q = q.after(format!("MEM#{a}"));
    }
    Ok(store
        .query(q)
        .await?
        .iter()
        .filter_map(Membership::from_item)
        .collect())
}

/// The organization item's update for a member going (`role`): one fewer member, and one fewer
/// owner only while another remains.
fn going(org: &OrgId, role: Role, mut ops: Vec<Update>) -> TxOp {
    ops.push(Update::Add("members".into(), -1));
    let mut cond = Cond::eq("status", "active");
    if role == Role::Owner {
        ops.push(Update::Add("owners".into(), -1));
        cond = cond.and(Cond::gt("owners", 1));
    }
    TxOp::Update {
        key: org_key(org),
        ops,
        cond: Some(cond),
    }
}

/// Removes `user_id` from `o` (the caller themselves: leaving). Round trips: 2 (the member, the
/// transaction).
pub async fn remove(ciam: &Ciam, caller: &Caller, o: &Organization, user_id: &str) -> Result<()> {
    must_be_active(o)?;
    let store = ciam.store.as_ref();
    let m = super::membership(store, &o.org_id, user_id)
        .await?
        .ok_or(Reason::ORG_MEMBER_NOT_FOUND)?;
    let leaving = caller.user_id == user_id && caller.reason.is_none();
    if !leaving && !caller.rank.may_set(m.role, m.role) {
        return Err(Reason::ORG_ROLE_FORBIDDEN.into());
    }
    if m.role == Role::Owner && o.owners <= 1 {
        return Err(Reason::ORG_LAST_OWNER.into());
    }
    let mut tx = vec![
        TxOp::Delete {
            key: member_key(&o.org_id, user_id),
            cond: Some(Cond::eq("role", m.role.as_str())),
        },
        TxOp::Delete {
            key: side_key(&o.org_id, user_id),
            cond: None,
        },
        going(&o.org_id, m.role, Vec::new()),
        caller.record(
            ciam,
            &o.org_id,
            OrgAction::MemberRemove,
            user_id,
            Some(format!("role: {}", m.role)),
        ),
    ];
    tx.extend(super::events::op(
        ciam,
        o,
        Kind::OrgMemberRemoved,
        user_id,
        m.role,
        None,
    ));
    let lost = if m.role == Role::Owner {
        Reason::ORG_LAST_OWNER
    } else {
        Reason::ORG_MEMBER_NOT_FOUND
    };
    caller.commit(ciam, tx).await.or_reason(lost)
}

/// Changes `user_id`'s role in `o` to `to`. Nobody changes their own role (they leave, or
/// another owner does it). Round trips: 2 (the member, the transaction).
pub async fn set_role(
    ciam: &Ciam,
    caller: &Caller,
    o: &Organization,
    user_id: &str,
    to: Role,
) -> Result<Membership> {
    must_be_active(o)?;
    if caller.user_id == user_id && caller.reason.is_none() {
        return Err(Reason::ORG_ROLE_FORBIDDEN.into());
    }
    let store = ciam.store.as_ref();
    let m = super::membership(store, &o.org_id, user_id)
        .await?
        .ok_or(Reason::ORG_MEMBER_NOT_FOUND)?;
    if !caller.rank.may_set(m.role, to) {
        return Err(Reason::ORG_ROLE_FORBIDDEN.into());
    }
    if m.role == to {
        return Ok(m);
    }
    if m.role == Role::Owner && o.owners <= 1 {
        return Err(Reason::ORG_LAST_OWNER.into());
    }
    let set = || vec![Update::Set("role".into(), to.as_str().into())];
    let mut org_ops = Vec::new();
    let mut cond = Cond::eq("status", "active");
    if m.role == Role::Owner {
        org_ops.push(Update::Add("owners".into(), -1));
        cond = cond.and(Cond::gt("owners", 1));
    }
    if to == Role::Owner {
        org_ops.push(Update::Add("owners".into(), 1));
    }
    let mut tx = vec![
        TxOp::Update {
            key: member_key(&o.org_id, user_id),
            ops: set(),
            cond: Some(Cond::eq("role", m.role.as_str())),
        },
        TxOp::Update {
            key: side_key(&o.org_id, user_id),
            ops: set(),
            cond: Some(Cond::Exists),
        },
        caller.record(
            ciam,
            &o.org_id,
            OrgAction::MemberRole,
            user_id,
            Some(format!("{} -> {to}", m.role)),
        ),
    ];
    if org_ops.is_empty() {
        tx.push(TxOp::Check {
            key: org_key(&o.org_id),
            cond,
        });
    } else {
        tx.push(TxOp::Update {
            key: org_key(&o.org_id),
            ops: org_ops,
            cond: Some(cond),
        });
    }
    let lost = if m.role == Role::Owner {
        Reason::ORG_LAST_OWNER
    } else {
        Reason::ORG_MEMBER_NOT_FOUND
    };
    caller.commit(ciam, tx).await.or_reason(lost)?;
    Ok(Membership { role: to, ..m })
}

/// The writes that make `user_id` a member of `org` as `role` (membership, its side, the
/// counters, and `more` changes of the organization item), for a transaction of the caller's (an
/// accepted invitation, an enrolment). The organization must be active when it commits.
pub fn join_ops(
    org: &OrgId,
    user_id: &str,
    role: Role,
    by: &str,
    now: i64,
    more: Vec<Update>,
) -> Vec<TxOp> {
    let m = Membership {
        org_id: org.clone(),
        user_id: user_id.to_owned(),
        role,
        joined_at: now,
        by: by.to_owned(),
    };
    let mut counters = vec![Update::Add("members".into(), 1)];
    if role == Role::Owner {
        counters.push(Update::Add("owners".into(), 1));
    }
    counters.extend(more);
    let mut ops = m.put_ops();
    ops.push(TxOp::Update {
        key: org_key(org),
        ops: counters,
        cond: Some(Cond::eq("status", "active")),
    });
    ops
}
