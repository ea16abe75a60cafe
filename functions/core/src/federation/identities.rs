//! Linked ways in, in the security centre (docs/federation-design.md §4.3): the account's
//! links listed, a link added from a session with a fresh proof (the state and the pending
//! link carry the account and the session: `LinkFor`), a link removed; and the unlink's writes
//! the console shares (`console::unlink`).
//!
//! Each change writes, in its transaction, the activity entry (`identityLinked`,
//! `identityUnlinked`, naming the provider) and the partner event `user.identity_changed`
//! (`provider`, `linked`; never the subject) for an account with a consent; then the notice
//! (best effort, as every notice).
//!
//! **The last way in** (`FEDERATION_LAST_WAY_IN`): a link is removed only while the account
//! keeps another way in, each of which lives on the user item, so the unlink's own condition
//! on that item proves it (no lock): a password (`pwdHash`), a mail or a phone (a code sign-in
//! reaches either), a passkey (`passkeys > 0`), another link (`links > 1`) or the company's
//! staff sign-in (`eiamUid`).

use super::links::{
    account_link_key, count_link, link_exists, link_key, link_puts, provider_named,
    read_any_pending, spend_pending, told_ops,
};
use super::{company_links, LinkFor, ProviderId};
use crate::client::ClientInfo;
use crate::error::{Error, Result};
use crate::notifier::{tell_account, Notice};
use crate::org::connections::{conn_key, Connection};
use crate::org::{OrgId, Organization};
use crate::sessions::{self, Session};
use crate::totp::require_fresh;
use crate::user::{profile_key, user_pk, User};
use crate::{Ciam, Lang, Reason};
use ciam_store::{Cond, Item, Query, TxOp, Update};
use serde::Serialize;

/// One linked identity, as its owner sees it (never the subject).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "LinkedIdentity"))]
#[serde(rename_all = "camelCase")]
pub struct Linked {
    /// The provider's name (`wechat`, ...).
    pub provider: String,
    /// The name the provider gave (display only).
    pub name: Option<String>,
    /// When it was linked (Unix seconds).
    pub linked_at: i64,
    /// The last day it signed in (UTC, yyyy-mm-dd), when known.
    pub last_day: Option<String>,
    /// For a company's sign-in (provider `org:<connId>`): its organization and connection, by
    /// name; null for the other providers. The company's link: its owner cannot remove it
    /// (docs/organizations-connections.md §3).
    pub organization: Option<LinkedOrg>,
}

/// The organization and the connection of a company's sign-in link (names only, never the
/// connection's settings or secret).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LinkedOrg {
    pub org_id: String,
    pub name_zh: String,
    pub name_en: String,
    /// The connection's name (empty when it was deleted since).
    pub connection_zh: String,
    pub connection_en: String,
}

/// One linked identity on the console's account page: the subject masked.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "AccountIdentity"))]
#[serde(rename_all = "camelCase")]
pub struct Masked {
    #[serde(flatten)]
    pub linked: Linked,
    /// The provider's id for the person, masked (`oK3x…9Q`).
    pub subject_masked: String,
}

/// `subject` as the console shows it: its first 4 and last 2 characters (all but 2 of a short
/// one hidden).
pub fn mask(subject: &str) -> String {
    let chars: Vec<char> = subject.chars().collect();
    if chars.len() <= 8 {
        let head: String = chars.iter().take(2).collect();
        return format!("{head}…");
    }
    let head: String = chars[..4].iter().collect();
    let tail: String = chars[chars.len() - 2..].iter().collect();
    format!("{head}…{tail}")
}

fn linked_of(item: &Item) -> Option<(Linked, String)> {
    let provider = item.key.sk.strip_prefix("FED#")?.to_owned();
    let linked = Linked {
        provider,
        name: item.s("name").map(str::to_owned),
        linked_at: item.n("linkedAt").unwrap_or(0),
        last_day: item.s("lastDay").map(str::to_owned),
        organization: None,
    };
    Some((linked, item.s("subject").unwrap_or_default().to_owned()))
}

async fn items(ciam: &Ciam, user_id: &str) -> Result<Vec<(Linked, String)>> {
    let q = Query::partition(user_pk(user_id)).prefix("FED#");
    let found = ciam.store.query(q).await?;
    let mut all: Vec<(Linked, String)> = found.iter().filter_map(linked_of).collect();
    // A company's sign-in (`FED#org:<connId>`, with `orgId`): its organization's and
    // connection's names, read together.
    let mut keys = Vec::new();
    let mut at = Vec::new();
    for (i, item) in found.iter().enumerate() {
        let conn = item
            .key
            .sk
            .strip_prefix("FED#")
            .and_then(company_links::conn_of);
        let org = item.s("orgId").and_then(OrgId::parse);
        if let (Some(conn), Some(org)) = (conn, org) {
            keys.push(crate::org::org_key(&org));
            keys.push(conn_key(&org, &conn));
            at.push((i, org));
        }
    }
    if !keys.is_empty() {
        let got = ciam.store.get_many(&keys).await?;
        for ((i, org), pair) in at.into_iter().zip(got.chunks(2)) {
            let o = pair[0].as_ref().and_then(Organization::from_item);
            let c = pair[1].as_ref().and_then(Connection::from_item);
            if let Some((linked, _)) = all.get_mut(i) {
                linked.organization = Some(LinkedOrg {
                    org_id: org.to_string(),
                    name_zh: o.as_ref().map(|o| o.name_zh.clone()).unwrap_or_default(),
                    name_en: o.as_ref().map(|o| o.name_en.clone()).unwrap_or_default(),
                    connection_zh: c.as_ref().map(|c| c.name_zh.clone()).unwrap_or_default(),
                    connection_en: c.map(|c| c.name_en).unwrap_or_default(),
                });
            }
        }
    }
    Ok(all)
}

