//! The console's find box and its lists of held accounts (issue 34, docs/console-design.md §3,
//! docs/data-model.md "The find box"): one text that may be a mail, a phone (whole, with or
//! without +86, or its last four digits), a user name or its beginning, a display name or its
//! beginning, or a company's beginning. Each kind it could be is one query of a directory
//! partition (run side by side), then one `get_many` of the accounts found; never a scan.

use super::accounts::{holder_of, summary, Summary};
use crate::directory::{fold, LOCKED, SUSPENDED};
use crate::error::{Error, Result};
use crate::user::{profile_key, User};
use crate::validate::{username_key, Email, Identity, Phone};
use crate::{Ciam, Reason};
use ciam_store::{Item, Query};
use serde::Serialize;
use std::collections::HashMap;

/// Most accounts a kind's group holds in one answer.
pub const PAGE: usize = 20;
/// Longest text the box takes.
const MAX_CHARS: usize = 100;

/// What a match matched: the whole `mail`, the whole `phone` (with or without +86), the phone's
/// last four digits (`phoneEnd`), the `userId`, or the beginning (folded) of the `userName`, the
/// `displayName` or the `company`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "FindKind"))]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    Mail,
    Phone,
    PhoneEnd,
    UserId,
    UserName,
    DisplayName,
    Company,
}

const NAMES: [(Kind, &str); 7] = [
    (Kind::Mail, "mail"),
    (Kind::Phone, "phone"),
    (Kind::PhoneEnd, "phoneEnd"),
    (Kind::UserId, "userId"),
    (Kind::UserName, "userName"),
    (Kind::DisplayName, "displayName"),
    (Kind::Company, "company"),
];

impl Kind {
    /// The kind named `name` (as the answer names it), else INVALID_PARAMETER on `kind`.
    pub fn parse(name: &str) -> Result<Kind> {
        NAMES
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(k, _)| *k)
            .ok_or_else(|| invalid("kind", "查找类型无效", "Not a kind of match"))
    }
}

fn invalid(field: &'static str, zh: &'static str, en: &'static str) -> Error {
    Error::field(Reason::INVALID_PARAMETER, field, zh, en)
}

/// The kinds `q` could be: a mail (it has `@`); a whole phone; four digits (a phone's end, or
/// a user name's beginning); a user id (32 hex digits; or a user name's beginning); else the
/// beginning of a user name, a display name or a company.
pub fn kinds_of(q: &str) -> Vec<Kind> {
    let digits = q.len() == 4 && q.bytes().all(|b| b.is_ascii_digit());
    let id = q.len() == 32 && q.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if q.contains('@') {
        vec![Kind::Mail]
    } else if Phone::parse(q).is_ok() {
        vec![Kind::Phone]
    } else if digits {
        vec![Kind::PhoneEnd, Kind::UserName]
    } else if id {
        vec![Kind::UserId, Kind::UserName]
    } else {
        vec![Kind::UserName, Kind::DisplayName, Kind::Company]
    }
}

/// One account found: its summary (masked) and its display name.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "FoundAccount"))]
#[serde(rename_all = "camelCase")]
pub struct Found {
    #[serde(flatten)]
    pub account: Summary,
    pub display_name: Option<String>,
}

/// The accounts one kind matched; `next`, when present, is the `after` of this kind's next page
/// (`?q=&kind=&after=`).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "FindGroup"))]
#[serde(rename_all = "camelCase")]
pub struct Group {
    pub matched: Kind,
    pub accounts: Vec<Found>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schemars(with = "String"))]
    pub next: Option<String>,
}

/// The find box's answer: a group for each kind that matched something, in the kinds' order.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "FindResult"))]
#[serde(rename_all = "camelCase")]
pub struct Matches {
    pub groups: Vec<Group>,
}

/// A prefix kind's partition and sort-key prefix for the folded text `t`.
fn partition(kind: Kind, t: &str) -> Option<(String, Option<String>)> {
    let first = t.chars().next()?;
    Some(match kind {
        Kind::PhoneEnd => (format!("DIR#P4#{t}"), None),
        Kind::UserName => (format!("DIR#UN#{first}"), Some(t.to_owned())),
        Kind::DisplayName => (format!("DIR#NM#{first}"), Some(t.to_owned())),
        Kind::Company => (format!("DIR#CO#{first}"), Some(t.to_owned())),
        Kind::Mail | Kind::Phone | Kind::UserId => return None,
    })
}

