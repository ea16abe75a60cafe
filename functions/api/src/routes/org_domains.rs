//! "My company": an organization's verified domains (docs/organizations-domains.md §5), managed
//! by its owners and admins (a member: ORG_ROLE_FORBIDDEN; anyone else: ORG_NOT_FOUND, as for the
//! organization's other routes), and the organizations suggested to a person by their proven
//! mail's domain. The DNS lookup is `verify`'s alone: its row is in `DOMAIN_ROUTES` (binary
//! `domains`, the only one that links the resolver). The rules are `ciam_core::domains::manage`'s.

use crate::error::ApiError;
use crate::extract::{Authed, Json, Lang};
use crate::reply::{done, Created, Done, Reply};
use crate::AppState;
use axum::extract::{Path, State};
use ciam_core::domains::dns::{Hickory, TRIES, TRY_TIMEOUT};
use ciam_core::domains::enrol;
use ciam_core::domains::manage::{self, DomainView};
use ciam_core::domains::{Enrolment, Method};
use ciam_core::org::{access, Membership};
use ciam_core::{Ciam, Error, Reason};
use serde::{Deserialize, Serialize};

/// The organization's domains.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct Domains {
    /// By domain, pending and verified (at most 20).
    pub domains: Vec<DomainView>,
}

/// The organization's domains
///
/// Every domain the organization claimed, pending or verified, each with its verification
/// method, its enrolment and, for `dns`, the TXT record to publish (name and value). An admin's
/// or owner's only (ORG_ROLE_FORBIDDEN); ORG_NOT_FOUND for anyone not a member.
///
/// Reasons: ORG_NOT_FOUND, ORG_ROLE_FORBIDDEN.
///
/// Round trips: 3 (authentication, the organization with the caller's membership, one query).
pub async fn list(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path(org_id): Path<String>,
) -> Result<Reply<Domains>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    manage::may_read(&caller)?;
    Ok(Reply(Domains {
        domains: manage::list(&s.ciam, &o.org_id).await?,
    }))
}

/// A domain to claim.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AddBody {
    /// The domain, e.g. `acme.com` or `例子.公司`.
    #[cfg_attr(feature = "openapi", schemars(length(max = 253)))]
    pub domain: String,
    /// How it will be proven: `dns` (a TXT record) or `mail` (a code sent to an administrative
    /// mailbox at the domain).
    pub method: String,
}

/// Add a domain
///
/// An admin or owner claims a domain for the organization, to be proven by `dns` or `mail`. The
/// claim waits 30 days for its proof. Adding it again (e.g. to change the method) keeps its TXT
/// value. Refused: a malformed name (DOMAIN_INVALID); a public suffix, a free-mail provider's
/// domain or the service's own staff domain (DOMAIN_PUBLIC); a domain some organization verified
/// (DOMAIN_ALREADY_VERIFIED); a 21st domain (DOMAIN_LIMIT); an unknown method
/// (INVALID_PARAMETER). Recorded in the organization's audit log (`domain.add`).
///
/// Reasons: DOMAIN_ALREADY_VERIFIED, DOMAIN_INVALID, DOMAIN_LIMIT, DOMAIN_PUBLIC, ORG_NOT_ACTIVE,
/// ORG_NOT_FOUND, ORG_ROLE_FORBIDDEN.
///
/// Round trips: 4 (authentication, the organization with the caller's membership, the domain's
/// owner with the organization's domains, one write).
pub async fn add(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path(org_id): Path<String>,
    Json(b): Json<AddBody>,
) -> Result<Created<DomainView>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    manage::may_change(&caller, &o)?;
    let domain = manage::new_domain(&s.ciam, &b.domain)?;
    let method = Method::parse(&b.method, "method")?;
    Ok(Reply(
        manage::add(&s.ciam, &caller, &o, &domain, method).await?,
    ))
}

/// A domain of the organization
///
/// One domain the organization claimed, with the TXT record to publish for `dns`. An admin's or
/// owner's only (ORG_ROLE_FORBIDDEN); DOMAIN_NOT_FOUND when the organization has not claimed it.
///
/// Reasons: DOMAIN_NOT_FOUND, ORG_NOT_FOUND, ORG_ROLE_FORBIDDEN.
///
/// Round trips: 3 (authentication, the organization with the caller's membership, the claim).
pub async fn get(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path((org_id, domain)): Path<(String, String)>,
) -> Result<Reply<DomainView>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    manage::may_read(&caller)?;
    let domain = manage::path_domain(&domain)?;
    Ok(Reply(manage::get(&s.ciam, &o.org_id, &domain).await?))
}

/// The enrolment of a verified domain.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EnrolmentBody {
    /// `off`, `suggest` (people who prove an address there are offered to join) or `automatic`
    /// (they join with the organization's default role).
    pub enrolment: String,
}

