//! The items of the OpenID Connect provider (docs/data-model.md): the stored authorization
//! request, the authorization code (a tombstone once redeemed) and the access token, each a
//! typed record read and written whole.

use super::{CODE_SECS, REQUEST_SECS, TOKEN_SECS};
use crate::org::tokens::Want;
use crate::Ciam;
use ciam_store::{Item, Key, Value};

const REQUEST_PREFIX: &str = "OIDCREQ#";
const CODE_LABEL: &str = "oidc-code";
const TOKEN_LABEL: &str = "oidc-access-token";

pub(super) fn request_key(id: &str) -> Key {
    Key::new(format!("{REQUEST_PREFIX}{id}"), "OIDCREQ")
}

pub(super) fn code_key(ciam: &Ciam, code: &str) -> Key {
    Key::new(
        format!(
            "OIDCCODE#{}",
            ciam.keys.keyed_hash(CODE_LABEL, code.as_bytes())
        ),
        "OIDCCODE",
    )
}

pub(super) fn token_hash(ciam: &Ciam, token: &str) -> String {
    ciam.keys.keyed_hash(TOKEN_LABEL, token.as_bytes())
}

pub(super) fn token_key_of(hash: &str) -> Key {
    Key::new(format!("OIDCTOKEN#{hash}"), "OIDCTOKEN")
}

pub(super) fn token_key(ciam: &Ciam, token: &str) -> Key {
    token_key_of(&token_hash(ciam, token))
}

/// A stored authorization request: `OIDCREQ#<id>` / `OIDCREQ`, living `REQUEST_SECS`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Request {
    pub id: String,
    pub app_id: String,
    pub redirect_uri: String,
    /// The app's scopes that were asked for, in the app's order.
    pub scopes: Vec<String>,
    pub state: Option<String>,
    pub nonce: Option<String>,
    /// The PKCE (S256) challenge.
    pub code_challenge: String,
    /// What it asks of organizations (the scope, the parameter or the app's setting).
    pub org_want: Want,
    /// The organization the `organization` parameter named, if any.
    pub organization: Option<String>,
    pub created_at: i64,
}

impl Request {
    pub fn from_item(item: &Item) -> Request {
        let s = |n: &str| item.s(n).map(str::to_owned);
        Request {
            id: item
                .key
                .pk
                .strip_prefix(REQUEST_PREFIX)
                .unwrap_or_default()
                .to_owned(),
            app_id: s("appId").unwrap_or_default(),
            redirect_uri: s("redirectUri").unwrap_or_default(),
            scopes: item.strings("scopes"),
            state: s("state"),
            nonce: s("nonce"),
            code_challenge: s("codeChallenge").unwrap_or_default(),
            org_want: item.s("orgWant").map(Want::parse).unwrap_or_default(),
            organization: s("organization"),
            created_at: item.n("createdAt").unwrap_or(0),
        }
    }

    pub fn key(&self) -> Key {
        request_key(&self.id)
    }

    pub fn to_item(&self) -> Item {
        Item::new(self.key())
            .with("appId", self.app_id.as_str())
            .with("redirectUri", self.redirect_uri.as_str())
            .with("scopes", Value::strings(&self.scopes))
            .with_opt("state", self.state.as_deref())
            .with_opt("nonce", self.nonce.as_deref())
            .with("codeChallenge", self.code_challenge.as_str())
            .with_opt(
                "orgWant",
                (self.org_want != Want::No).then_some(self.org_want.as_str()),
            )
            .with_opt("organization", self.organization.as_deref())
            .with("createdAt", self.created_at)
            .expires(self.created_at + REQUEST_SECS)
    }
}

