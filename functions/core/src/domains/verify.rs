//! Proving a claim (docs/organizations-domains.md §1): one TXT lookup, or a code sent to one of
//! the domain's administrative mailboxes and typed back. Either ends in `claims::mark_verified`.

use crate::codes;
use crate::domains::claims::{self, Claim, Method};
use crate::domains::name::DomainName;
use crate::domains::txt::{self, TxtLookup};
use crate::error::{Error, Result};
use crate::org::OrgId;
use crate::validate::{Email, Identity};
use crate::{Ciam, Lang, Purpose, Reason};
use ciam_store::TxOp;

/// The mailboxes whose code proves a domain: the CA/Browser Forum Baseline Requirements'
/// constructed addresses (§3.2.2.4.4).
pub const ADMIN_MAILBOXES: [&str; 5] = [
    "admin",
    "administrator",
    "webmaster",
    "hostmaster",
    "postmaster",
];

/// The address typed for `domain`: DOMAIN_MAIL_NOT_ADMIN unless it is one of
/// [`ADMIN_MAILBOXES`] at exactly that domain.
pub fn admin_address(domain: &DomainName, typed: &str) -> Result<Identity> {
    let refused = || {
        Error::field(
            Reason::DOMAIN_MAIL_NOT_ADMIN,
            "mail",
            "请使用该域名的管理邮箱",
            "Use an administrative address of the domain",
        )
    };
    let mail = Email::parse(typed).map_err(|_| refused())?;
    let (local, at) = mail.as_str().rsplit_once('@').ok_or_else(refused)?;
    if at != domain.as_str() || !ADMIN_MAILBOXES.contains(&local) {
        return Err(refused());
    }
    Ok(Identity::Mail(mail))
}

fn claim_for(claim: Claim, method: Method) -> Result<Claim> {
    if claim.method != method {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "method",
            "该域名选择了另一种验证方式",
            "This domain is verified by its other method",
        ));
    }
    Ok(claim)
}

/// Verifies a `dns` claim by one lookup. Already verified: the claim as it is (a retry).
/// Round trips: 1 read, the lookup, 1 transaction.
pub async fn by_dns(
    ciam: &Ciam,
    lookup: &dyn TxtLookup,
    org: &OrgId,
    domain: &DomainName,
) -> Result<Claim> {
    by_dns_with(ciam, lookup, org, domain, Vec::new()).await
}

/// [`by_dns`], `extra` (the audit entries) in the verifying transaction.
pub async fn by_dns_with(
    ciam: &Ciam,
    lookup: &dyn TxtLookup,
    org: &OrgId,
    domain: &DomainName,
    extra: Vec<TxOp>,
) -> Result<Claim> {
    let mut claim = claims::get(ciam.store.as_ref(), org, domain).await?;
    if claim.verified_at.is_some() {
        return Ok(claim);
    }
    claim = claim_for(claim, Method::Dns)?;
    txt::check(lookup, domain, &claim.token).await?;
    let now = ciam.now();
    claims::mark_verified(ciam.store.as_ref(), now, org, &claim, extra).await?;
    claim.verified_at = Some(now);
    Ok(claim)
}

/// Sends the code of a `mail` claim to `typed` (an administrative address at the domain), with
/// the captcha and limits of every code. Round trips: 1 read, then `codes::send`'s.
pub async fn send_mail_code(
    ciam: &Ciam,
    org: &OrgId,
    domain: &DomainName,
    typed: &str,
    captcha: Option<&str>,
    lang: Lang,
) -> Result<()> {
    let id = admin_address(domain, typed)?;
    let claim = claims::get(ciam.store.as_ref(), org, domain).await?;
    if claim.verified_at.is_some() {
        return Err(Reason::DOMAIN_ALREADY_VERIFIED.into());
    }
    claim_for(claim, Method::Mail)?;
    codes::send(ciam, &id, Purpose::Domain, captcha, lang).await
}

/// Verifies a `mail` claim with the code sent to `typed`; the code is consumed in the
/// verifying transaction. Round trips: 2 reads (together), 1 transaction.
pub async fn by_mail(
    ciam: &Ciam,
    org: &OrgId,
    domain: &DomainName,
    typed: &str,
    code: &str,
) -> Result<Claim> {
    by_mail_with(ciam, org, domain, typed, code, Vec::new()).await
}

/// [`by_mail`], `extra` (the audit entries) in the verifying transaction.
pub async fn by_mail_with(
    ciam: &Ciam,
    org: &OrgId,
    domain: &DomainName,
    typed: &str,
    code: &str,
    extra: Vec<TxOp>,
) -> Result<Claim> {
    let id = admin_address(domain, typed)?;
    let (claim, stored) = tokio::join!(
        claims::get(ciam.store.as_ref(), org, domain),
        codes::read(ciam, &id, Purpose::Domain)
    );
    let mut claim = claim?;
    if claim.verified_at.is_some() {
        return Ok(claim);
    }
    claim = claim_for(claim, Method::Mail)?;
    let verified = codes::judge(ciam, &id, Purpose::Domain, code, stored?).await?;
    let now = ciam.now();
    claims::mark_verified(
        ciam.store.as_ref(),
        now,
        org,
        &claim,
        std::iter::once(verified.consume).chain(extra).collect(),
    )
    .await?;
    claim.verified_at = Some(now);
    Ok(claim)
}
