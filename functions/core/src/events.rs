//! Over 500 lines because each kind's cause, its payload cut by consent and the coalescing window
//! of `user.updated` (issue 30) are one story, read together.
//!
//! Partner events (issue 23, docs/events-design.md): what a partner app hears about a user it
//! has a consent with. An event is an item written **in the transaction of the change that
//! causes it** (the outbox): no change is announced that did not commit, and none that committed
//! is lost. The item is `EVT#<userId>` / `<at, 12 digits>#<eventId>` {type, userId, at, data}:
//! one partition per user (the order of a user's events is the order of their sort keys), kept
//! [`KEEP_SECS`] for replay. Fan-out (who hears it, with what) happens after commit: on AWS from
//! the table's stream (filtered on the `EVT#` prefix), in `ciam serve` from a worker in process.
//!
//! `data` is the snapshot of the change, every field under the scope that covers it
//! ([`Kind`] documents each); the fan-out cuts it down to what each app's consent covers.
//!
//! **Coalescing** (issue 30, docs/events-design.md §5): the profile changes of one account
//! within a window of [`COALESCE_SECS`] are one `user.updated` event. The change's transaction
//! does not put a new item but updates the window's (`<window start>#<id from the user and the
//! window>`), each changed field an attribute `d_<field>` (a later change of a field overwrites
//! it: the event holds the last value of each field changed in the window), `window` = the
//! window's end. The first change of the window inserts the item (the stream's INSERT, the
//! outbox marker); the fan-out waits for the window's end and reads the item then. Every write is
//! accepted, at no extra round trip or write; one account makes at most one `user.updated` per
//! window per endpoint however fast it writes.

use crate::user::User;
use crate::validate::{Email, Phone};
use crate::{random, Ciam};
use ciam_store::{Cond, Item, Key, Query, StoreError, TxOp, Update};
use serde_json::{Map, Value as Json};
use std::collections::BTreeMap;

/// The partition prefix of event items (the stream filter matches it).
pub const PK_PREFIX: &str = "EVT#";

/// How long an event is kept for replay: 30 days.
pub const KEEP_SECS: i64 = 30 * 86_400;

/// The window in which an account's profile changes are one `user.updated` (see the module
/// documentation): a partner hears of a change at most this long (and the fan-out's next turn)
/// after it.
pub const COALESCE_SECS: i64 = 5;

/// A coalesced event's attribute: when its window ends (the fan-out waits until then).
pub const WINDOW_END: &str = "window";

/// The attribute prefix of a coalesced event's fields (`d_nickname`: the JSON of the value).
const FIELD_PREFIX: &str = "d_";

/// The scope that covers each data field (the OpenID Connect claim names of the same fields,
/// `oidc::token::claims`). A field under no scope is never sent.
pub const FIELD_SCOPES: [(&str, &str); 7] = [
    ("nickname", "nickname"),
    ("picture", "avatar"),
    ("company", "company"),
    ("email", "email"),
    ("email_verified", "email"),
    ("phone_number", "phone"),
    ("phone_number_verified", "phone"),
];

/// Data fields every app that hears the event gets, whatever its consent covers.
pub const FREE_FIELDS: [&str; 8] = [
    "sid",
    "reason",
    "enabled",
    "provider",
    "linked",
    "orgId",
    "role",
    "invitationId",
];

/// The event kinds, the names partners subscribe to (docs/openapi.json `webhooks`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Profile fields changed (each field under its scope).
    UserUpdated,
    /// The bound mail changed (the new mail under the `email` scope).
    MailChanged,
    /// The bound phone changed (the new phone under the `phone` scope).
    PhoneChanged,
    Deactivated,
    Suspended,
    Reactivated,
    /// Sessions ended by a person (sign-out, sign-out everywhere, the support desk); never an
    /// idle or absolute expiry.
    SessionEnded,
    /// The user removed the app: the app's last event for this user.
    ConsentRevoked,
    /// Two-factor sign-in (authenticator, backup codes, passkeys) changed.
    TwoFactorChanged,
    /// A provider's account was linked or unlinked (`provider`, `linked`; never the subject).
    IdentityChanged,
    /// A person joined an organization (`orgId`, `role`): an accepted invitation, an enrolment
    /// by domain. Heard by the organization's `eventApps`, not by the person's consents.
    OrgMemberAdded,
    /// A member was removed or left (`orgId`, `role`: the role they had).
    OrgMemberRemoved,
    /// An invitation was accepted (`orgId`, `role`, `invitationId`), beside its `member_added`.
    OrgInvitationAccepted,
}

