//! A company link (docs/organizations-connections.md §0.6): its keys and the one link write of
//! the company's own sign-in (by the company mail, by a phone proof, by a sign-up), and the
//! pending identity of a person a WeCom, DingTalk or Feishu connection vouched for without a
//! company mail: the public providers' (`FEDPEND#`, docs/federation-design.md §4.1) with
//! provider `org` and the connection's `conn`, `orgId` and the identity provider's `mfa`,
//! redeemed by `org_phone`.

use super::company_links::{self, account_link_key, link_key};
use super::links::{count_link, pending_item, PENDING_TTL};
use super::{ExternalIdentity, Pending, ORG};
use crate::error::Result;
use crate::org::connections::Connection;
use crate::org::Organization;
use crate::staff::token;
use crate::Ciam;
use ciam_store::{Cond, Item, Key, TxOp};

fn account_link(
    ciam: &Ciam,
    c: &Connection,
    o: &Organization,
    user_id: &str,
    subject: &str,
) -> Item {
    Item::new(account_link_key(user_id, &c.conn_id))
        .with("subject", subject)
        .with("orgId", o.org_id.as_str())
        .with("linkedAt", ciam.now())
}

/// What the account had of a link through the connection before this write.
#[derive(Debug, PartialEq, Eq)]
pub enum Prior {
    /// The account is made in the same transaction (its `links` counts the link already).
    NewAccount,
    /// No link through the connection: one more on the account's count.
    Unlinked,
    /// A link to the same subject (its lookup was stale): rewritten, not counted again.
    Same,
    /// A link to another subject (the identity provider changed its ids): replaced, not
    /// counted again; the old subject's lookup, when it still names the account, deleted.
    Replaced {
        old_subject: String,
        old_lookup: Option<Key>,
    },
}

/// The account's link through `c` before a write for `subject`. Round trips: 1 (the account's
/// item), 1 more when it names another subject (that subject's lookup).
pub async fn prior_link(
    ciam: &Ciam,
    c: &Connection,
    user_id: &str,
    subject: &str,
) -> Result<Prior> {
    let store = ciam.store.as_ref();
    let Some(item) = store.get(&account_link_key(user_id, &c.conn_id)).await? else {
        return Ok(Prior::Unlinked);
    };
    let old = item.s("subject").unwrap_or_default().to_owned();
    if old == subject {
        return Ok(Prior::Same);
    }
    let key = link_key(&c.conn_id, &old);
    let names_it = store
        .get(&key)
        .await?
        .is_some_and(|l| l.s("userId") == Some(user_id));
    Ok(Prior::Replaced {
        old_subject: old,
        old_lookup: names_it.then_some(key),
    })
}

/// The writes of a company link of `user_id` to `subject` through `c` of `o`, in this order:
/// the lookup `FEDID#org:<connId>#<subject>` (0, on `lookup_cond`), the account's item
/// `USER#<userId>` / `FED#org:<connId>` (1: new, or still the subject `prior` read), then, by
/// `prior`, one more on the account's `links` (an unlinked account) or the old subject's lookup
/// deleted (a replaced link; the count stays).
#[allow(clippy::too_many_arguments)]
pub fn company_link_ops(
    ciam: &Ciam,
    c: &Connection,
    o: &Organization,
    user_id: &str,
    subject: &str,
    via: &str,
    lookup_cond: Cond,
    prior: Prior,
) -> Vec<TxOp> {
    let lookup = Item::new(link_key(&c.conn_id, subject))
        .with("userId", user_id)
        .with("provider", company_links::provider(&c.conn_id))
        .with("subject", subject)
        .with("orgId", o.org_id.as_str())
        .with("linkedAt", ciam.now())
        .with("via", via);
    let account_cond = match &prior {
        Prior::NewAccount | Prior::Unlinked => Cond::NotExists,
        Prior::Same => Cond::eq("subject", subject),
        Prior::Replaced { old_subject, .. } => Cond::eq("subject", old_subject.as_str()),
    };
    let mut ops = vec![
        TxOp::Put {
            item: lookup,
            cond: Some(lookup_cond),
        },
        TxOp::Put {
            item: account_link(ciam, c, o, user_id, subject),
            cond: Some(account_cond),
        },
    ];
    match prior {
        Prior::Unlinked => ops.push(count_link(user_id, None)),
        Prior::Replaced {
            old_lookup: Some(key),
            ..
        } => ops.push(TxOp::Delete {
            key,
            cond: Some(Cond::eq("userId", user_id)),
        }),
        Prior::NewAccount | Prior::Same | Prior::Replaced { .. } => {}
    }
    ops
}

/// The pending identity of a person `c` of `o` vouched for without a company mail: its token
/// (`?orgPending=`), 15 minutes. Round trips: 1.
pub async fn pending_identity(
    ciam: &Ciam,
    c: &Connection,
    o: &Organization,
    identity: &ExternalIdentity,
    pending: &Pending,
) -> Result<String> {
    let token = token(ciam);
    let mut item = pending_item(ciam, &token, ORG.name, identity, pending)
        .with("conn", c.conn_id.as_str())
        .with("orgId", o.org_id.as_str());
    if identity.mfa {
        item = item.with("mfa", true);
    }
    let item = item.expires(ciam.now() + PENDING_TTL);
    ciam.store.put(item, Some(Cond::NotExists)).await?;
    Ok(token)
}
