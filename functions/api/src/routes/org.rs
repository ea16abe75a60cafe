//! "My company": a signed-in person's organizations (docs/organizations-design.md). Members see
//! their organization; its admins and owners manage members and invitations and read its audit
//! slice; anyone may ask for a new organization and accept an invitation sent to them. A
//! non-member is answered ORG_NOT_FOUND, as for an organization that does not exist. Few rows
//! on purpose: each is a function in the main stack, whose resources are budgeted
//! (docs/operations.md §7).

use crate::error::ApiError;
use crate::extract::{Authed, Json, Lang, Params};
use crate::reply::{done, Created, Done, Reply};
use crate::AppState;
use axum::extract::{Path, State};
use ciam_core::org::{self, access, audit, invitations, members, requests, NewOrg};
use ciam_core::org::{Membership, Organization, Role};
use ciam_core::validate::Identity;
use ciam_core::{Error, Reason};
use serde::{Deserialize, Serialize};

/// An organization the person belongs to, with their role.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MyOrganization {
    organization: Organization,
    role: Role,
}

/// The person's organizations.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct MyOrganizations {
    organizations: Vec<MyOrganization>,
}

/// My organizations
///
/// Every organization the signed-in person belongs to (requested ones are not yet organizations:
/// they are not listed), with their role in each.
///
/// Reasons: none.
///
/// Round trips: 3 (authentication, the person's memberships, the organizations together).
pub async fn mine(
    State(s): State<AppState>,
    Authed(sess): Authed,
) -> Result<Reply<MyOrganizations>, ApiError> {
    let store = s.ciam.store.as_ref();
    let ms = org::memberships_of(store, &sess.user.id)
        .await
        .map_err(Error::from)?;
    let keys: Vec<_> = ms.iter().map(|m| org::org_key(&m.org_id)).collect();
    let orgs = if keys.is_empty() {
        Vec::new()
    } else {
        store.get_many(&keys).await.map_err(Error::from)?
    };
    let organizations = ms
        .iter()
        .zip(orgs)
        .filter_map(|(m, o)| {
            Some(MyOrganization {
                organization: Organization::from_item(&o?)?,
                role: m.role,
            })
        })
        .collect();
    Ok(Reply(MyOrganizations { organizations }))
}

/// The names of an organization asked for.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RequestBody {
    /// The Chinese name (or give only `nameEn`), at most 100 characters.
    name_zh: Option<String>,
    /// The English name (or give only `nameZh`), at most 100 characters.
    name_en: Option<String>,
}

/// Ask for an organization
///
/// The signed-in person asks Ciam for an organization for their company; an operator approves it
/// (the person becomes its owner) or refuses it in the console. At most 3 requests waiting per
/// person (ORG_REQUEST_LIMIT). Names: at least one of `nameZh`, `nameEn` (the other is the same),
/// plain text, at most 100 characters (INVALID_PARAMETER).
///
/// Reasons: ORG_REQUEST_LIMIT.
///
/// Round trips: 2 (authentication, one transaction).
pub async fn ask(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(b): Json<RequestBody>,
) -> Result<Created<Organization>, ApiError> {
    let names = NewOrg::names(b.name_zh.as_deref(), b.name_en.as_deref())?;
    Ok(Reply(requests::ask(&s.ciam, &sess.user, names).await?))
}

/// The invitation's token, from the link.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AcceptBody {
    /// The `token` of the invitation link.
    #[cfg_attr(feature = "openapi", schemars(length(max = 100)))]
    token: String,
}

