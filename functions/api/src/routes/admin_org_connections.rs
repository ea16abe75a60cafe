//! An organization's sign-in connections in the console (docs/organizations-connections.md §2):
//! any console role reads them; operators add, change, turn on or off and delete them, and route
//! the organization's verified domains to them, as an owner would, each with a reason, in the
//! console's audit log (`org.connection`; a domain's routing: `org.domain`) and the
//! organization's slice. The rules are `ciam_core::org::connections`', as for "My company"
//! (org_connections.rs): the same function per change, the caller an operator with a reason
//! (`access::operator_of`). The secret is write-only here too.

use super::org_connections::Connections;
use crate::error::ApiError;
use crate::extract::{Facts, Json, Op};
use crate::reply::{done, Created, Done, Reply};
use crate::AppState;
use axum::extract::{Path, State};
use ciam_core::console::audit::AuditAction;
use ciam_core::domains::manage::{self, DomainView};
use ciam_core::org::access;
use ciam_core::org::connections::{self, actions, routing, NewConnection, Patch, View};
use ciam_core::Error;
use serde::Deserialize;
use std::collections::BTreeMap;

/// An organization's sign-in connections
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Every connection of
/// the organization with its protocol, settings, status and redirect URI (never a secret).
/// ORG_NOT_FOUND for an unknown id.
///
/// Reasons: ORG_NOT_FOUND.
///
/// Round trips: 3 (authentication, the organization, one query).
pub async fn list(
    Op(_): Op,
    State(s): State<AppState>,
    Path(org_id): Path<String>,
) -> Result<Reply<Connections>, ApiError> {
    let id = access::parse_id(&org_id)?;
    access::for_operator(&s.ciam, &id).await?;
    let all = connections::list(s.ciam.store.as_ref(), &id)
        .await
        .map_err(Error::from)?;
    Ok(Reply(Connections {
        connections: all.iter().map(|c| c.view(&s.ciam)).collect(),
    }))
}

/// An organization's sign-in connection
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). One connection of
/// the organization (never its secret). ORG_NOT_FOUND for an unknown organization,
/// CONNECTION_NOT_FOUND for a connection it does not have.
///
/// Reasons: CONNECTION_NOT_FOUND, ORG_NOT_FOUND.
///
/// Round trips: 3 (authentication, the organization, the connection).
pub async fn get(
    Op(_): Op,
    State(s): State<AppState>,
    Path((org_id, conn_id)): Path<(String, String)>,
) -> Result<Reply<View>, ApiError> {
    let id = access::parse_id(&org_id)?;
    access::for_operator(&s.ciam, &id).await?;
    let c = routing::connection_of(s.ciam.store.as_ref(), &id, &conn_id).await?;
    Ok(Reply(c.view(&s.ciam)))
}

/// A connection an operator adds for the organization.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct OpCreateBody {
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
    /// `oidc`, `wecom`, `dingtalk` or `feishu`.
    protocol: String,
    #[cfg_attr(feature = "openapi", schemars(length(max = 100)))]
    name_zh: Option<String>,
    #[cfg_attr(feature = "openapi", schemars(length(max = 100)))]
    name_en: Option<String>,
    /// The protocol's settings.
    settings: BTreeMap<String, String>,
    /// The secret (write-only).
    #[cfg_attr(feature = "openapi", schemars(length(max = 512)))]
    secret: String,
    /// `off` (the default) or `join`.
    jit: Option<String>,
}

/// Add a sign-in connection to an organization
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). As an owner's, with the same
/// refusals (INVALID_PARAMETER naming the field; an 11th connection). Recorded in the audit log
/// (`org.connection`) and the organization's slice (`connection.create`) with the reason given
/// (required, at most 500 characters: INVALID_PARAMETER on `reason`).
///
/// Reasons: ORG_NOT_ACTIVE, ORG_NOT_FOUND.
///
/// Round trips: 4 (authentication, the organization, its connections, one transaction).
pub async fn create(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(org_id): Path<String>,
    Json(b): Json<OpCreateBody>,
) -> Result<Created<View>, ApiError> {
    let detail = format!("connection.create {}", b.protocol);
    let action = AuditAction::OrgConnection;
    let (o, caller) =
        access::operator_of(&s.ciam, &op, &org_id, action, &b.reason, detail, &facts).await?;
    let new = NewConnection {
        protocol: b.protocol,
        name_zh: b.name_zh,
        name_en: b.name_en,
        settings: b.settings,
        secret: b.secret,
        jit: b.jit,
    };
    let c = actions::add(&s.ciam, &caller, &o, new).await?;
    Ok(Reply(c.view(&s.ciam)))
}

/// An operator's change to a connection: each field absent is left as it is.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct OpPatchBody {
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
    #[cfg_attr(feature = "openapi", schemars(length(max = 100)))]
    name_zh: Option<String>,
    #[cfg_attr(feature = "openapi", schemars(length(max = 100)))]
    name_en: Option<String>,
    /// The protocol's settings, replaced whole.
    settings: Option<BTreeMap<String, String>>,
    /// A new secret (write-only).
    #[cfg_attr(feature = "openapi", schemars(length(max = 512)))]
    secret: Option<String>,
    /// `off` or `join`.
    jit: Option<String>,
    /// true: turn it on (it must be `tested`); false: turn it off.
    on: Option<bool>,
}

