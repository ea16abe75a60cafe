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
use ciam_store::{Cond, Item, Key, Query, TxOp, Update, Value};
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

/// A credential as the WebAuthn ceremonies use it (`rp` verifies against it), the part of the
/// `PASSKEY#` item that `rp` reads and writes (docs/passkeys-design.md §2.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredPasskey {
    /// The full credential id.
    pub cred_id: Vec<u8>,
    /// The relying-party crate's `StaticState` in its binary encoding (the compressed public
    /// key and the static extensions).
    pub public: Vec<u8>,
    /// COSE algorithm (-7, -8, -35, -257).
    pub alg: i64,
    pub sign_count: u32,
    pub uv: bool,
    /// Backup eligible.
    pub be: bool,
    /// Backup state (a synced passkey).
    pub bs: bool,
    /// `platform`, `cross-platform` or None.
    pub attachment: Option<String>,
    /// The WebAuthn names (`internal`, `usb`, `hybrid`, ...).
    pub transports: Vec<String>,
    /// 32 hex digits; None when all zero.
    pub aaguid: Option<String>,
}

/// The item `USER#<userId>` / `PASSKEY#<h>`, attribute by attribute: every reader of a passkey
/// item goes through it. An attribute that is absent or does not decode reads as None or its
/// default, so a damaged item is still listed (and removable) though it cannot sign in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PasskeyItem {
    pub user_id: String,
    /// `h`, the hash of the credential id (the `{id}` of `/auth/passkeys/{id}`).
    pub h: String,
    /// `credId`, base64url in the item.
    pub cred_id: Option<Vec<u8>>,
    /// `pub`.
    pub public: Option<Vec<u8>>,
    pub alg: i64,
    pub sign_count: i64,
    pub uv: bool,
    pub be: bool,
    pub bs: bool,
    pub attachment: Option<String>,
    pub transports: Vec<String>,
    pub aaguid: Option<String>,
    pub name: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
    /// The device it was registered from.
    pub device: Option<String>,
}

impl PasskeyItem {
    /// A new credential of `user_id`, named `name`.
    pub fn new(
        user_id: &str,
        p: &StoredPasskey,
        name: &str,
        now: i64,
        device: Option<String>,
    ) -> PasskeyItem {
        PasskeyItem {
            user_id: user_id.to_owned(),
            h: id_hash(&p.cred_id),
            cred_id: Some(p.cred_id.clone()),
            public: Some(p.public.clone()),
            alg: p.alg,
            sign_count: i64::from(p.sign_count),
            uv: p.uv,
            be: p.be,
            bs: p.bs,
            attachment: p.attachment.clone(),
            transports: p.transports.clone(),
            aaguid: p.aaguid.clone(),
            name: name.to_owned(),
            created_at: now,
            last_used_at: None,
            device,
        }
    }

    /// None when `i` is not a passkey item (its sort key is not `PASSKEY#<h>`).
    pub fn from_item(i: &Item) -> Option<PasskeyItem> {
        Some(PasskeyItem {
            user_id: i.key.pk.strip_prefix("USER#")?.to_owned(),
            h: i.key.sk.strip_prefix("PASSKEY#")?.to_owned(),
            cred_id: i
                .s("credId")
                .and_then(|c| BASE64URL_NOPAD.decode(c.as_bytes()).ok()),
            public: i.b("pub").map(<[u8]>::to_vec),
            alg: i.n("alg").unwrap_or(0),
            sign_count: i.n("signCount").unwrap_or(0),
            uv: i.bool("uv").unwrap_or(false),
            be: i.bool("be").unwrap_or(false),
            bs: i.bool("bs").unwrap_or(false),
            attachment: i.s("attachment").map(str::to_owned),
            transports: i.strings("transports"),
            aaguid: i.s("aaguid").map(str::to_owned),
            name: i.s("name").unwrap_or_default().to_owned(),
            created_at: i.n("createdAt").unwrap_or(0),
            last_used_at: i.n("lastUsedAt"),
            device: i.s("device").map(str::to_owned),
        })
    }

    pub fn to_item(&self) -> Item {
        Item::new(passkey_key(&self.user_id, &self.h))
            .with_opt(
                "credId",
                self.cred_id.as_ref().map(|c| BASE64URL_NOPAD.encode(c)),
            )
            .with_opt("pub", self.public.clone().map(Value::B))
            .with("alg", self.alg)
            .with("signCount", self.sign_count)
            .with("uv", self.uv)
            .with("be", self.be)
            .with("bs", self.bs)
            .with_opt("attachment", self.attachment.clone())
            .with("transports", Value::strings(&self.transports))
            .with_opt("aaguid", self.aaguid.clone())
            .with("name", self.name.as_str())
            .with("createdAt", self.created_at)
            .with_opt("lastUsedAt", self.last_used_at)
            .with_opt("device", self.device.clone())
    }

    /// The credential the ceremonies verify against; None when the item's `credId`, `pub` or
    /// `signCount` does not decode.
    pub fn stored(&self) -> Option<StoredPasskey> {
        Some(StoredPasskey {
            cred_id: self.cred_id.clone()?,
            public: self.public.clone()?,
            alg: self.alg,
            sign_count: u32::try_from(self.sign_count).ok()?,
            uv: self.uv,
            be: self.be,
            bs: self.bs,
            attachment: self.attachment.clone(),
            transports: self.transports.clone(),
            aaguid: self.aaguid.clone(),
        })
    }

