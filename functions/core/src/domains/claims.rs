//! The domain items (docs/organizations-domains.md §2, docs/data-model.md "Verified domains"):
//!
//! - the claim `ORG#<orgId>` / `DOM#<domain>` {domain, method, token, status, enrolment,
//!   addedAt, addedBy, verifiedAt?}: one per organization and domain, pending ones expiring
//!   after [`PENDING_TTL`]; the organization's list is one query of its partition's `DOM#` prefix;
//! - the owner `DOMAIN#<domain>` / `DOMAIN` {org, enrolment, verifiedAt}: present only for a
//!   verified domain, taken by a conditional put, so a domain has at most one verified owner; the
//!   enrolment look-up of a proven mail is one GetItem of it.
//!
//! A verified domain routed to one of its organization's connections carries [`SIGN_IN_CONN`]
//! and [`SIGN_IN_REQUIRED`] on both items (`crate::org::connections::routing` writes them in one
//! transaction); removing the domain deletes both items, and so the routing.

use crate::domains::name::DomainName;
use crate::error::{Error, Result};
use crate::org::OrgId;
use crate::{random, Entropy, Reason};
use ciam_store::{CancelReason, Cond, Item, Key, Query, Store, StoreError, TxOp, Update};

/// How long a claim may stay unverified.
pub const PENDING_TTL: i64 = 30 * 86_400;
/// The most claims, pending or verified, of one organization.
pub const MAX_CLAIMS: usize = 20;

/// How a claim is proven (§1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Dns,
    Mail,
}

/// What a proven address at a verified domain does (§4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enrolment {
    Off,
    Suggest,
    Automatic,
}

macro_rules! names {
    ($t:ty { $( $v:ident = $s:literal ),* }) => {
        impl $t {
            pub fn as_str(self) -> &'static str {
                match self { $( Self::$v => $s, )* }
            }
            /// INVALID_PARAMETER on `field` for anything else.
            pub fn parse(s: &str, field: &'static str) -> Result<Self> {
                match s {
                    $( $s => Ok(Self::$v), )*
                    _ => Err(Error::field(
                        Reason::INVALID_PARAMETER,
                        field,
                        concat!("可选值：", $( $s, " " ),*),
                        concat!("One of: ", $( $s, " " ),*),
                    )),
                }
            }
        }
    };
}
names!(Method { Dns = "dns", Mail = "mail" });
names!(Enrolment { Off = "off", Suggest = "suggest", Automatic = "automatic" });

/// An organization's claim on a domain, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    pub domain: DomainName,
    pub method: Method,
    /// The TXT token (public: it is meant for DNS).
    pub token: String,
    pub verified_at: Option<i64>,
    pub enrolment: Enrolment,
    pub added_at: i64,
    pub added_by: String,
    /// Its routing to one of the organization's connections (a verified claim only), the same
    /// as its owner item's, written with it by `crate::org::connections::routing`.
    pub sign_in: Option<SignIn>,
}

/// The verified owner of a domain, as the enrolment look-up reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    pub org: OrgId,
    pub enrolment: Enrolment,
    /// The organization's own sign-in for the domain's addresses, when it routes it to one of
    /// its connections (docs/organizations-connections.md §0.4-5).
    pub sign_in: Option<SignIn>,
}

/// A verified domain routed to one of its organization's connections: on the owner item
/// (`DOMAIN#<domain>` / `DOMAIN`) as [`SIGN_IN_CONN`] and [`SIGN_IN_REQUIRED`], written with
/// the routing and removed with the connection or the domain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignIn {
    pub conn: crate::org::connections::ConnId,
    /// "Must use company sign-in": the password and mail-code sign-ins of the domain's
    /// addresses are refused (ORG_SIGN_IN_REQUIRED), the server's rule, not the page's.
    pub required: bool,
}

/// The owner item's attribute naming the connection its domain is routed to.
pub const SIGN_IN_CONN: &str = "signInConn";
/// The owner item's attribute: 1 when the routed connection is required.
pub const SIGN_IN_REQUIRED: &str = "signInRequired";

impl SignIn {
    /// The routing an owner item holds, if any.
    pub fn of_item(i: &Item) -> Option<SignIn> {
        Some(SignIn {
            conn: crate::org::connections::ConnId::parse(i.s(SIGN_IN_CONN)?)?,
            required: i.n(SIGN_IN_REQUIRED).is_some_and(|n| n == 1),
        })
    }
}

pub fn claim_key(org: &OrgId, domain: &DomainName) -> Key {
    Key::new(crate::org::org_pk(org), format!("DOM#{}", domain.as_str()))
}

pub fn owner_key(domain: &DomainName) -> Key {
    Key::new(format!("DOMAIN#{}", domain.as_str()), "DOMAIN")
}

fn claim_of(item: &Item) -> Option<Claim> {
    Some(Claim {
        domain: DomainName::parse(item.s("domain")?).ok()?,
        method: Method::parse(item.s("method")?, "method").ok()?,
        token: item.s("token")?.to_owned(),
        verified_at: item.n("verifiedAt"),
        enrolment: Enrolment::parse(item.s("enrolment").unwrap_or("off"), "enrolment")
            .unwrap_or(Enrolment::Off),
        added_at: item.n("addedAt").unwrap_or(0),
        added_by: item.s("addedBy").unwrap_or("").to_owned(),
        sign_in: SignIn::of_item(item),
    })
}

