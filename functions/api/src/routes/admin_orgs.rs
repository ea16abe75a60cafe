//! Organizations in the console (docs/organizations-design.md): any console role reads them (the
//! list, the requests, one organization with its members, its audit slice, suggestions from the
//! free-text companies); operators create, approve or refuse requests, change names, settings
//! and status, and manage members and invitations as an owner would, each with a reason, in the
//! console's audit log and the organization's slice.

use super::org::parse_role;
use crate::error::ApiError;
use crate::extract::{Facts, Json, Op, Params};
use crate::reply::{done, Created, Done, Reply};
use crate::AppState;
use axum::extract::{Path, State};
use ciam_core::console::audit::AuditAction;
use ciam_core::org::manage::{self, Change, Listed, Suggestion};
use ciam_core::org::requests::{self, Request};
use ciam_core::org::{self, access, audit, invitations, members, Membership, NewOrg};
use ciam_core::org::{Organization, Status};
use ciam_core::Error;
use serde::{Deserialize, Serialize};

/// A page of organizations.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct OrgList {
    /// Newest first, 50 a page (the last one's `cursor` is the next page's).
    organizations: Vec<Listed>,
}

/// List organizations
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Every organization,
/// newest first, 50 a page (`cursor`: the last one's of the previous page): one query, never a
/// scan.
///
/// Reasons: none.
///
/// `?cursor=`. Round trips: 2 (authentication, one query).
pub async fn list(
    Op(_): Op,
    State(s): State<AppState>,
    Params(q): Params,
) -> Result<Reply<OrgList>, ApiError> {
    let organizations = manage::list(s.ciam.store.as_ref(), q.get("cursor").map(String::as_str))
        .await
        .map_err(Error::from)?;
    Ok(Reply(OrgList { organizations }))
}

/// The pending requests.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct RequestList {
    /// Oldest first, 50 a page.
    requests: Vec<Request>,
}

/// List organization requests
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). The organizations
/// customers asked for and no operator has decided on yet, oldest first: one query.
///
/// Reasons: none.
///
/// Round trips: 2 (authentication, one query).
pub async fn requests(
    Op(_): Op,
    State(s): State<AppState>,
) -> Result<Reply<RequestList>, ApiError> {
    let requests = requests::pending(s.ciam.store.as_ref(), None)
        .await
        .map_err(Error::from)?;
    Ok(Reply(RequestList { requests }))
}

/// Company names on accounts.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct Suggestions {
    /// Most accounts first.
    companies: Vec<Suggestion>,
}

/// Suggest organizations from companies
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). The company names
/// that accounts wrote at sign-up starting with `q` (case and width ignored), each with its
/// number of accounts, most first: candidates for organizations. Nothing is merged. One query of
/// the company directory (at most 1,000 accounts read). An empty `q`: INVALID_PARAMETER.
///
/// Reasons: INVALID_PARAMETER.
///
/// `?q=`. Round trips: 2 (authentication, one query).
pub async fn suggestions(
    Op(_): Op,
    State(s): State<AppState>,
    Params(q): Params,
) -> Result<Reply<Suggestions>, ApiError> {
    let prefix = q.get("q").map(String::as_str).unwrap_or_default();
    let companies = manage::suggestions(s.ciam.store.as_ref(), prefix).await?;
    Ok(Reply(Suggestions { companies }))
}

/// A new organization.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateBody {
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
    /// The Chinese name (or give only `nameEn`).
    name_zh: Option<String>,
    /// The English name (or give only `nameZh`).
    name_en: Option<String>,
    /// The first owner's user id (none: the organization starts without members; invite one).
    owner_id: Option<String>,
}

/// Create an organization
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Creates an active organization,
/// with `ownerId` as its owner when given (ACCOUNT_NOT_FOUND for an unknown or deactivated
/// account). Names as for a customer's request (INVALID_PARAMETER). Recorded in the audit log
/// (`org.create`) with the reason given (required, at most 500 characters: INVALID_PARAMETER on
/// `reason`).
///
/// Reasons: ACCOUNT_NOT_FOUND.
///
/// Round trips: 3 (authentication, the owner's account, one transaction).
pub async fn create(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Json(b): Json<CreateBody>,
) -> Result<Created<Organization>, ApiError> {
    // The console's entry names the organization: its id is chosen first.
    let id = org::OrgId::new(&s.ciam);
    let caller = access::operator(&s.ciam, &op, &id, AuditAction::OrgCreate, &b.reason, &facts)?;
    let (name_zh, name_en) = NewOrg::names(b.name_zh.as_deref(), b.name_en.as_deref())?;
    if let Some(owner) = &b.owner_id {
        ciam_core::user::active_user(&s.ciam, owner)
            .await
            .map_err(Error::from)?
            .ok_or(ciam_core::Reason::ACCOUNT_NOT_FOUND)?;
    }
    let new = NewOrg {
        name_zh,
        name_en,
        status: Status::Active,
        owner: b.owner_id,
        by: op.user.id.clone(),
        by_role: op.role.as_str().to_owned(),
        reason: caller.reason.clone(),
    };
    Ok(Reply(
        org::create_with_id(&s.ciam, id, new, caller.extra).await?,
    ))
}

/// An organization in the console.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct OrgDetail {
    organization: Organization,
    /// A page of members (50, by user id; `after`: the last user id of the previous page).
    members: Vec<Membership>,
    invitations: Vec<invitations::Invitation>,
    /// The newest entries of its audit slice (50).
    audit: Vec<audit::Entry>,
}

