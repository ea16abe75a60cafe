//! The phone proof and the sign-up of a person a WeCom, DingTalk or Feishu connection vouched
//! for without a company mail (docs/organizations-connections.md §0.6): the pending identity
//! (`org_links::pending_identity`) redeemed by `phone::prove_phone` and `sign_up::register`
//! under the connection's rules: the just-in-time rule (`join`: the organization's default
//! role; `off`: only a member) and the organization's `mfaRequired` (the identity provider's
//! second factor, else the account's own, else refused).

use super::links::{
    link_exists, owner_signing_in, prove_for_sign_up, spend_pending, unlock_op, PendingIdentity,
    PhoneProof,
};
use super::org_links::{company_link_ops, prior_link, Prior};
use super::org_sign_in::{connection_of, join_ops, not_permitted};
use super::ProviderId;
use crate::accounts::{first_write, Who};
use crate::client::ClientInfo;
use crate::error::{Error, Result};
use crate::org::connections::{Connection, Jit};
use crate::org::policy::{method_of_provider, second_factor_missing};
use crate::org::{self, Organization};
use crate::user::User;
use crate::validate::Identity;
use crate::{codes, Ciam, Reason};
use ciam_store::{Cond, TxOp};

/// A pending identity's connection and organization, read again, and its identity provider's
/// second factor.
pub(super) struct Company {
    c: Connection,
    o: Organization,
    mfa: bool,
}

/// The connection and organization of an `org` pending identity: as a sign-in through it
/// (`connection_of`: not `on` any more FEDERATION_NOT_PERMITTED, the organization not active
/// ORG_NOT_ACTIVE). Round trips: 3.
pub(super) async fn of_pending(ciam: &Ciam, p: &PendingIdentity) -> Result<Company> {
    let conn = p.item.s("conn").unwrap_or_default();
    let (c, o) = connection_of(ciam, conn, false).await?;
    if p.item.s("orgId") != Some(o.org_id.as_str()) {
        return Err(Error {
            cause: Some("the connection moved to another organization".into()),
            ..Error::new(Reason::AUTHORIZATION_FAILED)
        });
    }
    Ok(Company {
        c,
        o,
        mfa: p.item.bool("mfa") == Some(true),
    })
}

impl Company {
    fn not_member(&self) -> Error {
        not_permitted(format!(
            "not a member of organization {} ({})",
            self.o.org_id, self.o.name_en
        ))
    }

    fn no_second_factor(&self) -> Error {
        not_permitted(format!(
            "organization {} requires a second factor: the identity provider gave none and \
             the account has none",
            self.o.org_id
        ))
    }

    /// Whether a new account may be made for the person: just in time `join`, and a second
    /// factor from the identity provider when the organization requires one (a new account has
    /// none of its own).
    pub(super) fn may_sign_up(&self) -> Result<()> {
        if self.c.jit == Jit::Off {
            return Err(self.not_member());
        }
        if second_factor_missing(self.o.settings.mfa_required, self.mfa, false) {
            return Err(self.no_second_factor());
        }
        Ok(())
    }

    /// The link of a new account (exactly two writes: the lookup and the account's item, each
    /// new).
    pub(super) fn link_puts(&self, ciam: &Ciam, p: &PendingIdentity, user_id: &str) -> Vec<TxOp> {
        company_link_ops(
            ciam,
            &self.c,
            &self.o,
            user_id,
            &p.subject,
            "signUp",
            Cond::NotExists,
            Prior::NewAccount,
        )
    }

    /// The just-in-time membership of `user_id` (with its event and audit entry).
    pub(super) fn join_ops(&self, ciam: &Ciam, user_id: &str) -> Vec<TxOp> {
        join_ops(ciam, &self.c, &self.o, user_id)
    }

    /// Who signs in: the phone's code, the identity provider's second factor when it gave one,
    /// the organization on the session.
    pub(super) fn who(&self, user: &User) -> Who {
        let mut amr = vec!["sms"];
        if self.mfa {
            amr.push("mfa");
        }
        Who {
            amr,
            org: Some(self.o.org_id.as_str().to_owned()),
            method: Some(method_of_provider(ProviderId::Org)),
            ..Who::from(user)
        }
    }
}

/// The phone proof of an `org` pending identity (`phone::prove_phone` after the code was
/// judged): no account has the phone → sign-up next (just in time `join` only, and the
/// identity provider's second factor when the organization requires one); else the phone's
/// account (active, not suspended: else CODE_ERROR, the code used up; not locked) must be a
/// member or join (`join`), and have a second factor when the organization requires one (the
/// identity provider's, else its own, asked after as NEED_TOTP_VERIFY); then one transaction:
/// the company link (`company_link_ops`), the pending identity's end, the code's use, the
/// membership (a non-member), the session. Round trips: 3 (the connection), 1 (the owner), 1
/// or 2 (the membership beside the account's link), 1 (the transaction).
pub(super) async fn prove(
    ciam: &Ciam,
    pending: PendingIdentity,
    phone: &Identity,
    verified: codes::Verified,
    owner_id: Option<String>,
    client: &ClientInfo,
) -> Result<PhoneProof> {
    let company = of_pending(ciam, &pending).await?;
    let Some(uid) = owner_id else {
        company.may_sign_up()?;
        return prove_for_sign_up(ciam, &pending, phone, verified).await;
    };
    let (user, verified) = owner_signing_in(ciam, &uid, verified).await?;
    let (c, o) = (&company.c, &company.o);
    if second_factor_missing(o.settings.mfa_required, company.mfa, user.enable_totp) {
        return Err(company.no_second_factor());
    }
    let store = ciam.store.as_ref();
    // The membership and the account's link are read side by side (one round trip, not two).
    let (membership, prior) = tokio::join!(
        org::membership(store, &o.org_id, &user.id),
        prior_link(ciam, c, &user.id, &pending.subject)
    );
    let member = membership?.is_some();
    if !member && c.jit == Jit::Off {
        return Err(company.not_member());
    }
    let prior = prior?;
    let mut ops = company_link_ops(
        ciam,
        c,
        o,
        &user.id,
        &pending.subject,
        "phone",
        Cond::NotExists,
        prior,
    );
    let spent = ops.len();
    ops.push(spend_pending(&pending));
    ops.push(verified.consume);
    ops.extend(unlock_op(&user));
    if !member {
        ops.extend(company.join_ops(ciam, &user.id));
    }
    let (session, answer) = first_write(ciam, &company.who(&user), client);
    ops.push(TxOp::Put {
        item: session,
        cond: None,
    });
    match store.transact(ops).await {
        Ok(()) => answer.map(PhoneProof::SignedIn),
        Err(e) if e.condition_failed_at(0) => Err(link_exists()),
        Err(e) if e.condition_failed_at(spent) => Err(Reason::AUTHORIZATION_FAILED.into()),
        Err(e) if e.condition_failed_at(spent + 1) => Err(Reason::VERIFYCODE_NOT_FOUND.into()),
        // The account's link, its count or the membership changed meanwhile.
        Err(e) if e.is_condition_failed() => Err(Error {
            cause: Some("the account changed meanwhile".into()),
            ..Error::new(Reason::AUTHORIZATION_FAILED)
        }),
        Err(e) => Err(e.into()),
    }
}