/// Change an organization's sign-in connection
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). As an owner's change: names,
/// settings, secret, just-in-time rule, on or off, with the same rules (a new setting or secret
/// takes a `tested` connection back to `draft`; off removes its domains' routing). Recorded in
/// the audit log (`org.connection`) and the organization's slice (`connection.update`,
/// `connection.status`) with the reason given (required, at most 500 characters).
///
/// Reasons: CONNECTION_CHANGED, CONNECTION_NOT_FOUND, ORG_NOT_ACTIVE, ORG_NOT_FOUND.
///
/// Round trips: 4 (authentication, the organization, the connection, one transaction); 5
/// turning it off.
pub async fn update(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path((org_id, conn_id)): Path<(String, String)>,
    Json(b): Json<OpPatchBody>,
) -> Result<Reply<View>, ApiError> {
    let detail = format!("connection.update {conn_id}");
    let action = AuditAction::OrgConnection;
    let (o, caller) =
        access::operator_of(&s.ciam, &op, &org_id, action, &b.reason, detail, &facts).await?;
    let patch = Patch {
        name_zh: b.name_zh,
        name_en: b.name_en,
        settings: b.settings,
        secret: b.secret,
        jit: b.jit,
        on: b.on,
    };
    let c = actions::change(&s.ciam, &caller, &o, &conn_id, patch).await?;
    Ok(Reply(c.view(&s.ciam)))
}

/// The operator's reason.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OpConnReasonBody {
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
}

/// Delete an organization's sign-in connection
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). The connection and its secret go;
/// every domain routed to it loses its routing in the same transaction. Recorded in the audit log
/// (`org.connection`) and the organization's slice (`connection.delete`) with the reason given
/// (required, at most 500 characters).
///
/// Reasons: CONNECTION_CHANGED, CONNECTION_NOT_FOUND, ORG_NOT_ACTIVE, ORG_NOT_FOUND.
///
/// Round trips: 5 (authentication, the organization, the connection, its routed domains, one
/// transaction).
pub async fn delete(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path((org_id, conn_id)): Path<(String, String)>,
    Json(b): Json<OpConnReasonBody>,
) -> Result<Reply<Done>, ApiError> {
    let detail = format!("connection.delete {conn_id}");
    let action = AuditAction::OrgConnection;
    let (o, caller) =
        access::operator_of(&s.ciam, &op, &org_id, action, &b.reason, detail, &facts).await?;
    actions::remove(&s.ciam, &caller, &o, &conn_id).await?;
    Ok(done())
}

/// An operator's routing of a domain.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct OpSignInBody {
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
    /// One of the organization's connections that is `on`; null: none.
    #[cfg_attr(
        feature = "openapi",
        schemars(required, schema_with = "super::org_connections::string_or_null")
    )]
    conn_id: Option<String>,
    /// "Must use company sign-in".
    #[serde(default)]
    required: bool,
}

/// Route an organization's domain to a sign-in connection
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). As an owner would: a verified
/// domain (DOMAIN_NOT_VERIFIED) to a connection of the organization (CONNECTION_NOT_FOUND) that
/// is on (CONNECTION_NOT_ON), required or not, or none (`connId: null`). Recorded in the audit
/// log (`org.domain`) and the organization's slice (`domain.signIn`) with the reason given
/// (required, at most 500 characters).
///
/// Reasons: CONNECTION_NOT_FOUND, CONNECTION_NOT_ON, DOMAIN_NOT_FOUND, DOMAIN_NOT_VERIFIED,
/// ORG_NOT_ACTIVE, ORG_NOT_FOUND.
///
/// Round trips: 4 (authentication, the organization, the claim with the connection, one
/// transaction).
pub async fn set_sign_in(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path((org_id, domain)): Path<(String, String)>,
    Json(b): Json<OpSignInBody>,
) -> Result<Reply<DomainView>, ApiError> {
    let to = b.conn_id.as_deref().unwrap_or("none");
    let detail = format!("domain.signIn {domain} {to}");
    let action = AuditAction::OrgDomain;
    let (o, caller) =
        access::operator_of(&s.ciam, &op, &org_id, action, &b.reason, detail, &facts).await?;
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

/// An operator's test sign-in.
#[derive(serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OpTestBody {
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
}

/// Test an organization's sign-in connection
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). As an owner's test
/// (POST /org/{orgId}/connections/{connId}/test), with a reason (required, at most 500
/// characters) in the console's audit log (`org.connection`, the detail naming the test and the
/// connection): the identity provider's authorization URL; its way back signs nobody in and
/// records the outcome on the connection. ORG_NOT_FOUND for an unknown organization.
///
/// Reasons: CONNECTION_NOT_FOUND, ORG_NOT_ACTIVE, ORG_NOT_FOUND.
///
/// `POST /admin/organizations/{orgId}/connections/{connId}/test {reason}`. Round trips: 4
/// (authentication, the organization, the connection, the audit entry), 1 (the state), plus, for
/// OpenID Connect, the provider's discovery document when not cached.
pub async fn admin_test(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    crate::extract::Lang(lang): crate::extract::Lang,
    Path((org_id, conn_id)): Path<(String, String)>,
    Json(b): Json<OpTestBody>,
) -> Result<Reply<super::org_signin::TestStart>, ApiError> {
    let id = access::parse_id(&org_id)?;
    let reason = access::check_reason(&b.reason)?;
    let o = access::for_operator(&s.ciam, &id).await?;
    access::must_be_active(&o)?;
    let c = super::org_signin::connection(&s.ciam, &o, &conn_id).await?;
    ciam_core::console::audit::record(
        &s.ciam,
        &op,
        AuditAction::OrgConnection,
        id.as_str(),
        Some(&reason),
        Some(format!("connection.test {}", c.conn_id.as_str())),
        &facts,
    )
    .await?;
    Ok(Reply(super::org_signin::test_url(&s.ciam, &c, lang).await?))
}
