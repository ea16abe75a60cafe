//! The domain routes' rules (docs/organizations-domains.md §5) over `claims` and `verify`: who
//! may read and change an organization's domains (its owners and admins; an operator with a
//! reason, whose console entry comes in `Caller::extra`), the staff domains refused
//! (`--internal-domains`, §3 rule 4), and the organization's audit slice entry each change writes
//! in its own transaction.

use crate::domains::claims::{self, Claim, Enrolment, Method, PENDING_TTL};
use crate::domains::name::DomainName;
use crate::domains::txt::{self, TxtLookup};
use crate::domains::verify;
use crate::error::{Error, Result};
use crate::org::access::{must_be_active, Caller};
use crate::org::audit::OrgAction;
use crate::org::{OrgId, Organization};
use crate::{Ciam, Lang, Reason};
use ciam_store::TxOp;
use serde::Serialize;

/// The TXT record a `dns` claim asks for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct TxtRecord {
    /// `_ciam-verify.<domain>`.
    pub name: String,
    /// Always `TXT`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `ciam-verify=<token>`.
    pub value: String,
}

/// A domain of the organization as its admins and the console see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "OrgDomain"))]
#[serde(rename_all = "camelCase")]
pub struct DomainView {
    /// As stored and as in paths (A-labels, lower case), e.g. `xn--fsqu00a.xn--55qx5d`.
    pub domain: String,
    /// As people read it (U-labels), e.g. `例子.公司`.
    pub display: String,
    /// `dns` or `mail`.
    pub method: String,
    /// `pending` or `verified`.
    pub status: String,
    /// `off`, `suggest` or `automatic`.
    pub enrolment: String,
    /// The record to publish (a `dns` claim's; none for `mail`).
    pub record: Option<TxtRecord>,
    /// Unix seconds.
    pub added_at: i64,
    pub added_by: String,
    /// Unix seconds; none while pending.
    pub verified_at: Option<i64>,
    /// When a pending claim goes away (Unix seconds); none once verified.
    pub expires_at: Option<i64>,
    /// The connection its people sign in through (a verified domain routed to one of the
    /// organization's connections); none otherwise.
    pub sign_in: Option<SignInView>,
}

/// A verified domain's routing to one of the organization's connections.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "OrgDomainSignIn"))]
#[serde(rename_all = "camelCase")]
pub struct SignInView {
    /// The connection (`conn_...`).
    pub conn_id: String,
    /// "Must use company sign-in": the domain's addresses may not sign in by password or mail
    /// code.
    pub required: bool,
}

impl DomainView {
    pub fn of(c: &Claim) -> DomainView {
        DomainView {
            domain: c.domain.as_str().to_owned(),
            display: c.domain.unicode(),
            method: c.method.as_str().to_owned(),
            status: if c.verified_at.is_some() {
                "verified"
            } else {
                "pending"
            }
            .to_owned(),
            enrolment: c.enrolment.as_str().to_owned(),
            record: (c.method == Method::Dns).then(|| TxtRecord {
                name: txt::record_name(&c.domain),
                kind: "TXT".to_owned(),
                value: txt::record_value(&c.token),
            }),
            added_at: c.added_at,
            added_by: c.added_by.clone(),
            verified_at: c.verified_at,
            expires_at: c.verified_at.is_none().then_some(c.added_at + PENDING_TTL),
            sign_in: c.sign_in.as_ref().map(|s| SignInView {
                conn_id: s.conn.as_str().to_owned(),
                required: s.required,
            }),
        }
    }
}

/// A domain typed to be added: the name rules (DOMAIN_INVALID, DOMAIN_PUBLIC), and Ciam's own
/// staff domains and their subdomains refused as DOMAIN_PUBLIC (`Config::internal_domains`).
pub fn new_domain(ciam: &Ciam, raw: &str) -> Result<DomainName> {
    let d = DomainName::parse(raw)?;
    let staff = ciam.config.internal_domains.iter().any(|s| {
        let s = s.trim().trim_end_matches('.').to_ascii_lowercase();
        !s.is_empty() && (d.as_str() == s || d.as_str().ends_with(&format!(".{s}")))
    });
    if staff {
        return Err(Error::field(
            Reason::DOMAIN_PUBLIC,
            "domain",
            "该域名属于本服务的员工，不能归属于某个组织",
            "This domain is the service's own staff's and cannot belong to an organization",
        ));
    }
    Ok(d)
}

/// A domain named in a path: DOMAIN_NOT_FOUND for anything that could not be a claim.
pub fn path_domain(raw: &str) -> Result<DomainName> {
    DomainName::parse(raw).map_err(|_| Error::new(Reason::DOMAIN_NOT_FOUND))
}

/// Reading the domains: owners and admins (and operators, who act as owners); a member is
/// refused (ORG_ROLE_FORBIDDEN).
pub fn may_read(caller: &Caller) -> Result<()> {
    caller.must_manage()
}

/// Changing them: as reading, and only in an active organization (ORG_NOT_ACTIVE).
pub fn may_change(caller: &Caller, o: &Organization) -> Result<()> {
    caller.must_manage()?;
    must_be_active(o)
}

