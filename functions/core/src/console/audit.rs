//! The console's audit log (design §3, §7): one item per console action or role change,
//! `AUDIT#<yyyy-mm-dd>` / `<ts ms>#<random>`, put once (condition: new) and never changed,
//! kept `Config::audit_retention_days` (its `expiresAt`). Read one day's partition a query.

use super::Operator;
use crate::error::{Error, Result};
use crate::{random, Ciam, Reason};
use ciam_store::{Cond, Item, Key, Query, Store, TxOp};
use serde::Serialize;

const DAY: i64 = 86_400;

/// What an audit entry's target is: an account (its user id) or an app (its app id).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    Account,
    App,
    /// An organization (its orgId; docs/organizations-design.md).
    Org,
}

macro_rules! audit_actions {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, $target:ident; )*) => {
        /// The console's audited actions: the one list the entries' `action`, the API's enum
        /// of it (docs/openapi.json) and so the console's names for them in both languages
        /// (typed by the generated union) are made from.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum AuditAction { $( $(#[$doc])* $variant, )* }

        impl AuditAction {
            /// Every action, in the list's order.
            pub const ALL: &'static [AuditAction] = &[ $( AuditAction::$variant, )* ];

            /// Its name in the entries and on the wire, e.g. `account.unlock`.
            pub const fn as_str(self) -> &'static str {
                match self { $( AuditAction::$variant => $name, )* }
            }

            /// What its entries' `target` names.
            pub const fn target(self) -> TargetKind {
                match self { $( AuditAction::$variant => TargetKind::$target, )* }
            }

            /// The action named `name`, if this build knows it.
            pub fn parse(name: &str) -> Option<AuditAction> {
                Self::ALL.iter().copied().find(|a| a.as_str() == name)
            }
        }
    };
}

audit_actions! {
    /// An operator saw an account's mail and phone unmasked.
    AccountReveal = "account.reveal", Account;
    AccountUnlock = "account.unlock", Account;
    AccountEndSessions = "account.endSessions", Account;
    AccountResetTwoFactor = "account.resetTwoFactor", Account;
    AccountSendResetCode = "account.sendResetCode", Account;
    AccountSuspend = "account.suspend", Account;
    AccountReactivate = "account.reactivate", Account;
    AccountResetPasskeys = "account.resetPasskeys", Account;
    /// Support replaced the account's mail or phone (the detail says which).
    AccountReplaceIdentity = "account.replaceIdentity", Account;
    /// Support unlinked a provider's account from the account (the detail names the provider).
    AccountUnlinkIdentity = "account.unlinkIdentity", Account;
    /// The support desk's notes on the account saved (the detail gives their length).
    AccountNotes = "account.notes", Account;
    /// A console role given or changed (the detail: before -> after).
    RoleGrant = "role.grant", Account;
    RoleRevoke = "role.revoke", Account;
    AppCreate = "app.create", App;
    AppUpdate = "app.update", App;
    AppRotateSecret = "app.rotateSecret", App;
    AppRetirePreviousSecret = "app.retirePreviousSecret", App;
    AppDelete = "app.delete", App;
    /// A webhook endpoint of the app (the detail names the endpoint).
    WebhookCreate = "webhook.create", App;
    WebhookUpdate = "webhook.update", App;
    WebhookRotateSecret = "webhook.rotateSecret", App;
    WebhookDelete = "webhook.delete", App;
    WebhookReplay = "webhook.replay", App;
    /// An account's partner events fanned out again (`ciam admin webhooks refan`).
    WebhookRefan = "webhook.refan", Account;
    /// Organizations (issue 35): each also in the organization's own audit slice.
    OrgCreate = "org.create", Org;
    OrgApprove = "org.approve", Org;
    OrgRefuse = "org.refuse", Org;
    /// Names, settings or status changed (the detail names the fields).
    OrgUpdate = "org.update", Org;
    OrgInvite = "org.invite", Org;
    OrgMemberRole = "org.memberRole", Org;
    OrgMemberRemove = "org.memberRemove", Org;
    OrgRevokeInvitation = "org.revokeInvitation", Org;
    /// A change to the organization's verified domains (the detail: what and which domain).
    OrgDomain = "org.domain", Org;
    /// A change to the organization's sign-in connections (the detail: what and which one).
    OrgConnection = "org.connection", Org;
}

/// The JSON Schema of an entry's `action` on the wire: the enum of [`AuditAction::ALL`].
#[cfg(feature = "openapi")]
pub fn action_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = AuditAction::ALL.iter().map(|a| a.as_str()).collect();
    schemars::json_schema!({ "type": "string", "enum": names })
}
/// The longest range `GET /admin/audit` reads (one query a day).
pub const MAX_DAYS: i64 = 31;

/// What the request says about itself: its id (X-Request-ID) and the caller's address and
/// device.
#[derive(Clone, Debug, Default)]
pub struct RequestFacts {
    pub request_id: String,
    pub ip: Option<String>,
    pub device: Option<String>,
}

/// One audit entry.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "AuditEntry"))]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    #[serde(skip)]
    pub key: Key,
    /// Unix seconds.
    pub at: i64,
    /// The operator's user id.
    pub actor: String,
    pub actor_role: String,
    /// What was done, e.g. `account.unlock` (the list is this field's enum). Read as a string,
    /// so an entry of an action a newer build wrote still shows.
    #[cfg_attr(feature = "openapi", schemars(schema_with = "action_schema"))]
    pub action: String,
    /// The account or app acted on (a user id, an app id).
    pub target: String,
    pub reason: Option<String>,
    pub detail: Option<String>,
    pub request_id: String,
    pub ip: Option<String>,
    pub device: Option<String>,
    #[serde(skip)]
    pub expires_at: i64,
}

