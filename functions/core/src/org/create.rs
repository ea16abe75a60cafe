//! Creating an organization: by an operator (active at once, with an owner or none yet), or asked
//! for by a customer (`requested`, listed in `ORGREQ` for the console until approved or refused).
//! One transaction, one round trip.

use super::audit::{self, OrgAction};
use super::{Membership, OrgId, Organization, Role, Settings, Status, NAME_MAX};
use crate::error::{LostRace, Result};
use crate::validate::{optional_text, required_text};
use crate::{Ciam, Error, Reason};
use ciam_store::{Cond, Item, Key, TxOp};

/// The partition of pending requests (the console's list, oldest first).
pub const REQUESTS_PK: &str = "ORGREQ";

/// What a new organization starts with.
#[derive(Clone, Debug)]
pub struct NewOrg {
    pub name_zh: String,
    pub name_en: String,
    /// `Active` (an operator creates it) or `Requested` (a customer asks).
    pub status: Status,
    /// The first owner (the operator's pick; for a request, the asker once approved).
    pub owner: Option<String>,
    /// Who creates or asks for it.
    pub by: String,
    /// The creator's role as the audit slice records it (`operator`, `admin`, or `customer`).
    pub by_role: String,
    pub reason: Option<String>,
}

impl NewOrg {
    /// The names as given: at least one, each 1 to 100 characters of plain text; a missing one
    /// is the other's.
    pub fn names(zh: Option<&str>, en: Option<&str>) -> Result<(String, String)> {
        let zh = zh
            .map(|s| optional_text("nameZh", s, NAME_MAX))
            .transpose()?
            .flatten();
        let en = en
            .map(|s| optional_text("nameEn", s, NAME_MAX))
            .transpose()?
            .flatten();
        match (zh, en) {
            (Some(z), Some(e)) => Ok((z, e)),
            (Some(z), None) => Ok((z.clone(), z)),
            (None, Some(e)) => Ok((e.clone(), e)),
            (None, None) => Err(required_text("nameZh", "", NAME_MAX)
                .err()
                .unwrap_or_else(|| Error::new(Reason::INVALID_PARAMETER))),
        }
    }
}

/// The pending request's key of an organization asked for at `at`.
pub fn request_key(org: &OrgId, at: i64) -> Key {
    Key::new(REQUESTS_PK, format!("{at:010}#{org}"))
}

/// The request's list item.
pub fn request_item(o: &Organization) -> Item {
    Item::new(request_key(&o.org_id, o.created_at))
        .with("orgId", o.org_id.as_str())
        .with("nameZh", o.name_zh.as_str())
        .with("nameEn", o.name_en.as_str())
        .with("requestedBy", o.requested_by.clone().unwrap_or_default())
        .with("createdAt", o.created_at)
}

/// The owner's membership of `o` (both items), as a transaction's puts.
pub fn owner_ops(o: &Organization, user_id: &str, by: &str, now: i64) -> Vec<TxOp> {
    Membership {
        org_id: o.org_id.clone(),
        user_id: user_id.to_owned(),
        role: Role::Owner,
        joined_at: now,
        by: by.to_owned(),
    }
    .put_ops()
}

/// Creates the organization with `extra` in the same transaction (the console's audit entry, a
/// request counter). Round trips: 1.
pub async fn create(ciam: &Ciam, new: NewOrg, extra: Vec<TxOp>) -> Result<Organization> {
    create_with_id(ciam, OrgId::new(ciam), new, extra).await
}

/// [`create`] with the id chosen first (for writes in `extra` that name it).
pub async fn create_with_id(
    ciam: &Ciam,
    id: OrgId,
    new: NewOrg,
    extra: Vec<TxOp>,
) -> Result<Organization> {
    let now = ciam.now();
    let requested = new.status == Status::Requested;
    let owner = if requested { None } else { new.owner.clone() };
    let o = Organization {
        org_id: id,
        name_zh: new.name_zh,
        name_en: new.name_en,
        status: new.status,
        settings: Settings::default(),
        owners: i64::from(owner.is_some()),
        members: i64::from(owner.is_some()),
        created_at: now,
        created_by: new.by.clone(),
        requested_by: requested.then(|| new.by.clone()),
    };
    let mut tx = vec![
        TxOp::Put {
            item: o.to_item(),
            cond: Some(Cond::NotExists),
        },
        TxOp::Put {
            item: o.list_item(),
            cond: None,
        },
    ];
    if requested {
        tx.push(TxOp::Put {
            item: request_item(&o),
            cond: None,
        });
    }
    if let Some(owner) = &owner {
        tx.extend(owner_ops(&o, owner, &new.by, now));
    }
    let action = if requested {
        OrgAction::Request
    } else {
        OrgAction::Create
    };
    tx.push(audit::record(
        ciam,
        &o.org_id,
        &audit::Actor {
            user_id: &new.by,
            role: &new.by_role,
        },
        action,
        owner.as_deref().unwrap_or(""),
        new.reason.as_deref(),
        None,
    ));
    tx.extend(extra);
    // A request's only condition that can fail is the asker's count of pending requests.
    let lost = if requested {
        Error::new(Reason::ORG_REQUEST_LIMIT)
    } else {
        Error::internal("a new organization's items exist already")
    };
    ciam.store.transact(tx).await.or_reason(lost)?;
    Ok(o)
}
