//! The support desk's notes on an account (docs/console-design.md §5): the desk's own text, at
//! most [`MAX_CHARS`] characters, with its last editor and time. One item beside the profile,
//! `USER#<id>` / `NOTES` (not on the user item, which every session reads), shown on the
//! console's account page only, never to the customer, deleted with the account
//! (`changes::deactivate`). Each save is audited (`account.notes`) in its transaction.

use super::audit::{AuditAction, Entry, RequestFacts};
use super::Operator;
use crate::error::{Error, Result};
use crate::user::{live_user, profile_key, user_pk};
use crate::{Ciam, LostRace, Reason};
use ciam_store::{Cond, Item, Key, TxOp};
use serde::Serialize;

/// The most characters the notes hold.
pub const MAX_CHARS: usize = 2000;

/// The notes' item of the account `user_id`.
pub fn key(user_id: &str) -> Key {
    Key::new(user_pk(user_id), "NOTES")
}

/// The notes as the account page shows them.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "SupportNotes"))]
#[serde(rename_all = "camelCase")]
pub struct Notes {
    /// The desk's text (at most 2,000 characters).
    pub text: String,
    /// When they were last saved (Unix seconds).
    pub at: i64,
    /// The operator who last saved them: user id and user name.
    pub by: String,
    pub by_name: String,
}

impl Notes {
    fn from_item(i: &Item) -> Notes {
        let s = |n: &str| i.s(n).unwrap_or_default().to_owned();
        Notes {
            text: s("text"),
            at: i.n("at").unwrap_or(0),
            by: s("by"),
            by_name: s("byName"),
        }
    }
}

/// The account's notes, if the desk wrote any. Round trips: 1.
pub async fn read(ciam: &Ciam, user_id: &str) -> Result<Option<Notes>> {
    Ok(ciam
        .store
        .get(&key(user_id))
        .await?
        .as_ref()
        .map(Notes::from_item))
}

/// `PUT /admin/accounts/{userId}/notes`: replaces the account's notes with `text` (trimmed;
/// empty deletes them), with the audit entry (its detail: the length) in one transaction that
/// also checks the account still exists. INVALID_PARAMETER on `notes` over [`MAX_CHARS`]
/// characters or with invisible characters; ACCOUNT_NOT_FOUND for an unknown or deactivated
/// account. Round trips: 2 (the account, the transaction).
pub async fn save(
    ciam: &Ciam,
    op: &Operator,
    user_id: &str,
    text: &str,
    req: &RequestFacts,
) -> Result<Option<Notes>> {
    let text = crate::validate::prose("notes", text, MAX_CHARS)?;
    let known = !user_id.is_empty() && user_id.len() <= 64;
    if !known || live_user(ciam, user_id).await?.is_none() {
        return Err(Error::new(Reason::ACCOUNT_NOT_FOUND));
    }
    let now = ciam.now();
    let notes = (!text.is_empty()).then(|| Notes {
        text,
        at: now,
        by: op.user.id.clone(),
        by_name: op.user.user_name.clone(),
    });
    let write = match &notes {
        Some(n) => TxOp::Put {
            item: Item::new(key(user_id))
                .with("text", n.text.as_str())
                .with("at", n.at)
                .with("by", n.by.as_str())
                .with("byName", n.by_name.as_str()),
            cond: None,
        },
        None => TxOp::Delete {
            key: key(user_id),
            cond: None,
        },
    };
    let chars = notes.as_ref().map_or(0, |n| n.text.chars().count());
    let audit = Entry::new(
        ciam,
        op,
        AuditAction::AccountNotes,
        user_id,
        None,
        Some(format!("{chars} characters")),
        req,
    );
    let live = TxOp::Check {
        key: profile_key(user_id),
        cond: Cond::Exists.and(Cond::attr_not_exists("deactivatedAt")),
    };
    ciam.store
        .transact(vec![live, write, audit.put()])
        .await
        .won()?
        .ok_or(Reason::ACCOUNT_NOT_FOUND)?;
    Ok(notes)
}