/// Whether `user` still has the value its index item was found by (an item moved meanwhile, or
/// an account deactivated, is not a match).
fn still_matches(kind: Kind, t: &str, u: &User) -> bool {
    !u.deactivated
        && match kind {
            Kind::PhoneEnd => u.phone.as_deref().is_some_and(|p| p.ends_with(t)),
            Kind::UserName => username_key(&u.user_name).starts_with(t),
            Kind::DisplayName => u
                .display_name
                .as_deref()
                .is_some_and(|n| fold(n).starts_with(t)),
            Kind::Company => u.company.as_deref().is_some_and(|c| fold(c).starts_with(t)),
            Kind::Mail | Kind::Phone | Kind::UserId => true,
        }
}

/// The user ids of one kind's page and its `next`. Round trips: 1 query (0 for an exact kind:
/// 1 get of the identity or user name item; a user id needs none).
async fn ids_of(
    ciam: &Ciam,
    kind: Kind,
    t: &str,
    after: Option<&str>,
) -> Result<(Vec<String>, Option<String>)> {
    let exact = match kind {
        Kind::Mail => Some(Identity::Mail(Email::parse(t)?).unique_pk()),
        Kind::Phone => Some(Identity::Phone(Phone::parse(t)?).unique_pk()),
        Kind::UserId => return Ok((vec![t.to_owned()], None)),
        _ => None,
    };
    if let Some(pk) = exact {
        return Ok((holder_of(ciam, pk).await?.into_iter().collect(), None));
    }
    let Some((pk, prefix)) = partition(kind, t) else {
        return Ok((Vec::new(), None));
    };
    let mut q = Query::partition(pk).eventual().limit(PAGE);
    if let Some(p) = &prefix {
        q = q.prefix(p.clone());
    }
    if let Some(a) = after {
        if prefix.as_ref().is_some_and(|p| !a.starts_with(p.as_str())) {
            return Err(invalid("after", "分页标记无效", "Not a page of this list"));
        }
        q = q.after(a);
    }
    let items = ciam.store.query(q).await?;
    let next = (items.len() == PAGE)
        .then(|| items.last().map(|i| i.key.sk.clone()))
        .flatten();
    Ok((
        items
            .iter()
            .filter_map(|i| i.s("userId").map(str::to_owned))
            .collect(),
        next,
    ))
}

/// The user items of `ids`, by id. Round trips: 1 (`get_many`), 0 when there are none.
async fn users(ciam: &Ciam, ids: &[String]) -> Result<HashMap<String, User>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let keys: Vec<_> = ids.iter().map(|id| profile_key(id)).collect();
    Ok(ciam
        .store
        .get_many(&keys)
        .await?
        .iter()
        .flatten()
        .filter_map(User::from_item)
        .map(|u| (u.id.clone(), u))
        .collect())
}

/// `GET /admin/search?q=&kind=&after=`: the accounts `q` matches, a group per kind it could be
/// (`kinds_of`; `kind` asks for one of them only, `after` pages it). Mail and phone masked.
/// Round trips: 2 (the kinds' queries side by side, then one `get_many`); an exact mail or
/// phone: 2 (its identity item, the user item); a user name never more than the prefix query.
pub async fn search(
    ciam: &Ciam,
    q: &str,
    kind: Option<Kind>,
    after: Option<&str>,
) -> Result<Matches> {
    let q = q.trim();
    if q.is_empty() || q.chars().count() > MAX_CHARS {
        return Err(invalid(
            "q",
            "请输入邮箱、手机号、手机尾号四位、用户名、姓名或公司名称的开头",
            "Enter a mail, a phone, its last four digits, or the start of a user name, name or company",
        ));
    }
    let mut kinds = kinds_of(q);
    match kind {
        Some(k) if kinds.contains(&k) => kinds = vec![k],
        Some(_) => return Err(invalid("kind", "查找类型无效", "Not a kind of match")),
        None if after.is_some() => {
            return Err(invalid("kind", "翻页需给出查找类型", "Paging needs a kind"))
        }
        None => {}
    }
    // The text each kind compares: the user name's folding for the prefix kinds.
    let text = |k: Kind| match k {
        Kind::Mail | Kind::Phone | Kind::UserId | Kind::PhoneEnd => q.to_owned(),
        Kind::UserName => username_key(q),
        Kind::DisplayName | Kind::Company => fold(q),
    };
    let one = |i: usize| {
        let kind = kinds.get(i).copied();
        async move {
            match kind {
                Some(k) => ids_of(ciam, k, &text(k), after).await.map(Some),
                None => Ok(None),
            }
        }
    };
    let (a, b, c) = tokio::join!(one(0), one(1), one(2));
    let pages: Vec<_> = kinds
        .iter()
        .copied()
        .zip([a?, b?, c?].into_iter().flatten())
        .collect();
    let mut ids: Vec<String> = pages.iter().flat_map(|(_, (ids, _))| ids.clone()).collect();
    ids.sort();
    ids.dedup();
    let found = users(ciam, &ids).await?;
    let now = ciam.now();
    let groups = pages
        .into_iter()
        .filter_map(|(kind, (ids, next))| {
            let t = text(kind);
            let accounts: Vec<Found> = ids
                .iter()
                .filter_map(|id| found.get(id))
                .filter(|u| still_matches(kind, &t, u))
                .map(|u| Found {
                    account: summary(u, now),
                    display_name: u.display_name.clone(),
                })
                .collect();
            (!accounts.is_empty() || next.is_some()).then_some(Group {
                matched: kind,
                accounts,
                next,
            })
        })
        .collect();
    Ok(Matches { groups })
}