    /// What its owner sees.
    pub fn view(&self) -> PasskeyView {
        PasskeyView {
            id: self.h.clone(),
            name: self.name.clone(),
            created_at: self.created_at,
            last_used_at: self.last_used_at,
            backup_eligible: self.be,
            backup_state: self.bs,
            attachment: self.attachment.clone(),
            transports: self.transports.clone(),
            aaguid: self.aaguid.clone(),
        }
    }
}

/// A passkey as its owner sees it (`GET /auth/passkeys`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "Passkey"))]
#[serde(rename_all = "camelCase")]
pub struct PasskeyView {
    /// base64url SHA-256 of the credential id (43 characters): `h`, the `{id}` of its routes
    pub id: String,
    pub name: String,
    pub created_at: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_used_at: Option<i64>,
    pub backup_eligible: bool,
    /// true: a synced passkey (its key is backed up to the provider's cloud)
    pub backup_state: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        schemars(extend("enum" = ["platform", "cross-platform"]))
    )]
    pub attachment: Option<String>,
    pub transports: Vec<String>,
    /// the authenticator model, 32 hex digits; absent when the authenticator does not say
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aaguid: Option<String>,
}

/// The account's passkeys (at most [`LIMIT`]). Round trips: 1.
pub async fn items_of(ciam: &Ciam, user_id: &str) -> Result<Vec<PasskeyItem>> {
    let q = Query::partition(user_pk(user_id)).prefix("PASSKEY#");
    Ok(ciam
        .store
        .query(q)
        .await?
        .iter()
        .filter_map(PasskeyItem::from_item)
        .collect())
}

/// `GET /auth/passkeys`: newest first. Round trips: 1 (after authentication).
pub async fn list(ciam: &Ciam, s: &Session) -> Result<Vec<PasskeyView>> {
    let mut v: Vec<PasskeyView> = items_of(ciam, &s.user.id)
        .await?
        .iter()
        .map(PasskeyItem::view)
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
    PasskeyItem::from_item(&item)
        .map(|p| p.view())
        .ok_or_else(|| Error::new(Reason::PASSKEY_NOT_FOUND))
}

/// `DELETE /auth/passkeys/{id}` (a fresh proof is required): the credential, its uniqueness item
/// and one off the count, with the activity entry, in one transaction. Round trips: 2 (the
/// credential's name for the activity, then the transaction) after authentication.
pub async fn remove(ciam: &Ciam, s: &Session, id: &str, client: &ClientInfo) -> Result<()> {
    require_fresh(ciam, s)?;
    let h = checked_id(id)?;
    let key = passkey_key(&s.user.id, h);
    let Some(item) = ciam
        .store
        .get(&key)
        .await?
        .as_ref()
        .and_then(PasskeyItem::from_item)
    else {
        return Err(Reason::PASSKEY_NOT_FOUND.into());
    };
    let event = audit::record_named(ciam, &s.user.id, Event::PasskeyRemoved, &item.name, client);
    let mut ops = vec![
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
    let enabled = s.user.enable_totp || s.user.passkeys > 1;
    ops.extend(crate::events::two_factor_changed(ciam, &s.user, enabled));
    ciam.store
        .transact(ops)
        .await
        .or_reason(Reason::PASSKEY_NOT_FOUND)?;
    Ok(())
}

/// The deletes of every passkey of `items` and their uniqueness items, for the deactivation's
/// transaction (at most 2 x [`LIMIT`] operations).
pub fn delete_ops(user_id: &str, items: &[PasskeyItem]) -> Vec<TxOp> {
    items
        .iter()
        .map(|p| p.h.as_str())
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

    fn stored() -> StoredPasskey {
        StoredPasskey {
            cred_id: b"credential".to_vec(),
            public: vec![1, 2, 3],
            alg: -7,
            sign_count: 4,
            uv: true,
            be: true,
            bs: false,
            attachment: Some("platform".into()),
            transports: vec!["internal".into(), "hybrid".into()],
            aaguid: None,
        }
    }

    #[test]
    fn a_passkey_item_reads_back_what_was_written() {
        let mut p = PasskeyItem::new("u1", &stored(), "Laptop", 10, Some("Chrome".into()));
        p.last_used_at = Some(20);
        let item = p.to_item();
        assert_eq!(item.key, passkey_key("u1", &id_hash(b"credential")));
        let back = PasskeyItem::from_item(&item).unwrap();
        assert_eq!(back, p);
        assert_eq!(back.stored(), Some(stored()));
        assert_eq!(back.view().id, id_hash(b"credential"));
    }

    #[test]
    fn a_damaged_passkey_item_is_listed_but_cannot_be_verified_against() {
        let mut item = PasskeyItem::new("u1", &stored(), "Laptop", 10, None).to_item();
        item.attrs.remove("pub");
        let p = PasskeyItem::from_item(&item).unwrap();
        assert_eq!(p.stored(), None);
        assert_eq!(p.view().name, "Laptop");
        let other = Item::new(Key::new("USER#u1", "PROFILE"));
        assert_eq!(PasskeyItem::from_item(&other), None);
    }

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
