//! The user item (`USER#<id>` / `PROFILE`) and the user info of spec §3.

use crate::validate::{Email, Identity, Phone};
use crate::Ciam;
use ciam_store::{Item, Key, StoreError, Value};
use serde::Serialize;
use std::collections::BTreeMap;

pub const PROFILE: &str = "PROFILE";
/// The role that may manage the partner-app registry.
pub const ADMIN: &str = "admin";
/// The privacy choices a person can make (cookies and data use), all off by default.
pub const PRIVACY_CHOICES: [&str; 2] = ["analytics", "marketing"];

pub fn user_pk(id: &str) -> String {
    format!("USER#{id}")
}

pub fn profile_key(id: &str) -> Key {
    Key::new(user_pk(id), PROFILE)
}

/// The console's role index item of the account `id` (`ROLES` / `USER#<id>`): here because the
/// account's deactivation removes it with the account.
pub fn role_index_key(id: &str) -> Key {
    Key::new("ROLES", user_pk(id))
}

/// The item that holds an identity (mail, phone or username) for its owner.
pub fn unique_key(pk: String) -> Key {
    Key::new(pk, "UNIQUE")
}

/// The username's uniqueness item: its folded key (`validate::username_key`: NFKC and lower
/// case), so "Ann", "ANN" and "ＡＮＮ" are one name. An ASCII name's key is unchanged.
pub fn username_pk(name: &str) -> String {
    format!("USERNAME#{}", crate::validate::username_key(name))
}

/// The account `user_id`, unless it is gone, deactivated or suspended (it may sign in and use
/// what it signed in to). Round trips: 1.
pub async fn active_user(ciam: &Ciam, user_id: &str) -> Result<Option<User>, StoreError> {
    Ok(live_user(ciam, user_id)
        .await?
        .filter(|u| u.suspended_at.is_none()))
}

/// The account `user_id`, unless it is gone or deactivated (a suspended one too). Round trips: 1.
pub async fn live_user(ciam: &Ciam, user_id: &str) -> Result<Option<User>, StoreError> {
    Ok(ciam
        .store
        .get(&profile_key(user_id))
        .await?
        .as_ref()
        .and_then(User::from_item)
        .filter(|u| !u.deactivated))
}