/// Which list of held accounts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    Locked,
    Suspended,
}

impl Held {
    /// `locked` or `suspended`, else INVALID_PARAMETER on `status`.
    pub fn parse(name: &str) -> Result<Held> {
        match name {
            "locked" => Ok(Held::Locked),
            "suspended" => Ok(Held::Suspended),
            _ => Err(invalid(
                "status",
                "请给出 locked 或 suspended",
                "Give locked or suspended",
            )),
        }
    }
}

/// A page of a list of held accounts, newest first; `next` is the following page's `after`.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "HeldPage"))]
#[serde(rename_all = "camelCase")]
pub struct HeldPage {
    pub accounts: Vec<Summary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schemars(with = "String"))]
    pub next: Option<String>,
}

/// Whether the list entry `item` still describes `u` (the lock it names is the account's and
/// not past; the suspension it names is the account's).
fn still_held(which: Held, item: &Item, u: &User, now: i64) -> bool {
    !u.deactivated
        && match which {
            Held::Locked => {
                u.locked_until.is_some_and(|t| t > now) && u.locked_until == item.n("lockedUntil")
            }
            Held::Suspended => u.suspended_at.is_some() && u.suspended_at == item.n("suspendedAt"),
        }
}

/// `GET /admin/held?status=locked|suspended&after=`: the locked accounts (latest unlock time
/// first; a lock past its time is left out, and its entry expires with it) or the suspended
/// ones (latest suspension first), at most `limit` (up to 50) a page, masked. Round trips: 2
/// (one query of the list's partition, one `get_many` of its accounts).
pub async fn held(ciam: &Ciam, which: Held, after: Option<&str>, limit: usize) -> Result<HeldPage> {
    let limit = limit.clamp(1, crate::directory::PAGE);
    let pk = match which {
        Held::Locked => LOCKED,
        Held::Suspended => SUSPENDED,
    };
    let mut q = Query::partition(pk).limit(limit);
    if let Some(a) = after {
        q = q.after(a);
    }
    let now = ciam.now();
    let items = ciam.store.query(q).await?;
    // Locks sort by their end: once one is past, every later entry is too.
    let live: Vec<&Item> = items
        .iter()
        .take_while(|i| which == Held::Suspended || i.n("lockedUntil").is_some_and(|t| t > now))
        .collect();
    let next = (live.len() == limit)
        .then(|| live.last().map(|i| i.key.sk.clone()))
        .flatten();
    let ids: Vec<String> = live
        .iter()
        .filter_map(|i| i.s("userId").map(str::to_owned))
        .collect();
    let found = users(ciam, &ids).await?;
    let accounts = live
        .iter()
        .filter_map(|i| Some((*i, found.get(i.s("userId")?)?)))
        .filter(|(i, u)| still_held(which, i, u, now))
        .map(|(_, u)| summary(u, now))
        .collect();
    Ok(HeldPage { accounts, next })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_box_tells_the_kinds_apart() {
        assert_eq!(kinds_of("ann@example.com"), [Kind::Mail]);
        assert_eq!(kinds_of("13800138000"), [Kind::Phone]);
        assert_eq!(kinds_of("+86 138 0013 8000"), [Kind::Phone]);
        assert_eq!(kinds_of("8000"), [Kind::PhoneEnd, Kind::UserName]);
        assert_eq!(
            kinds_of("0123456789abcdef0123456789abcdef"),
            [Kind::UserId, Kind::UserName]
        );
        assert_eq!(
            kinds_of("zhang"),
            [Kind::UserName, Kind::DisplayName, Kind::Company]
        );
        assert_eq!(Kind::parse("phoneEnd").unwrap(), Kind::PhoneEnd);
        assert!(Kind::parse("scan").is_err());
        assert!(Held::parse("gone").is_err());
    }
}
