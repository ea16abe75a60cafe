//! The second-step challenge: the item a password, code or staff sign-in leaves instead of a
//! session when the account has two-factor on (`NEED_TOTP_VERIFY` hands its secret to the
//! browser), and which the second step (authenticator code, backup code, passkey) reads and
//! deletes.

use crate::Ciam;
use ciam_store::{Item, Key};

pub const MFA_TTL: i64 = 300;

/// The item of a second-step challenge, found by a keyed hash of the challenge.
pub fn mfa_key(ciam: &Ciam, challenge: &str) -> Key {
    Key::new(
        format!("MFA#{}", ciam.keys.keyed_hash("mfa", challenge.as_bytes())),
        "CHALLENGE",
    )
}

/// A second-step challenge, the item `MFA#<keyed hash of the challenge>` / `CHALLENGE`: who
/// passed the first step and how (its `amr`), for [`MFA_TTL`] seconds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    pub key: Key,
    pub user_id: String,
    pub amr: Vec<String>,
    /// The organization of the connection the first step came through (`org`), for the
    /// session (docs/organizations-connections.md §3).
    pub org: Option<String>,
    /// The first step's provider (`method`), for the session (`Session::method`).
    pub method: Option<String>,
    pub expires_at: Option<i64>,
}

impl Challenge {
    /// None when the item names no user.
    pub fn from_item(i: &Item) -> Option<Challenge> {
        Some(Challenge {
            key: i.key.clone(),
            user_id: i.s("userId")?.to_owned(),
            amr: i.strings("amr"),
            org: i.s("org").map(str::to_owned),
            method: i.s("method").map(str::to_owned),
            expires_at: i.expires_at,
        })
    }

    pub fn to_item(&self) -> Item {
        let item = Item::new(self.key.clone())
            .with("userId", self.user_id.as_str())
            .with("amr", ciam_store::Value::strings(&self.amr))
            .with_opt("org", self.org.clone())
            .with_opt("method", self.method.clone());
        match self.expires_at {
            Some(at) => item.expires(at),
            None => item,
        }
    }
}