impl Kind {
    pub const ALL: [Kind; 13] = [
        Kind::UserUpdated,
        Kind::MailChanged,
        Kind::PhoneChanged,
        Kind::Deactivated,
        Kind::Suspended,
        Kind::Reactivated,
        Kind::SessionEnded,
        Kind::ConsentRevoked,
        Kind::TwoFactorChanged,
        Kind::IdentityChanged,
        Kind::OrgMemberAdded,
        Kind::OrgMemberRemoved,
        Kind::OrgInvitationAccepted,
    ];

    /// The name on the wire (`type` of the payload, what an endpoint subscribes to).
    pub fn name(self) -> &'static str {
        match self {
            Kind::UserUpdated => "user.updated",
            Kind::MailChanged => "user.mail_changed",
            Kind::PhoneChanged => "user.phone_changed",
            Kind::Deactivated => "user.deactivated",
            Kind::Suspended => "user.suspended",
            Kind::Reactivated => "user.reactivated",
            Kind::SessionEnded => "session.ended",
            Kind::ConsentRevoked => "consent.revoked",
            Kind::TwoFactorChanged => "two_factor.changed",
            Kind::IdentityChanged => "user.identity_changed",
            Kind::OrgMemberAdded => "organization.member_added",
            Kind::OrgMemberRemoved => "organization.member_removed",
            Kind::OrgInvitationAccepted => "organization.invitation_accepted",
        }
    }

    /// An organization's kind: kept in the organization's partition `EVT#ORG#<orgId>` and heard
    /// by the apps the organization consented to (its `eventApps`, recorded on the event as its
    /// `audience`), never by the member's own consents.
    pub fn is_org(self) -> bool {
        matches!(
            self,
            Kind::OrgMemberAdded | Kind::OrgMemberRemoved | Kind::OrgInvitationAccepted
        )
    }

    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// One event, the item `EVT#<userId>` / `<at>#<id>`.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// `msg_` + 24 hex characters: the Standard Webhooks `webhook-id` receivers dedupe on.
    pub id: String,
    pub kind: Kind,
    /// The user it is about (of an organization's event: the member).
    pub user_id: String,
    /// The organization of an organization's event ([`Kind::is_org`]): the item is in its
    /// partition, `EVT#ORG#<orgId>`.
    pub org_id: Option<String>,
    /// When the change committed (Unix seconds).
    pub at: i64,
    /// The change's snapshot (see the module documentation).
    pub data: Map<String, Json>,
    /// The app a `consent.revoked` is about (the only app that hears it).
    pub app_id: Option<String>,
    /// Who hears it, when the change itself removes the consents the fan-out would read
    /// (`user.deactivated`: the consents are deleted right after its commit): each consented
    /// app and its scopes at the time of the change (attribute `audience`, JSON). None: the
    /// user's `CONSENT#` items at fan-out (`consents::audience`).
    pub audience: Option<BTreeMap<String, Vec<String>>>,
}

pub fn event_key(user_id: &str, at: i64, id: &str) -> Key {
    Key::new(format!("{PK_PREFIX}{user_id}"), format!("{at:012}#{id}"))
}

/// The user id of an event partition key, or None when `pk` is not one. An organization's
/// partition answers its subject, `ORG#<orgId>` (what the queue groups its deliveries by).
pub fn user_of(pk: &str) -> Option<&str> {
    pk.strip_prefix(PK_PREFIX)
}

/// The subject prefix of an organization's event partition (`EVT#ORG#<orgId>`).
pub const ORG_SUBJECT: &str = "ORG#";