/// An authorization code: `OIDCCODE#<keyed hash of the code>` / `OIDCCODE`, living `CODE_SECS`;
/// once redeemed a tombstone (`used_at`, `token_hash`) living as long as its access token.
#[derive(Clone, Debug, PartialEq)]
pub struct Code {
    pub key: Key,
    pub user_id: String,
    pub app_id: String,
    pub redirect_uri: String,
    pub scopes: Vec<String>,
    pub nonce: Option<String>,
    pub code_challenge: String,
    /// The session's last proof of identity.
    pub auth_time: Option<i64>,
    /// How that proof was made (RFC 8176; the id_token's `amr`, left out when empty).
    pub amr: Vec<String>,
    /// The `sid` of the session the authorization came from (`sessions::sid`), the id_token's
    /// `sid`; None on codes written before it.
    pub sid: Option<String>,
    /// The organization the person went to the app with (`org_id`), if any.
    pub org_id: Option<String>,
    pub created_at: i64,
    pub used_at: Option<i64>,
    /// The keyed hash of the access token its redemption gave.
    pub token_hash: Option<String>,
}

impl Code {
    pub fn from_item(item: &Item) -> Code {
        let s = |n: &str| item.s(n).map(str::to_owned);
        Code {
            key: item.key.clone(),
            user_id: s("userId").unwrap_or_default(),
            app_id: s("appId").unwrap_or_default(),
            redirect_uri: s("redirectUri").unwrap_or_default(),
            scopes: item.strings("scopes"),
            nonce: s("nonce"),
            code_challenge: s("codeChallenge").unwrap_or_default(),
            auth_time: item.n("authTime"),
            amr: item.strings("amr"),
            sid: s("sid"),
            org_id: s("orgId"),
            created_at: item.n("createdAt").unwrap_or(0),
            used_at: item.n("usedAt"),
            token_hash: s("tokenHash"),
        }
    }

    pub fn to_item(&self) -> Item {
        let expires = match self.used_at {
            Some(used) => used + TOKEN_SECS,
            None => self.created_at + CODE_SECS,
        };
        let item = Item::new(self.key.clone())
            .with("userId", self.user_id.as_str())
            .with("appId", self.app_id.as_str())
            .with("redirectUri", self.redirect_uri.as_str())
            .with("scopes", Value::strings(&self.scopes))
            .with_opt("nonce", self.nonce.as_deref())
            .with("codeChallenge", self.code_challenge.as_str())
            .with_opt("authTime", self.auth_time)
            .with_opt("sid", self.sid.as_deref())
            .with_opt("orgId", self.org_id.as_deref());
        let item = if self.amr.is_empty() {
            item
        } else {
            item.with("amr", Value::strings(&self.amr))
        };
        item.with("createdAt", self.created_at)
            .with_opt("usedAt", self.used_at)
            .with_opt("tokenHash", self.token_hash.as_deref())
            .expires(expires)
    }
}

/// An access token for userinfo: `OIDCTOKEN#<keyed hash of the token>` / `OIDCTOKEN`, living
/// `TOKEN_SECS`.
#[derive(Clone, Debug, PartialEq)]
pub struct AccessToken {
    pub key: Key,
    pub user_id: String,
    pub app_id: String,
    pub scopes: Vec<String>,
    /// The user's `sessGen` when issued: signing out everywhere revokes it.
    pub gen: Option<i64>,
    /// The organization of its code: userinfo claims it only while the person is still an
    /// active member of it (else the token is refused).
    pub org_id: Option<String>,
    pub created_at: i64,
}

impl AccessToken {
    pub fn from_item(item: &Item) -> AccessToken {
        AccessToken {
            key: item.key.clone(),
            user_id: item.s("userId").unwrap_or_default().to_owned(),
            app_id: item.s("appId").unwrap_or_default().to_owned(),
            scopes: item.strings("scopes"),
            gen: item.n("gen"),
            org_id: item.s("orgId").map(str::to_owned),
            created_at: item.n("createdAt").unwrap_or(0),
        }
    }

    pub fn to_item(&self) -> Item {
        Item::new(self.key.clone())
            .with("userId", self.user_id.as_str())
            .with("appId", self.app_id.as_str())
            .with("scopes", Value::strings(&self.scopes))
            .with_opt("gen", self.gen)
            .with_opt("orgId", self.org_id.as_deref())
            .with("createdAt", self.created_at)
            .expires(self.created_at + TOKEN_SECS)
    }
}
