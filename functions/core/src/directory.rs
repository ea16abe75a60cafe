//! The account directory (issue 21, docs/console-design.md §3): the items that let the console
//! list accounts by company prefix and by sign-up day, newest first and paged, with one query and
//! no scan. Written with the account (registration, staff accounts), moved when the company
//! changes, deleted with the account.
//!
//! - `DIR#CO#<first character of the folded company>` / `<folded company>#<inverted created>#<id>`
//! - `DIR#DAY#<yyyy-mm-dd>` / `<inverted created>#<id>`
//!
//! Both hold `userId`, `userName`, `company` and `createdAt` (what a list shows). The company
//! partitions are split by first character so registrations do not all write one partition.
//!
//! The find box's items (issue 34, `console::search`), `userId` only (the result reads the user
//! items), written, moved and deleted with the value they index:
//!
//! - `DIR#P4#<last four digits of the phone>` / `<inverted created>#<id>`
//! - `DIR#UN#<first character of the folded user name>` / `<folded user name>#<id>`
//! - `DIR#NM#<first character of the folded display name>` / `<folded name>#<inverted created>#<id>`
//!
//! And the lists of held accounts, newest first (`lock::lock_account`, `console::suspend`):
//!
//! - `DIR#LOCKED` / `<inverted lockedUntil>#<id>`: `userId`, `lockedUntil`; expires with the lock
//! - `DIR#SUSPENDED` / `<inverted suspendedAt>#<id>`: `userId`, `suspendedAt`

use crate::error::{Error, Result};
use crate::user::User;
use crate::validate::username_key;
use crate::Ciam;
use ciam_store::{Item, Key, Query, TxOp};
use serde::Serialize;

/// Most entries a page holds.
pub const PAGE: usize = 50;
/// `created` is stored as `INVERT - created` so that ascending sort keys are newest first.
const INVERT: i64 = 9_999_999_999;

/// A company as the directory compares it: the user name's folding (NFKC, lower case).
pub fn fold(company: &str) -> String {
    username_key(company.trim())
}

pub use crate::days::day_of;

fn newest_first(user: &User) -> String {
    format!("{:010}#{}", INVERT - user.created_at, user.id)
}

fn company_key(user: &User) -> Option<Key> {
    let folded = fold(user.company.as_deref()?);
    let first = folded.chars().next()?;
    Some(Key::new(
        format!("DIR#CO#{first}"),
        format!("{folded}#{}", newest_first(user)),
    ))
}

fn day_key(user: &User) -> Key {
    Key::new(
        format!("DIR#DAY#{}", day_of(user.created_at)),
        newest_first(user),
    )
}

/// The find box's items of `user` (phone's last four digits, user name, display name).
fn find_keys(user: &User) -> Vec<Key> {
    let p4 = user
        .phone
        .as_deref()
        .filter(|p| p.len() >= 4 && p.is_ascii())
        .map(|p| Key::new(format!("DIR#P4#{}", &p[p.len() - 4..]), newest_first(user)));
    let un = username_key(&user.user_name);
    let un = un
        .chars()
        .next()
        .map(|first| Key::new(format!("DIR#UN#{first}"), format!("{un}#{}", user.id)));
    let nm = user.display_name.as_deref().map(fold).and_then(|name| {
        let first = name.chars().next()?;
        Some(Key::new(
            format!("DIR#NM#{first}"),
            format!("{name}#{}", newest_first(user)),
        ))
    });
    [p4, un, nm].into_iter().flatten().collect()
}

fn find_entry(key: Key, user: &User) -> Item {
    Item::new(key).with("userId", user.id.as_str())
}

/// The list of locked accounts.
pub const LOCKED: &str = "DIR#LOCKED";
/// The list of suspended accounts.
pub const SUSPENDED: &str = "DIR#SUSPENDED";

fn held_key(list: &str, at: i64, user_id: &str) -> Key {
    Key::new(list, format!("{:010}#{user_id}", INVERT - at))
}

/// The locked list's entry of `user_id`, locked until `until`: put in the lock's transaction
/// (`lock::lock_account`); it expires with the lock (and is filtered at read once past).
pub fn locked(user_id: &str, until: i64) -> TxOp {
    TxOp::Put {
        item: Item::new(held_key(LOCKED, until, user_id))
            .with("userId", user_id)
            .with("lockedUntil", until)
            .expires(until),
        cond: None,
    }
}

/// The removal of `user`'s locked entry (an unlock), if it has a lock.
pub fn unlocked(user: &User) -> Option<TxOp> {
    let until = user.locked_until?;
    Some(TxOp::Delete {
        key: held_key(LOCKED, until, &user.id),
        cond: None,
    })
}

