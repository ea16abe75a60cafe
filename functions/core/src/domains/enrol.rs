//! Enrolment by verified domain (docs/organizations-domains.md §4): when a person proves an
//! address (a code Ciam sent to it was typed back), the address's domain, if an organization
//! verified it, makes them a member (`automatic`) or records a suggestion (`suggest`).
//!
//! Items: the membership of `org::Membership` (both sides); the suggestion
//! `USER#<userId>` / `ORGSUG#<orgId>` {orgId, domain, at, status open|declined}, in the
//! person's partition beside their memberships (`ORG#<orgId>`), so that one query with the
//! prefix `ORG` reads both.

use crate::domains::claims::{self, Enrolment};
use crate::domains::name::DomainName;
use crate::error::Result;
use crate::org::{self, Membership, OrgId, Status};
use crate::user::user_pk;
use crate::{Ciam, Reason};
use ciam_store::{Cond, Item, Key, Query, TxOp, Update};

/// What a proof did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Enrolled {
    Nothing,
    Suggested(OrgId),
    Joined(OrgId),
}

/// A suggestion the person sees in `GET /org/suggested`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    pub org_id: OrgId,
    pub domain: String,
    pub at: i64,
}

pub fn suggestion_key(user_id: &str, org: &OrgId) -> Key {
    Key::new(user_pk(user_id), format!("ORGSUG#{org}"))
}

/// Called after a proof of `mail` by `user_id` committed. An address whose domain could never
/// be claimed costs nothing; otherwise one GetItem of `DOMAIN#<domain>`, and only for a
/// `suggest` or `automatic` domain the organization's read and one write. A suspended
/// organization, or a person already a member, gets nothing. Never called for an address that
/// was not proven.
pub async fn on_proven_mail(ciam: &Ciam, user_id: &str, mail: &str) -> Result<Enrolled> {
    let Some(domain) = DomainName::of_mail(mail) else {
        return Ok(Enrolled::Nothing);
    };
    let owner = claims::owner_of(ciam.store.as_ref(), &domain).await?;
    enrol_by_owner(ciam, user_id, &domain, owner).await
}

/// [`on_proven_mail`] with the domain's owner item already read (a sign-in by mail code reads it
/// beside its attempt: `domains::sign_in::owner_for`). Round trips: 0, or for a `suggest` or
/// `automatic` domain the organization's read and one write.
pub async fn enrol_by_owner(
    ciam: &Ciam,
    user_id: &str,
    domain: &DomainName,
    owner: Option<claims::Owner>,
) -> Result<Enrolled> {
    let store = ciam.store.as_ref();
    let Some(owner) = owner else {
        return Ok(Enrolled::Nothing);
    };
    if owner.enrolment == Enrolment::Off {
        return Ok(Enrolled::Nothing);
    }
    let (o, member) = org::with_membership(store, &owner.org, user_id).await?;
    let Some(o) = o.filter(|o| o.status == Status::Active) else {
        return Ok(Enrolled::Nothing);
    };
    if member.is_some() {
        return Ok(Enrolled::Nothing);
    }
    let now = ciam.now();
    match owner.enrolment {
        Enrolment::Off => Ok(Enrolled::Nothing),
        Enrolment::Automatic => {
            let by = format!("domain:{domain}");
            let mut ops = org::members::join_ops(
                &o.org_id,
                user_id,
                o.settings.default_role,
                &by,
                now,
                Vec::new(),
            );
            ops.extend(joined_ops(ciam, &o, user_id, domain.as_str()));
            match store.transact(ops).await {
                Ok(()) => Ok(Enrolled::Joined(o.org_id)),
                // A member meanwhile, or suspended meanwhile.
                Err(e) if e.is_condition_failed() => Ok(Enrolled::Nothing),
                Err(e) => Err(e.into()),
            }
        }
        Enrolment::Suggest => {
            let item = Item::new(suggestion_key(user_id, &o.org_id))
                .with("orgId", o.org_id.as_str())
                .with("domain", domain.as_str())
                .with("at", now)
                .with("status", "open");
            // A declined suggestion stays declined.
            match store.put(item, Some(Cond::NotExists)).await {
                Ok(()) => Ok(Enrolled::Suggested(o.org_id)),
                Err(e) if e.is_condition_failed() => Ok(Enrolled::Nothing),
                Err(e) => Err(e.into()),
            }
        }
    }
}

/// The person's open suggestions, leaving out organizations they already belong to. Round
/// trips: 1 (one query of their partition, prefix `ORG`: memberships and suggestions).
pub async fn suggested(ciam: &Ciam, user_id: &str) -> Result<Vec<Suggestion>> {
    let items = ciam
        .store
        .query(Query::partition(user_pk(user_id)).prefix("ORG"))
        .await?;
    let members: Vec<&str> = items
        .iter()
        .filter(|i| i.key.sk.starts_with("ORG#"))
        .filter_map(|i| i.s("orgId"))
        .collect();
    Ok(items
        .iter()
        .filter(|i| i.key.sk.starts_with("ORGSUG#") && i.s("status") == Some("open"))
        .filter_map(|i| {
            let org_id = OrgId::parse(i.s("orgId")?)?;
            (!members.contains(&org_id.as_str())).then(|| Suggestion {
                org_id,
                domain: i.s("domain").unwrap_or_default().to_owned(),
                at: i.n("at").unwrap_or(0),
            })
        })
        .collect())
}

