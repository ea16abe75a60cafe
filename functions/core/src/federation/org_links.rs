//! A company link (docs/organizations-connections.md §0.6): the one link write of the
//! company's own sign-in (by the company mail, by a phone proof, by a sign-up), and the phone
//! proof of a person a WeCom, DingTalk or Feishu connection vouched for without a company mail.
//! That person's identity waits as the public providers' pending identity
//! (`FEDPEND#`, docs/federation-design.md §4.1) with provider `org` and the connection's
//! `conn`, `orgId` and the identity provider's `mfa`; the phone proof (`links::prove_phone`)
//! and the sign-up (`sign_up::register`) redeem it under the connection's rules: the
//! just-in-time rule (`join`: the organization's default role; `off`: only a member) and the
//! organization's `mfaRequired` (the identity provider's second factor, else the account's
//! own, else refused).

use super::links::{
    count_link, link_exists, pending_item, prove_for_sign_up, spend_pending, PendingIdentity,
    PhoneProof, PENDING_TTL,
};
use super::org_sign_in::{
    account_link, account_link_key, connection_of, join_ops, link_key, not_permitted,
};
use super::{ExternalIdentity, Pending, ORG};
use crate::accounts::{first_write, Who};
use crate::client::ClientInfo;
use crate::error::{Error, Result};
use crate::lock::{clear_ops, ensure_unlocked};
use crate::org::connections::{Connection, Jit};
use crate::org::{self, Organization};
use crate::staff::token;
use crate::user::{live_user, profile_key, User};
use crate::validate::Identity;
use crate::{codes, Ciam, Reason};
use ciam_store::{Cond, Item, Key, TxOp};

/// What the account had of a link through the connection before this write.
#[derive(Debug, PartialEq, Eq)]
pub enum Prior {
    /// The account is made in the same transaction (its `links` counts the link already).
    NewAccount,
    /// No link through the connection: one more on the account's count.
    Unlinked,
    /// A link to the same subject (its lookup was stale): rewritten, not counted again.
    Same,
    /// A link to another subject (the identity provider changed its ids): replaced, not
    /// counted again; the old subject's lookup, when it still names the account, deleted.
    Replaced {
        old_subject: String,
        old_lookup: Option<Key>,
    },
}

/// The account's link through `c` before a write for `subject`. Round trips: 1 (the account's
/// item), 1 more when it names another subject (that subject's lookup).
pub async fn prior_link(
    ciam: &Ciam,
    c: &Connection,
    user_id: &str,
    subject: &str,
) -> Result<Prior> {
    let store = ciam.store.as_ref();
    let Some(item) = store.get(&account_link_key(user_id, &c.conn_id)).await? else {
        return Ok(Prior::Unlinked);
    };
    let old = item.s("subject").unwrap_or_default().to_owned();
    if old == subject {
        return Ok(Prior::Same);
    }
    let key = link_key(&c.conn_id, &old);
    let names_it = store
        .get(&key)
        .await?
        .is_some_and(|l| l.s("userId") == Some(user_id));
    Ok(Prior::Replaced {
        old_subject: old,
        old_lookup: names_it.then_some(key),
    })
}

/// The writes of a company link of `user_id` to `subject` through `c` of `o`, in this order:
/// the lookup `FEDID#org:<connId>#<subject>` (0, on `lookup_cond`), the account's item
/// `USER#<userId>` / `FED#org:<connId>` (1: new, or still the subject `prior` read), then, by
/// `prior`, one more on the account's `links` (an unlinked account) or the old subject's lookup
/// deleted (a replaced link; the count stays).
#[allow(clippy::too_many_arguments)]
pub fn company_link_ops(
    ciam: &Ciam,
    c: &Connection,
    o: &Organization,
    user_id: &str,
    subject: &str,
    via: &str,
    lookup_cond: Cond,
    prior: Prior,
) -> Vec<TxOp> {
    let lookup = Item::new(link_key(&c.conn_id, subject))
        .with("userId", user_id)
        .with("provider", format!("org:{}", c.conn_id.as_str()))
        .with("subject", subject)
        .with("orgId", o.org_id.as_str())
        .with("linkedAt", ciam.now())
        .with("via", via);
    let account_cond = match &prior {
        Prior::NewAccount | Prior::Unlinked => Cond::NotExists,
        Prior::Same => Cond::eq("subject", subject),
        Prior::Replaced { old_subject, .. } => Cond::eq("subject", old_subject.as_str()),
    };
    let mut ops = vec![
        TxOp::Put {
            item: lookup,
            cond: Some(lookup_cond),
        },
        TxOp::Put {
            item: account_link(ciam, c, o, user_id, subject),
            cond: Some(account_cond),
        },
    ];
    match prior {
        Prior::Unlinked => ops.push(count_link(user_id, None)),
        Prior::Replaced {
            old_lookup: Some(key),
            ..
        } => ops.push(TxOp::Delete {
            key,
            cond: Some(Cond::eq("userId", user_id)),
        }),
        Prior::NewAccount | Prior::Same | Prior::Replaced { .. } => {}
    }
    ops
}

/// The pending identity of a person `c` of `o` vouched for without a company mail: its token
/// (`?orgPending=`), 15 minutes. Round trips: 1.
pub async fn pending_identity(
    ciam: &Ciam,
    c: &Connection,
    o: &Organization,
    identity: &ExternalIdentity,
    pending: &Pending,
) -> Result<String> {
    let token = token(ciam);
    let mut item = pending_item(ciam, &token, ORG.name, identity, pending)
        .with("conn", c.conn_id.as_str())
        .with("orgId", o.org_id.as_str());
    if identity.mfa {
        item = item.with("mfa", true);
    }
    let item = item.expires(ciam.now() + PENDING_TTL);
    ciam.store.put(item, Some(Cond::NotExists)).await?;
    Ok(token)
}

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
        if self.o.settings.mfa_required && !self.mfa {
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
            ..Who::from(user)
        }
    }
}

/// The phone proof of an `org` pending identity (`links::prove_phone` after the code was
/// judged): no account has the phone → sign-up next (just in time `join` only, and the
/// identity provider's second factor when the organization requires one); else the phone's
/// account (active, not suspended: else CODE_ERROR, the code used up; not locked) must be a
/// member or join (`join`), and have a second factor when the organization requires one (the
/// identity provider's, else its own, asked after as NEED_TOTP_VERIFY); then one transaction:
/// the company link (`company_link_ops`), the pending identity's end, the code's use, the
/// membership (a non-member), the session. Round trips: 3 (the connection), 1 (the owner), 1
/// (the membership), 1 or 2 (the account's link), 1 (the transaction).
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
    let Some(user) = live_user(ciam, &uid).await?.filter(User::usable) else {
        codes::consume(ciam, verified).await?;
        return Err(Error {
            cause: Some("the phone's account may not sign in".into()),
            ..Error::new(Reason::CODE_ERROR)
        });
    };
    ensure_unlocked(&user, ciam.now())?;
    let (c, o) = (&company.c, &company.o);
    if o.settings.mfa_required && !company.mfa && !user.enable_totp {
        return Err(company.no_second_factor());
    }
    let store = ciam.store.as_ref();
    let member = org::membership(store, &o.org_id, &user.id).await?.is_some();
    if !member && c.jit == Jit::Off {
        return Err(company.not_member());
    }
    let prior = prior_link(ciam, c, &user.id, &pending.subject).await?;
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
    if let Some(clear) = clear_ops(&user) {
        ops.push(TxOp::Update {
            key: profile_key(&user.id),
            ops: clear,
            cond: Some(Cond::Exists),
        });
    }
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
