//! Reading and changing an organization's connections: the list, one by id, creation (sealed,
//! a draft), a test's outcome, on and off, deletion (with the routings to it). Every change is in the organization's audit
//! slice, in the change's transaction.

use super::routing::{rev_unchanged, routed_to, unroute};
use super::{check_secret, check_settings};
use super::{
    conn_key, lookup_key, ConnId, Connection, Jit, Protocol, Status, MAX_CONNECTIONS, SEAL_LABEL,
};
use crate::error::{Error, LostRace, Result};
use crate::org::access::Caller;
use crate::org::audit::OrgAction;
use crate::org::{org_pk, OrgId};
use crate::{Ciam, Reason};
use ciam_store::{Cond, Query, Store, StoreError, TxOp, Update};
use std::collections::BTreeMap;
/// What an admin sends to create a connection (unchecked).
#[derive(Clone, Debug, Default)]
pub struct NewConnection {
    pub protocol: String,
    pub name_zh: Option<String>,
    pub name_en: Option<String>,
    pub settings: BTreeMap<String, String>,
    pub secret: String,
    pub jit: Option<String>,
}

/// The organization's connections, in id order. Round trips: 1.
pub async fn list(store: &dyn Store, org: &OrgId) -> Result<Vec<Connection>, StoreError> {
    let q = Query::partition(org_pk(org))
        .prefix("CONN#")
        .limit(MAX_CONNECTIONS + 1);
    Ok(store
        .query(q)
        .await?
        .iter()
        .filter_map(Connection::from_item)
        .collect())
}

/// One connection of `org` (None when it has no such connection). Round trips: 1.
pub async fn get(
    store: &dyn Store,
    org: &OrgId,
    conn: &ConnId,
) -> Result<Option<Connection>, StoreError> {
    Ok(store
        .get(&conn_key(org, conn))
        .await?
        .as_ref()
        .and_then(Connection::from_item))
}

/// The connection an id names, whichever organization holds it (the sign-in's start and
/// callback). Round trips: 2 (the look-up, then the connection).
pub async fn find(store: &dyn Store, conn: &ConnId) -> Result<Option<Connection>, StoreError> {
    let Some(org) = store
        .get(&lookup_key(conn))
        .await?
        .and_then(|i| i.s("orgId").and_then(OrgId::parse))
    else {
        return Ok(None);
    };
    get(store, &org, conn).await
}

/// Creates a connection of `org` as `caller` (an owner or admin, or an operator), a draft until
/// tested. Round trips: 2 (the organization's list, one transaction).
pub async fn create(
    ciam: &Ciam,
    caller: &Caller,
    org: &OrgId,
    new: NewConnection,
) -> Result<Connection> {
    caller.must_manage()?;
    let protocol = Protocol::parse(&new.protocol)?;
    let settings = check_settings(protocol, &new.settings)?;
    let secret = check_secret(&new.secret)?;
    let (name_zh, name_en) =
        crate::org::NewOrg::names(new.name_zh.as_deref(), new.name_en.as_deref())?;
    let jit = new.jit.as_deref().map(Jit::parse).transpose()?;
    if list(ciam.store.as_ref(), org).await?.len() >= MAX_CONNECTIONS {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "connections",
            "一个组织最多添加 10 个登录连接，请先删除一个",
            "An organization has at most 10 connections: remove one first",
        ));
    }
    let conn_id = ConnId::new(ciam);
    let now = ciam.now();
    let sealed = crate::sealed::seal(
        &ciam.keys,
        ciam.entropy.as_ref(),
        SEAL_LABEL,
        conn_id.as_str(),
        secret.as_bytes(),
    )?;
    let c = Connection {
        conn_id,
        org_id: org.clone(),
        protocol,
        name_zh,
        name_en,
        settings,
        secret: sealed,
        jit: jit.unwrap_or(Jit::Off),
        status: Status::Draft,
        tested_at: None,
        created_at: now,
        updated_at: now,
        rev: 0,
    };
    let tx = vec![
        TxOp::Put {
            item: c.to_item(),
            cond: Some(Cond::NotExists),
        },
        TxOp::Put {
            item: c.lookup_item(),
            cond: Some(Cond::NotExists),
        },
        TxOp::Check {
            key: crate::org::org_key(org),
            cond: Cond::eq("status", "active"),
        },
        caller.record(
            ciam,
            org,
            OrgAction::ConnectionCreate,
            c.conn_id.as_str(),
            Some(protocol.as_str().to_owned()),
        ),
    ];
    caller
        .commit(ciam, tx)
        .await
        .or_reason(Error::new(Reason::ORG_NOT_ACTIVE))?;
    Ok(c)
}