/// Accepts an open suggestion: the membership with the organization's default role, the
/// suggestion deleted, in one transaction. ORG_NOT_FOUND-like DOMAIN_NOT_FOUND when there is no
/// open suggestion or the organization is not active. Round trips: 2 (the suggestion and the
/// organization together, then the transaction).
pub async fn accept(ciam: &Ciam, user_id: &str, org_id: &OrgId) -> Result<Membership> {
    let store = ciam.store.as_ref();
    let [s, o] = ciam_store::get_each(
        store,
        [suggestion_key(user_id, org_id), org::org_key(org_id)],
    )
    .await?;
    let open = s.as_ref().is_some_and(|s| s.s("status") == Some("open"));
    let domain = s
        .as_ref()
        .and_then(|s| s.s("domain"))
        .unwrap_or_default()
        .to_owned();
    let o = o
        .as_ref()
        .and_then(org::Organization::from_item)
        .filter(|o| open && o.status == Status::Active)
        .ok_or(Reason::DOMAIN_NOT_FOUND)?;
    let now = ciam.now();
    let mut ops = org::members::join_ops(
        &o.org_id,
        user_id,
        o.settings.default_role,
        user_id,
        now,
        Vec::new(),
    );
    ops.extend(joined_ops(ciam, &o, user_id, &domain));
    ops.push(TxOp::Delete {
        key: suggestion_key(user_id, org_id),
        cond: Some(Cond::eq("status", "open")),
    });
    match store.transact(ops).await {
        Err(e) if e.is_condition_failed() => Err(Reason::DOMAIN_NOT_FOUND.into()),
        r => r.map_err(Into::into).map(|()| Membership {
            org_id: o.org_id.clone(),
            user_id: user_id.to_owned(),
            role: o.settings.default_role,
            joined_at: now,
            by: user_id.to_owned(),
        }),
    }
}

/// Declines an open suggestion: kept as `declined`, so the next proof does not suggest it
/// again. DOMAIN_NOT_FOUND without one. Round trips: 1.
pub async fn decline(ciam: &Ciam, user_id: &str, org_id: &OrgId) -> Result<()> {
    let ops = vec![Update::Set("status".into(), "declined".into())];
    match ciam
        .store
        .update(
            &suggestion_key(user_id, org_id),
            ops,
            Some(Cond::eq("status", "open")),
        )
        .await
    {
        Err(e) if e.is_condition_failed() => Err(Reason::DOMAIN_NOT_FOUND.into()),
        r => r.map(|_| ()).map_err(Into::into),
    }
}

/// [`on_proven_mail`] after a proof that already committed (sign-up, binding a mail, a sign-in by
/// mail code): a phone does nothing, and a failure is logged and left, never turned into a
/// failure of the proof's own answer (the person signed up; enrolment is a consequence).
pub async fn after_proof(ciam: &Ciam, user_id: &str, id: &crate::validate::Identity) {
    let crate::validate::Identity::Mail(mail) = id else {
        return;
    };
    log(on_proven_mail(ciam, user_id, mail.as_str()).await);
}

/// [`after_proof`] with the proven mail's domain owner item already read (None: a domain that
/// can never be claimed, or nobody's).
pub async fn after_proof_by_owner(
    ciam: &Ciam,
    user_id: &str,
    read: Option<(DomainName, claims::Owner)>,
) {
    if let Some((domain, owner)) = read {
        log(enrol_by_owner(ciam, user_id, &domain, Some(owner)).await);
    }
}

fn log(r: Result<Enrolled>) {
    match r {
        Ok(Enrolled::Nothing) => {}
        Ok(done) => tracing::info!(?done, "enrolled by verified domain"),
        Err(e) => {
            tracing::warn!(cause = ?e.cause, reason = %e.reason, "enrolment by domain failed")
        }
    }
}

/// What an enrolment writes beside the membership: the organization's
/// `organization.member_added` (when it has `eventApps`) and the entry of its audit slice
/// (`member.join`, by the person, the detail naming the domain).
fn joined_ops(ciam: &Ciam, o: &org::Organization, user_id: &str, domain: &str) -> Vec<TxOp> {
    let event = org::events::op(
        ciam,
        o,
        crate::events::Kind::OrgMemberAdded,
        user_id,
        o.settings.default_role,
        None,
    );
    let actor = org::audit::Actor {
        user_id,
        role: o.settings.default_role.as_str(),
    };
    let entry = org::audit::record(
        ciam,
        &o.org_id,
        &actor,
        org::audit::OrgAction::MemberJoin,
        user_id,
        None,
        Some(format!("domain:{domain}")),
    );
    event.into_iter().chain([entry]).collect()
}
