//! An organization's own sign-in connections (issue 35 item 4; docs/organizations-connections.md
//! §1, the first step of its §8): the items, the settings each protocol needs, the secret sealed
//! at rest, and the status a connection goes through before it may route anybody.
//!
//! - `ORG#<orgId>` / `CONN#<connId>`: the connection (protocol, names, settings, the sealed
//!   secret, just-in-time rule, status); the organization's list is one query of its `CONN#`
//!   prefix;
//! - `CONN#<connId>` / `CONN`: the look-up of a connection by its id alone (the sign-in's start
//!   and callback know only the id): orgId and protocol, written and deleted in the same
//!   transaction as the connection.
//!
//! A connection's routings (the verified domains that send their people to it) are on the domain
//! items (`crate::domains::claims`), written by [`routing`]; turning a connection off or
//! deleting it removes them in the same transaction. `rev` counts the routings written to it, so
//! such a change, which read the routed domains first, fails rather than leave one behind.
//!
//! The secret is sealed with [`crate::sealed`] under the label [`SEAL_LABEL`], bound to the
//! connection's id: a sealed value copied to another connection does not open. It is never
//! returned; an admin replaces it whole.

use super::{org_pk, OrgId};
use crate::error::{Error, Result};
use crate::{Ciam, Reason};
use ciam_store::{Item, Key, Value};
use serde::Serialize;
use std::collections::BTreeMap;

/// The label the secrets are sealed under.
pub const SEAL_LABEL: &str = "org-connection";
/// The most connections of one organization.
pub const MAX_CONNECTIONS: usize = 10;
/// The longest secret, in bytes.
pub const SECRET_MAX: usize = 512;

/// A connection's id: `conn_` and 16 lower-case hex characters (64 random bits).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct ConnId(String);

impl ConnId {
    pub fn new(ciam: &Ciam) -> ConnId {
        ConnId(super::random_id(ciam, "conn_"))
    }

    /// The id in `raw` if it has the shape of one (nothing else is looked up).
    pub fn parse(raw: &str) -> Option<ConnId> {
        super::has_id_shape(raw, "conn_").then(|| ConnId(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// How a value of a setting is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An issuer: `https://host[/path]`, or `http://` on a loopback host (tests, `ciam serve`);
    /// no query, no fragment, at most 300 characters.
    Issuer,
    /// A platform's id: 1 to 128 of `A-Z a-z 0-9 _ . : -`.
    Id,
    /// OAuth scopes: space-separated tokens, at most 200 characters.
    Scopes,
    /// Feishu's region: `feishu` or `lark`.
    Region,
    /// A number the platform assigned (WeCom's AgentID): 1 to 20 digits.
    Number,
}

/// One setting of a protocol.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub required: bool,
    pub kind: Kind,
}

const fn req(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        required: true,
        kind,
    }
}

const fn opt(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        required: false,
        kind,
    }
}

