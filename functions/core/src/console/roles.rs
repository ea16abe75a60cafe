//! Who holds a console role: the role on the user item (`roles`, one console role at a time:
//! granting replaces) and the role index item `ROLES` / `USER#<id>` {role, grantedBy,
//! grantedAt, mail} that lists the holders in one query. Both are written in one transaction,
//! with the audit entry when an admin does it in the console.

use super::audit::{self, RequestFacts};
use super::{Operator, Role};
use crate::error::{Error, Result};
use crate::user::{profile_key, unique_key, User};
use crate::validate::{Email, Identity};
use crate::{Ciam, Reason};
use ciam_store::{Cond, Item, Key, Query, Store, TxOp, Update, Value};
use serde::Serialize;

/// The role index's partition.
pub const ROLES_PK: &str = "ROLES";

pub fn index_key(user_id: &str) -> Key {
    crate::user::role_index_key(user_id)
}

/// One role holder, as the roles screen lists it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "RoleHolder"))]
#[serde(rename_all = "camelCase")]
pub struct Holder {
    pub user_id: String,
    pub role: String,
    /// The admin's user id, or `cli` for `ciam admin grant`.
    pub granted_by: String,
    pub granted_at: i64,
    pub mail: Option<String>,
}

impl Holder {
    fn from_item(i: &Item) -> Holder {
        Holder {
            user_id: i.key.sk.trim_start_matches("USER#").to_owned(),
            role: i.s("role").unwrap_or_default().to_owned(),
            granted_by: i.s("grantedBy").unwrap_or_default().to_owned(),
            granted_at: i.n("grantedAt").unwrap_or(0),
            mail: i.s("mail").map(str::to_owned),
        }
    }
}

/// The user item's roles once `role` is granted (Some) or the console role revoked (None):
/// other roles are kept.
fn roles_with(user: &User, role: Option<Role>) -> Vec<String> {
    let mut v: Vec<String> = user
        .roles
        .iter()
        .filter(|r| Role::parse(r).is_none())
        .cloned()
        .collect();
    v.extend(role.map(|r| r.as_str().to_owned()));
    v
}

/// The writes that give `user` the console role `role` (None: none), granted by `by` at `now`:
/// the user item and the role index, without the audit entry (every caller adds its own; tests
/// seed roles with them alone, so the entries they count are their own).
pub fn ops(user: &User, role: Option<Role>, by: &str, now: i64) -> Vec<TxOp> {
    let roles = roles_with(user, role);
    let set = if roles.is_empty() {
        Update::Remove("roles".into())
    } else {
        Update::Set("roles".into(), Value::strings(&roles))
    };
    let index = match role {
        Some(r) => TxOp::Put {
            item: Item::new(index_key(&user.id))
                .with("role", r.as_str())
                .with("grantedBy", by)
                .with("grantedAt", now)
                .with_opt("mail", user.mail.clone()),
            cond: None,
        },
        None => TxOp::Delete {
            key: index_key(&user.id),
            cond: None,
        },
    };
    vec![
        TxOp::Update {
            key: profile_key(&user.id),
            ops: vec![set],
            cond: Some(Cond::Exists),
        },
        index,
    ]
}

/// `ciam admin grant <mail> --role <role>`: the role for the account with that mail (replacing
/// its console role), granted by `op` (the command line's local admin, `cli:<os user>`), with
/// its audit entry in the same transaction, as every role change. Answers the user id. Round
/// trips: 3.
pub async fn grant_by_mail(
    ciam: &Ciam,
    op: &Operator,
    mail: &str,
    role: Role,
    req: &RequestFacts,
) -> Result<String> {
    let store: &dyn Store = ciam.store.as_ref();
    let id = Identity::Mail(Email::parse(mail)?);
    let owner = store
        .get(&unique_key(id.unique_pk()))
        .await?
        .and_then(|i| i.s("userId").map(str::to_owned))
        .ok_or(Reason::MAIL_NOT_FOUND)?;
    let user = store
        .get(&profile_key(&owner))
        .await?
        .as_ref()
        .and_then(User::from_item)
        .ok_or(Reason::MAIL_NOT_FOUND)?;
    let before = Role::of(&user).map(Role::as_str).unwrap_or("-");
    let mut tx = ops(&user, Some(role), &op.user.id, ciam.now());
    let detail = format!("{before} -> {}", role.as_str());
    tx.push(
        audit::Entry::new(
            ciam,
            op,
            audit::AuditAction::RoleGrant,
            &owner,
            None,
            Some(detail),
            req,
        )
        .put(),
    );
    store.transact(tx).await?;
    Ok(owner)
}

/// `GET /admin/roles`: every role holder, by user id. Round trips: 1.
pub async fn list(ciam: &Ciam) -> Result<Vec<Holder>> {
    let items = ciam.store.query(Query::partition(ROLES_PK)).await?;
    Ok(items.iter().map(Holder::from_item).collect())
}

fn not_yourself() -> Error {
    Error::field(
        Reason::INVALID_PARAMETER,
        "userId",
        "不能更改自己的角色",
        "You cannot change your own role",
    )
}

/// `PUT /admin/roles/{userId}` (Some) and `DELETE` (None): grants or revokes a console role,
/// the user item, the index and the audit entry in one transaction. An admin cannot change
/// their own role (INVALID_PARAMETER on `userId`); an unknown or deactivated account is
/// ACCOUNT_NOT_FOUND. Round trips: 2.
pub async fn set(
    ciam: &Ciam,
    op: &Operator,
    user_id: &str,
    role: Option<Role>,
    req: &RequestFacts,
) -> Result<()> {
    if user_id == op.user.id {
        return Err(not_yourself());
    }
    let user = crate::user::live_user(ciam, user_id)
        .await?
        .ok_or(Reason::ACCOUNT_NOT_FOUND)?;
    let before = Role::of(&user).map(Role::as_str);
    let now = ciam.now();
    let mut tx = ops(&user, role, &op.user.id, now);
    let (action, detail) = match role {
        Some(r) => (
            audit::AuditAction::RoleGrant,
            format!("{} -> {}", before.unwrap_or("-"), r.as_str()),
        ),
        None => (
            audit::AuditAction::RoleRevoke,
            format!("{} -> -", before.unwrap_or("-")),
        ),
    };
    let entry = audit::Entry::new(ciam, op, action, user_id, None, Some(detail), req);
    tx.push(entry.put());
    ciam.store.transact(tx).await?;
    Ok(())
}