fn new_token(entropy: &dyn Entropy) -> String {
    data_encoding::BASE32_NOPAD
        .encode(&random::<16>(entropy))
        .to_ascii_lowercase()
}

/// The organization's claims, pending and verified, by domain. One query.
pub async fn list(store: &dyn Store, org: &OrgId) -> Result<Vec<Claim>> {
    let items = store
        .query(
            Query::partition(crate::org::org_pk(org))
                .prefix("DOM#")
                .limit(MAX_CLAIMS + 1),
        )
        .await?;
    Ok(items.iter().filter_map(claim_of).collect())
}

/// One claim; DOMAIN_NOT_FOUND when the organization has none on `domain`. One GetItem.
pub async fn get(store: &dyn Store, org: &OrgId, domain: &DomainName) -> Result<Claim> {
    store
        .get(&claim_key(org, domain))
        .await?
        .as_ref()
        .and_then(claim_of)
        .ok_or_else(|| Reason::DOMAIN_NOT_FOUND.into())
}

/// The verified owner of `domain`, if any. One GetItem.
pub async fn owner_of(store: &dyn Store, domain: &DomainName) -> Result<Option<Owner>> {
    Ok(store.get(&owner_key(domain)).await?.and_then(|i| {
        Some(Owner {
            org: OrgId::parse(i.s("org")?)?,
            enrolment: Enrolment::parse(i.s("enrolment").unwrap_or("off"), "enrolment")
                .unwrap_or(Enrolment::Off),
            sign_in: SignIn::of_item(&i),
        })
    }))
}

/// Adds (or re-adds, keeping its token) a pending claim. DOMAIN_ALREADY_VERIFIED when any
/// organization, this one included, has verified it; DOMAIN_LIMIT past [`MAX_CLAIMS`].
/// Round trips: 2 (the owner's GetItem with the list's query, then one conditional put).
pub async fn add(
    store: &dyn Store,
    entropy: &dyn Entropy,
    now: i64,
    org: &OrgId,
    domain: &DomainName,
    method: Method,
    by: &str,
) -> Result<Claim> {
    add_with(store, entropy, now, org, domain, method, by, Vec::new()).await
}

/// [`add`], `extra` (the audit entries) written with the claim in one transaction.
#[allow(clippy::too_many_arguments)]
pub async fn add_with(
    store: &dyn Store,
    entropy: &dyn Entropy,
    now: i64,
    org: &OrgId,
    domain: &DomainName,
    method: Method,
    by: &str,
    extra: Vec<TxOp>,
) -> Result<Claim> {
    let (owner, claims) = tokio::join!(owner_of(store, domain), list(store, org));
    if owner?.is_some() {
        return Err(Reason::DOMAIN_ALREADY_VERIFIED.into());
    }
    let claims = claims?;
    let previous = claims.iter().find(|c| &c.domain == domain);
    if previous.is_some_and(|c| c.verified_at.is_some()) {
        return Err(Reason::DOMAIN_ALREADY_VERIFIED.into());
    }
    if previous.is_none() && claims.len() >= MAX_CLAIMS {
        return Err(Reason::DOMAIN_LIMIT.into());
    }
    let claim = Claim {
        domain: domain.clone(),
        method,
        token: previous.map_or_else(|| new_token(entropy), |c| c.token.clone()),
        verified_at: None,
        enrolment: previous.map_or(Enrolment::Off, |c| c.enrolment),
        added_at: now,
        added_by: by.to_owned(),
        sign_in: None,
    };
    let item = Item::new(claim_key(org, domain))
        .with("domain", domain.as_str())
        .with("method", method.as_str())
        .with("token", claim.token.as_str())
        .with("status", "pending")
        .with("enrolment", claim.enrolment.as_str())
        .with("addedAt", now)
        .with("addedBy", by)
        .expires(now + PENDING_TTL);
    // Never over a claim verified since the list was read.
    let cond = Cond::NotExists.or(Cond::eq("status", "pending"));
    let written = if extra.is_empty() {
        store.put(item, Some(cond)).await
    } else {
        let put = TxOp::Put {
            item,
            cond: Some(cond),
        };
        store
            .transact(std::iter::once(put).chain(extra).collect())
            .await
    };
    match written {
        Err(e) if e.is_condition_failed() => Err(Reason::DOMAIN_ALREADY_VERIFIED.into()),
        r => r.map(|()| claim).map_err(Error::from),
    }
}