/// Accept an invitation
///
/// The signed-in person joins the organization the invitation is for, with its role. Their
/// account must hold the invited mail or phone (ORG_INVITATION_NOT_YOURS): a forwarded link admits
/// nobody else. An unknown or expired (7 days) token: ORG_INVITATION_EXPIRED; revoked:
/// ORG_INVITATION_REVOKED; used already: ORG_INVITATION_USED (of two accepts at once, one wins; the
/// same person's accept sent again answers their membership); a member already:
/// ORG_ALREADY_MEMBER; the organization suspended: ORG_NOT_ACTIVE.
///
/// Reasons: ORG_ALREADY_MEMBER, ORG_INVITATION_EXPIRED, ORG_INVITATION_NOT_YOURS,
/// ORG_INVITATION_REVOKED, ORG_INVITATION_USED, ORG_NOT_ACTIVE.
///
/// Round trips: 4 (authentication, the invitation, the organization with the person's membership,
/// one transaction).
pub async fn accept(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(b): Json<AcceptBody>,
) -> Result<Reply<Membership>, ApiError> {
    Ok(Reply(
        invitations::accept(&s.ciam, &sess.user, b.token.trim()).await?,
    ))
}

/// An organization as its member sees it.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct OrgPage {
    organization: Organization,
    /// The caller's role.
    role: Role,
    /// A page of members (50, by user id): an admin's or owner's only (empty for a member).
    members: Vec<Membership>,
    /// When present, the `after` of the next page of members.
    next: Option<String>,
    /// Pending, used and revoked invitations not yet expired: an admin's or owner's only.
    invitations: Vec<invitations::Invitation>,
}

/// An organization, its members and invitations
///
/// The organization and the caller's role in it; for an admin or owner also a page of its members
/// (50, `after`: the last user id of the previous page) and its invitations. ORG_NOT_FOUND for an
/// unknown organization and for one the caller is no member of.
///
/// Reasons: ORG_NOT_FOUND.
///
/// `?after=`. Round trips: 3 (authentication, the organization with the caller's membership,
/// the members and invitations side by side).
pub async fn get(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path(org_id): Path<String>,
    Params(q): Params,
) -> Result<Reply<OrgPage>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    let store = s.ciam.store.as_ref();
    let (ms, invs) = if caller.rank.manages() {
        let (ms, invs) = tokio::join!(
            members::page(store, &o.org_id, q.get("after").map(String::as_str)),
            invitations::page(store, &o.org_id)
        );
        (ms.map_err(Error::from)?, invs.map_err(Error::from)?)
    } else {
        (Vec::new(), Vec::new())
    };
    let next = (ms.len() == members::PAGE)
        .then(|| ms.last().map(|m| m.user_id.clone()))
        .flatten();
    Ok(Reply(OrgPage {
        organization: o,
        role: caller.rank,
        members: ms,
        next,
        invitations: invs,
    }))
}

/// Whom to invite.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct InviteBody {
    /// The mail or mainland phone number to send the invitation to.
    #[cfg_attr(feature = "openapi", schemars(length(max = 254)))]
    to: String,
    /// `owner`, `admin` or `member`; the organization's default role when absent.
    role: Option<String>,
}

/// Invite a colleague
///
/// An admin or owner invites a mail or mainland phone number: Ciam sends a link, valid 7 days and
/// once, in the request's language; whoever accepts must hold that address. Admins invite admins
/// and members, owners anyone (ORG_ROLE_FORBIDDEN otherwise, and for a member). At most 50
/// invitations pending (ORG_INVITATION_LIMIT). The answer never says whether the address has an
/// account. A malformed address: INVALID_MAIL or INVALID_PHONE; an unknown role:
/// INVALID_PARAMETER.
///
/// Reasons: INVALID_MAIL, INVALID_PHONE, ORG_INVITATION_LIMIT, ORG_NOT_ACTIVE, ORG_NOT_FOUND,
/// ORG_ROLE_FORBIDDEN.
///
/// Round trips: 4 (authentication, the organization with the caller's membership, the live
/// invitations, one transaction), then the message.
pub async fn invite(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Lang(lang): Lang,
    Path(org_id): Path<String>,
    Json(b): Json<InviteBody>,
) -> Result<Created<invitations::Invitation>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    let role = parse_role(b.role.as_deref())?;
    let to = Identity::parse(b.to.trim())?;
    Ok(Reply(
        invitations::invite(&s.ciam, &caller, &o, to, role, lang).await?,
    ))
}

