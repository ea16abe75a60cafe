//! The console's side of organizations: the list, a change of names and settings, suspension and
//! reactivation, and suggestions from the free-text companies of existing accounts (nothing is
//! merged: an operator decides).

use super::access::Caller;
use super::audit::OrgAction;
use super::{org_key, Organization, Role, Status, LIST_PK};
use crate::directory::fold;
use crate::error::{LostRace, Result};
use crate::{Ciam, Reason};
use ciam_store::{Cond, Query, Store, StoreError, TxOp, Update, Value};
use serde::Serialize;
use std::collections::BTreeMap;

/// An organization as the console's list shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    pub org_id: String,
    pub name_zh: String,
    pub name_en: String,
    pub status: String,
    pub created_at: i64,
    /// Where the next page starts.
    pub cursor: String,
}

/// A page of organizations, newest first (50, after `cursor`). Round trips: 1.
pub async fn list(store: &dyn Store, cursor: Option<&str>) -> Result<Vec<Listed>, StoreError> {
    let mut q = Query::partition(LIST_PK).limit(50).eventual();
    if let Some(c) = cursor {
        q = q.after(c);
    }
    Ok(store
        .query(q)
        .await?
        .iter()
        .map(|i| Listed {
            org_id: i.s("orgId").unwrap_or_default().to_owned(),
            name_zh: i.s("nameZh").unwrap_or_default().to_owned(),
            name_en: i.s("nameEn").unwrap_or_default().to_owned(),
            status: i.s("status").unwrap_or_default().to_owned(),
            created_at: i.n("createdAt").unwrap_or(0),
            cursor: i.key.sk.clone(),
        })
        .collect())
}

/// What a change may set (None: unchanged).
#[derive(Clone, Debug, Default)]
pub struct Change {
    pub names: Option<(String, String)>,
    pub mfa_required: Option<bool>,
    pub allowed_methods: Option<Vec<String>>,
    pub default_role: Option<Role>,
    pub event_apps: Option<Vec<String>>,
    /// Suspend (`Suspended`) or reactivate (`Active`).
    pub status: Option<Status>,
}

/// Applies `change` to `o` (an owner's or an operator's; only an operator changes the status).
/// Round trips: 1.
pub async fn update(
    ciam: &Ciam,
    caller: &Caller,
    o: &Organization,
    change: Change,
) -> Result<Organization> {
    if caller.rank != Role::Owner {
        return Err(Reason::ORG_ROLE_FORBIDDEN.into());
    }
    if o.status == Status::Requested
        || (change.status.is_some() && caller.reason.is_none())
        || (o.status == Status::Suspended && change.status != Some(Status::Active))
    {
        return Err(Reason::ORG_NOT_ACTIVE.into());
    }
    let mut after = o.clone();
    let mut ops = Vec::new();
    let mut fields = Vec::new();
    if let Some((zh, en)) = change.names {
        ops.push(Update::Set("nameZh".into(), zh.as_str().into()));
        ops.push(Update::Set("nameEn".into(), en.as_str().into()));
        (after.name_zh, after.name_en) = (zh, en);
        fields.push("names");
    }
    if let Some(v) = change.mfa_required {
        ops.push(Update::Set("mfaRequired".into(), v.into()));
        after.settings.mfa_required = v;
        fields.push("mfaRequired");
    }
    if let Some(v) = change.allowed_methods {
        let v = super::policy::check_methods(&v)?;
        ops.push(Update::Set(
            "allowedMethods".into(),
            Value::strings(v.iter().cloned()),
        ));
        after.settings.allowed_methods = v;
        fields.push("allowedMethods");
    }
    if let Some(v) = change.default_role {
        ops.push(Update::Set("defaultRole".into(), v.as_str().into()));
        after.settings.default_role = v;
        fields.push("defaultRole");
    }
    if let Some(v) = change.event_apps {
        ops.push(Update::Set(
            "eventApps".into(),
            Value::strings(v.iter().cloned()),
        ));
        after.settings.event_apps = v;
        fields.push("eventApps");
    }
    let action = match change.status {
        Some(s) if s != o.status => {
            ops.push(Update::Set("status".into(), s.as_str().into()));
            after.status = s;
            if s == Status::Active {
                OrgAction::Reactivate
            } else {
                OrgAction::Suspend
            }
        }
        _ => OrgAction::Update,
    };
    if ops.is_empty() {
        return Ok(after);
    }
    let tx = vec![
        TxOp::Update {
            key: org_key(&o.org_id),
            ops,
            cond: Some(Cond::eq("status", o.status.as_str())),
        },
        TxOp::Put {
            item: after.list_item(),
            cond: None,
        },
        caller.record(
            ciam,
            &o.org_id,
            action,
            "",
            (!fields.is_empty()).then(|| format!("fields: {}", fields.join(","))),
        ),
    ];
    caller
        .commit(ciam, tx)
        .await
        .or_reason(Reason::ORG_NOT_ACTIVE)?;
    Ok(after)
}

/// A company name written on accounts, and how many accounts wrote it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Suggestion {
    /// The name as most of its accounts wrote it.
    pub company: String,
    pub accounts: usize,
}

/// Most directory entries one suggestion list reads.
pub const SUGGEST_READ: usize = 1000;

/// The companies whose folded name starts with `prefix` (at least one character), most accounts
/// first: one query of the directory's `DIR#CO#<first character>` partition with the prefix, at
/// most [`SUGGEST_READ`] entries (docs/organizations-design.md §5). Round trips: 1.
pub async fn suggestions(store: &dyn Store, prefix: &str) -> Result<Vec<Suggestion>> {
    let folded = fold(prefix);
    let Some(first) = folded.chars().next() else {
        return Err(crate::Error::field(
            Reason::INVALID_PARAMETER,
            "q",
            "请输入公司名称的开头",
            "Give the beginning of a company name",
        ));
    };
    let items = store
        .query(
            Query::partition(format!("DIR#CO#{first}"))
                .prefix(folded.clone())
                .limit(SUGGEST_READ)
                .eventual(),
        )
        .await?;
    // Folded name -> (count, spelling -> count).
    let mut by: BTreeMap<String, (usize, BTreeMap<String, usize>)> = BTreeMap::new();
    for i in &items {
        let Some(company) = i.s("company") else {
            continue;
        };
        let e = by.entry(fold(company)).or_default();
        e.0 += 1;
        *e.1.entry(company.to_owned()).or_default() += 1;
    }
    let mut out: Vec<Suggestion> = by
        .into_values()
        .filter_map(|(n, spellings)| {
            let best = spellings.into_iter().max_by_key(|(_, c)| *c)?.0;
            Some(Suggestion {
                company: best,
                accounts: n,
            })
        })
        .collect();
    out.sort_by(|a, b| b.accounts.cmp(&a.accounts).then(a.company.cmp(&b.company)));
    Ok(out)
}
