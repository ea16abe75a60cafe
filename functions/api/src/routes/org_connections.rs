//! "My company": the organization's own sign-in connections (docs/organizations-connections.md
//! §2), managed by its owners and admins (a member: ORG_ROLE_FORBIDDEN; anyone else:
//! ORG_NOT_FOUND, as for the organization's other routes), and the routing of its verified
//! domains to them. Turning a connection on or off is the `on` field of its PATCH. The rules are
//! `ciam_core::org::connections`' (one function per change taking the caller,
//! `connections::actions`: the console's twins in admin_org_connections.rs call the same ones).

use crate::error::ApiError;
use crate::extract::{Authed, Json};
use crate::reply::{done, Created, Done, Reply};
use crate::AppState;
use axum::extract::{Path, State};
use ciam_core::domains::manage::{self, DomainView};
use ciam_core::org::access;
use ciam_core::org::connections::{self, actions, routing, NewConnection, Patch, View};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The organization's connections.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "OrgConnections"))]
pub struct Connections {
    /// By id (at most 10).
    pub connections: Vec<View>,
}

/// A connection to add.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateBody {
    /// `oidc`, `wecom`, `dingtalk` or `feishu`.
    pub protocol: String,
    /// Its name in Chinese (the English one when absent).
    #[cfg_attr(feature = "openapi", schemars(length(max = 100)))]
    pub name_zh: Option<String>,
    /// Its name in English (the Chinese one when absent).
    #[cfg_attr(feature = "openapi", schemars(length(max = 100)))]
    pub name_en: Option<String>,
    /// The protocol's settings (oidc: issuer, clientId, scopes?, mfaAcr?; wecom: corpId,
    /// agentId; dingtalk: clientId, corpId; feishu: appId, tenantKey, region?).
    pub settings: BTreeMap<String, String>,
    /// The client (or corp, or app) secret: write-only, sealed, never returned.
    #[cfg_attr(feature = "openapi", schemars(length(max = 512)))]
    pub secret: String,
    /// `off` (the default: members only) or `join`.
    pub jit: Option<String>,
}

impl From<CreateBody> for NewConnection {
    fn from(b: CreateBody) -> NewConnection {
        NewConnection {
            protocol: b.protocol,
            name_zh: b.name_zh,
            name_en: b.name_en,
            settings: b.settings,
            secret: b.secret,
            jit: b.jit,
        }
    }
}

/// A change to a connection: each field absent is left as it is.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PatchBody {
    #[cfg_attr(feature = "openapi", schemars(length(max = 100)))]
    pub name_zh: Option<String>,
    #[cfg_attr(feature = "openapi", schemars(length(max = 100)))]
    pub name_en: Option<String>,
    /// The protocol's settings, replaced whole.
    pub settings: Option<BTreeMap<String, String>>,
    /// A new secret, replacing the old one (write-only).
    #[cfg_attr(feature = "openapi", schemars(length(max = 512)))]
    pub secret: Option<String>,
    /// `off` or `join`.
    pub jit: Option<String>,
    /// true: turn it on (it must be `tested`); false: turn it off.
    pub on: Option<bool>,
}

impl From<PatchBody> for Patch {
    fn from(b: PatchBody) -> Patch {
        Patch {
            name_zh: b.name_zh,
            name_en: b.name_en,
            settings: b.settings,
            secret: b.secret,
            jit: b.jit,
            on: b.on,
        }
    }
}

/// A string, or null (request bodies leave `null` out of an `Option`'s schema).
#[cfg(feature = "openapi")]
pub(crate) fn string_or_null(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": ["string", "null"], "maxLength": 21 })
}

/// A domain's routing.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SignInBody {
    /// The connection its people sign in through (one of the organization's, `on`); null: none.
    #[cfg_attr(
        feature = "openapi",
        schemars(required, schema_with = "string_or_null")
    )]
    pub conn_id: Option<String>,
    /// "Must use company sign-in": its addresses may not sign in by password or mail code.
    #[serde(default)]
    pub required: bool,
}

/// The organization's sign-in connections
///
/// Every connection the organization set up, with its protocol, names, public settings,
/// just-in-time rule, status (`draft`, `tested`, `on`), whether a secret is set (never the
/// secret) and the redirect URI to register at the identity provider. An admin's or owner's
/// only (ORG_ROLE_FORBIDDEN); ORG_NOT_FOUND for anyone not a member.
///
/// Reasons: ORG_NOT_FOUND, ORG_ROLE_FORBIDDEN.
///
/// Round trips: 3 (authentication, the organization with the caller's membership, one query).
pub async fn list(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path(org_id): Path<String>,
) -> Result<Reply<Connections>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    manage::may_read(&caller)?;
    let all = connections::list(s.ciam.store.as_ref(), &o.org_id)
        .await
        .map_err(ciam_core::Error::from)?;
    Ok(Reply(Connections {
        connections: all.iter().map(|c| c.view(&s.ciam)).collect(),
    }))
}