/// Makes `claim` (already proven) this organization's verified domain: one transaction, the
/// owner put under `not exists` (or already ours: a retry), the claim updated under `exists`.
/// DOMAIN_ALREADY_VERIFIED when another organization verified it first; DOMAIN_NOT_FOUND when
/// the claim went away meanwhile; `extra` (a code's consumption) in the same transaction, its
/// own condition failing as VERIFYCODE_NOT_FOUND. Round trips: 1.
pub async fn mark_verified(
    store: &dyn Store,
    now: i64,
    org: &OrgId,
    claim: &Claim,
    extra: Vec<TxOp>,
) -> Result<()> {
    let owner = Item::new(owner_key(&claim.domain))
        .with("org", org.as_str())
        .with("domain", claim.domain.as_str())
        .with("enrolment", claim.enrolment.as_str())
        .with("verifiedAt", now);
    let ops: Vec<TxOp> = vec![
        TxOp::Put {
            item: owner,
            cond: Some(Cond::NotExists.or(Cond::eq("org", org.as_str()))),
        },
        TxOp::Update {
            key: claim_key(org, &claim.domain),
            ops: vec![
                Update::Set("status".into(), "verified".into()),
                Update::Set("verifiedAt".into(), now.into()),
                Update::Expires(None),
            ],
            cond: Some(Cond::Exists),
        },
    ]
    .into_iter()
    .chain(extra)
    .collect();
    match store.transact(ops).await {
        Err(StoreError::TxCanceled(reasons))
            if reasons.first() == Some(&CancelReason::ConditionFailed) =>
        {
            Err(Reason::DOMAIN_ALREADY_VERIFIED.into())
        }
        Err(StoreError::TxCanceled(reasons))
            if reasons.get(1) == Some(&CancelReason::ConditionFailed) =>
        {
            Err(Reason::DOMAIN_NOT_FOUND.into())
        }
        Err(e) if e.is_condition_failed() => Err(Reason::VERIFYCODE_NOT_FOUND.into()),
        r => r.map_err(Error::from),
    }
}

/// Removes the claim and, when it was verified, the owner item (only if it names this
/// organization). Members already enrolled stay. DOMAIN_NOT_FOUND when there was no claim.
/// Round trips: 1.
pub async fn remove(store: &dyn Store, org: &OrgId, domain: &DomainName) -> Result<()> {
    remove_with(store, org, domain, Vec::new()).await
}

/// [`remove`], `extra` (the audit entries) in its transaction.
pub async fn remove_with(
    store: &dyn Store,
    org: &OrgId,
    domain: &DomainName,
    extra: Vec<TxOp>,
) -> Result<()> {
    let ops: Vec<TxOp> = vec![
        TxOp::Delete {
            key: claim_key(org, domain),
            cond: Some(Cond::Exists),
        },
        TxOp::Delete {
            key: owner_key(domain),
            cond: Some(Cond::NotExists.or(Cond::eq("org", org.as_str()))),
        },
    ]
    .into_iter()
    .chain(extra.iter().cloned())
    .collect();
    match store.transact(ops).await {
        Err(StoreError::TxCanceled(reasons))
            if reasons.first() == Some(&CancelReason::ConditionFailed) =>
        {
            Err(Reason::DOMAIN_NOT_FOUND.into())
        }
        Err(StoreError::TxCanceled(_)) => {
            // Another organization owns it: this organization's claim was only pending.
            let delete = TxOp::Delete {
                key: claim_key(org, domain),
                cond: Some(Cond::Exists),
            };
            let done = if extra.is_empty() {
                store
                    .delete(&claim_key(org, domain), Some(Cond::Exists))
                    .await
            } else {
                store
                    .transact(std::iter::once(delete).chain(extra).collect())
                    .await
            };
            done.map_err(|e| {
                if e.is_condition_failed() {
                    Reason::DOMAIN_NOT_FOUND.into()
                } else {
                    Error::from(e)
                }
            })
        }
        r => r.map_err(Error::from),
    }
}

/// Sets the enrolment of a claim, and of its owner item when verified (one transaction).
/// DOMAIN_NOT_FOUND without a claim. Round trips: 2 (the claim, then the write).
pub async fn set_enrolment(
    store: &dyn Store,
    org: &OrgId,
    domain: &DomainName,
    enrolment: Enrolment,
) -> Result<Claim> {
    set_enrolment_with(store, org, domain, enrolment, Vec::new()).await
}

/// [`set_enrolment`], `extra` (the audit entries) in its transaction.
pub async fn set_enrolment_with(
    store: &dyn Store,
    org: &OrgId,
    domain: &DomainName,
    enrolment: Enrolment,
    extra: Vec<TxOp>,
) -> Result<Claim> {
    let mut claim = get(store, org, domain).await?;
    let set = || vec![Update::Set("enrolment".into(), enrolment.as_str().into())];
    let mut ops = vec![TxOp::Update {
        key: claim_key(org, domain),
        ops: set(),
        cond: Some(Cond::Exists),
    }];
    if claim.verified_at.is_some() {
        ops.push(TxOp::Update {
            key: owner_key(domain),
            ops: set(),
            cond: Some(Cond::eq("org", org.as_str())),
        });
    }
    ops.extend(extra);
    match store.transact(ops).await {
        Err(e) if e.is_condition_failed() => return Err(Reason::DOMAIN_NOT_FOUND.into()),
        r => r.map_err(Error::from)?,
    }
    claim.enrolment = enrolment;
    Ok(claim)
}