/// The account's links (its `FED#` items; a company's sign-in with its organization's and
/// connection's names). Round trips: 1; 2 with a company's sign-in (the names).
pub async fn list(ciam: &Ciam, user_id: &str) -> Result<Vec<Linked>> {
    Ok(items(ciam, user_id)
        .await?
        .into_iter()
        .map(|(l, _)| l)
        .collect())
}

/// The account's links with their subjects masked, for the console. Round trips: 1 (2 with a
/// company's sign-in).
pub async fn list_masked(ciam: &Ciam, user_id: &str) -> Result<Vec<Masked>> {
    Ok(items(ciam, user_id)
        .await?
        .into_iter()
        .map(|(linked, subject)| Masked {
            linked,
            subject_masked: mask(&subject),
        })
        .collect())
}

/// Whether `user` keeps a way in besides one of its links (see the module documentation).
pub fn other_way_in(user: &User) -> bool {
    user.pwd_hash.is_some()
        || user.mail.is_some()
        || user.phone.is_some()
        || user.passkeys > 0
        || user.links > 1
        || user.eiam_uid.is_some()
}

/// The same, as the unlink's condition on the user item.
fn other_way_in_cond() -> Cond {
    Cond::attr_exists("pwdHash")
        .or(Cond::attr_exists("mail"))
        .or(Cond::attr_exists("phone"))
        .or(Cond::gt("passkeys", 0))
        .or(Cond::gt("links", 1))
        .or(Cond::attr_exists("eiamUid"))
}

fn not_linked() -> Error {
    Error::field(
        Reason::INVALID_PARAMETER,
        "provider",
        "账号未关联该登录方式",
        "The account is not linked to this provider",
    )
}

/// How a failed unlink transaction reads (its first three writes are [`unlink_ops`]').
pub(crate) fn unlink_refused(e: ciam_store::StoreError, stale: Reason) -> Error {
    if e.condition_failed_at(0) || e.condition_failed_at(1) {
        not_linked()
    } else if e.condition_failed_at(2) {
        Error {
            cause: Some("no other way in, or the account changed meanwhile".into()),
            ..Error::new(stale)
        }
    } else {
        e.into()
    }
}

/// The writes that remove `user`'s link to `provider` (§2.2), in this order: the account's
/// item (0: still this subject), the lookup (1: still this account), the user's count (2: a way
/// in remains, and `also`, e.g. the session's generation). The link not there:
/// INVALID_PARAMETER on `provider`; no other way in: FEDERATION_LAST_WAY_IN. Round trips: 1
/// (the account's item).
pub(crate) async fn unlink_ops(
    ciam: &Ciam,
    user: &User,
    p: ProviderId,
    also: Option<Cond>,
) -> Result<Vec<TxOp>> {
    let key = account_link_key(&user.id, p);
    let item = ciam.store.get(&key).await?.ok_or_else(not_linked)?;
    let subject = item.s("subject").unwrap_or_default().to_owned();
    if !other_way_in(user) {
        return Err(Reason::FEDERATION_LAST_WAY_IN.into());
    }
    Ok(vec![
        TxOp::Delete {
            key,
            cond: Some(Cond::Exists.and(Cond::eq("subject", subject.as_str()))),
        },
        TxOp::Delete {
            key: link_key(p, &subject),
            cond: Some(Cond::eq("userId", user.id.as_str())),
        },
        TxOp::Update {
            key: profile_key(&user.id),
            ops: vec![Update::Add("links".into(), -1)],
            cond: Some(match also {
                Some(c) => Cond::Exists.and(other_way_in_cond()).and(c),
                None => Cond::Exists.and(other_way_in_cond()),
            }),
        },
    ])
}

/// `POST /auth/identities/link`'s checks: a provider that links (INVALID_PARAMETER), a fresh
/// proof (REAUTH_REQUIRED), not linked already (FEDERATION_LINK_EXISTS); then what the state
/// carries. Round trips: 1 (the account's item of that provider).
pub async fn begin(ciam: &Ciam, s: &Session, provider: &str) -> Result<(ProviderId, LinkFor)> {
    let p = provider_named(provider)?;
    require_fresh(ciam, s)?;
    if ciam
        .store
        .get(&account_link_key(&s.user.id, p))
        .await?
        .is_some()
    {
        return Err(link_exists());
    }
    Ok((
        p,
        LinkFor {
            user_id: s.user.id.clone(),
            sid: sessions::sid(&s.key),
        },
    ))
}