/// Add a sign-in connection
///
/// An admin or owner adds a connection of one protocol (`oidc`, `wecom`, `dingtalk`, `feishu`)
/// with its settings and secret, a `draft` until a test sign-in passes. Refused with the field
/// named (INVALID_PARAMETER): an unknown protocol, a setting missing, unknown or malformed (an
/// issuer must be https), a secret that is not 1 to 512 visible characters, an 11th connection
/// (`connections`). Recorded in the organization's audit log (`connection.create`).
///
/// Reasons: ORG_NOT_ACTIVE, ORG_NOT_FOUND, ORG_ROLE_FORBIDDEN.
///
/// Round trips: 4 (authentication, the organization with the caller's membership, its
/// connections, one transaction).
pub async fn create(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path(org_id): Path<String>,
    Json(b): Json<CreateBody>,
) -> Result<Created<View>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    let c = actions::add(&s.ciam, &caller, &o, b.into()).await?;
    Ok(Reply(c.view(&s.ciam)))
}

/// A sign-in connection of the organization
///
/// One connection, as in the list (never its secret). An admin's or owner's only
/// (ORG_ROLE_FORBIDDEN); CONNECTION_NOT_FOUND when the organization has no such connection.
///
/// Reasons: CONNECTION_NOT_FOUND, ORG_NOT_FOUND, ORG_ROLE_FORBIDDEN.
///
/// Round trips: 3 (authentication, the organization with the caller's membership, the
/// connection).
pub async fn get(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path((org_id, conn_id)): Path<(String, String)>,
) -> Result<Reply<View>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    manage::may_read(&caller)?;
    let c = routing::connection_of(s.ciam.store.as_ref(), &o.org_id, &conn_id).await?;
    Ok(Reply(c.view(&s.ciam)))
}

/// Change a sign-in connection
///
/// An admin or owner changes its names, settings (replaced whole, checked as at creation),
/// secret (replaced whole), just-in-time rule, or turns it on (`on: true`: only a `tested`
/// connection, else INVALID_PARAMETER on `on`) or off (`on: false`: every domain routed to it
/// loses its routing, in the same transaction). A new setting or secret is not what the last
/// test proved: a `tested` connection goes back to `draft`; an `on` one stays on (its people keep
/// signing in during a secret's rotation) and loses `testedAt`. Refused: CONNECTION_CHANGED when
/// it changed meanwhile (reload, try again). Recorded in the organization's audit log
/// (`connection.update` naming the fields, `connection.status`).
///
/// Reasons: CONNECTION_CHANGED, CONNECTION_NOT_FOUND, ORG_NOT_ACTIVE, ORG_NOT_FOUND,
/// ORG_ROLE_FORBIDDEN.
///
/// Round trips: 4 (authentication, the organization with the caller's membership, the
/// connection, one transaction); 5 turning it off (its routed domains first).
pub async fn update(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path((org_id, conn_id)): Path<(String, String)>,
    Json(b): Json<PatchBody>,
) -> Result<Reply<View>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    let c = actions::change(&s.ciam, &caller, &o, &conn_id, b.into()).await?;
    Ok(Reply(c.view(&s.ciam)))
}

/// Delete a sign-in connection
///
/// An admin or owner deletes a connection and its secret; every domain routed to it loses its
/// routing in the same transaction. The people who signed in through it keep their accounts and
/// memberships. Recorded in the organization's audit log (`connection.delete`).
///
/// Reasons: CONNECTION_CHANGED, CONNECTION_NOT_FOUND, ORG_NOT_ACTIVE, ORG_NOT_FOUND,
/// ORG_ROLE_FORBIDDEN.
///
/// Round trips: 5 (authentication, the organization with the caller's membership, the
/// connection, its routed domains, one transaction).
pub async fn delete(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path((org_id, conn_id)): Path<(String, String)>,
) -> Result<Reply<Done>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    actions::remove(&s.ciam, &caller, &o, &conn_id).await?;
    Ok(done())
}

/// Route a domain to a sign-in connection
///
/// An admin or owner sends the people of one of the organization's verified domains to one of
/// its connections that is `on` (`connId`), `required` or not ("must use company sign-in": their
/// password and mail-code sign-ins are refused), or clears it (`connId: null`). Refused: a domain
/// the organization has not claimed (DOMAIN_NOT_FOUND) or not verified (DOMAIN_NOT_VERIFIED), a
/// connection not the organization's (CONNECTION_NOT_FOUND) or not on (CONNECTION_NOT_ON).
/// Recorded in the organization's audit log (`domain.signIn`).
///
/// Reasons: CONNECTION_NOT_FOUND, CONNECTION_NOT_ON, DOMAIN_NOT_FOUND, DOMAIN_NOT_VERIFIED,
/// ORG_NOT_ACTIVE, ORG_NOT_FOUND, ORG_ROLE_FORBIDDEN.
///
/// Round trips: 4 (authentication, the organization with the caller's membership, the claim
/// with the connection, one transaction).
pub async fn set_sign_in(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path((org_id, domain)): Path<(String, String)>,
    Json(b): Json<SignInBody>,
) -> Result<Reply<DomainView>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    manage::may_change(&caller, &o)?;
    let domain = manage::path_domain(&domain)?;
    Ok(Reply(
        routing::set_sign_in(
            &s.ciam,
            &caller,
            &o,
            &domain,
            b.conn_id.as_deref(),
            b.required,
        )
        .await?,
    ))
}