/// Get an organization
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). The organization, a
/// page of its members (`after`), its invitations and the newest entries of its audit slice.
/// ORG_NOT_FOUND for an unknown id.
///
/// Reasons: ORG_NOT_FOUND.
///
/// `?after=`. Round trips: 3 (authentication, the organization, three queries side by side).
pub async fn get(
    Op(_): Op,
    State(s): State<AppState>,
    Path(org_id): Path<String>,
    Params(q): Params,
) -> Result<Reply<OrgDetail>, ApiError> {
    let id = access::parse_id(&org_id)?;
    let o = access::for_operator(&s.ciam, &id).await?;
    let store = s.ciam.store.as_ref();
    let (ms, invs, log) = tokio::join!(
        members::page(store, &id, q.get("after").map(String::as_str)),
        invitations::page(store, &id),
        audit::page(store, &id, None)
    );
    Ok(Reply(OrgDetail {
        organization: o,
        members: ms.map_err(Error::from)?,
        invitations: invs.map_err(Error::from)?,
        audit: log.map_err(Error::from)?,
    }))
}

/// An operator's decision or change, with its reason.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ChangeBody {
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
    name_zh: Option<String>,
    name_en: Option<String>,
    /// Members must have a second factor.
    mfa_required: Option<bool>,
    /// The sign-in methods members may use (empty: all).
    allowed_methods: Option<Vec<String>>,
    /// The role an invitation gives when it names none.
    default_role: Option<String>,
    /// The apps that hear the organization's events.
    event_apps: Option<Vec<String>>,
    /// `active` (reactivate) or `suspended` (suspend).
    status: Option<String>,
}

/// Change an organization
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Changes the names, settings or
/// status (`suspended`: nothing can be managed or joined; `active`: reactivated) of an approved
/// organization (a request: ORG_NOT_ACTIVE; a suspended one only reactivated). Recorded in the
/// audit log (`org.update`) with the reason given (required, at most 500 characters:
/// INVALID_PARAMETER on `reason`). `allowedMethods` holds names of `org::policy::METHODS`
/// (`password`, `code`, `passkey`, `wechat`, `wecom`, `dingtalk`, `feishu`, `organization`; any
/// other: INVALID_PARAMETER on `allowedMethods`), stored once each. ORG_NOT_FOUND for an
/// unknown id.
///
/// Reasons: ORG_NOT_ACTIVE, ORG_NOT_FOUND.
///
/// Round trips: 3 (authentication, the organization, one transaction).
pub async fn patch(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(org_id): Path<String>,
    Json(b): Json<ChangeBody>,
) -> Result<Reply<Organization>, ApiError> {
    let id = access::parse_id(&org_id)?;
    let caller = access::operator(&s.ciam, &op, &id, AuditAction::OrgUpdate, &b.reason, &facts)?;
    let names = match (&b.name_zh, &b.name_en) {
        (None, None) => None,
        _ => Some(NewOrg::names(b.name_zh.as_deref(), b.name_en.as_deref())?),
    };
    let status = match b.status.as_deref() {
        None => None,
        Some("active") => Some(Status::Active),
        Some("suspended") => Some(Status::Suspended),
        Some(_) => {
            return Err(Error::field(
                ciam_core::Reason::INVALID_PARAMETER,
                "status",
                "状态应为 active 或 suspended",
                "The status is active or suspended",
            )
            .into())
        }
    };
    let change = Change {
        names,
        mfa_required: b.mfa_required,
        allowed_methods: b.allowed_methods,
        default_role: parse_role(b.default_role.as_deref())?,
        event_apps: b.event_apps,
        status,
    };
    let o = access::for_operator(&s.ciam, &id).await?;
    Ok(Reply(manage::update(&s.ciam, &caller, &o, change).await?))
}

/// The operator's reason.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReasonBody {
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    pub(super) reason: String,
}

/// Approve an organization request
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). The requested organization becomes
/// active and the customer who asked for it its owner. Not a request (any more): ORG_NOT_ACTIVE.
/// Recorded in the audit log (`org.approve`) with the reason given (required, at most 500
/// characters: INVALID_PARAMETER on `reason`). ORG_NOT_FOUND for an unknown id.
///
/// Reasons: ORG_NOT_ACTIVE, ORG_NOT_FOUND.
///
/// Round trips: 3 (authentication, the organization, one transaction).
pub async fn approve(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(org_id): Path<String>,
    Json(b): Json<ReasonBody>,
) -> Result<Reply<Organization>, ApiError> {
    let id = access::parse_id(&org_id)?;
    let caller = access::operator(
        &s.ciam,
        &op,
        &id,
        AuditAction::OrgApprove,
        &b.reason,
        &facts,
    )?;
    let o = access::for_operator(&s.ciam, &id).await?;
    Ok(Reply(requests::approve(&s.ciam, &caller, &o).await?))
}

/// Refuse an organization request
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). The request is deleted. Not a
/// request (any more): ORG_NOT_ACTIVE. Recorded in the audit log (`org.refuse`) with the reason
/// given (required, at most 500 characters: INVALID_PARAMETER on `reason`). ORG_NOT_FOUND for an
/// unknown id.
///
/// Reasons: ORG_NOT_ACTIVE, ORG_NOT_FOUND.
///
/// Round trips: 3 (authentication, the organization, one transaction).
pub async fn refuse(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(org_id): Path<String>,
    Json(b): Json<ReasonBody>,
) -> Result<Reply<Done>, ApiError> {
    let id = access::parse_id(&org_id)?;
    let caller = access::operator(&s.ciam, &op, &id, AuditAction::OrgRefuse, &b.reason, &facts)?;
    let o = access::for_operator(&s.ciam, &id).await?;
    requests::refuse(&s.ciam, &caller, &o).await?;
    Ok(done())
}

/// The reason checked before the rest of the body (a missing one is the first thing said).
pub(super) fn reason_first(reason: &str) -> Result<(), ApiError> {
    ciam_core::org::access::check_reason(reason)?;
    Ok(())
}