/// A role named in a body (`None` when absent), INVALID_PARAMETER on `role` when unknown.
pub fn parse_role(raw: Option<&str>) -> Result<Option<Role>, Error> {
    raw.map(|r| {
        Role::parse(r).ok_or_else(|| {
            Error::field(
                Reason::INVALID_PARAMETER,
                "role",
                "角色应为 owner、admin 或 member",
                "The role is owner, admin or member",
            )
        })
    })
    .transpose()
}

/// Revoke an invitation
///
/// An admin or owner withdraws a pending invitation: its link then answers ORG_INVITATION_REVOKED.
/// ORG_INVITATION_NOT_FOUND for an unknown, expired, used or revoked one.
///
/// Reasons: ORG_INVITATION_NOT_FOUND, ORG_NOT_FOUND, ORG_ROLE_FORBIDDEN.
///
/// Round trips: 4 (authentication, the organization with the caller's membership, the
/// invitation, one transaction).
pub async fn revoke(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path((org_id, inv_id)): Path<(String, String)>,
) -> Result<Reply<Done>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    invitations::revoke(&s.ciam, &caller, &o, &inv_id).await?;
    Ok(done())
}

/// The new role.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RoleBody {
    /// `owner`, `admin` or `member`.
    role: String,
}

/// Change a member's role
///
/// An owner changes anyone's role; an admin moves others between `admin` and `member`, never an
/// owner nor to owner; nobody changes their own (ORG_ROLE_FORBIDDEN). The last owner cannot be
/// demoted (ORG_LAST_OWNER). ORG_MEMBER_NOT_FOUND when the person is no member.
///
/// Reasons: ORG_LAST_OWNER, ORG_MEMBER_NOT_FOUND, ORG_NOT_ACTIVE, ORG_NOT_FOUND,
/// ORG_ROLE_FORBIDDEN.
///
/// Round trips: 4 (authentication, the organization with the caller's membership, the member,
/// one transaction).
pub async fn set_role(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path((org_id, user_id)): Path<(String, String)>,
    Json(b): Json<RoleBody>,
) -> Result<Reply<Membership>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    let role = parse_role(Some(&b.role))?.ok_or(Reason::INVALID_PARAMETER)?;
    Ok(Reply(
        members::set_role(&s.ciam, &caller, &o, &user_id, role).await?,
    ))
}

/// Remove a member, or leave
///
/// An admin or owner removes a member (admins: not owners, ORG_ROLE_FORBIDDEN); anyone may remove
/// themselves (leave). The last owner can neither leave nor be removed (ORG_LAST_OWNER).
/// ORG_MEMBER_NOT_FOUND when the person is no member.
///
/// Reasons: ORG_LAST_OWNER, ORG_MEMBER_NOT_FOUND, ORG_NOT_ACTIVE, ORG_NOT_FOUND,
/// ORG_ROLE_FORBIDDEN.
///
/// Round trips: 4 (authentication, the organization with the caller's membership, the member,
/// one transaction).
pub async fn remove(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path((org_id, user_id)): Path<(String, String)>,
) -> Result<Reply<Done>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    members::remove(&s.ciam, &caller, &o, &user_id).await?;
    Ok(done())
}

/// A page of the organization's audit slice.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct OrgAudit {
    /// Newest first, 50 a page; the last entry's `cursor` is the next page's `cursor`.
    entries: Vec<audit::Entry>,
}

/// The organization's audit log
///
/// What happened to the organization, newest first, 50 a page (`cursor`: the last entry's of the
/// previous page): invitations, members added and removed, roles changed, by its own admins and
/// by Ciam's operators (with their reason). An admin's or owner's only (ORG_ROLE_FORBIDDEN).
///
/// Reasons: ORG_NOT_FOUND, ORG_ROLE_FORBIDDEN.
///
/// `?cursor=`. Round trips: 3 (authentication, the organization with the caller's membership,
/// one query).
pub async fn audit_log(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path(org_id): Path<String>,
    Params(q): Params,
) -> Result<Reply<OrgAudit>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    caller.must_manage()?;
    let entries = audit::page(
        s.ciam.store.as_ref(),
        &o.org_id,
        q.get("cursor").map(String::as_str),
    )
    .await
    .map_err(Error::from)?;
    Ok(Reply(OrgAudit { entries }))
}