/// Set a domain's enrolment
///
/// An admin or owner decides what proving an address at the domain does: `off`, `suggest` or
/// `automatic` (INVALID_PARAMETER otherwise). Only a proven address counts (a code Ciam sent to
/// it was typed back). Recorded in the organization's audit log (`domain.enrolment`).
///
/// Reasons: DOMAIN_NOT_FOUND, ORG_NOT_ACTIVE, ORG_NOT_FOUND, ORG_ROLE_FORBIDDEN.
///
/// Round trips: 4 (authentication, the organization with the caller's membership, the claim, one
/// transaction).
pub async fn set_enrolment(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path((org_id, domain)): Path<(String, String)>,
    Json(b): Json<EnrolmentBody>,
) -> Result<Reply<DomainView>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    let domain = manage::path_domain(&domain)?;
    let enrolment = Enrolment::parse(&b.enrolment, "enrolment")?;
    Ok(Reply(
        manage::set_enrolment(&s.ciam, &caller, &o, &domain, enrolment).await?,
    ))
}

/// Remove a domain
///
/// An admin or owner removes a claim, and the organization's ownership when it was verified. The
/// people already enrolled stay members. Recorded in the organization's audit log
/// (`domain.remove`).
///
/// Reasons: DOMAIN_NOT_FOUND, ORG_NOT_ACTIVE, ORG_NOT_FOUND, ORG_ROLE_FORBIDDEN.
///
/// Round trips: 3 (authentication, the organization with the caller's membership, one
/// transaction).
pub async fn remove(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path((org_id, domain)): Path<(String, String)>,
) -> Result<Reply<Done>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    let domain = manage::path_domain(&domain)?;
    manage::remove(&s.ciam, &caller, &o, &domain).await?;
    Ok(done())
}

/// Where to send a `mail` claim's code.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CodeBody {
    /// `admin`, `administrator`, `webmaster`, `hostmaster` or `postmaster` at the domain.
    #[cfg_attr(feature = "openapi", schemars(length(max = 254)))]
    pub mail: String,
    /// base64 ALTCHA payload
    #[cfg_attr(feature = "openapi", schemars(required))]
    pub captcha: Option<String>,
}

/// Send a domain's mail code
///
/// For a `mail` claim: sends a 6-digit code, valid 10 minutes, to one of the domain's
/// administrative mailboxes (DOMAIN_MAIL_NOT_ADMIN for any other address), with the captcha and
/// limits of every code. Then `verify` with the code. A `dns` claim: INVALID_PARAMETER; a
/// verified one: DOMAIN_ALREADY_VERIFIED.
///
/// Reasons: DOMAIN_ALREADY_VERIFIED, DOMAIN_MAIL_NOT_ADMIN, DOMAIN_NOT_FOUND, ORG_NOT_ACTIVE,
/// ORG_NOT_FOUND, ORG_ROLE_FORBIDDEN, VERIFICATION_CODE_LIMIT, VERIFYCAPTCHA_ERROR,
/// VERIFYCAPTCHA_NOT_FOUND, VERIFYCODE_SENDING_LIMIT.
///
/// Round trips: 5 (authentication, the organization with the caller's membership, the claim, the
/// code's transaction, the write that marks it delivered), then the message.
pub async fn send_code(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Lang(lang): Lang,
    Path((org_id, domain)): Path<(String, String)>,
    Json(b): Json<CodeBody>,
) -> Result<Reply<Done>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
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

/// The proof of a `mail` claim (nothing for `dns`).
#[derive(Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct VerifyBody {
    /// `mail` claims: the administrative address the code went to.
    #[cfg_attr(feature = "openapi", schemars(length(max = 254)))]
    pub mail: Option<String>,
    /// `mail` claims: the code.
    #[cfg_attr(feature = "openapi", schemars(length(max = 10)))]
    pub code: Option<String>,
}

/// The resolver of `verify` (`CIAM_DNS_RESOLVER`, or the one `ciam serve` and the tests name).
pub fn resolver(ciam: &Ciam) -> Result<Hickory, Error> {
    match ciam.config.dns_resolver {
        Some(addr) => Hickory::at(addr, TRY_TIMEOUT, TRIES),
        None => Hickory::from_env(),
    }
    .map_err(|cause| Error {
        cause: Some(cause),
        ..Error::new(Reason::DOMAIN_DNS_UNAVAILABLE)
    })
}

/// A domain's proof for the caller `caller` (the handlers of both APIs).
pub(crate) async fn prove(
    ciam: &Ciam,
    caller: &access::Caller,
    o: &ciam_core::org::Organization,
    domain: &ciam_core::domains::DomainName,
    b: &VerifyBody,
) -> Result<DomainView, Error> {
    match (&b.mail, &b.code) {
        (Some(mail), Some(code)) => {
            manage::verify_mail(ciam, caller, o, domain, mail, code.trim()).await
        }
        (None, None) => {
            manage::may_change(caller, o)?;
            let lookup = resolver(ciam)?;
            manage::verify_dns(ciam, &lookup, caller, o, domain).await
        }
        _ => Err(Error::field(
            Reason::INVALID_PARAMETER,
            "code",
            "请同时给出管理邮箱与验证码",
            "Give both the administrative address and its code",
        )),
    }
}

