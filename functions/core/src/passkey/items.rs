//! The passkey items (docs/passkeys-design.md §2, docs/data-model.md) and the routes that only
//! touch them: list, rename, remove. Nothing here names the WebAuthn crate, so the `bootstrap`
//! Lambda, which serves these three, does not link it.
//!
//! - `USER#<userId>` / `PASSKEY#<h>`: the credential, `h` = base64url(SHA-256(credential id));
//! - `PASSKEYID#<h>` / `UNIQUE`: credential ids are unique across accounts;
//! - `PASSKEYUSED#<keyed hash of the challenge token>` / `USED`: a finished ceremony (single use);
//! - the user item's `passkeys`: how many the account has (at most [`LIMIT`]).

use crate::audit::{self, Event};
use crate::client::ClientInfo;
use crate::sessions::{same_session, Session};
use crate::totp::require_fresh;
use crate::user::{profile_key, user_pk};
use crate::{validate, Ciam, Error, LostRace, Reason, Result};
use ciam_store::{Cond, Item, Key, Query, TxOp, Update};
use data_encoding::BASE64URL_NOPAD;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// Passkeys per account.
pub const LIMIT: i64 = 10;
/// The longest passkey name, in characters.
pub const NAME_MAX: usize = 64;

/// `h`: the key of a credential id in the table (ids may be 1,023 bytes, too long for a key).
/// Not keyed: credential ids are public, and a root rotation must not orphan passkeys.
pub fn id_hash(cred_id: &[u8]) -> String {
    BASE64URL_NOPAD.encode(&Sha256::digest(cred_id))
}

pub fn passkey_key(user_id: &str, h: &str) -> Key {
    Key::new(user_pk(user_id), format!("PASSKEY#{h}"))
}

pub fn unique_key(h: &str) -> Key {
    Key::new(format!("PASSKEYID#{h}"), "UNIQUE")
}

/// The marker of a finished ceremony: put with `attribute_not_exists` in the finishing
/// transaction, so a challenge finishes once.
pub fn used_key(ciam: &Ciam, token: &str) -> Key {
    Key::new(
        format!(
            "PASSKEYUSED#{}",
            ciam.keys.keyed_hash("passkey-used", token.as_bytes())
        ),
        "USED",
    )
}

/// A passkey as its owner sees it (`GET /auth/passkeys`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PasskeyView {
    /// `h`, the id used in `/auth/passkeys/{id}`.
    pub id: String,
    pub name: String,
    pub created_at: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_used_at: Option<i64>,
    pub backup_eligible: bool,
    /// A synced passkey (its key is backed up to the provider's cloud).
    pub backup_state: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attachment: Option<String>,
    pub transports: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aaguid: Option<String>,
}

impl PasskeyView {
    pub fn from_item(i: &Item) -> Option<PasskeyView> {
        Some(PasskeyView {
            id: i.key.sk.strip_prefix("PASSKEY#")?.to_owned(),
            name: i.s("name").unwrap_or_default().to_owned(),
            created_at: i.n("createdAt").unwrap_or(0),
            last_used_at: i.n("lastUsedAt"),
            backup_eligible: i.bool("be").unwrap_or(false),
            backup_state: i.bool("bs").unwrap_or(false),
            attachment: i.s("attachment").map(str::to_owned),
            transports: i.strings("transports"),
            aaguid: i.s("aaguid").map(str::to_owned),
        })
    }
}

/// The account's passkey items (at most [`LIMIT`]). Round trips: 1.
pub async fn items_of(ciam: &Ciam, user_id: &str) -> Result<Vec<Item>> {
    let q = Query::partition(user_pk(user_id)).prefix("PASSKEY#");
    Ok(ciam.store.query(q).await?)
}