impl Event {
    /// A new event of `user_id` at the clock's now.
    pub fn new(ciam: &Ciam, user_id: &str, kind: Kind, data: Map<String, Json>) -> Event {
        Event {
            id: format!("msg_{}", hex::encode(random::<12>(ciam.entropy.as_ref()))),
            kind,
            user_id: user_id.to_owned(),
            at: ciam.now(),
            data,
            org_id: None,
            app_id: None,
            audience: None,
        }
    }

    /// Whose partition it is in: the user's id, or `ORG#<orgId>` for an organization's event.
    /// Deliveries name it as their `userId` (the queue's order, the log, a replay's read).
    pub fn subject(&self) -> String {
        match &self.org_id {
            Some(org) => format!("{ORG_SUBJECT}{org}"),
            None => self.user_id.clone(),
        }
    }

    pub fn key(&self) -> Key {
        event_key(&self.subject(), self.at, &self.id)
    }

    pub fn to_item(&self) -> Item {
        Item::new(self.key())
            .with("type", self.kind.name())
            .with("userId", self.user_id.as_str())
            .with_opt("orgId", self.org_id.as_deref())
            .with("at", self.at)
            .with("data", Json::Object(self.data.clone()).to_string())
            .with_opt("appId", self.app_id.as_deref())
            .with_opt(
                "audience",
                self.audience
                    .as_ref()
                    .map(|a| serde_json::to_string(a).unwrap_or_default()),
            )
            .expires(self.at + KEEP_SECS)
    }

    /// None for an item that is not an event of a kind this build knows.
    pub fn from_item(i: &Item) -> Option<Event> {
        let subject = user_of(&i.key.pk)?;
        let org_id = subject.strip_prefix(ORG_SUBJECT).map(str::to_owned);
        let user_id = match org_id {
            Some(_) => i.s("userId")?.to_owned(),
            None => subject.to_owned(),
        };
        let (_, id) = i.key.sk.split_once('#')?;
        let mut data = match i.s("data").map(serde_json::from_str::<Json>) {
            Some(Ok(Json::Object(m))) => m,
            None => Map::new(),
            Some(_) => return None,
        };
        // A coalesced event's fields, each the last value of the window.
        for (name, v) in &i.attrs {
            if let (Some(field), ciam_store::Value::S(json)) = (name.strip_prefix(FIELD_PREFIX), v)
            {
                data.insert(field.to_owned(), serde_json::from_str(json).ok()?);
            }
        }
        Some(Event {
            id: id.to_owned(),
            kind: Kind::parse(i.s("type")?)?,
            user_id,
            org_id,
            at: i.n("at")?,
            data,
            app_id: i.s("appId").map(str::to_owned),
            audience: match i.s("audience").map(serde_json::from_str) {
                Some(Ok(a)) => Some(a),
                None => None,
                Some(Err(_)) => return None,
            },
        })
    }

