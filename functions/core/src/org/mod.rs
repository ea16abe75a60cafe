//! Organizations (issue 35, docs/organizations-design.md): a customer company as Ciam knows it,
//! its members and their roles. The items (docs/data-model.md "Organizations"):
//!
//! - `ORG#<orgId>` / `ORG`: the organization (names, status, settings, counters)
//! - `ORG#<orgId>` / `MEM#<userId>`: a membership, and `USER#<userId>` / `ORG#<orgId>` its
//!   person's side, always written and deleted in the same transaction
//! - `ORGS` / `<inverted createdAt>#<orgId>`: the console's list
//!
//! A person's role in an organization is one read by key ([`role_of`]); their organizations are
//! one query of their own partition ([`memberships_of`]).

pub mod access;
pub mod audit;
pub mod connections;
pub mod create;
pub mod events;
pub mod invitations;
pub mod manage;
pub mod members;
pub mod policy;
pub mod requests;
mod role;
pub mod tokens;

pub use create::{create, create_with_id, NewOrg};
pub use role::Role;

use crate::user::user_pk;
use crate::{random, Ciam};
use ciam_store::{Cond, Item, Key, Query, Store, StoreError, TxOp};
use serde::Serialize;

/// `created` is stored as `INVERT - created` so that ascending sort keys are newest first.
pub(crate) const INVERT: i64 = 9_999_999_999;
/// The partition of the console's list of organizations.
pub const LIST_PK: &str = "ORGS";
/// The longest name, in characters, in either language.
pub const NAME_MAX: usize = 100;

/// An organization's id: `org_` and 16 lower-case hex characters (64 random bits).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct OrgId(String);

/// A new random id: `prefix` and 16 lower-case hex characters (64 random bits).
pub(crate) fn random_id(ciam: &Ciam, prefix: &str) -> String {
    format!(
        "{prefix}{}",
        hex::encode(random::<8>(ciam.entropy.as_ref()))
    )
}