macro_rules! protocols {
    ($( $(#[$doc:meta])* $v:ident = $s:literal [ $( $field:expr ),* ]; )*) => {
        /// The protocol a connection speaks (the adapters of `functions/api/src/federation`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
        #[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
        #[cfg_attr(feature = "openapi", schemars(rename = "OrgConnectionProtocol"))]
        #[serde(rename_all = "camelCase")]
        pub enum Protocol { $( $(#[$doc])* $v, )* }

        impl Protocol {
            pub const ALL: &'static [Protocol] = &[ $( Protocol::$v, )* ];

            pub const fn as_str(self) -> &'static str {
                match self { $( Protocol::$v => $s, )* }
            }

            /// The settings it takes.
            pub const fn fields(self) -> &'static [Field] {
                match self { $( Protocol::$v => { const F: &[Field] = &[ $( $field ),* ]; F } )* }
            }

            /// INVALID_PARAMETER on `protocol` for anything else.
            pub fn parse(s: &str) -> Result<Protocol> {
                match s {
                    $( $s => Ok(Protocol::$v), )*
                    _ => Err(Error::field(
                        Reason::INVALID_PARAMETER,
                        "protocol",
                        concat!("可选值：", $( $s, " " ),*),
                        concat!("One of: ", $( $s, " " ),*),
                    )),
                }
            }
        }
    };
}

protocols! {
    /// OpenID Connect (Entra ID, Okta, Google Workspace, Keycloak, Authing, ADFS...).
    Oidc = "oidc" [req("issuer", Kind::Issuer), req("clientId", Kind::Id), opt("scopes", Kind::Scopes), opt("mfaAcr", Kind::Id)];
    /// WeCom (企业微信), a self-built app of the company's corp.
    Wecom = "wecom" [req("corpId", Kind::Id), req("agentId", Kind::Number)];
    /// DingTalk (钉钉): the app and the company's corpId it is pinned to.
    Dingtalk = "dingtalk" [req("clientId", Kind::Id), req("corpId", Kind::Id)];
    /// Feishu (飞书) / Lark: the app and the company's tenant it is pinned to.
    Feishu = "feishu" [req("appId", Kind::Id), req("tenantKey", Kind::Id), opt("region", Kind::Region)];
}

/// Who may come in through a connection (§0.7 of the design).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "OrgConnectionJit"))]
#[serde(rename_all = "camelCase")]
pub enum Jit {
    /// Only people who are members already.
    Off,
    /// Anybody the connection vouches for becomes a member (the default role).
    Join,
}

/// Where a connection stands (§0.8): only a tested connection can be turned on, and only an
/// `on` one routes anybody.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "OrgConnectionStatus"))]
#[serde(rename_all = "camelCase")]
pub enum Status {
    Draft,
    Tested,
    On,
}

macro_rules! names {
    ($t:ty, $field:literal { $( $v:ident = $s:literal ),* }) => {
        impl $t {
            pub fn as_str(self) -> &'static str {
                match self { $( Self::$v => $s, )* }
            }
            /// INVALID_PARAMETER on the field for anything else.
            pub fn parse(s: &str) -> Result<Self> {
                match s {
                    $( $s => Ok(Self::$v), )*
                    _ => Err(Error::field(
                        Reason::INVALID_PARAMETER,
                        $field,
                        concat!("可选值：", $( $s, " " ),*),
                        concat!("One of: ", $( $s, " " ),*),
                    )),
                }
            }
        }
    };
}
names!(Jit, "jit" { Off = "off", Join = "join" });
names!(Status, "status" { Draft = "draft", Tested = "tested", On = "on" });

/// A connection as stored (the secret sealed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Connection {
    pub conn_id: ConnId,
    pub org_id: OrgId,
    pub protocol: Protocol,
    pub name_zh: String,
    pub name_en: String,
    pub settings: BTreeMap<String, String>,
    pub secret: Vec<u8>,
    pub jit: Jit,
    pub status: Status,
    pub tested_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
    /// How many routings were written to it (see the module's doc).
    pub rev: i64,
}

/// What an admin sees of a connection: everything but the secret.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "OrgConnection"))]
#[serde(rename_all = "camelCase")]
pub struct View {
    /// `conn_` and 16 hex characters.
    #[cfg_attr(feature = "openapi", schemars(with = "String"))]
    pub conn_id: ConnId,
    pub protocol: Protocol,
    pub name_zh: String,
    pub name_en: String,
    /// The protocol's public settings (oidc: issuer, clientId, scopes?, mfaAcr?; wecom: corpId,
    /// agentId; dingtalk: clientId, corpId; feishu: appId, tenantKey, region?).
    pub settings: BTreeMap<String, String>,
    /// `off`: members only; `join`: anybody it vouches for becomes a member.
    pub jit: Jit,
    /// `draft`, `tested` (a test sign-in passed) or `on` (domains may route to it).
    pub status: Status,
    /// When its last test passed (Unix seconds); none when never, or when its settings or
    /// secret changed since.
    pub tested_at: Option<i64>,
    /// Unix seconds.
    pub created_at: i64,
    /// Unix seconds.
    pub updated_at: i64,
    /// Whether a secret is set (the secret itself is never returned).
    pub has_secret: bool,
    /// The redirect URI to register at the identity provider (the same for every connection).
    pub redirect_uri: String,
}

/// The redirect URI of every connection: `<public url>/ciam/v1/auth/org/callback`.
pub fn redirect_uri(ciam: &Ciam) -> String {
    format!("{}/ciam/v1/auth/org/callback", ciam.config.public_url)
}

pub fn conn_key(org: &OrgId, conn: &ConnId) -> Key {
    Key::new(org_pk(org), format!("CONN#{}", conn.as_str()))
}

pub fn lookup_key(conn: &ConnId) -> Key {
    Key::new(format!("CONN#{}", conn.as_str()), "CONN")
}

impl Connection {
    pub fn view(&self, ciam: &Ciam) -> View {
        View {
            conn_id: self.conn_id.clone(),
            protocol: self.protocol,
            name_zh: self.name_zh.clone(),
            name_en: self.name_en.clone(),
            settings: self.settings.clone(),
            jit: self.jit,
            status: self.status,
            tested_at: self.tested_at,
            created_at: self.created_at,
            updated_at: self.updated_at,
            has_secret: !self.secret.is_empty(),
            redirect_uri: redirect_uri(ciam),
        }
    }

    pub fn to_item(&self) -> Item {
        let settings = self
            .settings
            .iter()
            .map(|(k, v)| (k.clone(), Value::S(v.clone())))
            .collect();
        Item::new(conn_key(&self.org_id, &self.conn_id))
            .with("connId", self.conn_id.as_str())
            .with("orgId", self.org_id.as_str())
            .with("protocol", self.protocol.as_str())
            .with("nameZh", self.name_zh.as_str())
            .with("nameEn", self.name_en.as_str())
            .with("settings", Value::M(settings))
            .with("secret", Value::B(self.secret.clone()))
            .with("jit", self.jit.as_str())
            .with("status", self.status.as_str())
            .with_opt("testedAt", self.tested_at)
            .with("createdAt", self.created_at)
            .with("updatedAt", self.updated_at)
            .with("rev", self.rev)
    }

    pub fn from_item(item: &Item) -> Option<Connection> {
        let settings = match item.attrs.get("settings") {
            Some(Value::M(m)) => m
                .iter()
                .filter_map(|(k, v)| match v {
                    Value::S(s) => Some((k.clone(), s.clone())),
                    _ => None,
                })
                .collect(),
            _ => BTreeMap::new(),
        };
        Some(Connection {
            conn_id: ConnId::parse(item.s("connId")?)?,
            org_id: OrgId::parse(item.s("orgId")?)?,
            protocol: Protocol::parse(item.s("protocol")?).ok()?,
            name_zh: item.s("nameZh").unwrap_or_default().to_owned(),
            name_en: item.s("nameEn").unwrap_or_default().to_owned(),
            settings,
            secret: item.b("secret")?.to_vec(),
            jit: item.s("jit").and_then(|s| Jit::parse(s).ok())?,
            status: item.s("status").and_then(|s| Status::parse(s).ok())?,
            tested_at: item.n("testedAt"),
            created_at: item.n("createdAt").unwrap_or(0),
            updated_at: item.n("updatedAt").unwrap_or(0),
            rev: item.n("rev").unwrap_or(0),
        })
    }

    fn lookup_item(&self) -> Item {
        Item::new(lookup_key(&self.conn_id))
            .with("orgId", self.org_id.as_str())
            .with("protocol", self.protocol.as_str())
    }

    /// The secret in the clear, for the callback that exchanges a code. Opens under the current
    /// root, else the previous one during a rotation's overlap.
    pub fn open_secret(&self, ciam: &Ciam) -> Result<String> {
        let aad = self.conn_id.as_str();
        let plain = match crate::sealed::open(&ciam.keys, SEAL_LABEL, aad, &self.secret)? {
            Some(p) => p,
            None => ciam
                .keys
                .previous()
                .map(|prev| crate::sealed::open(prev, SEAL_LABEL, aad, &self.secret))
                .transpose()?
                .flatten()
                .ok_or_else(|| Error::internal("a connection's secret does not open"))?,
        };
        String::from_utf8(plain).map_err(Error::internal)
    }
}

pub mod actions;

mod check;
pub use check::{check_secret, check_settings};

mod ops;
pub use ops::{create, delete, find, get, list, record_test, set_on, NewConnection};

mod update;
pub use update::{update, Patch};

pub mod routing;

#[cfg(test)]
mod tests;
