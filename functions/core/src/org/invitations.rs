//! Invitations (docs/organizations-design.md §3): a random 256-bit token in a link, stored only
//! as its SHA-256; two items written together, the token item `ORGINV#<hash>` / `INV` (what
//! accepting reads by key) and the list item `ORG#<orgId>` / `INV#<invId>`; both expire after
//! [`TTL_SECS`]. Accepting is one transaction under `status = pending`: of concurrent accepts
//! exactly one commits. Whoever accepts must hold the invited mail or phone.

use super::access::{must_be_active, Caller};
use super::audit::{self, OrgAction};
use super::events as org_events;
use super::members::join_ops;
use super::{org_key, org_pk, with_membership, Membership, OrgId, Organization, Role, Status};
use crate::error::{Error, LostRace, Result};
use crate::events::Kind;
use crate::user::User;
use crate::validate::Identity;
use crate::{random, Ciam, Lang, Notice, NoticeMessage, Reason};
use base64::Engine;
use ciam_store::{Cond, Item, Key, Query, Store, StoreError, TxOp, Update};
use serde::Serialize;
use sha2::{Digest, Sha256};

/// How long an invitation stands: 7 days.
pub const TTL_SECS: i64 = 7 * 86_400;
/// Most pending invitations an organization may have at once.
pub const MAX_PENDING: i64 = 50;

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The token item's key of `token` (its SHA-256: a 256-bit random token needs no key).
pub fn token_key(token: &str) -> Key {
    Key::new(
        format!("ORGINV#{}", b64(&Sha256::digest(token.as_bytes()))),
        "INV",
    )
}

fn list_key(org: &OrgId, inv_id: &str) -> Key {
    Key::new(org_pk(org), format!("INV#{inv_id}"))
}

/// An invitation as the admins' list shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Invitation {
    /// `inv_` and 16 hex characters.
    pub inv_id: String,
    pub role: Role,
    /// The invited mail or phone, masked.
    pub to: String,
    /// Who invited (a user id).
    pub by: String,
    /// Unix seconds.
    pub created_at: i64,
    pub expires_at: i64,
    /// `pending`, `used` or `revoked`.
    pub status: String,
}

impl Invitation {
    fn from_item(i: &Item) -> Option<Invitation> {
        Some(Invitation {
            inv_id: i.s("invId")?.to_owned(),
            role: Role::parse_lenient(i.s("role")?),
            to: i.s("masked").unwrap_or_default().to_owned(),
            by: i.s("by").unwrap_or_default().to_owned(),
            created_at: i.n("createdAt").unwrap_or(0),
            expires_at: i.expires_at.unwrap_or(0),
            status: i.s("status").unwrap_or_default().to_owned(),
        })
    }
}

fn masked(to: &Identity) -> String {
    match to {
        Identity::Mail(m) => m.masked(),
        Identity::Phone(p) => p.masked(),
    }
}

