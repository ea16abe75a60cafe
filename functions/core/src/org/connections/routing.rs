//! A verified domain routed to one of its organization's connections (docs/organizations-
//! connections.md §0.4-5): [`SIGN_IN_CONN`] and [`SIGN_IN_REQUIRED`] on the domain's owner item
//! (`DOMAIN#<domain>` / `DOMAIN`, what the sign-in reads) and on the organization's claim
//! (`ORG#<orgId>` / `DOM#<domain>`, what the domain list shows), written in one transaction with
//! conditions that keep both the same: the claim verified, the owner item this organization's,
//! the connection `on` (its `rev` counted up, so a change that read the routed domains before
//! fails rather than miss this one). Turning a connection off or deleting it removes its routings
//! in its own transaction ([`unroute`]).

use super::{conn_key, get, ConnId, Connection, Status};
use crate::domains::claims::{self, claim_key, owner_key, SIGN_IN_CONN, SIGN_IN_REQUIRED};
use crate::domains::manage::{may_change, DomainView};
use crate::domains::DomainName;
use crate::error::{Error, Result};
use crate::org::access::Caller;
use crate::org::audit::OrgAction;
use crate::org::{org_key, OrgId, Organization};
use crate::{Ciam, Reason};
use ciam_store::{CancelReason, Cond, Store, StoreError, TxOp, Update};

/// The organization's domains routed to `conn`. Round trips: 1 (the query of its claims, at most
/// 20).
pub async fn routed_to(store: &dyn Store, org: &OrgId, conn: &ConnId) -> Result<Vec<DomainName>> {
    Ok(claims::list(store, org)
        .await?
        .into_iter()
        .filter(|c| c.sign_in.as_ref().is_some_and(|s| &s.conn == conn))
        .map(|c| c.domain)
        .collect())
}

/// The writes that remove the routing of `domains` to `conn`: each claim's and its owner item's
/// attributes, only where they still name `conn` (a domain removed meanwhile took its routing
/// with it: its conditions fail and the change is refused, to be tried again).
pub fn unroute(org: &OrgId, conn: &ConnId, domains: &[DomainName]) -> Vec<TxOp> {
    let remove = || {
        vec![
            Update::Remove(SIGN_IN_CONN.into()),
            Update::Remove(SIGN_IN_REQUIRED.into()),
        ]
    };
    domains
        .iter()
        .flat_map(|d| {
            [
                TxOp::Update {
                    key: claim_key(org, d),
                    ops: remove(),
                    cond: Some(Cond::eq(SIGN_IN_CONN, conn.as_str())),
                },
                TxOp::Update {
                    key: owner_key(d),
                    ops: remove(),
                    cond: Some(Cond::eq("org", org.as_str())),
                },
            ]
        })
        .collect()
}

/// The condition that no routing was written to `c` since it was read.
pub fn rev_unchanged(c: &Connection) -> Cond {
    if c.rev == 0 {
        Cond::AttrNotExists("rev".into()).or(Cond::eq("rev", 0))
    } else {
        Cond::eq("rev", c.rev)
    }
}

/// The connection `raw` names among `org`'s: CONNECTION_NOT_FOUND for a malformed id or one of
/// another organization. Round trips: 1.
pub async fn connection_of(store: &dyn Store, org: &OrgId, raw: &str) -> Result<Connection> {
    let id = ConnId::parse(raw).ok_or(Reason::CONNECTION_NOT_FOUND)?;
    get(store, org, &id)
        .await?
        .ok_or_else(|| Error::new(Reason::CONNECTION_NOT_FOUND))
}

/// Routes `domain` (one of `o`'s verified domains) to the connection `conn` (one of its
/// connections that is `on`), `required` or not, or clears its routing (`conn` None) as
/// `caller`. Refused: the organization has no claim on it (DOMAIN_NOT_FOUND), it is not verified
/// (DOMAIN_NOT_VERIFIED), no such connection of the organization (CONNECTION_NOT_FOUND), not on
/// (CONNECTION_NOT_ON). Audited (`domain.signIn`). Round trips: 2 (the claim and the connection
/// side by side, one transaction).
pub async fn set_sign_in(
    ciam: &Ciam,
    caller: &Caller,
    o: &Organization,
    domain: &DomainName,
    conn: Option<&str>,
    required: bool,
) -> Result<DomainView> {
    may_change(caller, o)?;
    let store = ciam.store.as_ref();
    let org = &o.org_id;
    let (claim, found) = tokio::join!(claims::get(store, org, domain), async {
        match conn {
            Some(raw) => connection_of(store, org, raw).await.map(Some),
            None => Ok(None),
        }
    });
    let mut claim = claim?;
    let found = found?;
    if claim.verified_at.is_none() {
        return Err(Reason::DOMAIN_NOT_VERIFIED.into());
    }
    if found.as_ref().is_some_and(|c| c.status != Status::On) {
        return Err(Reason::CONNECTION_NOT_ON.into());
    }
    let required = required && found.is_some();
    let writes = match &found {
        Some(c) => vec![
            Update::Set(SIGN_IN_CONN.into(), c.conn_id.as_str().into()),
            Update::Set(SIGN_IN_REQUIRED.into(), i64::from(required).into()),
        ],
        None => vec![
            Update::Remove(SIGN_IN_CONN.into()),
            Update::Remove(SIGN_IN_REQUIRED.into()),
        ],
    };
    let detail = match &found {
        Some(c) if required => format!("{} required", c.conn_id.as_str()),
        Some(c) => c.conn_id.as_str().to_owned(),
        None => "none".to_owned(),
    };
    let mut tx = vec![
        TxOp::Update {
            key: claim_key(org, domain),
            ops: writes.clone(),
            cond: Some(Cond::eq("status", "verified")),
        },
        TxOp::Update {
            key: owner_key(domain),
            ops: writes,
            cond: Some(Cond::eq("org", org.as_str())),
        },
        TxOp::Check {
            key: org_key(org),
            cond: Cond::eq("status", "active"),
        },
        caller.record(
            ciam,
            org,
            OrgAction::DomainSignIn,
            domain.as_str(),
            Some(detail),
        ),
    ];
    if let Some(c) = &found {
        tx.push(TxOp::Update {
            key: conn_key(org, &c.conn_id),
            ops: vec![Update::Add("rev".into(), 1)],
            cond: Some(Cond::eq("status", Status::On.as_str())),
        });
    }
    match caller.commit(ciam, tx).await {
        Err(StoreError::TxCanceled(reasons)) => {
            let failed = |i: usize| reasons.get(i) == Some(&CancelReason::ConditionFailed);
            return Err(if failed(0) || failed(1) {
                Reason::DOMAIN_NOT_FOUND
            } else if failed(2) {
                Reason::ORG_NOT_ACTIVE
            } else if failed(4) {
                Reason::CONNECTION_NOT_ON
            } else {
                return Err(Error::from(StoreError::TxCanceled(reasons)));
            }
            .into());
        }
        r => r.map_err(Error::from)?,
    }
    claim.sign_in = found.map(|c| claims::SignIn {
        conn: c.conn_id,
        required,
    });
    Ok(DomainView::of(&claim))
}
