//! An organization's slice of the audit log (docs/organizations-design.md §4): one entry per
//! change to the organization, by its own admins or by an operator, in its own partition
//! `ORGAUDIT#<orgId>` / `<ms, 13 digits>#<12 hex>`, put in the change's transaction and read
//! newest first with one query. Kept `Config::audit_retention_days`.

use super::OrgId;
use crate::{random, Ciam};
use ciam_store::{Cond, Item, Key, Query, Store, StoreError, TxOp};
use serde::Serialize;

const DAY: i64 = 86_400;
/// Most entries a page holds.
pub const PAGE: usize = 50;

macro_rules! org_actions {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal; )*) => {
        /// What an entry of the slice records.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum OrgAction { $( $(#[$doc])* $variant, )* }

        impl OrgAction {
            pub const ALL: &'static [OrgAction] = &[ $( OrgAction::$variant, )* ];

            /// Its name in the entries and on the wire, e.g. `member.remove`.
            pub const fn as_str(self) -> &'static str {
                match self { $( OrgAction::$variant => $name, )* }
            }
        }
    };
}

org_actions! {
    /// An operator created it.
    Create = "org.create";
    /// A customer asked for it.
    Request = "org.request";
    /// An operator approved the request (the asker became its owner).
    Approve = "org.approve";
    /// An operator refused the request (the organization was deleted).
    Refuse = "org.refuse";
    /// Names or settings changed (the detail names the fields).
    Update = "org.update";
    Suspend = "org.suspend";
    Reactivate = "org.reactivate";
    /// An operator added a member directly.
    MemberAdd = "member.add";
    /// A member removed, or one who left.
    MemberRemove = "member.remove";
    /// A person joined on their own proof: a verified domain's automatic enrolment or its
    /// accepted suggestion (the detail: `domain:<domain>`), or a company sign-in's just-in-time
    /// membership (the detail: `connection:<connId>`). The actor is the person.
    MemberJoin = "member.join";
    /// A role changed (the detail: before -> after).
    MemberRole = "member.role";
    InvitationCreate = "invitation.create";
    InvitationRevoke = "invitation.revoke";
    InvitationAccept = "invitation.accept";
    /// A sign-in connection added (the detail: its protocol).
    ConnectionCreate = "connection.create";
    /// A connection turned on or off (the detail: its status after).
    ConnectionStatus = "connection.status";
    /// A connection's names, settings, secret or just-in-time rule changed (the detail names
    /// the fields, never a value of the secret).
    ConnectionUpdate = "connection.update";
    ConnectionDelete = "connection.delete";
    /// A domain claimed (the detail: its verification method).
    DomainAdd = "domain.add";
    /// A domain verified (the detail: by which method).
    DomainVerify = "domain.verify";
    /// A domain's enrolment changed (the detail: the new one).
    DomainEnrolment = "domain.enrolment";
    DomainRemove = "domain.remove";
    /// A domain's routing to a connection set or cleared (the detail: `<connId>`, `required`
    /// when it is, or `none`).
    DomainSignIn = "domain.signIn";
}

/// Who did it: a user id and their role as the entry shows it (an organization role or a
/// console role).
pub struct Actor<'a> {
    pub user_id: &'a str,
    pub role: &'a str,
}

/// One entry of the slice.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "OrgAuditEntry"))]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// Unix seconds.
    pub at: i64,
    pub actor: String,
    pub actor_role: String,
    pub action: String,
    /// The member (user id), invitation (invId) or domain acted on; empty when the organization
    /// itself.
    pub target: String,
    pub reason: Option<String>,
    pub detail: Option<String>,
    /// Where the next page starts (the last entry's cursor).
    pub cursor: String,
}

pub fn pk(org: &OrgId) -> String {
    format!("ORGAUDIT#{org}")
}

/// The put of an entry, for the change's transaction.
pub fn record(
    ciam: &Ciam,
    org: &OrgId,
    actor: &Actor<'_>,
    action: OrgAction,
    target: &str,
    reason: Option<&str>,
    detail: Option<String>,
) -> TxOp {
    let now = ciam.now();
    let tag = hex::encode(random::<6>(ciam.entropy.as_ref()));
    let item = Item::new(Key::new(pk(org), format!("{:013}#{tag}", now * 1000)))
        .with("at", now)
        .with("actor", actor.user_id)
        .with("actorRole", actor.role)
        .with("action", action.as_str())
        .with("target", target)
        .with_opt("reason", reason.map(str::to_owned))
        .with_opt("detail", detail)
        .expires(now + i64::from(ciam.config.audit_retention_days) * DAY);
    TxOp::Put {
        item,
        cond: Some(Cond::NotExists),
    }
}

/// A page of the slice, newest first, after `cursor` (the last entry's of the previous page).
/// Round trips: 1.
pub async fn page(
    store: &dyn Store,
    org: &OrgId,
    cursor: Option<&str>,
) -> Result<Vec<Entry>, StoreError> {
    let mut q = Query::partition(pk(org)).descending().limit(PAGE);
    if let Some(c) = cursor {
        q = q.after(c);
    }
    Ok(store
        .query(q)
        .await?
        .iter()
        .map(|i| Entry {
            at: i.n("at").unwrap_or(0),
            actor: i.s("actor").unwrap_or_default().to_owned(),
            actor_role: i.s("actorRole").unwrap_or_default().to_owned(),
            action: i.s("action").unwrap_or_default().to_owned(),
            target: i.s("target").unwrap_or_default().to_owned(),
            reason: i.s("reason").map(str::to_owned),
            detail: i.s("detail").map(str::to_owned),
            cursor: i.key.sk.clone(),
        })
        .collect())
}