/// Invites `to` into `o` as `role` (the organization's default role when None), sends the link
/// in `lang`, and answers the invitation (the token is only in the message). Round trips: 1 (the
/// transaction; the live invitations are read first), then the message.
pub async fn invite(
    ciam: &Ciam,
    caller: &Caller,
    o: &Organization,
    to: Identity,
    role: Option<Role>,
    lang: Lang,
) -> Result<Invitation> {
    must_be_active(o)?;
    caller.must_manage()?;
    let role = role.unwrap_or(o.settings.default_role);
    if !caller.rank.may_set(role, role) {
        return Err(Reason::ORG_ROLE_FORBIDDEN.into());
    }
    // Counted from the live list (an expired invitation is absent): no counter to drift.
    let pending = page(ciam.store.as_ref(), &o.org_id)
        .await?
        .iter()
        .filter(|i| i.status == "pending")
        .count();
    if pending >= MAX_PENDING as usize {
        return Err(Reason::ORG_INVITATION_LIMIT.into());
    }
    let now = ciam.now();
    let token = b64(&random::<32>(ciam.entropy.as_ref()));
    let inv_id = format!("inv_{}", hex::encode(random::<8>(ciam.entropy.as_ref())));
    let tkey = token_key(&token);
    let common = |key: Key| {
        Item::new(key)
            .with("orgId", o.org_id.as_str())
            .with("invId", inv_id.as_str())
            .with("role", role.as_str())
            .with("address", to.as_str())
            .with("masked", masked(&to))
            .with("by", caller.user_id.as_str())
            .with("createdAt", now)
            .with("status", "pending")
            .expires(now + TTL_SECS)
    };
    let list_item = common(list_key(&o.org_id, &inv_id)).with("hash", tkey.pk.as_str());
    let inv = Invitation::from_item(&list_item).ok_or_else(|| Error::internal("invitation"))?;
    let tx = vec![
        TxOp::Put {
            item: common(tkey),
            cond: Some(Cond::NotExists),
        },
        TxOp::Put {
            item: list_item,
            cond: None,
        },
        TxOp::Check {
            key: org_key(&o.org_id),
            cond: Cond::eq("status", "active"),
        },
        caller.record(
            ciam,
            &o.org_id,
            OrgAction::InvitationCreate,
            &inv_id,
            Some(format!("{} as {role}", inv.to)),
        ),
    ];
    caller
        .commit(ciam, tx)
        .await
        .or_reason(Reason::ORG_NOT_ACTIVE)?;
    let notice = Notice::OrgInvitation {
        org: match lang {
            Lang::ZhCn => o.name_zh.clone(),
            Lang::EnUs => o.name_en.clone(),
        },
        link: format!(
            "{}/{}/org/invitation?token={token}",
            ciam.config.public_url,
            lang.tag()
        ),
    };
    let msg = NoticeMessage { to, notice, lang };
    if let Err(e) = ciam.notifier.send_notice(&msg).await {
        // The invitation stands; the admin sees it pending and may revoke and invite again.
        tracing::warn!(error = %e, invitation = %inv.inv_id, "the invitation message was not sent");
    }
    Ok(inv)
}

/// A page of `org`'s invitations (live ones: an expired one is gone). Round trips: 1.
pub async fn page(store: &dyn Store, org: &OrgId) -> Result<Vec<Invitation>, StoreError> {
    let items = store
        .query(Query::partition(org_pk(org)).prefix("INV#").limit(200))
        .await?;
    Ok(items.iter().filter_map(Invitation::from_item).collect())
}

/// Revokes a pending invitation. Round trips: 2 (the list item, the transaction).
pub async fn revoke(ciam: &Ciam, caller: &Caller, o: &Organization, inv_id: &str) -> Result<()> {
    caller.must_manage()?;
    let store = ciam.store.as_ref();
    let key = list_key(&o.org_id, inv_id);
    let item = store
        .get(&key)
        .await?
        .filter(|i| i.s("status") == Some("pending"))
        .ok_or(Reason::ORG_INVITATION_NOT_FOUND)?;
    let hash = item.s("hash").unwrap_or_default().to_owned();
    let pending = Cond::eq("status", "pending");
    let revoked = || vec![Update::Set("status".into(), "revoked".into())];
    let tx = vec![
        TxOp::Update {
            key: Key::new(hash, "INV"),
            ops: revoked(),
            cond: Some(pending.clone()),
        },
        TxOp::Update {
            key,
            ops: revoked(),
            cond: Some(pending),
        },
        caller.record(ciam, &o.org_id, OrgAction::InvitationRevoke, inv_id, None),
    ];
    caller
        .commit(ciam, tx)
        .await
        .or_reason(Reason::ORG_INVITATION_NOT_FOUND)
}

/// Why a token item cannot be accepted by `user`, or None when it still can.
fn refusal(item: Option<&Item>, user: &User) -> Option<Error> {
    let Some(item) = item else {
        return Some(Reason::ORG_INVITATION_EXPIRED.into());
    };
    match item.s("status") {
        Some("pending") => {}
        Some("revoked") => return Some(Reason::ORG_INVITATION_REVOKED.into()),
        _ => return Some(Reason::ORG_INVITATION_USED.into()),
    }
    let address = item.s("address").unwrap_or_default();
    if !user.identities().iter().any(|i| i.as_str() == address) {
        return Some(Reason::ORG_INVITATION_NOT_YOURS.into());
    }
    None
}