/// Records the outcome of a test sign-in: a passed test makes a draft `tested` (an `on`
/// connection stays on); a failed one takes it back to `draft` (and so off, removing the routing
/// of the domains routed to it in the same transaction). Round trips: 1; 2 when it turns an `on`
/// connection off.
pub async fn record_test(ciam: &Ciam, c: &Connection, passed: bool) -> Result<Status> {
    let now = ciam.now();
    let status = match (passed, c.status) {
        (true, Status::On) => Status::On,
        (true, _) => Status::Tested,
        (false, _) => Status::Draft,
    };
    let mut ops = vec![
        Update::Set("status".into(), status.as_str().into()),
        Update::Set("updatedAt".into(), now.into()),
    ];
    if passed {
        ops.push(Update::Set("testedAt".into(), now.into()));
    }
    let key = conn_key(&c.org_id, &c.conn_id);
    if c.status == Status::On && status != Status::On {
        // Off: the routings to it go in the same transaction.
        let routed = routed_to(ciam.store.as_ref(), &c.org_id, &c.conn_id).await?;
        let mut tx = vec![TxOp::Update {
            key,
            ops,
            cond: Some(Cond::eq("updatedAt", c.updated_at).and(rev_unchanged(c))),
        }];
        tx.extend(unroute(&c.org_id, &c.conn_id, &routed));
        ciam.store
            .transact(tx)
            .await
            .or_reason(Error::new(Reason::CONNECTION_CHANGED))?;
        return Ok(status);
    }
    ciam.store
        .update(&key, ops, Some(Cond::eq("updatedAt", c.updated_at)))
        .await
        .or_reason(Error::new(Reason::CONNECTION_CHANGED))?;
    Ok(status)
}

/// Turns a connection on or off as `caller` ([`super::update`] with `on` alone): only a tested
/// connection can be turned on (INVALID_PARAMETER on `on`: test it first); off removes the
/// routing of the domains routed to it. Round trips: 1; 2 to turn it off.
pub async fn set_on(ciam: &Ciam, caller: &Caller, c: &Connection, on: bool) -> Result<Status> {
    let patch = super::Patch {
        on: Some(on),
        ..super::Patch::default()
    };
    Ok(super::update(ciam, caller, c, patch).await?.status)
}

/// Deletes a connection and its look-up as `caller`, and the routing of every domain routed to
/// it. Round trips: 2 (the organization's domains, one transaction).
pub async fn delete(ciam: &Ciam, caller: &Caller, c: &Connection) -> Result<()> {
    caller.must_manage()?;
    let routed = routed_to(ciam.store.as_ref(), &c.org_id, &c.conn_id).await?;
    let mut tx = vec![
        TxOp::Delete {
            key: conn_key(&c.org_id, &c.conn_id),
            cond: Some(Cond::attr_exists("connId").and(rev_unchanged(c))),
        },
        TxOp::Check {
            key: crate::org::org_key(&c.org_id),
            cond: Cond::eq("status", "active"),
        },
        TxOp::Delete {
            key: lookup_key(&c.conn_id),
            cond: None,
        },
        caller.record(
            ciam,
            &c.org_id,
            OrgAction::ConnectionDelete,
            c.conn_id.as_str(),
            None,
        ),
    ];
    tx.extend(unroute(&c.org_id, &c.conn_id, &routed));
    super::update::commit(ciam, caller, tx).await
}
