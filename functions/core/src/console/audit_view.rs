//! The audit log as a support desk reads it (issue 34 item 6; docs/console-design.md §7): the
//! actor and target filters take what an agent has at hand (a user name, a mail, a phone, or an
//! id), and the page names the people and apps its entries point at, masked as the account
//! page masks them, so no entry shows a bare 32-hex id.

use super::accounts::{self, Summary};
use super::audit::{self, AuditAction, Entry, Filter, TargetKind};
use crate::apps::{app_key, App, Names};
use crate::error::{Error, Result};
use crate::user::{profile_key, username_pk, User};
use crate::validate::{Email, Identity, Phone};
use crate::{Ciam, Reason};
use serde::Serialize;
use std::collections::BTreeMap;

/// `GET /admin/audit`'s answer: the entries, and who and what they name.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "AuditPage"))]
#[serde(rename_all = "camelCase")]
pub struct Page {
    /// Newest first.
    pub entries: Vec<Entry>,
    /// The accounts among the entries' actors and account targets, by user id (mail and phone
    /// masked). An id missing here is an account that no longer exists, or a command-line
    /// actor (`cli:<os user>`).
    pub people: BTreeMap<String, Summary>,
    /// The apps among the targets of app and webhook actions, by app id. Missing: deleted.
    pub apps: BTreeMap<String, Names>,
}

fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// What an agent typed into the actor or target filter, as the log keeps it: a user id (32 hex),
/// a console-made app id (16 hex) and a command-line actor as given; a mail or a phone (with or
/// without +86) turned into its account's user id, ACCOUNT_NOT_FOUND on that field when no
/// account has it (so "no entries" never hides a mistyped address); a username turned into its
/// account's user id; another word matched as an id (a deleted or imported app's). Round trips:
/// 0 or 1.
pub async fn resolve(ciam: &Ciam, field: &'static str, raw: &str) -> Result<Option<String>> {
    let v = raw.trim();
    if v.is_empty() {
        return Ok(None);
    }
    if is_hex(v, 32) || is_hex(v, 16) || v.starts_with("cli:") {
        return Ok(Some(v.to_owned()));
    }
    let address = if v.contains('@') {
        Email::parse(v).ok().map(Identity::Mail)
    } else {
        Phone::parse(v).ok().map(Identity::Phone)
    };
    let owner = match address {
        Some(id) => accounts::holder_of(ciam, id.unique_pk()).await?,
        // A malformed mail names no account.
        None if v.contains('@') => None,
        // A username names its account; another word is an id as the log keeps it (a deleted
        // or imported app's), matched exactly.
        None => {
            let user = accounts::holder_of(ciam, username_pk(v)).await?;
            return Ok(Some(user.unwrap_or_else(|| v.to_owned())));
        }
    };
    owner.map(Some).ok_or_else(|| {
        Error::field(
            Reason::ACCOUNT_NOT_FOUND,
            field,
            "没有使用此用户名、邮箱或手机号的账号",
            "No account has this user name, mail or phone",
        )
    })
}

/// `filter` with its actor and target as the log keeps them ([`resolve`]), and an action this
/// build does not know refused (INVALID_PARAMETER on `action`) rather than matching nothing.
pub async fn resolved(ciam: &Ciam, mut filter: Filter) -> Result<Filter> {
    if let Some(a) = filter.action.as_deref().filter(|a| !a.is_empty()) {
        if AuditAction::parse(a).is_none() {
            return Err(Error::field(
                Reason::INVALID_PARAMETER,
                "action",
                "没有此操作",
                "No such action",
            ));
        }
    }
    filter.action = filter.action.filter(|a| !a.is_empty());
    let actor = filter.actor.take().unwrap_or_default();
    let target = filter.target.take().unwrap_or_default();
    let (actor, target) = tokio::join!(
        resolve(ciam, "actor", &actor),
        resolve(ciam, "target", &target)
    );
    filter.actor = actor?;
    filter.target = target?;
    Ok(filter)
}

/// Who and what `entries` name: the accounts (actors, and the targets of account actions) and
/// the apps (targets of app and webhook actions). Round trips: 1 (two batch reads side by side,
/// each of the distinct ids; none when there are none).
pub async fn names(
    ciam: &Ciam,
    entries: &[Entry],
) -> Result<(BTreeMap<String, Summary>, BTreeMap<String, Names>)> {
    let mut people: Vec<&str> = Vec::new();
    let mut apps: Vec<&str> = Vec::new();
    for e in entries {
        if is_hex(&e.actor, 32) {
            people.push(&e.actor);
        }
        match AuditAction::parse(&e.action).map(AuditAction::target) {
            Some(TargetKind::Account) if is_hex(&e.target, 32) => people.push(&e.target),
            Some(TargetKind::App) if !e.target.is_empty() => apps.push(&e.target),
            _ => {}
        }
    }
    people.sort_unstable();
    people.dedup();
    apps.sort_unstable();
    apps.dedup();
    let people_keys: Vec<_> = people.iter().map(|id| profile_key(id)).collect();
    let app_keys: Vec<_> = apps.iter().map(|id| app_key(id)).collect();
    let read = |keys: Vec<ciam_store::Key>| async move {
        if keys.is_empty() {
            Ok(Vec::new())
        } else {
            ciam.store.get_many(&keys).await
        }
    };
    let (users, app_items) = tokio::join!(read(people_keys), read(app_keys));
    let (users, app_items) = (users?, app_items?);
    let now = ciam.now();
    let people = users
        .iter()
        .flatten()
        .filter_map(User::from_item)
        .map(|u| (u.id.clone(), accounts::summary(&u, now)))
        .collect();
    let apps = app_items
        .iter()
        .flatten()
        .map(App::from_item)
        .map(|a| (a.app_id, a.name))
        .collect();
    Ok((people, apps))
}

/// `GET /admin/audit`: the filter resolved, the entries of its days, and their names. Round
/// trips: 0–1 (the filter) + 1 a day + 1 (the names).
pub async fn page(ciam: &Ciam, filter: Filter) -> Result<Page> {
    let filter = resolved(ciam, filter).await?;
    let entries = audit::list(ciam, &filter).await?;
    let (people, apps) = names(ciam, &entries).await?;
    Ok(Page {
        entries,
        people,
        apps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_recognised_by_their_shape() {
        assert!(is_hex("0123456789abcdef0123456789abcdef", 32));
        assert!(is_hex("0123456789abcdef", 16));
        assert!(!is_hex("0123456789ABCDEF", 16));
        assert!(!is_hex("zhangwei", 8));
    }

    #[test]
    fn every_action_has_a_distinct_name_and_parses_back() {
        let mut names: Vec<&str> = AuditAction::ALL.iter().map(|a| a.as_str()).collect();
        for a in AuditAction::ALL {
            assert_eq!(AuditAction::parse(a.as_str()), Some(*a));
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), AuditAction::ALL.len());
    }
}
