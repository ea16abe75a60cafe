//! The company's own sign-in, routed by verified domain (docs/organizations-connections.md §0.4):
//! which connection a typed mail goes through. Public; it reads the domain's owner item and the
//! connection's, never an account. The rules are `ciam_core::domains::sign_in`'s.

use crate::error::ApiError;
use crate::extract::Json;
use crate::reply::Reply;
use crate::AppState;
use axum::extract::State;
use ciam_core::domains::sign_in;
use serde::{Deserialize, Serialize};

/// A typed mail.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct DiscoverBody {
    /// The mail as typed on the sign-in page.
    #[cfg_attr(feature = "openapi", schemars(length(max = 320)))]
    pub mail: String,
}

/// A connection's names, one per language.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "ConnectionNames"))]
pub struct Names {
    #[serde(rename = "zh-CN")]
    pub zh_cn: String,
    #[serde(rename = "en-US")]
    pub en_us: String,
}

/// The connection a mail's domain is routed to.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct DiscoveredConnection {
    /// The connection's id: `GET /auth/org/start?connection=<id>` starts its sign-in.
    pub id: String,
    /// The company's name for its button ("Continue with <name>").
    pub name: Names,
    #[cfg_attr(
        feature = "openapi",
        schemars(extend("enum" = ["oidc", "wecom", "dingtalk", "feishu"]))
    )]
    pub protocol: &'static str,
}

/// The answer: both fields, or neither (`{}`: sign in as usual).
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct Discovery {
    /// The connection to offer, when the mail's domain is verified and routed to one that is
    /// on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connection: Option<DiscoveredConnection>,
    /// The company requires it: the password and code sign-ins of this address are refused
    /// (ORG_SIGN_IN_REQUIRED), so the page shows only the connection.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

/// The company sign-in of a typed mail
///
/// Asked by the sign-in page when a mail is typed: when the mail's domain is one an
/// organization verified and routes to one of its own sign-in connections that is on, the
/// connection (its id, names and protocol) and whether the company requires it; otherwise `{}`
/// (also for anything that is not a mail). A verified domain is public knowledge (it is in
/// DNS): the answer is the same whether or not the address has an account, and no account is
/// looked up. Counted per address with the captcha's requests (the `Captcha` WAF rule).
///
/// Reasons: none.
///
/// Round trips: 2 (the domain's owner item, then the connection's item); 1 when the domain is
/// not verified or not routed; 0 for a malformed mail or a free-mail or public domain.
pub async fn discover(
    State(s): State<AppState>,
    Json(b): Json<DiscoverBody>,
) -> Result<Reply<Discovery>, ApiError> {
    let found = sign_in::discover(s.ciam.store.as_ref(), &b.mail).await?;
    Ok(Reply(match found {
        Some(d) => Discovery {
            connection: Some(DiscoveredConnection {
                id: d.conn.as_str().to_owned(),
                name: Names {
                    zh_cn: d.name_zh,
                    en_us: d.name_en,
                },
                protocol: d.protocol.as_str(),
            }),
            required: Some(d.required),
        },
        None => Discovery {
            connection: None,
            required: None,
        },
    }))
}
