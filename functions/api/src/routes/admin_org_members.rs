//! An organization's members and invitations in the console (docs/organizations-design.md §2):
//! operators change a member's role or remove them, invite and revoke, as an owner would, each
//! with a reason, in the console's audit log and the organization's slice. The organizations
//! themselves are admin_orgs.rs's.

use super::admin_orgs::{reason_first, ReasonBody};
use super::org::parse_role;
use crate::error::ApiError;
use crate::extract::{Facts, Json, Lang, Op};
use crate::reply::{done, Created, Done, Reply};
use crate::AppState;
use axum::extract::{Path, State};
use ciam_core::console::audit::AuditAction;
use ciam_core::org::{access, invitations, members};
use ciam_core::validate::Identity;
use ciam_core::Error;
use serde::Deserialize;

/// An operator's change to a member: a new role, or `remove`.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MemberBody {
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
    /// `owner`, `admin` or `member`; absent with `remove`.
    role: Option<String>,
    /// true: remove the member.
    remove: Option<bool>,
}

/// Change or remove a member
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). As an owner would: a new `role`,
/// or `remove: true` (exactly one, INVALID_PARAMETER otherwise). The last owner is kept
/// (ORG_LAST_OWNER). Recorded in the audit log (`org.memberRole`, `org.memberRemove`) and the
/// organization's slice with the reason given (required, at most 500 characters).
///
/// Reasons: ORG_LAST_OWNER, ORG_MEMBER_NOT_FOUND, ORG_NOT_ACTIVE, ORG_NOT_FOUND.
///
/// Round trips: 4 (authentication, the organization, the member, one transaction).
pub async fn member(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path((org_id, user_id)): Path<(String, String)>,
    Json(b): Json<MemberBody>,
) -> Result<Reply<Done>, ApiError> {
    access::parse_id(&org_id)?;
    reason_first(&b.reason)?;
    let role = parse_role(b.role.as_deref())?;
    let action = match (role, b.remove) {
        (Some(_), None | Some(false)) => AuditAction::OrgMemberRole,
        (None, Some(true)) => AuditAction::OrgMemberRemove,
        _ => {
            return Err(Error::field(
                ciam_core::Reason::INVALID_PARAMETER,
                "role",
                "请给出新角色，或 remove: true",
                "Give a new role, or remove: true",
            )
            .into())
        }
    };
    let (o, caller) =
        access::operator_of(&s.ciam, &op, &org_id, action, &b.reason, None, &facts).await?;
    match role {
        Some(r) => {
            members::set_role(&s.ciam, &caller, &o, &user_id, r).await?;
        }
        None => members::remove(&s.ciam, &caller, &o, &user_id).await?,
    }
    Ok(done())
}

/// Whom an operator invites.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OpInviteBody {
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
    /// The mail or mainland phone number.
    #[cfg_attr(feature = "openapi", schemars(length(max = 254)))]
    to: String,
    /// `owner`, `admin` or `member`; the organization's default role when absent.
    role: Option<String>,
}

/// Invite into an organization
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). As an owner's invitation (any
/// role, e.g. the first owner of an organization created without one). Recorded in the audit log
/// (`org.invite`) and the organization's slice with the reason given (required, at most 500
/// characters).
///
/// Reasons: INVALID_MAIL, INVALID_PHONE, ORG_INVITATION_LIMIT, ORG_NOT_ACTIVE, ORG_NOT_FOUND.
///
/// Round trips: 4 (authentication, the organization, the live invitations, one transaction),
/// then the message.
pub async fn invite(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Lang(lang): Lang,
    Path(org_id): Path<String>,
    Json(b): Json<OpInviteBody>,
) -> Result<Created<invitations::Invitation>, ApiError> {
    let id = access::parse_id(&org_id)?;
    let caller = access::operator(&s.ciam, &op, &id, AuditAction::OrgInvite, &b.reason, &facts)?;
    let role = parse_role(b.role.as_deref())?;
    let to = Identity::parse(b.to.trim())?;
    let o = access::for_operator(&s.ciam, &id).await?;
    Ok(Reply(
        invitations::invite(&s.ciam, &caller, &o, to, role, lang).await?,
    ))
}

/// Revoke an organization's invitation
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). As an owner would: the pending
/// invitation can no longer be accepted (its link answers ORG_INVITATION_REVOKED); one that is not
/// pending (accepted, revoked, expired, unknown): ORG_INVITATION_NOT_FOUND. Recorded in the audit
/// log (`org.revokeInvitation`) and the organization's slice with the reason given (required, at
/// most 500 characters: INVALID_PARAMETER on `reason`). ORG_NOT_FOUND for an unknown id.
///
/// Reasons: ORG_INVITATION_NOT_FOUND, ORG_NOT_FOUND.
///
/// Round trips: 4 (authentication, the organization, the invitation, one transaction).
pub async fn revoke(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path((org_id, inv_id)): Path<(String, String)>,
    Json(b): Json<ReasonBody>,
) -> Result<Reply<Done>, ApiError> {
    let action = AuditAction::OrgRevokeInvitation;
    let (o, caller) =
        access::operator_of(&s.ciam, &op, &org_id, action, &b.reason, None, &facts).await?;
    invitations::revoke(&s.ciam, &caller, &o, &inv_id).await?;
    Ok(done())
}