/// Whether `id` is an account's sign-in name now (its identity item names a user). Round
/// trips: 1.
pub(crate) async fn has_account(ciam: &Ciam, id: &Identity) -> Result<bool, StoreError> {
    Ok(ciam
        .store
        .get(&unique_key(id.unique_pk()))
        .await?
        .is_some_and(|owner| owner.s("userId").is_some()))
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct User {
    pub id: String,
    pub user_name: String,
    pub mail: Option<String>,
    pub phone: Option<String>,
    pub company: Option<String>,
    pub duty: Option<String>,
    pub address: Option<String>,
    pub display_name: Option<String>,
    pub country: Option<String>,
    pub advertisement: String,
    pub avatar: Option<String>,
    pub pwd_hash: Option<String>,
    pub eiam_uid: Option<String>,
    pub enable_totp: bool,
    pub deactivated: bool,
    /// Suspended by support (the console) since then: no sign-in, no session, no token.
    pub suspended_at: Option<i64>,
    /// Session generation: sessions stamped with an older one are revoked.
    pub sess_gen: i64,
    /// Consecutive failed verifications (password, codes) since the last success or lock.
    pub fails: i64,
    pub locked_until: Option<i64>,
    pub created_at: i64,
    /// The sealed (AES-GCM) authenticator secret, once two-factor is on.
    pub totp_secret: Option<Vec<u8>>,
    /// An enrolment in progress: the sealed secret and when it was made.
    pub totp_pending: Option<(Vec<u8>, i64)>,
    /// The last accepted time step (replay protection).
    pub totp_last_step: Option<i64>,
    /// Backup codes of other generations are invalid.
    pub backup_gen: i64,
    /// Granted roles, e.g. `admin` (by `ciam admin grant`).
    pub roles: Vec<String>,
    /// The privacy choices made (`PRIVACY_CHOICES`, attributes `privacy_<choice>`); a
    /// choice never made is absent (off).
    pub privacy: BTreeMap<String, bool>,
    /// How many apps the account has a consent with (`consents`, kept in the transactions that
    /// create and delete `CONSENT#` items): whether its changes are announced to partners
    /// (`events::heard`). None on an account created before the count: unknown, so announced.
    pub consents: Option<i64>,
    /// How many passkeys the account has (`passkeys`, kept by the passkey routes).
    pub passkeys: i64,
    /// How many providers the account is linked to (`links`: `FED#` items of providers other
    /// than staff, kept by the link transactions; docs/federation-design.md §2.2).
    pub links: i64,
}

impl User {
    pub fn from_item(item: &Item) -> Option<User> {
        let s = |n: &str| item.s(n).map(str::to_owned);
        Some(User {
            id: s("userId")?,
            user_name: s("userName").unwrap_or_default(),
            mail: s("mail"),
            phone: s("phone"),
            company: s("company"),
            duty: s("duty"),
            address: s("address"),
            display_name: s("displayName"),
            country: s("country"),
            advertisement: s("advertisement").unwrap_or_else(|| "unsubscribe".to_owned()),
            avatar: s("avatar"),
            pwd_hash: s("pwdHash"),
            eiam_uid: s("eiamUid"),
            enable_totp: item.bool("enableTotp").unwrap_or(false),
            deactivated: item.s("status") == Some("deactivated"),
            suspended_at: item.n("suspendedAt"),
            sess_gen: item.n("sessGen").unwrap_or(0),
            fails: item.n("fails").unwrap_or(0),
            locked_until: item.n("lockedUntil"),
            created_at: item.n("createdAt").unwrap_or(0),
            totp_secret: item.b("totpSecret").map(<[u8]>::to_vec),
            totp_pending: item
                .b("totpPending")
                .map(<[u8]>::to_vec)
                .zip(item.n("totpPendingAt")),
            totp_last_step: item.n("totpLastStep"),
            backup_gen: item.n("backupGen").unwrap_or(0),
            roles: item.strings("roles"),
            privacy: PRIVACY_CHOICES
                .iter()
                .filter_map(|c| Some((c.to_string(), item.bool(&format!("privacy_{c}"))?)))
                .collect(),
            consents: item.n("consents"),
            passkeys: item.n("passkeys").unwrap_or(0),
            links: item.n("links").unwrap_or(0),
        })
    }

    pub fn to_item(&self) -> Item {
        let mut item = Item::new(profile_key(&self.id))
            .with("userId", self.id.as_str())
            .with("userName", self.user_name.as_str())
            .with_opt("mail", self.mail.clone())
            .with_opt("phone", self.phone.clone())
            .with_opt("company", self.company.clone())
            .with_opt("duty", self.duty.clone())
            .with_opt("address", self.address.clone())
            .with_opt("displayName", self.display_name.clone())
            .with_opt("country", self.country.clone())
            .with("advertisement", self.advertisement.as_str())
            .with_opt("avatar", self.avatar.clone())
            .with_opt("pwdHash", self.pwd_hash.clone())
            .with_opt("eiamUid", self.eiam_uid.clone())
            .with("enableTotp", self.enable_totp)
            .with(
                "status",
                if self.deactivated {
                    "deactivated"
                } else {
                    "active"
                },
            )
            .with_opt("suspendedAt", self.suspended_at)
            .with("sessGen", self.sess_gen)
            .with("fails", self.fails)
            .with_opt("lockedUntil", self.locked_until)
            .with("createdAt", self.created_at)
            .with_opt("totpSecret", self.totp_secret.clone().map(Value::B))
            .with_opt(
                "totpPending",
                self.totp_pending.clone().map(|(b, _)| Value::B(b)),
            )
            .with_opt(
                "totpPendingAt",
                self.totp_pending.as_ref().map(|(_, at)| *at),
            )
            .with_opt("totpLastStep", self.totp_last_step)
            .with("backupGen", self.backup_gen)
            .with_opt(
                "roles",
                (!self.roles.is_empty()).then(|| Value::strings(&self.roles)),
            )
            .with_opt("consents", self.consents)
            .with_opt("passkeys", (self.passkeys != 0).then_some(self.passkeys))
            .with_opt("links", (self.links != 0).then_some(self.links));
        for (choice, on) in &self.privacy {
            item = item.with(&format!("privacy_{choice}"), *on);
        }
        item
    }

    /// Whether the account may sign in and use its sessions and tokens: neither deactivated nor
    /// suspended.
    pub fn usable(&self) -> bool {
        !self.deactivated && self.suspended_at.is_none()
    }

    pub fn is_admin(&self) -> bool {
        self.roles.iter().any(|r| r == ADMIN)
    }

    pub fn identities(&self) -> Vec<Identity> {
        let mut v = Vec::new();
        if let Some(m) = self.mail.as_deref().and_then(|m| Email::parse(m).ok()) {
            v.push(Identity::Mail(m));
        }
        if let Some(p) = self.phone.as_deref().and_then(|p| Phone::parse(p).ok()) {
            v.push(Identity::Phone(p));
        }
        v
    }

    pub fn info(&self, ciam: &Ciam) -> UserInfo {
        let mail = self.mail.as_deref().and_then(|m| Email::parse(m).ok());
        let is_eiam =
            self.eiam_uid.is_some() && mail.as_ref().is_some_and(|m| ciam.is_internal_mail(m));
        let present = |o: &Option<String>| o.as_deref().is_some_and(|s| !s.is_empty());
        let phone = self.phone.as_deref().and_then(|p| Phone::parse(p).ok());
        UserInfo {
            user_id: self.id.clone(),
            user_name: self.user_name.clone(),
            mail: mail.as_ref().map(Email::masked),
            phone: phone.as_ref().map(Phone::masked),
            full_mail: mail.as_ref().map(|m| m.as_str().to_owned()),
            full_phone: phone.as_ref().map(|p| p.as_str().to_owned()),
            company: self.company.clone(),
            duty: self.duty.clone(),
            address: self.address.clone(),
            display_name: self.display_name.clone(),
            country: self.country.clone(),
            avatar: self.avatar.clone(),
            advertisement: self.advertisement.clone(),
            tag: Tag {
                eiam_uid: self.eiam_uid.clone(),
            },
            enable_totp: self.enable_totp,
            is_complete: present(&self.address) && present(&self.company) && present(&self.duty),
            is_subscribe: self.advertisement == "subscribe",
            is_eiam_user: is_eiam,
        }
    }
}

/// `GET /auth/info`: what the owner sees. Phone and mail masked for display (the spec's derived
/// values, which the sign-in screen's account picker keeps), and whole for the owner's own
/// account centre; no hash or secret. Only the owner gets this answer: the console's and the
/// partners' answers are other types and stay masked.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct UserInfo {
    pub user_id: String,
    pub user_name: String,
    /// masked
    pub mail: Option<String>,
    /// masked
    pub phone: Option<String>,
    /// The owner's own mail, whole (the account centre shows it to the owner).
    pub full_mail: Option<String>,
    /// The owner's own phone, whole (11 digits, mainland China).
    pub full_phone: Option<String>,
    pub company: Option<String>,
    pub duty: Option<String>,
    pub address: Option<String>,
    pub display_name: Option<String>,
    pub country: Option<String>,
    pub avatar: Option<String>,
    #[cfg_attr(
        feature = "openapi",
        schemars(extend("enum" = ["subscribe", "unsubscribe"]))
    )]
    pub advertisement: String,
    pub tag: Tag,
    pub enable_totp: bool,
    pub is_complete: bool,
    pub is_subscribe: bool,
    pub is_eiam_user: bool,
}

/// The account's tags.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Tag {
    pub eiam_uid: Option<String>,
}

/// The identity item keys of an account with `mail` and `phone`, `first` (if given) first.
pub(crate) fn identity_keys(
    mail: Option<&str>,
    phone: Option<&str>,
    first: Option<&Key>,
) -> Vec<Key> {
    let mut keys: Vec<Key> = first.into_iter().cloned().collect();
    for id in [mail, phone]
        .into_iter()
        .flatten()
        .filter_map(|s| Identity::parse(s).ok())
    {
        let k = unique_key(id.unique_pk());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys
}