/// The signed-in `user` accepts the invitation of `token`: they become a member. A retry of an
/// accept that committed (the answer lost) answers the membership again. Round trips: 3 (the
/// token item, the organization with the person's membership, the transaction).
pub async fn accept(ciam: &Ciam, user: &User, token: &str) -> Result<Membership> {
    let store = ciam.store.as_ref();
    let tkey = token_key(token);
    let item = store.get(&tkey).await?;
    if let Some(m) = already_mine(ciam, item.as_ref(), user).await? {
        return Ok(m);
    }
    if let Some(e) = refusal(item.as_ref(), user) {
        return Err(e);
    }
    let item = item.ok_or(Reason::ORG_INVITATION_EXPIRED)?;
    let org = item
        .s("orgId")
        .and_then(OrgId::parse)
        .ok_or(Reason::ORG_INVITATION_EXPIRED)?;
    let (o, mine) = with_membership(store, &org, &user.id).await?;
    let o = o.ok_or(Reason::ORG_INVITATION_EXPIRED)?;
    if o.status != Status::Active {
        return Err(Reason::ORG_NOT_ACTIVE.into());
    }
    if mine.is_some() {
        // A member already, perhaps by this very invitation (an accept of the same person that
        // committed meanwhile): that one is answered as it was.
        let again = store.get(&tkey).await?;
        if let Some(m) = already_mine(ciam, again.as_ref(), user).await? {
            return Ok(m);
        }
        return Err(Reason::ORG_ALREADY_MEMBER.into());
    }
    let role = Role::parse_lenient(item.s("role").unwrap_or_default());
    let inv_id = item.s("invId").unwrap_or_default().to_owned();
    let by = item.s("by").unwrap_or_default().to_owned();
    let now = ciam.now();
    let used = || {
        vec![
            Update::Set("status".into(), "used".into()),
            Update::Set("usedBy".into(), user.id.as_str().into()),
            Update::Set("usedAt".into(), now.into()),
        ]
    };
    let pending = Cond::eq("status", "pending");
    let mut tx = vec![
        TxOp::Update {
            key: tkey.clone(),
            ops: used(),
            cond: Some(pending.clone()),
        },
        TxOp::Update {
            key: list_key(&org, &inv_id),
            ops: used(),
            cond: Some(pending),
        },
    ];
    tx.extend(join_ops(&org, &user.id, role, &by, now, Vec::new()));
    tx.push(audit::record(
        ciam,
        &org,
        &audit::Actor {
            user_id: &user.id,
            role: role.as_str(),
        },
        OrgAction::InvitationAccept,
        &inv_id,
        None,
        None,
    ));
    // The organization's events (its `eventApps` hear them): the new member, and the invitation.
    tx.extend(org_events::op(
        ciam,
        &o,
        Kind::OrgMemberAdded,
        &user.id,
        role,
        None,
    ));
    tx.extend(org_events::op(
        ciam,
        &o,
        Kind::OrgInvitationAccepted,
        &user.id,
        role,
        Some(&inv_id),
    ));
    match store.transact(tx).await.won()? {
        Some(()) => Ok(Membership {
            org_id: org,
            user_id: user.id.clone(),
            role,
            joined_at: now,
            by,
        }),
        None => {
            // Lost a race: another accept, a revocation, a membership or a suspension first.
            let again = store.get(&tkey).await?;
            if let Some(m) = already_mine(ciam, again.as_ref(), user).await? {
                return Ok(m);
            }
            Err(refusal(again.as_ref(), user).unwrap_or_else(|| Reason::ORG_NOT_ACTIVE.into()))
        }
    }
}

/// The membership this token already gave `user` (their own accept, committed), if so.
async fn already_mine(ciam: &Ciam, item: Option<&Item>, user: &User) -> Result<Option<Membership>> {
    let Some(item) = item.filter(|i| i.s("usedBy") == Some(user.id.as_str())) else {
        return Ok(None);
    };
    let Some(org) = item.s("orgId").and_then(OrgId::parse) else {
        return Ok(None);
    };
    Ok(super::membership(ciam.store.as_ref(), &org, &user.id).await?)
}
