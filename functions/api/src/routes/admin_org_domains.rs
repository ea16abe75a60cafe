//! An organization's verified domains in the console (docs/organizations-domains.md §5): any
//! console role reads them; operators add, verify, set the enrolment of and remove them as an
//! owner would, each with a reason, in the console's audit log (`org.domain`) and the
//! organization's slice. The rules are `ciam_core::domains::manage`'s, as for "My company"
//! (org_domains.rs); the DNS lookup is `verify`'s alone (binary `domains`).

use super::org_domains::{prove, Domains, VerifyBody};
use crate::error::ApiError;
use crate::extract::{Facts, Json, Lang, Op};
use crate::reply::{done, Created, Done, Reply};
use crate::AppState;
use axum::extract::{Path, State};
use ciam_core::console::audit::AuditAction;
use ciam_core::domains::manage::{self, DomainView};
use ciam_core::domains::{Enrolment, Method};
use ciam_core::org::access;
use serde::Deserialize;

/// The console's audit action of every change here (the entry's detail naming what and which
/// domain).
const ORG_DOMAIN: AuditAction = AuditAction::OrgDomain;

/// An organization's domains
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Every domain the
/// organization claimed, pending or verified, with its method, enrolment and (for `dns`) the TXT
/// record to publish. ORG_NOT_FOUND for an unknown id.
///
/// Reasons: ORG_NOT_FOUND.
///
/// Round trips: 3 (authentication, the organization, one query).
pub async fn list(
    Op(_): Op,
    State(s): State<AppState>,
    Path(org_id): Path<String>,
) -> Result<Reply<Domains>, ApiError> {
    let id = access::parse_id(&org_id)?;
    access::for_operator(&s.ciam, &id).await?;
    Ok(Reply(Domains {
        domains: manage::list(&s.ciam, &id).await?,
    }))
}

/// An organization's domain
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). One domain of the
/// organization with its TXT record for `dns`. ORG_NOT_FOUND for an unknown organization,
/// DOMAIN_NOT_FOUND for a domain it has not claimed.
///
/// Reasons: DOMAIN_NOT_FOUND, ORG_NOT_FOUND.
///
/// Round trips: 3 (authentication, the organization, the claim).
pub async fn get(
    Op(_): Op,
    State(s): State<AppState>,
    Path((org_id, domain)): Path<(String, String)>,
) -> Result<Reply<DomainView>, ApiError> {
    let id = access::parse_id(&org_id)?;
    access::for_operator(&s.ciam, &id).await?;
    let domain = manage::path_domain(&domain)?;
    Ok(Reply(manage::get(&s.ciam, &id, &domain).await?))
}

/// A domain an operator claims for the organization.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OpAddBody {
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
    /// The domain, e.g. `acme.com`.
    #[cfg_attr(feature = "openapi", schemars(length(max = 253)))]
    domain: String,
    /// `dns` or `mail`.
    method: String,
}

/// Add a domain to an organization
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). As an owner's claim, with the
/// same refusals (DOMAIN_INVALID, DOMAIN_PUBLIC for public, free-mail and staff domains,
/// DOMAIN_ALREADY_VERIFIED, DOMAIN_LIMIT). Recorded in the audit log (`org.domain`) and the
/// organization's slice (`domain.add`) with the reason given (required, at most 500 characters:
/// INVALID_PARAMETER on `reason`).
///
/// Reasons: DOMAIN_ALREADY_VERIFIED, DOMAIN_INVALID, DOMAIN_LIMIT, DOMAIN_PUBLIC, ORG_NOT_ACTIVE,
/// ORG_NOT_FOUND.
///
/// Round trips: 4 (authentication, the organization, the domain's owner with the organization's
/// domains, one transaction).
pub async fn add(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(org_id): Path<String>,
    Json(b): Json<OpAddBody>,
) -> Result<Created<DomainView>, ApiError> {
    let detail = format!("domain.add {}", b.domain.trim());
    let (o, caller) =
        access::operator_of(&s.ciam, &op, &org_id, ORG_DOMAIN, &b.reason, detail, &facts).await?;
    let domain = manage::new_domain(&s.ciam, &b.domain)?;
    let method = Method::parse(&b.method, "method")?;
    Ok(Reply(
        manage::add(&s.ciam, &caller, &o, &domain, method).await?,
    ))
}

/// An operator's change of a domain's enrolment.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OpEnrolmentBody {
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
    /// `off`, `suggest` or `automatic`.
    enrolment: String,
}

/// Set an organization's domain enrolment
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). `off`, `suggest` or `automatic`,
/// as an owner would. Recorded in the audit log (`org.domain`) and the organization's slice
/// (`domain.enrolment`) with the reason given (required, at most 500 characters).
///
/// Reasons: DOMAIN_NOT_FOUND, ORG_NOT_ACTIVE, ORG_NOT_FOUND.
///
/// Round trips: 4 (authentication, the organization, the claim, one transaction).
pub async fn set_enrolment(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path((org_id, domain)): Path<(String, String)>,
    Json(b): Json<OpEnrolmentBody>,
) -> Result<Reply<DomainView>, ApiError> {
    let detail = format!("domain.enrolment {domain} {}", b.enrolment);
    let (o, caller) =
        access::operator_of(&s.ciam, &op, &org_id, ORG_DOMAIN, &b.reason, detail, &facts).await?;
    let domain = manage::path_domain(&domain)?;
    let enrolment = Enrolment::parse(&b.enrolment, "enrolment")?;
    Ok(Reply(
        manage::set_enrolment(&s.ciam, &caller, &o, &domain, enrolment).await?,
    ))
}