/// The slice's entry of `action` on `domain`, and the caller's own extra writes (an operator's
/// console entry).
fn audited(
    ciam: &Ciam,
    caller: &Caller,
    org: &OrgId,
    action: OrgAction,
    domain: &DomainName,
    detail: String,
) -> Vec<TxOp> {
    caller.with_extra(vec![caller.record(
        ciam,
        org,
        action,
        domain.as_str(),
        Some(detail),
    )])
}

/// The organization's domains, by domain. Round trips: 1.
pub async fn list(ciam: &Ciam, org: &OrgId) -> Result<Vec<DomainView>> {
    Ok(claims::list(ciam.store.as_ref(), org)
        .await?
        .iter()
        .map(DomainView::of)
        .collect())
}

/// One domain (DOMAIN_NOT_FOUND when the organization has no claim on it). Round trips: 1.
pub async fn get(ciam: &Ciam, org: &OrgId, domain: &DomainName) -> Result<DomainView> {
    Ok(DomainView::of(
        &claims::get(ciam.store.as_ref(), org, domain).await?,
    ))
}

/// Adds a claim (`claims::add`), audited. Round trips: 2.
pub async fn add(
    ciam: &Ciam,
    caller: &Caller,
    o: &Organization,
    domain: &DomainName,
    method: Method,
) -> Result<DomainView> {
    may_change(caller, o)?;
    let extra = audited(
        ciam,
        caller,
        &o.org_id,
        OrgAction::DomainAdd,
        domain,
        format!("method: {}", method.as_str()),
    );
    let claim = claims::add_with(
        ciam.store.as_ref(),
        ciam.entropy.as_ref(),
        ciam.now(),
        &o.org_id,
        domain,
        method,
        &caller.user_id,
        extra,
    )
    .await?;
    Ok(DomainView::of(&claim))
}

/// Sets a claim's enrolment (`claims::set_enrolment`), audited. Round trips: 2.
pub async fn set_enrolment(
    ciam: &Ciam,
    caller: &Caller,
    o: &Organization,
    domain: &DomainName,
    enrolment: Enrolment,
) -> Result<DomainView> {
    may_change(caller, o)?;
    let extra = audited(
        ciam,
        caller,
        &o.org_id,
        OrgAction::DomainEnrolment,
        domain,
        format!("enrolment: {}", enrolment.as_str()),
    );
    let claim =
        claims::set_enrolment_with(ciam.store.as_ref(), &o.org_id, domain, enrolment, extra)
            .await?;
    Ok(DomainView::of(&claim))
}

/// Removes a claim and its ownership (`claims::remove`), audited. Round trips: 1.
pub async fn remove(
    ciam: &Ciam,
    caller: &Caller,
    o: &Organization,
    domain: &DomainName,
) -> Result<()> {
    may_change(caller, o)?;
    let extra = audited(
        ciam,
        caller,
        &o.org_id,
        OrgAction::DomainRemove,
        domain,
        String::new(),
    );
    claims::remove_with(ciam.store.as_ref(), &o.org_id, domain, extra).await
}

/// Verifies a `dns` claim by one lookup (`verify::by_dns`), audited. Round trips: 1 read, the
/// lookup, 1 transaction.
pub async fn verify_dns(
    ciam: &Ciam,
    lookup: &dyn TxtLookup,
    caller: &Caller,
    o: &Organization,
    domain: &DomainName,
) -> Result<DomainView> {
    may_change(caller, o)?;
    let extra = audited(
        ciam,
        caller,
        &o.org_id,
        OrgAction::DomainVerify,
        domain,
        "method: dns".to_owned(),
    );
    let claim = verify::by_dns_with(ciam, lookup, &o.org_id, domain, extra).await?;
    Ok(DomainView::of(&claim))
}

/// Sends a `mail` claim's code to `mail` (`verify::send_mail_code`). Nothing changes yet, so
/// nothing is audited.
pub async fn send_code(
    ciam: &Ciam,
    caller: &Caller,
    o: &Organization,
    domain: &DomainName,
    mail: &str,
    captcha: Option<&str>,
    lang: Lang,
) -> Result<()> {
    may_change(caller, o)?;
    verify::send_mail_code(ciam, &o.org_id, domain, mail, captcha, lang).await
}

/// Verifies a `mail` claim with the code sent to `mail` (`verify::by_mail`), audited.
pub async fn verify_mail(
    ciam: &Ciam,
    caller: &Caller,
    o: &Organization,
    domain: &DomainName,
    mail: &str,
    code: &str,
) -> Result<DomainView> {
    may_change(caller, o)?;
    let extra = audited(
        ciam,
        caller,
        &o.org_id,
        OrgAction::DomainVerify,
        domain,
        format!("method: mail ({})", mail.trim().to_ascii_lowercase()),
    );
    let claim = verify::by_mail_with(ciam, &o.org_id, domain, mail, code, extra).await?;
    Ok(DomainView::of(&claim))
}