/// Verify a domain
///
/// An admin or owner proves a claim. `dns` (an empty body): one lookup of the TXT record at
/// `_ciam-verify.<domain>`; missing or another value: DOMAIN_TXT_NOT_FOUND (its message names
/// the record expected); DNS not answering: 503 DOMAIN_DNS_UNAVAILABLE (try again). `mail`
/// (`mail` and `code`): the code sent to that administrative address (CODE_ERROR,
/// VERIFYCODE_NOT_FOUND as for every code). Of two organizations proving the same domain, the first
/// wins; the other: DOMAIN_ALREADY_VERIFIED. Verifying a verified domain again answers it as it
/// is. Recorded in the organization's audit log (`domain.verify`).
///
/// Reasons: CODE_ERROR, DOMAIN_ALREADY_VERIFIED, DOMAIN_DNS_UNAVAILABLE, DOMAIN_MAIL_NOT_ADMIN,
/// DOMAIN_NOT_FOUND, DOMAIN_TXT_NOT_FOUND, ORG_NOT_ACTIVE, ORG_NOT_FOUND, ORG_ROLE_FORBIDDEN,
/// VERIFYCODE_NOT_FOUND.
///
/// Round trips: 4 (authentication, the organization with the caller's membership, the claim
/// (with the code for `mail`), one transaction), and one DNS lookup for `dns`.
pub async fn verify(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path((org_id, domain)): Path<(String, String)>,
    Json(b): Json<VerifyBody>,
) -> Result<Reply<DomainView>, ApiError> {
    let (o, caller) = access::member_of(&s.ciam, &org_id, &sess.user.id).await?;
    let domain = manage::path_domain(&domain)?;
    Ok(Reply(prove(&s.ciam, &caller, &o, &domain, &b).await?))
}

/// An organization suggested to the person.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Suggested {
    #[cfg_attr(feature = "openapi", schemars(with = "String"))]
    pub org_id: ciam_core::org::OrgId,
    pub name_zh: String,
    pub name_en: String,
    /// The verified domain of the person's proven mail that suggested it.
    pub domain: String,
    /// Unix seconds.
    pub at: i64,
}

/// The person's suggestions.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct SuggestedList {
    pub suggestions: Vec<Suggested>,
}

/// Organizations suggested to me
///
/// The active organizations whose verified domain (enrolment `suggest`) is that of a mail the
/// signed-in person proved, leaving out those they belong to and those they declined.
///
/// Reasons: none.
///
/// Round trips: 3 (authentication, one query of the person's partition, the organizations
/// together).
pub async fn suggested(
    State(s): State<AppState>,
    Authed(sess): Authed,
) -> Result<Reply<SuggestedList>, ApiError> {
    let open = enrol::suggested(&s.ciam, &sess.user.id).await?;
    let keys: Vec<_> = open
        .iter()
        .map(|x| ciam_core::org::org_key(&x.org_id))
        .collect();
    let orgs = if keys.is_empty() {
        Vec::new()
    } else {
        s.ciam.store.get_many(&keys).await.map_err(Error::from)?
    };
    let suggestions = open
        .into_iter()
        .zip(orgs)
        .filter_map(|(x, o)| {
            let o = ciam_core::org::Organization::from_item(&o?)?;
            (o.status == ciam_core::org::Status::Active).then(|| Suggested {
                org_id: x.org_id,
                name_zh: o.name_zh,
                name_en: o.name_en,
                domain: idna_display(&x.domain),
                at: x.at,
            })
        })
        .collect();
    Ok(Reply(SuggestedList { suggestions }))
}

fn idna_display(ascii: &str) -> String {
    ciam_core::domains::DomainName::parse(ascii).map_or_else(|_| ascii.to_owned(), |d| d.unicode())
}

/// The person's answer to a suggestion.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AnswerBody {
    /// true: join; false: decline (not suggested again for this organization).
    pub accept: bool,
}

/// The answer's outcome.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct Answered {
    /// The new membership when accepted (the organization's default role); none when declined.
    pub membership: Option<Membership>,
}

/// Accept or decline a suggestion
///
/// `accept: true` joins the suggested organization with its default role; `accept: false`
/// declines it, and it is not suggested again. DOMAIN_NOT_FOUND when there is no open suggestion
/// of that organization (or it is no longer active).
///
/// Reasons: DOMAIN_NOT_FOUND.
///
/// Round trips: 3 (authentication, the suggestion with the organization, one transaction);
/// declining: 2.
pub async fn answer(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path(org_id): Path<String>,
    Json(b): Json<AnswerBody>,
) -> Result<Reply<Answered>, ApiError> {
    let id = ciam_core::org::OrgId::parse(&org_id).ok_or(Reason::DOMAIN_NOT_FOUND)?;
    let membership = if b.accept {
        Some(enrol::accept(&s.ciam, &sess.user.id, &id).await?)
    } else {
        enrol::decline(&s.ciam, &sess.user.id, &id).await?;
        None
    };
    Ok(Reply(Answered { membership }))
}