/// The suspended list's entry of `user_id`, suspended at `at` (with the suspension).
pub fn suspended(user_id: &str, at: i64) -> TxOp {
    TxOp::Put {
        item: Item::new(held_key(SUSPENDED, at, user_id))
            .with("userId", user_id)
            .with("suspendedAt", at),
        cond: None,
    }
}

/// The removal of `user`'s suspended entry (a reactivation), if it is suspended.
pub fn reactivated(user: &User) -> Option<TxOp> {
    let at = user.suspended_at?;
    Some(TxOp::Delete {
        key: held_key(SUSPENDED, at, &user.id),
        cond: None,
    })
}

fn entry(key: Key, user: &User) -> Item {
    Item::new(key)
        .with("userId", user.id.as_str())
        .with("userName", user.user_name.as_str())
        .with_opt("company", user.company.clone())
        .with("createdAt", user.created_at)
}

/// The directory items of `user`, to put with the account (at the end of its transaction): the
/// lists' (company, day) and the find box's (phone's end, user name, display name).
pub fn puts(user: &User) -> Vec<TxOp> {
    let lists = company_key(user)
        .into_iter()
        .chain([day_key(user)])
        .map(|key| entry(key, user));
    let finds = find_keys(user).into_iter().map(|key| find_entry(key, user));
    lists
        .chain(finds)
        .map(|item| TxOp::Put { item, cond: None })
        .collect()
}

/// The directory items of `user` removed (the account is deactivated), its entries in the
/// locked and suspended lists too.
pub fn deletes(user: &User) -> Vec<TxOp> {
    company_key(user)
        .into_iter()
        .chain([day_key(user)])
        .chain(find_keys(user))
        .map(|key| TxOp::Delete { key, cond: None })
        .chain(unlocked(user))
        .chain(reactivated(user))
        .collect()
}

/// The writes that move `before`'s company entry and find-box items to `after`'s (a profile
/// edit, a new phone): nothing for an item whose key stays.
pub fn moves(before: &User, after: &User) -> Vec<TxOp> {
    let (old_co, new_co) = (company_key(before), company_key(after));
    let mut ops = Vec::new();
    if old_co != new_co {
        ops.extend(old_co.map(|key| TxOp::Delete { key, cond: None }));
        ops.extend(new_co.map(|key| TxOp::Put {
            item: entry(key, after),
            cond: None,
        }));
    }
    let (old, new) = (find_keys(before), find_keys(after));
    for key in old.iter().filter(|k| !new.contains(k)) {
        ops.push(TxOp::Delete {
            key: key.clone(),
            cond: None,
        });
    }
    for key in new.into_iter().filter(|k| !old.contains(k)) {
        ops.push(TxOp::Put {
            item: find_entry(key, after),
            cond: None,
        });
    }
    ops
}

/// One account in a list.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "DirectoryEntry"))]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub user_id: String,
    pub user_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schemars(with = "String"))]
    pub company: Option<String>,
    pub created_at: i64,
}

/// A page of a list; `next` is what to pass as `after` for the following page.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "DirectoryPage"))]
#[serde(rename_all = "camelCase")]
pub struct Page {
    pub accounts: Vec<Entry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schemars(with = "String"))]
    pub next: Option<String>,
}

async fn page(ciam: &Ciam, q: Query, limit: usize) -> Result<Page> {
    let limit = limit.clamp(1, PAGE);
    let items = ciam.store.query(q.limit(limit)).await?;
    let next = (items.len() == limit)
        .then(|| items.last().map(|i| i.key.sk.clone()))
        .flatten();
    let accounts = items
        .iter()
        .filter_map(|i| {
            Some(Entry {
                user_id: i.s("userId")?.to_owned(),
                user_name: i.s("userName")?.to_owned(),
                company: i.s("company").map(str::to_owned),
                created_at: i.n("createdAt")?,
            })
        })
        .collect();
    Ok(Page { accounts, next })
}

fn invalid(field: &'static str, zh: &'static str, en: &'static str) -> Error {
    Error::field(crate::Reason::INVALID_PARAMETER, field, zh, en)
}

/// Accounts whose company starts with `prefix` (folded), by company then newest first; the page
/// after the sort key `after`, at most `limit` (up to [`PAGE`]). Round trips: 1 query.
pub async fn by_company(
    ciam: &Ciam,
    prefix: &str,
    after: Option<&str>,
    limit: usize,
) -> Result<Page> {
    let folded = fold(prefix);
    let Some(first) = folded.chars().next() else {
        return Err(invalid(
            "company",
            "请输入公司名称的开头",
            "Enter the start of a company name",
        ));
    };
    let mut q = Query::partition(format!("DIR#CO#{first}")).prefix(folded.clone());
    if let Some(a) = after {
        if !a.starts_with(&folded) {
            return Err(invalid("after", "分页标记无效", "Not a page of this list"));
        }
        q = q.after(a);
    }
    page(ciam, q, limit).await
}

