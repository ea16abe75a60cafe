//! A change to a connection (`PATCH`): its names, its settings (checked as at creation, for its
//! protocol), its secret (replaced whole, sealed), its just-in-time rule, and turning it on or
//! off. What a test proved no longer holds once the settings or the secret change: a `tested`
//! connection goes back to `draft`; an `on` one stays on (turning it off would lock the company's
//! people out in the middle of a secret's rotation) but loses `testedAt`, so the screen can say
//! "changed since its last test". Turning it on needs `tested` (or `on`); turning it off, or
//! deleting it, removes the routing of every domain routed to it (`routing::unroute`). One
//! transaction, in the organization's audit slice.

use super::routing::{rev_unchanged, routed_to, unroute};
use super::{check_secret, check_settings, conn_key, Connection, Jit, Status, SEAL_LABEL};
use crate::error::{Error, Result};
use crate::org::access::Caller;
use crate::org::audit::OrgAction;
use crate::org::{org_key, NewOrg};
use crate::{Ciam, Reason};
use ciam_store::{CancelReason, Cond, StoreError, TxOp, Update, Value};
use std::collections::BTreeMap;

/// What an admin sends to change a connection (unchecked; None: unchanged).
#[derive(Clone, Debug, Default)]
pub struct Patch {
    pub name_zh: Option<String>,
    pub name_en: Option<String>,
    /// The protocol's settings, replaced whole.
    pub settings: Option<BTreeMap<String, String>>,
    /// A new secret, replacing the old one.
    pub secret: Option<String>,
    pub jit: Option<String>,
    /// true: turn it on (it must be tested); false: turn it off.
    pub on: Option<bool>,
}

/// "Test it first": turning on a connection no test (or no test since its last change) proved.
fn untested() -> Error {
    Error::field(
        Reason::INVALID_PARAMETER,
        "on",
        "请先测试该登录连接，测试通过后才能启用",
        "Test the connection first: only a tested connection can be turned on",
    )
}

/// Changes `c` as `caller` (an owner or admin, or an operator). Round trips: 1 (one
/// transaction); 2 when it turns the connection off (the organization's domains first).
pub async fn update(
    ciam: &Ciam,
    caller: &Caller,
    c: &Connection,
    patch: Patch,
) -> Result<Connection> {
    caller.must_manage()?;
    let mut next = c.clone();
    let mut fields: Vec<&str> = Vec::new();
    if patch.name_zh.is_some() || patch.name_en.is_some() {
        let (zh, en) = NewOrg::names(
            Some(patch.name_zh.as_deref().unwrap_or(&c.name_zh)),
            Some(patch.name_en.as_deref().unwrap_or(&c.name_en)),
        )?;
        if (zh.as_str(), en.as_str()) != (c.name_zh.as_str(), c.name_en.as_str()) {
            (next.name_zh, next.name_en) = (zh, en);
            fields.push("names");
        }
    }
    let mut proven_changed = false;
    if let Some(given) = &patch.settings {
        let settings = check_settings(c.protocol, given)?;
        if settings != c.settings {
            next.settings = settings;
            fields.push("settings");
            proven_changed = true;
        }
    }
    if let Some(raw) = &patch.secret {
        let secret = check_secret(raw)?;
        next.secret = crate::sealed::seal(
            &ciam.keys,
            ciam.entropy.as_ref(),
            SEAL_LABEL,
            c.conn_id.as_str(),
            secret.as_bytes(),
        )?;
        fields.push("secret");
        proven_changed = true;
    }
    if let Some(raw) = &patch.jit {
        let jit = Jit::parse(raw)?;
        if jit != c.jit {
            next.jit = jit;
            fields.push("jit");
        }
    }
    if proven_changed {
        next.tested_at = None;
        if next.status == Status::Tested {
            next.status = Status::Draft;
        }
    }
    match patch.on {
        Some(true) if next.status == Status::Draft => return Err(untested()),
        Some(true) => next.status = Status::On,
        Some(false) if next.status == Status::On => {
            next.status = if next.tested_at.is_some() {
                Status::Tested
            } else {
                Status::Draft
            }
        }
        _ => {}
    }
    let status_changed = (next.status == Status::On) != (c.status == Status::On);
    if fields.is_empty() && next.status == c.status {
        return Ok(c.clone());
    }
    // Off: the routings to it go in the same transaction.
    let routed = if c.status == Status::On && next.status != Status::On {
        routed_to(ciam.store.as_ref(), &c.org_id, &c.conn_id).await?
    } else {
        Vec::new()
    };
    next.updated_at = ciam.now();
    let mut ops = vec![
        Update::Set("nameZh".into(), next.name_zh.as_str().into()),
        Update::Set("nameEn".into(), next.name_en.as_str().into()),
        Update::Set(
            "settings".into(),
            Value::M(
                next.settings
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::S(v.clone())))
                    .collect(),
            ),
        ),
        Update::Set("secret".into(), Value::B(next.secret.clone())),
        Update::Set("jit".into(), next.jit.as_str().into()),
        Update::Set("status".into(), next.status.as_str().into()),
        Update::Set("updatedAt".into(), next.updated_at.into()),
    ];
    if next.tested_at.is_none() {
        ops.push(Update::Remove("testedAt".into()));
    }
    let mut tx = vec![
        TxOp::Update {
            key: conn_key(&c.org_id, &c.conn_id),
            ops,
            cond: Some(Cond::eq("updatedAt", c.updated_at).and(rev_unchanged(c))),
        },
        TxOp::Check {
            key: org_key(&c.org_id),
            cond: Cond::eq("status", "active"),
        },
    ];
    let record = |action, detail: String| {
        caller.record(ciam, &c.org_id, action, c.conn_id.as_str(), Some(detail))
    };
    if !fields.is_empty() {
        tx.push(record(OrgAction::ConnectionUpdate, fields.join(", ")));
    }
    if status_changed {
        tx.push(record(
            OrgAction::ConnectionStatus,
            next.status.as_str().to_owned(),
        ));
    }
    tx.extend(unroute(&c.org_id, &c.conn_id, &routed));
    commit(ciam, caller, tx).await?;
    Ok(next)
}

/// Writes a change of a connection (with the caller's own writes) whose first operation is the connection's own (a lost race:
/// CONNECTION_CHANGED) and second the organization's check (ORG_NOT_ACTIVE); any other
/// condition (a routing's: a domain removed meanwhile) is CONNECTION_CHANGED too: try again.
pub(super) async fn commit(ciam: &Ciam, caller: &Caller, tx: Vec<TxOp>) -> Result<()> {
    match caller.commit(ciam, tx).await {
        Err(StoreError::TxCanceled(reasons))
            if reasons.get(1) == Some(&CancelReason::ConditionFailed) =>
        {
            Err(Reason::ORG_NOT_ACTIVE.into())
        }
        Err(StoreError::TxCanceled(reasons))
            if reasons.contains(&CancelReason::ConditionFailed) =>
        {
            Err(Reason::CONNECTION_CHANGED.into())
        }
        r => r.map_err(Error::from),
    }
}