/// `GET /auth/passkeys`: newest first. Round trips: 1 (after authentication).
pub async fn list(ciam: &Ciam, s: &Session) -> Result<Vec<PasskeyView>> {
    let mut v: Vec<PasskeyView> = items_of(ciam, &s.user.id)
        .await?
        .iter()
        .filter_map(PasskeyView::from_item)
        .collect();
    v.sort_by_key(|p| std::cmp::Reverse(p.created_at));
    Ok(v)
}

/// A well-formed `{id}`: 43 base64url characters (a SHA-256), else PASSKEY_NOT_FOUND.
fn checked_id(id: &str) -> Result<&str> {
    let ok = id.len() == 43
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    ok.then_some(id)
        .ok_or_else(|| Error::new(Reason::PASSKEY_NOT_FOUND))
}

/// A passkey's name: 1 to [`NAME_MAX`] characters of tidy text.
pub fn name(raw: &str) -> Result<String> {
    validate::required_text("name", raw, NAME_MAX)
}

/// `PATCH /auth/passkeys/{id}`. Round trips: 1 conditional update (after authentication).
pub async fn rename(ciam: &Ciam, s: &Session, id: &str, raw: &str) -> Result<PasskeyView> {
    let h = checked_id(id)?;
    let name = name(raw)?;
    let item = ciam
        .store
        .update(
            &passkey_key(&s.user.id, h),
            vec![Update::Set("name".into(), name.into())],
            Some(Cond::Exists),
        )
        .await
        .or_reason(Reason::PASSKEY_NOT_FOUND)?;
    PasskeyView::from_item(&item).ok_or_else(|| Error::new(Reason::PASSKEY_NOT_FOUND))
}

/// `DELETE /auth/passkeys/{id}` (a fresh proof is required): the credential, its uniqueness item
/// and one off the count, with the activity entry, in one transaction. Round trips: 2 (the
/// credential's name for the activity, then the transaction) after authentication.
pub async fn remove(ciam: &Ciam, s: &Session, id: &str, client: &ClientInfo) -> Result<()> {
    require_fresh(ciam, s)?;
    let h = checked_id(id)?;
    let key = passkey_key(&s.user.id, h);
    let Some(item) = ciam.store.get(&key).await? else {
        return Err(Reason::PASSKEY_NOT_FOUND.into());
    };
    let event = audit::record_named(
        ciam,
        &s.user.id,
        Event::PasskeyRemoved,
        item.s("name").unwrap_or_default(),
        client,
    );
    let ops = vec![
        TxOp::Delete {
            key,
            cond: Some(Cond::Exists),
        },
        TxOp::Delete {
            key: unique_key(h),
            cond: Some(Cond::eq("userId", s.user.id.as_str())),
        },
        TxOp::Update {
            key: profile_key(&s.user.id),
            ops: vec![Update::Add("passkeys".into(), -1)],
            cond: Some(same_session(s)),
        },
        event,
    ];
    ciam.store
        .transact(ops)
        .await
        .or_reason(Reason::PASSKEY_NOT_FOUND)?;
    Ok(())
}

/// The deletes of every passkey of `items` and their uniqueness items, for the deactivation's
/// transaction (at most 2 x [`LIMIT`] operations).
pub fn delete_ops(user_id: &str, items: &[Item]) -> Vec<TxOp> {
    items
        .iter()
        .filter_map(|i| i.key.sk.strip_prefix("PASSKEY#"))
        .flat_map(|h| {
            [
                TxOp::Delete {
                    key: passkey_key(user_id, h),
                    cond: None,
                },
                TxOp::Delete {
                    key: unique_key(h),
                    cond: Some(Cond::eq("userId", user_id)),
                },
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_43_character_hashes() {
        let h = id_hash(b"credential");
        assert_eq!(h.len(), 43);
        assert_eq!(checked_id(&h).unwrap(), h);
        for bad in ["", "x", &"a".repeat(44), &format!("{}!", &h[..42])] {
            assert_eq!(
                checked_id(bad).unwrap_err().reason,
                Reason::PASSKEY_NOT_FOUND
            );
        }
    }
}