    /// What an app whose consent covers `scopes` hears (the Standard Webhooks body
    /// `{type, timestamp, data}`; `data` always has `userId`), or None when it hears nothing:
    /// a `user.updated` none of whose fields the consent covers, or a `consent.revoked` of
    /// another app (`app_id`).
    pub fn payload_for(&self, app_id: &str, scopes: &[String]) -> Option<Json> {
        if self.kind == Kind::ConsentRevoked && self.app_id.as_deref() != Some(app_id) {
            return None;
        }
        let covered = |field: &str| {
            FREE_FIELDS.contains(&field)
                || FIELD_SCOPES
                    .iter()
                    .any(|(f, scope)| *f == field && scopes.iter().any(|s| s == scope))
        };
        let mut data: Map<String, Json> = self
            .data
            .iter()
            .filter(|(k, _)| covered(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if self.kind == Kind::UserUpdated && data.is_empty() {
            return None;
        }
        data.insert("userId".into(), Json::from(self.user_id.as_str()));
        Some(serde_json::json!({
            "type": self.kind.name(),
            "timestamp": crate::days::iso(self.at),
            "data": data,
        }))
    }

    /// The put that adds it to the change's transaction.
    pub fn op(&self) -> TxOp {
        TxOp::Put {
            item: self.to_item(),
            cond: None,
        }
    }
}

/// `session.ended`'s `reason`: the user signed out (or ended one session from the list).
pub const SIGNED_OUT: &str = "signed_out";
/// `session.ended`'s `reason`: every session ended (a password change or reset).
pub const ALL_SESSIONS: &str = "all_sessions";
/// `session.ended`'s `reason`: the support desk ended them (the console; a suspension).
pub const SUPPORT: &str = "support";

/// Whether anyone could hear a change of `user`: it has a consent with an app (the profile's
/// `consents` count, docs/events-design.md §2 "Who pays"). An account from before the count
/// (None) is announced always: nothing says it has no consent.
pub fn heard(user: &User) -> bool {
    user.consents.is_none_or(|n| n > 0)
}

/// The put of a new event of `user`, for the transaction of the change that causes it, or
/// None when nobody could hear it ([`heard`]): then the change is written as before. A
/// `user.updated` is the update of its window's event instead ([`coalesced_op`]).
pub fn op_for(ciam: &Ciam, user: &User, kind: Kind, data: Map<String, Json>) -> Option<TxOp> {
    if !heard(user) {
        return None;
    }
    Some(match kind {
        Kind::UserUpdated => coalesced_op(ciam, &user.id, data),
        _ => Event::new(ciam, &user.id, kind, data).op(),
    })
}

/// The key of `user_id`'s `user.updated` of the window that holds `at`: the window's start, and
/// an id made of the user and the window (the same for every change of the window; a receiver
/// dedupes on it, and it is delivered once, after the window).
pub fn window_key(user_id: &str, at: i64) -> Key {
    use sha2::{Digest, Sha256};
    let start = at - at.rem_euclid(COALESCE_SECS);
    let h = Sha256::digest(format!("user.updated\n{user_id}\n{start}").as_bytes());
    event_key(user_id, start, &format!("msg_{}", hex::encode(&h[..12])))
}

/// The update that adds a profile change (`data`) to `user_id`'s `user.updated` of the current
/// window, creating the event at the window's first change. Writes: the same item, whatever the
/// number of changes in the window.
pub fn coalesced_op(ciam: &Ciam, user_id: &str, data: Map<String, Json>) -> TxOp {
    let key = window_key(user_id, ciam.now());
    let start = key
        .sk
        .split_once('#')
        .and_then(|(at, _)| at.parse::<i64>().ok())
        .unwrap_or_default();
    let mut ops = vec![
        Update::Set("type".into(), Kind::UserUpdated.name().into()),
        Update::Set("userId".into(), user_id.into()),
        Update::Set("at".into(), start.into()),
        Update::Set(WINDOW_END.into(), (start + COALESCE_SECS).into()),
        Update::Expires(Some(start + KEEP_SECS)),
    ];
    ops.extend(
        data.into_iter()
            .map(|(f, v)| Update::Set(format!("{FIELD_PREFIX}{f}"), v.to_string().into())),
    );
    TxOp::Update {
        key,
        ops,
        cond: None,
    }
}

/// When the coalescing window of the event item `item` ends, if it is still open at `now`
/// (the fan-out waits for it), None for an event to fan out now.
pub fn open_window(item: &Item, now: i64) -> Option<i64> {
    item.n(WINDOW_END).filter(|end| *end > now)
}

/// The fields of `user` that events carry, under their claim names, as OpenID Connect's
/// `oidc::token::claims` makes them (`picture` absolute, `phone_number` in E.164).
pub fn claims(ciam: &Ciam, user: &User) -> Map<String, Json> {
    let mut m = Map::new();
    let nickname = user
        .display_name
        .clone()
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| user.user_name.clone());
    m.insert("nickname".into(), nickname.into());
    if let Some(a) = &user.avatar {
        let abs = match a.starts_with('/') {
            true => format!("{}{a}", ciam.config.public_url.trim_end_matches('/')),
            false => a.clone(),
        };
        m.insert("picture".into(), abs.into());
    }
    if let Some(c) = &user.company {
        m.insert("company".into(), c.clone().into());
    }
    if let Some(p) = user.phone.as_deref().and_then(|p| Phone::parse(p).ok()) {
        let p = p.as_str();
        let e164 = match p.starts_with('+') {
            true => p.to_owned(),
            false => format!("+86{p}"),
        };
        m.insert("phone_number".into(), e164.into());
        m.insert("phone_number_verified".into(), true.into());
    }
    if let Some(e) = user.mail.as_deref().and_then(|m| Email::parse(m).ok()) {
        m.insert("email".into(), e.as_str().into());
        m.insert("email_verified".into(), true.into());
    }
    m
}

/// `user.updated`'s data: the profile claims (`nickname`, `picture`, `company`) that differ
/// between `before` and `after` (a claim gone is `null`); None when none does (a change of
/// fields under no scope alone: nobody could hear it).
pub fn profile_changes(ciam: &Ciam, before: &User, after: &User) -> Option<Map<String, Json>> {
    let (b, a) = (claims(ciam, before), claims(ciam, after));
    let changed: Map<String, Json> = ["nickname", "picture", "company"]
        .into_iter()
        .filter(|f| b.get(*f) != a.get(*f))
        .map(|f| (f.to_owned(), a.get(f).cloned().unwrap_or(Json::Null)))
        .collect();
    (!changed.is_empty()).then_some(changed)
}

/// `user.mail_changed`'s data (`email`, `email_verified`) or `user.phone_changed`'s
/// (`phone_number`, `phone_number_verified`): the account `after` the change.
pub fn identity_data(ciam: &Ciam, after: &User, mail: bool) -> Map<String, Json> {
    let fields: &[&str] = match mail {
        true => &["email", "email_verified"],
        false => &["phone_number", "phone_number_verified"],
    };
    let all = claims(ciam, after);
    fields
        .iter()
        .filter_map(|f| Some(((*f).to_owned(), all.get(*f)?.clone())))
        .collect()
}

/// `session.ended`'s data: the session's `sid` (none when every session ended) and `reason`.
pub fn session_ended(sid: Option<String>, reason: &str) -> Map<String, Json> {
    let mut m = Map::new();
    if let Some(sid) = sid {
        m.insert("sid".into(), sid.into());
    }
    m.insert("reason".into(), reason.into());
    m
}

/// `two_factor.changed`'s data: whether any second factor (the authenticator, a passkey) is on
/// after the change.
pub fn two_factor(enabled: bool) -> Map<String, Json> {
    let mut m = Map::new();
    m.insert("enabled".into(), enabled.into());
    m
}

/// The `two_factor.changed` event of a change to `user` that leaves a second factor (the
/// authenticator, a passkey) on (`enabled`) or none, when a partner could hear it.
pub fn two_factor_changed(ciam: &Ciam, user: &User, enabled: bool) -> Option<TxOp> {
    op_for(ciam, user, Kind::TwoFactorChanged, two_factor(enabled))
}

/// The `user.identity_changed` event of a link of `provider` to `user` made (`linked`) or
/// removed, when a partner could hear it: free fields only, never the subject.
pub fn identity_changed(ciam: &Ciam, user: &User, provider: &str, linked: bool) -> Option<TxOp> {
    let mut m = Map::new();
    m.insert("provider".into(), provider.into());
    m.insert("linked".into(), linked.into());
    op_for(ciam, user, Kind::IdentityChanged, m)
}

/// One item's change, with its event when there is one: a single conditional update, or a
/// transaction of the update (first) and the event's put. A failed condition is a condition
/// failure either way (`StoreError::is_condition_failed`). Round trips: 1.
pub async fn update_with(
    ciam: &Ciam,
    key: &Key,
    ops: Vec<Update>,
    cond: Option<Cond>,
    event: Option<TxOp>,
) -> Result<(), StoreError> {
    match event {
        None => ciam.store.update(key, ops, cond).await.map(|_| ()),
        Some(event) => {
            let update = TxOp::Update {
                key: key.clone(),
                ops,
                cond,
            };
            ciam.store.transact(vec![update, event]).await
        }
    }
}

/// The events of `user_id` kept, oldest first (a Query of its partition); items of kinds this
/// build does not know are left out. Round trips: 1 (paged by the store).
pub async fn list(ciam: &Ciam, user_id: &str) -> Result<Vec<Event>, StoreError> {
    let items = ciam
        .store
        .query(Query::partition(format!("{PK_PREFIX}{user_id}")))
        .await?;
    Ok(items.iter().filter_map(Event::from_item).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_event_survives_its_item() {
        let ciam = crate::testing::Builder::new(1_700_000_000).build().await;
        let mut data = Map::new();
        data.insert("nickname".into(), Json::from("小王"));
        let mut e = Event::new(&ciam, "u1", Kind::ConsentRevoked, data);
        e.app_id = Some("shop".into());
        let item = e.to_item();
        assert_eq!(item.key.pk, "EVT#u1");
        assert!(item.key.sk.ends_with(&e.id));
        assert_eq!(Event::from_item(&item), Some(e));
        for k in Kind::ALL {
            assert_eq!(Kind::parse(k.name()), Some(k));
        }
        assert_eq!(Kind::parse("user.created"), None);
    }

    #[tokio::test]
    async fn an_app_hears_only_what_its_consent_covers() {
        let ciam = crate::testing::Builder::new(1_700_000_000).build().await;
        let mut data = Map::new();
        data.insert("nickname".into(), Json::from("小王"));
        data.insert("email".into(), Json::from("w@example.com"));
        data.insert("duty".into(), Json::from("never sent"));
        let e = Event::new(&ciam, "u1", Kind::UserUpdated, data);
        let p = e.payload_for("shop", &["nickname".into()]).unwrap();
        assert_eq!(p["type"], "user.updated");
        assert_eq!(p["timestamp"], "2023-11-14T22:13:20Z");
        assert_eq!(
            p["data"],
            serde_json::json!({"nickname": "小王", "userId": "u1"})
        );
        assert_eq!(e.payload_for("shop", &["phone".into()]), None);
        let mut revoked = Event::new(&ciam, "u1", Kind::ConsentRevoked, Map::new());
        revoked.app_id = Some("shop".into());
        assert!(revoked.payload_for("shop", &[]).is_some());
        assert_eq!(revoked.payload_for("other", &[]), None);
    }

    #[tokio::test]
    async fn the_claims_are_those_partners_get_from_tickets_and_oidc() {
        let ciam = crate::testing::Builder::new(1_700_000_000).build().await;
        let user = User {
            id: "u1".into(),
            user_name: "ann".into(),
            mail: Some("ann@example.com".into()),
            phone: Some("13800138000".into()),
            company: Some("Co".into()),
            avatar: Some("/ciam/v1/avatar/u1-00.png".into()),
            ..User::default()
        };
        let all: Vec<String> = ["nickname", "avatar", "company", "phone", "email"]
            .map(String::from)
            .to_vec();
        let t = crate::tickets::claims(&user, &all);
        let c = claims(&ciam, &user);
        assert_eq!(c["nickname"], Json::from(t.nickname.unwrap()));
        assert_eq!(c["company"], Json::from(t.company.unwrap()));
        assert_eq!(c["email"], Json::from(t.email.unwrap()));
        assert_eq!(c["phone_number"], "+8613800138000");
        assert_eq!(
            c["picture"],
            format!("{}/ciam/v1/avatar/u1-00.png", ciam.config.public_url)
        );
        let renamed = User {
            display_name: Some("安妮".into()),
            ..user.clone()
        };
        let changed = profile_changes(&ciam, &user, &renamed).unwrap();
        assert_eq!(
            Json::Object(changed),
            serde_json::json!({"nickname": "安妮"})
        );
        let moved = User {
            duty: Some("Chief".into()),
            ..user.clone()
        };
        assert_eq!(profile_changes(&ciam, &user, &moved), None);
        assert!(!heard(&User {
            consents: Some(0),
            ..user.clone()
        }));
        assert!(heard(&user), "an account from before the count");
    }
}