/// `POST /auth/identities/confirm`: the pending link `token` the callback made, from this
/// browser (`bind`) and the session that started it (the same account and `sid`; else
/// AUTHORIZATION_FAILED, the item kept), becomes a link (`via: securityCentre`) in one
/// transaction with the activity entry and the partner event; then the notice. A subject
/// linked meanwhile, or this provider on the account already: FEDERATION_LINK_EXISTS. Round
/// trips: 1 (the pending link), 1 (the transaction).
pub async fn confirm(
    ciam: &Ciam,
    s: &Session,
    provider: &str,
    token: &str,
    bind: &str,
    client: &ClientInfo,
    lang: Lang,
) -> Result<()> {
    let p = provider_named(provider)?;
    let pending = read_any_pending(ciam, token, bind).await?;
    let sid = sessions::sid(&s.key);
    let ours = pending.provider == p
        && pending.item.s("linkFor") == Some(s.user.id.as_str())
        && pending.item.s("sid") == Some(sid.as_str());
    if !ours {
        return Err(Error {
            cause: Some("not this session's pending link".into()),
            ..Error::new(Reason::AUTHORIZATION_FAILED)
        });
    }
    let [lookup, account] = link_puts(ciam, &pending, &s.user.id, "securityCentre");
    let mut ops = vec![
        lookup,
        account,
        count_link(&s.user.id, Some(sessions::same_session(s))),
        spend_pending(&pending),
    ];
    ops.extend(told_ops(ciam, &s.user, p, true, client));
    match ciam.store.transact(ops).await {
        Ok(()) => {}
        Err(e) if e.condition_failed_at(0) || e.condition_failed_at(1) => return Err(link_exists()),
        Err(e) if e.condition_failed_at(2) || e.condition_failed_at(3) => {
            return Err(Error {
                cause: Some("the account or the pending link changed meanwhile".into()),
                ..Error::new(Reason::AUTHORIZATION_FAILED)
            })
        }
        Err(e) => return Err(e.into()),
    }
    let provider = p.name().to_owned();
    tell_account(ciam, &s.user, Notice::IdentityLinked { provider }, lang).await;
    Ok(())
}

/// `DELETE /auth/identities/{provider}`: a fresh proof (REAUTH_REQUIRED), then the unlink
/// ([`unlink_ops`]: FEDERATION_LAST_WAY_IN when it would leave no way in) with the activity
/// entry and the partner event, on this session's generation; then the notice. Round trips: 1
/// (the account's item), 1 (the transaction).
pub async fn unlink(
    ciam: &Ciam,
    s: &Session,
    provider: &str,
    client: &ClientInfo,
    lang: Lang,
) -> Result<()> {
    let p = provider_named(provider)?;
    require_fresh(ciam, s)?;
    let mut ops = unlink_ops(ciam, &s.user, p, Some(sessions::same_session(s))).await?;
    ops.extend(told_ops(ciam, &s.user, p, false, client));
    ciam.store
        .transact(ops)
        .await
        .map_err(|e| unlink_refused(e, Reason::FEDERATION_LAST_WAY_IN))?;
    let provider = p.name().to_owned();
    tell_account(ciam, &s.user, Notice::IdentityUnlinked { provider }, lang).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subject_is_masked_but_for_its_ends() {
        assert_eq!(mask("oK3xAbCdEfGh9Q"), "oK3x…9Q");
        assert_eq!(mask("short"), "sh…");
        assert_eq!(mask(""), "…");
    }

    #[test]
    fn any_other_way_in_keeps_a_link_removable() {
        let only_link = User {
            links: 1,
            ..User::default()
        };
        assert!(!other_way_in(&only_link));
        for user in [
            User {
                pwd_hash: Some("h".into()),
                ..only_link.clone()
            },
            User {
                phone: Some("13800138000".into()),
                ..only_link.clone()
            },
            User {
                mail: Some("a@example.com".into()),
                ..only_link.clone()
            },
            User {
                passkeys: 1,
                ..only_link.clone()
            },
            User {
                links: 2,
                ..only_link.clone()
            },
            User {
                eiam_uid: Some("e".into()),
                ..only_link.clone()
            },
        ] {
            assert!(other_way_in(&user), "{user:?}");
        }
    }

    #[test]
    fn the_condition_and_the_check_agree() {
        let key = profile_key("u1");
        let bare = Item::new(key.clone()).with("links", 1i64);
        assert!(!other_way_in_cond().eval(Some(&bare)));
        assert!(other_way_in_cond().eval(Some(&bare.clone().with("links", 2i64))));
        assert!(other_way_in_cond().eval(Some(&bare.clone().with("passkeys", 1i64))));
        assert!(other_way_in_cond().eval(Some(&bare.with("phone", "13800138000"))));
    }
}