/// Accounts that signed up on `day` (`yyyy-mm-dd`, UTC), newest first; the page after `after`.
/// At most `limit` (up to [`PAGE`]). Round trips: 1 query.
pub async fn by_day(ciam: &Ciam, day: &str, after: Option<&str>, limit: usize) -> Result<Page> {
    crate::days::parse_day("day", day)?;
    let mut q = Query::partition(format!("DIR#DAY#{day}"));
    if let Some(a) = after {
        q = q.after(a);
    }
    page(ciam, q, limit).await
}

/// What [`backfill`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Backfilled {
    /// Accounts read (live ones; deactivated accounts have no entries).
    pub accounts: u64,
    /// Directory items written (a day entry and a user name entry each; a company, phone and
    /// display name entry for an account that has one; a locked or suspended entry while it is).
    pub entries: u64,
}

/// `ciam admin backfill-directory`: writes the directory entries of every live account (for
/// accounts created before the directory or the find box's items existed), and sets the numbers' account total to the
/// count. A scan of the user items (`Store::scan_page`), run once by an operator after the
/// upgrade; never on a request path. Idempotent: entries are derived from the account and put
/// again as they are. An account registered while it runs has its entries already; the total
/// may miss the registrations and deactivations made during the scan (run it in a quiet hour).
/// `progress` is called after each page with the counts so far.
pub async fn backfill(ciam: &Ciam, mut progress: impl FnMut(Backfilled)) -> Result<Backfilled> {
    let mut done = Backfilled::default();
    let mut start = None;
    loop {
        let page = ciam.store.scan_page("USER#", "PROFILE", start).await?;
        for item in &page.items {
            let Some(user) = User::from_item(item).filter(|u| !u.deactivated) else {
                continue;
            };
            let now = ciam.now();
            let held = [
                user.locked_until
                    .filter(|t| *t > now)
                    .map(|t| locked(&user.id, t)),
                user.suspended_at.map(|t| suspended(&user.id, t)),
            ];
            for op in puts(&user).into_iter().chain(held.into_iter().flatten()) {
                if let TxOp::Put { item, .. } = op {
                    ciam.store.put(item, None).await?;
                    done.entries += 1;
                }
            }
            done.accounts += 1;
        }
        progress(done);
        start = page.next;
        if start.is_none() {
            break;
        }
    }
    let total = i64::try_from(done.accounts).unwrap_or(i64::MAX);
    ciam.store
        .put(
            Item::new(crate::numbers::total_key()).with("accounts", total),
            None,
        )
        .await?;
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn companies_fold_and_newer_accounts_sort_first() {
        assert_eq!(fold(" ＡＣＭＥ Robotics "), "acme robotics");
        let older = User {
            id: "a".into(),
            company: Some("Acme".into()),
            created_at: 100,
            ..User::default()
        };
        let newer = User {
            id: "b".into(),
            created_at: 200,
            ..older.clone()
        };
        let (o, n) = (company_key(&older), company_key(&newer));
        assert!(n < o, "{n:?} sorts before {o:?}");
        assert_eq!(o.map(|k| k.pk), Some("DIR#CO#a".to_owned()));
        assert!(company_key(&User::default()).is_none());
        assert!(moves(&older, &older).is_empty());
        let renamed = User {
            company: Some("Beta".into()),
            ..older.clone()
        };
        assert_eq!(moves(&older, &renamed).len(), 2);
    }

    #[test]
    fn the_find_box_items_follow_the_phone_and_the_display_name() {
        let ann = User {
            id: "a".into(),
            user_name: "AnnLee".into(),
            phone: Some("13800138000".into()),
            display_name: Some("张伟".into()),
            created_at: 100,
            ..User::default()
        };
        let pks: Vec<String> = find_keys(&ann).into_iter().map(|k| k.pk).collect();
        assert_eq!(pks, ["DIR#P4#8000", "DIR#UN#a", "DIR#NM#张"]);
        let new_phone = User {
            phone: Some("13700001234".into()),
            ..ann.clone()
        };
        let ops = moves(&ann, &new_phone);
        assert!(
            matches!(&ops[..], [TxOp::Delete { key: old, .. }, TxOp::Put { item, .. }]
            if old.pk == "DIR#P4#8000" && item.key.pk == "DIR#P4#1234")
        );
        let unnamed = User {
            display_name: None,
            ..ann.clone()
        };
        assert!(
            matches!(&moves(&ann, &unnamed)[..], [TxOp::Delete { key, .. }] if key.pk == "DIR#NM#张")
        );
        assert!(moves(&ann, &ann.clone()).is_empty());
        // Deactivated while locked and suspended: every item goes.
        let held = User {
            locked_until: Some(500),
            suspended_at: Some(200),
            ..ann
        };
        assert_eq!(deletes(&held).len(), 6);
    }
}