pub use crate::days::{day_name, parse_day};

fn partition(days: i64) -> String {
    format!("AUDIT#{}", day_name(days))
}

impl Entry {
    /// A new entry for `op` doing `action` on `target` now.
    pub fn new(
        ciam: &Ciam,
        op: &Operator,
        action: AuditAction,
        target: &str,
        reason: Option<&str>,
        detail: Option<String>,
        req: &RequestFacts,
    ) -> Entry {
        let now = ciam.now();
        let ms = now * 1000;
        let tag = hex::encode(random::<6>(ciam.entropy.as_ref()));
        Entry {
            key: Key::new(partition(now.div_euclid(DAY)), format!("{ms:013}#{tag}")),
            at: now,
            actor: op.user.id.clone(),
            actor_role: op.role.as_str().to_owned(),
            action: action.as_str().to_owned(),
            target: target.to_owned(),
            reason: reason.map(str::to_owned),
            detail,
            request_id: req.request_id.clone(),
            ip: req.ip.clone(),
            device: req.device.clone(),
            expires_at: now + i64::from(ciam.config.audit_retention_days) * DAY,
        }
    }

    fn from_item(i: &Item) -> Entry {
        let s = |n: &str| i.s(n).map(str::to_owned);
        Entry {
            key: i.key.clone(),
            at: i.n("at").unwrap_or(0),
            actor: s("actor").unwrap_or_default(),
            actor_role: s("actorRole").unwrap_or_default(),
            action: s("action").unwrap_or_default(),
            target: s("target").unwrap_or_default(),
            reason: s("reason"),
            detail: s("detail"),
            request_id: s("requestId").unwrap_or_default(),
            ip: s("ip"),
            device: s("device"),
            expires_at: i.expires_at.unwrap_or(0),
        }
    }

    fn to_item(&self) -> Item {
        Item::new(self.key.clone())
            .with("at", self.at)
            .with("actor", self.actor.as_str())
            .with("actorRole", self.actor_role.as_str())
            .with("action", self.action.as_str())
            .with("target", self.target.as_str())
            .with_opt("reason", self.reason.clone())
            .with_opt("detail", self.detail.clone())
            .with("requestId", self.request_id.as_str())
            .with_opt("ip", self.ip.clone())
            .with_opt("device", self.device.clone())
            .expires(self.expires_at)
    }

    /// The entry's write inside a transaction: a put that never replaces.
    pub fn put(&self) -> TxOp {
        TxOp::Put {
            item: self.to_item(),
            cond: Some(Cond::NotExists),
        }
    }
}

/// Records `op` doing `action` on `target`. Round trips: 1.
pub async fn record(
    ciam: &Ciam,
    op: &Operator,
    action: AuditAction,
    target: &str,
    reason: Option<&str>,
    detail: Option<String>,
    req: &RequestFacts,
) -> Result<()> {
    let e = Entry::new(ciam, op, action, target, reason, detail, req);
    ciam.store.put(e.to_item(), Some(Cond::NotExists)).await?;
    Ok(())
}

/// What `GET /admin/audit` asks for: a range of days and exact filters.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub from: String,
    pub to: String,
    pub actor: Option<String>,
    pub target: Option<String>,
    pub action: Option<String>,
}

/// The days `from`..=`to` of a filter, newest first: at most [`MAX_DAYS`], else
/// INVALID_PARAMETER on `to` (a wrong date on `from` or `to`).
pub fn days(f: &Filter) -> Result<Vec<i64>> {
    let from = parse_day("from", &f.from)?;
    let to = parse_day("to", &f.to)?;
    if to < from || to - from >= MAX_DAYS {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "to",
            "日期范围应为 1 到 31 天",
            "The range is 1 to 31 days",
        ));
    }
    Ok((from..=to).rev().collect())
}

/// The entries of one day that pass the filter, newest first. Round trips: 1 (one query of the
/// day's partition).
pub async fn day_entries(store: &dyn Store, day: i64, f: &Filter) -> Result<Vec<Entry>> {
    let keep = |e: &Entry| {
        let is = |want: &Option<String>, got: &str| want.as_deref().is_none_or(|w| w == got);
        is(&f.actor, &e.actor) && is(&f.target, &e.target) && is(&f.action, &e.action)
    };
    let q = Query::partition(partition(day)).descending();
    Ok(store
        .query(q)
        .await?
        .iter()
        .map(Entry::from_item)
        .filter(keep)
        .collect())
}

/// `GET /admin/audit`: the entries of the days `from`..=`to` (at most [`MAX_DAYS`]), newest
/// first, filtered. Round trips: 1 a day.
pub async fn list(ciam: &Ciam, f: &Filter) -> Result<Vec<Entry>> {
    let mut out = Vec::new();
    for day in days(f)? {
        out.extend(day_entries(ciam.store.as_ref(), day, f).await?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_named_and_parsed_as_civil_dates() {
        assert_eq!(day_name(0), "1970-01-01");
        assert_eq!(day_name(20_454), "2026-01-01");
        for s in ["2024-02-29", "2026-11-26", "1999-12-31"] {
            assert_eq!(day_name(parse_day("from", s).unwrap()), s);
        }
        for s in ["2025-02-29", "2026-13-01", "26-01-01", "2026-1-01", "x", ""] {
            assert!(parse_day("from", s).is_err(), "{s}");
        }
    }
}