/// Whether `raw` is `prefix` and 16 lower-case hex characters (the shape of [`random_id`]).
pub(crate) fn has_id_shape(raw: &str, prefix: &str) -> bool {
    raw.strip_prefix(prefix).is_some_and(|hex| {
        hex.len() == 16 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

impl OrgId {
    /// A new random id.
    pub fn new(ciam: &Ciam) -> OrgId {
        OrgId(random_id(ciam, "org_"))
    }

    /// The id in `raw` if it has the shape of one (a path segment; nothing else is looked up).
    pub fn parse(raw: &str) -> Option<OrgId> {
        has_id_shape(raw, "org_").then(|| OrgId(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for OrgId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where an organization stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum Status {
    /// A customer asked for it; no operator has decided yet.
    Requested,
    Active,
    /// Stopped by an operator: nothing can be managed or joined until it is reactivated.
    Suspended,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Requested => "requested",
            Status::Active => "active",
            Status::Suspended => "suspended",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        [Status::Requested, Status::Active, Status::Suspended]
            .into_iter()
            .find(|x| x.as_str() == s)
    }
}

/// The organization's settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// Members must have a second factor (enforced by the organization's sign-in).
    pub mfa_required: bool,
    /// The sign-in methods members may use; empty: every method.
    pub allowed_methods: Vec<String>,
    /// The role an invitation gives when it names none.
    pub default_role: Role,
    /// The apps the organization consented to hear its events (`organization.*`).
    pub event_apps: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            mfa_required: false,
            allowed_methods: Vec::new(),
            default_role: Role::Member,
            event_apps: Vec::new(),
        }
    }
}

/// The organization item, `ORG#<orgId>` / `ORG`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Organization {
    #[cfg_attr(feature = "openapi", schemars(with = "String"))]
    pub org_id: OrgId,
    pub name_zh: String,
    pub name_en: String,
    pub status: Status,
    pub settings: Settings,
    /// How many owners (never below 1 once active).
    pub owners: i64,
    pub members: i64,
    /// Unix seconds.
    pub created_at: i64,
    /// Who created it (an operator) or asked for it (a customer).
    pub created_by: String,
    /// The customer who asked for it, when one did.
    pub requested_by: Option<String>,
}

pub fn org_pk(org: &OrgId) -> String {
    format!("ORG#{org}")
}

/// The organization item's key.
pub fn org_key(org: &OrgId) -> Key {
    Key::new(org_pk(org), "ORG")
}

/// A membership's key, in the organization's partition.
pub fn member_key(org: &OrgId, user_id: &str) -> Key {
    Key::new(org_pk(org), format!("MEM#{user_id}"))
}

/// The membership's side in the person's partition.
pub fn side_key(org: &OrgId, user_id: &str) -> Key {
    Key::new(user_pk(user_id), format!("ORG#{org}"))
}

/// The console list's item of an organization created at `created_at`.
pub fn list_key(org: &OrgId, created_at: i64) -> Key {
    Key::new(LIST_PK, format!("{:010}#{org}", INVERT - created_at))
}

impl Organization {
    pub fn from_item(item: &Item) -> Option<Organization> {
        let org_id = OrgId::parse(item.s("orgId")?)?;
        Some(Organization {
            org_id,
            name_zh: item.s("nameZh").unwrap_or_default().to_owned(),
            name_en: item.s("nameEn").unwrap_or_default().to_owned(),
            status: Status::parse(item.s("status")?)?,
            settings: Settings {
                mfa_required: item.bool("mfaRequired").unwrap_or(false),
                allowed_methods: item.strings("allowedMethods"),
                default_role: item
                    .s("defaultRole")
                    .map(Role::parse_lenient)
                    .unwrap_or(Role::Member),
                event_apps: item.strings("eventApps"),
            },
            owners: item.n("owners").unwrap_or(0),
            members: item.n("members").unwrap_or(0),
            created_at: item.n("createdAt").unwrap_or(0),
            created_by: item.s("createdBy").unwrap_or_default().to_owned(),
            requested_by: item.s("requestedBy").map(str::to_owned),
        })
    }

    pub fn to_item(&self) -> Item {
        Item::new(org_key(&self.org_id))
            .with("orgId", self.org_id.as_str())
            .with("nameZh", self.name_zh.as_str())
            .with("nameEn", self.name_en.as_str())
            .with("status", self.status.as_str())
            .with("mfaRequired", self.settings.mfa_required)
            .with(
                "allowedMethods",
                ciam_store::Value::strings(self.settings.allowed_methods.iter().cloned()),
            )
            .with("defaultRole", self.settings.default_role.as_str())
            .with(
                "eventApps",
                ciam_store::Value::strings(self.settings.event_apps.iter().cloned()),
            )
            .with("owners", self.owners)
            .with("members", self.members)
            .with("createdAt", self.created_at)
            .with("createdBy", self.created_by.as_str())
            .with_opt("requestedBy", self.requested_by.clone())
    }

    /// The console list's item (names and status, rewritten when they change).
    pub fn list_item(&self) -> Item {
        Item::new(list_key(&self.org_id, self.created_at))
            .with("orgId", self.org_id.as_str())
            .with("nameZh", self.name_zh.as_str())
            .with("nameEn", self.name_en.as_str())
            .with("status", self.status.as_str())
            .with("createdAt", self.created_at)
    }
}

/// A person's membership of an organization (both items hold the same attributes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Membership {
    #[cfg_attr(feature = "openapi", schemars(with = "String"))]
    pub org_id: OrgId,
    pub user_id: String,
    pub role: Role,
    /// Unix seconds.
    pub joined_at: i64,
    /// Who added them (an inviter's or an operator's user id).
    pub by: String,
}

impl Membership {
    pub fn from_item(item: &Item) -> Option<Membership> {
        Some(Membership {
            org_id: OrgId::parse(item.s("orgId")?)?,
            user_id: item.s("userId")?.to_owned(),
            role: Role::parse_lenient(item.s("role")?),
            joined_at: item.n("joinedAt").unwrap_or(0),
            by: item.s("by").unwrap_or_default().to_owned(),
        })
    }

    fn attrs(&self, key: Key) -> Item {
        Item::new(key)
            .with("orgId", self.org_id.as_str())
            .with("userId", self.user_id.as_str())
            .with("role", self.role.as_str())
            .with("joinedAt", self.joined_at)
            .with("by", self.by.as_str())
    }

    /// The organization's item of it.
    pub fn member_item(&self) -> Item {
        self.attrs(member_key(&self.org_id, &self.user_id))
    }

    /// The person's side.
    pub fn side_item(&self) -> Item {
        self.attrs(side_key(&self.org_id, &self.user_id))
    }

    /// Both items as a transaction's puts: the organization's (only if not a member already)
    /// and the person's side.
    pub fn put_ops(&self) -> Vec<TxOp> {
        vec![
            TxOp::Put {
                item: self.member_item(),
                cond: Some(Cond::NotExists),
            },
            TxOp::Put {
                item: self.side_item(),
                cond: None,
            },
        ]
    }
}

/// The organization, if it exists. Round trips: 1.
pub async fn get(store: &dyn Store, org: &OrgId) -> Result<Option<Organization>, StoreError> {
    Ok(store
        .get(&org_key(org))
        .await?
        .as_ref()
        .and_then(Organization::from_item))
}

/// `user_id`'s role in `org`, `None` when not a member. Round trips: 1 (a get by key).
pub async fn role_of(
    store: &dyn Store,
    org: &OrgId,
    user_id: &str,
) -> Result<Option<Role>, StoreError> {
    Ok(membership(store, org, user_id).await?.map(|m| m.role))
}

/// `user_id`'s membership of `org`, if any. Round trips: 1.
pub async fn membership(
    store: &dyn Store,
    org: &OrgId,
    user_id: &str,
) -> Result<Option<Membership>, StoreError> {
    Ok(store
        .get(&member_key(org, user_id))
        .await?
        .as_ref()
        .and_then(Membership::from_item))
}

/// The organization and `user_id`'s membership of it, in one round trip (`get_many`).
pub async fn with_membership(
    store: &dyn Store,
    org: &OrgId,
    user_id: &str,
) -> Result<(Option<Organization>, Option<Membership>), StoreError> {
    let [o, m] = ciam_store::get_each(store, [org_key(org), member_key(org, user_id)]).await?;
    Ok((
        o.as_ref().and_then(Organization::from_item),
        m.as_ref().and_then(Membership::from_item),
    ))
}

/// Every organization `user_id` belongs to (their side items). Round trips: 1 (a query of the
/// person's partition with the `ORG#` prefix; a person belongs to few organizations).
pub async fn memberships_of(
    store: &dyn Store,
    user_id: &str,
) -> Result<Vec<Membership>, StoreError> {
    let items = store
        .query(Query::partition(user_pk(user_id)).prefix("ORG#"))
        .await?;
    Ok(items.iter().filter_map(Membership::from_item).collect())
}

#[cfg(test)]
mod tests;
