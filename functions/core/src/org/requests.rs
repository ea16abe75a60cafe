//! A customer asks for an organization; an operator approves it (the asker becomes its owner) or
//! refuses it (it is deleted). A customer has at most [`MAX_PENDING`] requests waiting, counted
//! on their user item (`orgRequests`). Pending requests are the `ORGREQ` partition: the console
//! lists them with one query.

use super::access::Caller;
use super::audit::OrgAction;
use super::create::{owner_ops, request_key, NewOrg, REQUESTS_PK};
use super::{org_key, Organization, Status};
use crate::error::{LostRace, Result};
use crate::user::{profile_key, User};
use crate::{Ciam, Reason};
use ciam_store::{Cond, Query, Store, StoreError, TxOp, Update};
use serde::Serialize;

/// Most requests one customer may have waiting.
pub const MAX_PENDING: i64 = 3;

/// A pending request as the console lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Request {
    pub org_id: String,
    pub name_zh: String,
    pub name_en: String,
    /// The asker's user id.
    pub requested_by: String,
    /// Unix seconds.
    pub created_at: i64,
}

fn requests_op(user_id: &str, delta: i64) -> TxOp {
    let cond = if delta > 0 {
        Cond::Exists
            .and(Cond::attr_not_exists("orgRequests").or(Cond::lt("orgRequests", MAX_PENDING)))
    } else {
        Cond::Exists
    };
    TxOp::Update {
        key: profile_key(user_id),
        ops: vec![Update::Add("orgRequests".into(), delta)],
        cond: Some(cond),
    }
}

/// `user` asks for an organization named `names`. Round trips: 1.
pub async fn ask(ciam: &Ciam, user: &User, names: (String, String)) -> Result<Organization> {
    let new = NewOrg {
        name_zh: names.0,
        name_en: names.1,
        status: Status::Requested,
        owner: None,
        by: user.id.clone(),
        by_role: "customer".into(),
        reason: None,
    };
    super::create(ciam, new, vec![requests_op(&user.id, 1)]).await
}

/// The pending requests, oldest first (at most 50 a page, after `after`). Round trips: 1.
pub async fn pending(store: &dyn Store, after: Option<&str>) -> Result<Vec<Request>, StoreError> {
    let mut q = Query::partition(REQUESTS_PK).limit(50);
    if let Some(a) = after {
        q = q.after(a);
    }
    Ok(store
        .query(q)
        .await?
        .iter()
        .map(|i| Request {
            org_id: i.s("orgId").unwrap_or_default().to_owned(),
            name_zh: i.s("nameZh").unwrap_or_default().to_owned(),
            name_en: i.s("nameEn").unwrap_or_default().to_owned(),
            requested_by: i.s("requestedBy").unwrap_or_default().to_owned(),
            created_at: i.n("createdAt").unwrap_or(0),
        })
        .collect())
}

/// Approves the request for `o`: active, the asker its owner. Round trips: 1 (the caller read
/// `o`).
pub async fn approve(ciam: &Ciam, caller: &Caller, o: &Organization) -> Result<Organization> {
    let asker = requested(o)?;
    let now = ciam.now();
    let after = Organization {
        status: Status::Active,
        owners: 1,
        members: 1,
        ..o.clone()
    };
    let mut tx = vec![
        TxOp::Update {
            key: org_key(&o.org_id),
            ops: vec![
                Update::Set("status".into(), "active".into()),
                Update::Set("owners".into(), 1.into()),
                Update::Set("members".into(), 1.into()),
            ],
            cond: Some(Cond::eq("status", "requested")),
        },
        TxOp::Put {
            item: after.list_item(),
            cond: None,
        },
        TxOp::Delete {
            key: request_key(&o.org_id, o.created_at),
            cond: None,
        },
        requests_op(&asker, -1),
        caller.record(ciam, &o.org_id, OrgAction::Approve, &asker, None),
    ];
    tx.extend(owner_ops(o, &asker, &caller.user_id, now));
    caller
        .commit(ciam, tx)
        .await
        .or_reason(Reason::ORG_NOT_ACTIVE)?;
    Ok(after)
}

/// Refuses the request for `o`: it is deleted (its audit slice stays until it expires). Round
/// trips: 1.
pub async fn refuse(ciam: &Ciam, caller: &Caller, o: &Organization) -> Result<()> {
    let asker = requested(o)?;
    let tx = vec![
        TxOp::Delete {
            key: org_key(&o.org_id),
            cond: Some(Cond::eq("status", "requested")),
        },
        TxOp::Delete {
            key: super::list_key(&o.org_id, o.created_at),
            cond: None,
        },
        TxOp::Delete {
            key: request_key(&o.org_id, o.created_at),
            cond: None,
        },
        requests_op(&asker, -1),
        caller.record(ciam, &o.org_id, OrgAction::Refuse, &asker, None),
    ];
    caller
        .commit(ciam, tx)
        .await
        .or_reason(Reason::ORG_NOT_ACTIVE)
}

fn requested(o: &Organization) -> Result<String> {
    match (&o.status, &o.requested_by) {
        (Status::Requested, Some(asker)) => Ok(asker.clone()),
        _ => Err(Reason::ORG_NOT_ACTIVE.into()),
    }
}