/// The operator's reason.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OpReasonBody {
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
}

/// Remove an organization's domain
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). The claim and, when verified, the
/// organization's ownership of the domain go (e.g. when the domain changed hands); enrolled
/// people stay members. Recorded in the audit log (`org.domain`) and the organization's slice
/// (`domain.remove`) with the reason given (required, at most 500 characters).
///
/// Reasons: DOMAIN_NOT_FOUND, ORG_NOT_ACTIVE, ORG_NOT_FOUND.
///
/// Round trips: 3 (authentication, the organization, one transaction).
pub async fn remove(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path((org_id, domain)): Path<(String, String)>,
    Json(b): Json<OpReasonBody>,
) -> Result<Reply<Done>, ApiError> {
    let detail = format!("domain.remove {domain}");
    let (o, caller) =
        access::operator_of(&s.ciam, &op, &org_id, ORG_DOMAIN, &b.reason, detail, &facts).await?;
    let domain = manage::path_domain(&domain)?;
    manage::remove(&s.ciam, &caller, &o, &domain).await?;
    Ok(done())
}

/// An operator's request for a `mail` claim's code.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OpCodeBody {
    /// Why (required; recorded with the verification).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
    /// An administrative address at the domain.
    #[cfg_attr(feature = "openapi", schemars(length(max = 254)))]
    mail: String,
    /// base64 ALTCHA payload
    #[cfg_attr(feature = "openapi", schemars(required))]
    captcha: Option<String>,
}

/// Send an organization's domain code
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). For a `mail` claim: a code to one
/// of the domain's administrative mailboxes (DOMAIN_MAIL_NOT_ADMIN otherwise), as for an owner.
/// Nothing changes until the code is typed back, so nothing is audited yet; the reason is still
/// required (at most 500 characters).
///
/// Reasons: DOMAIN_ALREADY_VERIFIED, DOMAIN_MAIL_NOT_ADMIN, DOMAIN_NOT_FOUND, ORG_NOT_ACTIVE,
/// ORG_NOT_FOUND, VERIFICATION_CODE_LIMIT, VERIFYCAPTCHA_ERROR, VERIFYCAPTCHA_NOT_FOUND,
/// VERIFYCODE_SENDING_LIMIT.
///
/// Round trips: 5 (authentication, the organization, the claim, the code's transaction, the write
/// that marks it delivered), then the message.
pub async fn send_code(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Lang(lang): Lang,
    Path((org_id, domain)): Path<(String, String)>,
    Json(b): Json<OpCodeBody>,
) -> Result<Reply<Done>, ApiError> {
    let detail = format!("domain.code {domain}");
    let (o, caller) =
        access::operator_of(&s.ciam, &op, &org_id, ORG_DOMAIN, &b.reason, detail, &facts).await?;
    let domain = manage::path_domain(&domain)?;
    manage::send_code(
        &s.ciam,
        &caller,
        &o,
        &domain,
        &b.mail,
        b.captcha.as_deref(),
        lang,
    )
    .await?;
    Ok(done())
}

/// An operator's proof of a claim.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OpVerifyBody {
    /// Why (required; recorded in the audit log).
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
    /// `mail` claims: the administrative address the code went to.
    #[cfg_attr(feature = "openapi", schemars(length(max = 254)))]
    mail: Option<String>,
    /// `mail` claims: the code.
    #[cfg_attr(feature = "openapi", schemars(length(max = 10)))]
    code: Option<String>,
}

/// Verify an organization's domain
///
/// Console: the session's account must hold the role `operator` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). As an owner's: `dns` (no `mail`
/// nor `code`): one TXT lookup (DOMAIN_TXT_NOT_FOUND, 503 DOMAIN_DNS_UNAVAILABLE); `mail`: the
/// code sent. Recorded in the audit log (`org.domain`) and the organization's slice
/// (`domain.verify`) with the reason given (required, at most 500 characters).
///
/// Reasons: CODE_ERROR, DOMAIN_ALREADY_VERIFIED, DOMAIN_DNS_UNAVAILABLE, DOMAIN_MAIL_NOT_ADMIN,
/// DOMAIN_NOT_FOUND, DOMAIN_TXT_NOT_FOUND, ORG_NOT_ACTIVE, ORG_NOT_FOUND,
/// VERIFYCODE_NOT_FOUND.
///
/// Round trips: 4 (authentication, the organization, the claim (with the code for `mail`), one
/// transaction), and one DNS lookup for `dns`.
pub async fn verify(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path((org_id, domain)): Path<(String, String)>,
    Json(b): Json<OpVerifyBody>,
) -> Result<Reply<DomainView>, ApiError> {
    let detail = format!("domain.verify {domain}");
    let (o, caller) =
        access::operator_of(&s.ciam, &op, &org_id, ORG_DOMAIN, &b.reason, detail, &facts).await?;
    let domain = manage::path_domain(&domain)?;
    let body = VerifyBody {
        mail: b.mail,
        code: b.code,
    };
    Ok(Reply(prove(&s.ciam, &caller, &o, &domain, &body).await?))
}
