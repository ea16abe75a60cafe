//! Over 500 lines because a link's whole life is here, for every provider that links: its items,
//! the callback's end, the redemption, the phone proof's writes, what a change tells, the deletes.
//! Links between a provider's subject and a Ciam account, for every provider whose rule is
//! `LinkRule::ProvePhone` (docs/federation-design.md §2, §4.1-§4.2): the callback's end (a
//! linked subject gets a one-time login code, a new one a pending identity), the login code's
//! redemption and the pending identity's reading and writes (the phone proof itself:
//! `phone.rs`; the sign-up that completes a pending identity: `sign_up.rs`).
//!
//! Items:
//! - `FEDID#<provider>#<subject>` / `LINK` {userId, provider, subject, app?, appSubject?,
//!   linkedAt, via}: the lookup by subject and its uniqueness;
//! - `USER#<userId>` / `FED#<provider>` {subject, name?, linkedAt}: the account's list (one per
//!   provider), beside `links` on the user item;
//! - `FEDCODE#<keyed hash fed-code>` / `CODE` {provider, userId, bindHash}, 60 s;
//! - `FEDPEND#<keyed hash fed-pending>` / `PENDING` {provider, subject, app?, appSubject?,
//!   name?, bindHash, lang, query, phone?, provenAt?}, 15 minutes.
//!
//! Ciam proves, the provider never decides: a subject reaches an account only through a link,
//! and a link is only made by a phone Ciam's own code proved in the same browser (never by a
//! name, a nickname or what the platform says).

use super::company_links;
use super::returning::Pending;
use super::{ExternalIdentity, Facts, ProviderId};
use crate::accounts::{SignedIn, Who};
use crate::audit::{self as activity, Event};
use crate::client::ClientInfo;
use crate::error::{Error, Result};
use crate::lock::{clear_ops, ensure_unlocked};
use crate::staff::{bind_hash, take, token};
use crate::user::{active_user, live_user, profile_key, user_pk, User};
use crate::validate::{self, Identity};
use crate::{codes, events, Ciam, Reason};
use ciam_store::{Cond, Item, Key, Query, StoreError, TxOp, Update};

/// How long the SPA has to redeem a login code.
pub const LOGIN_CODE_TTL: i64 = 60;
/// How long a pending identity waits for its phone proof and sign-up.
pub const PENDING_TTL: i64 = 900;

/// How a provider's callback ended (besides a refusal).
#[derive(Debug, PartialEq, Eq)]
pub enum Finished {
    /// The account is reached: a one-time login code (`?<name>Code=`).
    Code(String),
    /// A subject with no link yet: the pending identity's token (`?<name>Pending=`).
    Pending(String),
    /// A link started in the security centre: the pending link's token (`?<name>Link=` on the
    /// secure page), confirmed by `identities::confirm` from the same session.
    Link(String),
}

/// The lookup item of `provider`'s `subject`.
pub fn link_key(provider: ProviderId, subject: &str) -> Key {
    Key::new(format!("FEDID#{}#{subject}", provider.name()), "LINK")
}

/// The account's item of its link to `provider`.
pub fn account_link_key(user_id: &str, provider: ProviderId) -> Key {
    Key::new(user_pk(user_id), format!("FED#{}", provider.name()))
}

pub(super) fn code_key(ciam: &Ciam, facts: &Facts, code: &str) -> Key {
    Key::new(
        format!(
            "{}{}",
            facts.items.code,
            ciam.keys
                .keyed_hash(facts.items.code_label, code.as_bytes())
        ),
        "CODE",
    )
}

fn pending_key(ciam: &Ciam, token: &str) -> Key {
    Key::new(
        format!(
            "FEDPEND#{}",
            ciam.keys.keyed_hash("fed-pending", token.as_bytes())
        ),
        "PENDING",
    )
}

/// The callback's end for a provider that links (after its state was taken and the provider
/// named the subject): a linked subject whose account may sign in gets a login code bound to
/// the state's `bindHash`; a suspended or deactivated account is AUTHORIZATION_FAILED (as a
/// refused code), a locked one the lock; a subject with no link becomes a pending identity.
/// Round trips: 1 (the link); linked: 1 (the user), 1 (the code); new: 1 (the pending item).
pub async fn arrive(
    ciam: &Ciam,
    facts: &Facts,
    identity: &ExternalIdentity,
    pending: &Pending,
) -> Result<Finished> {
    let link = ciam
        .store
        .get(&link_key(facts.id, &identity.subject))
        .await?;
    if let Some(link) = link {
        if pending.link_for.is_some() {
            return Err(link_exists());
        }
        let uid = link.s("userId").unwrap_or_default();
        let user = active_user(ciam, uid).await?.ok_or_else(|| Error {
            cause: Some("the linked account may not sign in".into()),
            ..Error::new(Reason::AUTHORIZATION_FAILED)
        })?;
        ensure_unlocked(&user, ciam.now())?;
        let code = token(ciam);
        let item = Item::new(code_key(ciam, facts, &code))
            .with("provider", facts.name)
            .with("userId", user.id.as_str())
            .with("bindHash", pending.bind_hash.as_str())
            .expires(ciam.now() + LOGIN_CODE_TTL);
        ciam.store.put(item, Some(Cond::NotExists)).await?;
        return Ok(Finished::Code(code));
    }
    let token = token(ciam);
    let item = pending_item(ciam, &token, facts.name, identity, pending)
        .with_opt(
            "linkFor",
            pending.link_for.as_ref().map(|l| l.user_id.clone()),
        )
        .with_opt("sid", pending.link_for.as_ref().map(|l| l.sid.clone()));
    let item = item.expires(ciam.now() + PENDING_TTL);
    ciam.store.put(item, Some(Cond::NotExists)).await?;
    Ok(match pending.link_for {
        Some(_) => Finished::Link(token),
        None => Finished::Pending(token),
    })
}

/// The pending identity `token` of `provider`'s `identity` for the browser of `pending` (its
/// bindHash, language, query to return to), without its expiry: the subject, the name the
/// provider gave (display only) and the per-app subject.
pub(super) fn pending_item(
    ciam: &Ciam,
    token: &str,
    provider: &str,
    identity: &ExternalIdentity,
    pending: &Pending,
) -> Item {
    let mut item = Item::new(pending_key(ciam, token))
        .with("provider", provider)
        .with("subject", identity.subject.as_str())
        .with("bindHash", pending.bind_hash.as_str())
        .with("lang", pending.lang.tag())
        .with("query", pending.query.as_str())
        .with_opt(
            "name",
            identity
                .name
                .as_deref()
                .and_then(|n| validate::optional_text("displayName", n, 50).ok().flatten()),
        );
    if let Some((app, sub)) = &identity.app_subject {
        item = item
            .with("app", app.as_str())
            .with("appSubject", sub.as_str());
    }
    item
}

fn check_text(field: &'static str, value: &str, zh: &'static str, en: &'static str) -> Result<()> {
    if value.is_empty() || value.len() > 200 {
        return Err(Error::field(Reason::INVALID_PARAMETER, field, zh, en));
    }
    Ok(())
}

/// Whether `bind` is the one whose hash the item was bound to (constant time).
fn same_browser(item: &Item, bind: &str) -> bool {
    let expected = item.s("bindHash").unwrap_or_default();
    let presented = bind_hash(bind);
    !expected.is_empty()
        && bool::from(subtle::ConstantTimeEq::ct_eq(
            presented.as_bytes(),
            expected.as_bytes(),
        ))
}

fn another_browser() -> Error {
    Error {
        cause: Some("started by another browser".into()),
        ..Error::new(Reason::AUTHORIZATION_FAILED)
    }
}

/// `POST /auth/login/federation`: redeems the login code of `provider` once; then what a
/// password sign-in does (a session, or NEED_TOTP_VERIFY with a challenge). An unknown, expired,
/// used or another provider's code, another browser's `bind`, an account suspended or
/// deactivated meanwhile: AUTHORIZATION_FAILED (the code is used up either way). Round trips: 3
/// (code read, conditional delete, user) and the session's write.
pub async fn redeem(
    ciam: &Ciam,
    provider: &str,
    code: &str,
    bind: &str,
    client: &ClientInfo,
) -> Result<SignedIn> {
    // `org`: an organization's connection (`org_sign_in`), whose login code is redeemed here too.
    let p = match provider {
        "org" => ProviderId::Org,
        _ => provider_named(provider)?,
    };
    crate::numbers::note_method(crate::numbers::Method::Linked(p));
    check_text("code", code, "登录码无效", "Invalid login code")?;
    check_text("bind", bind, "浏览器绑定值无效", "Invalid browser binding")?;
    let item = take(ciam, &code_key(ciam, p.facts(), code)).await?;
    if item.s("provider") != Some(p.name()) {
        return Err(Error {
            cause: Some("another provider's login code".into()),
            ..Error::new(Reason::AUTHORIZATION_FAILED)
        });
    }
    if !same_browser(&item, bind) {
        return Err(another_browser());
    }
    let uid = item.s("userId").unwrap_or_default();
    let user = active_user(ciam, uid)
        .await?
        .ok_or(Reason::AUTHORIZATION_FAILED)?;
    ensure_unlocked(&user, ciam.now())?;
    let clear = clear_ops(&user).map(|ops| TxOp::Update {
        key: profile_key(&user.id),
        ops,
        cond: Some(Cond::Exists),
    });
    // A connection's identity provider's second factor (judged at the callback by the
    // connection's `mfaAcr`) is the session's, as staff's is.
    let org_mfa = p == ProviderId::Org && item.bool("mfa") == Some(true);
    let amr = if org_mfa { vec!["mfa"] } else { Vec::new() };
    // An organization that requires a second factor (`mfaRequired`, on the code): the identity
    // provider's counts; else Ciam's own is asked (the account's two-factor step); an account
    // with neither is refused (docs/organizations-connections.md §3).
    let org_needs_mfa = p == ProviderId::Org && item.bool("mfaRequired") == Some(true);
    if crate::org::policy::second_factor_missing(org_needs_mfa, org_mfa, user.enable_totp) {
        return Err(Error {
            cause: Some(
                "the organization requires a second factor: the identity provider gave none \
                 and the account has none"
                    .into(),
            ),
            ..Error::new(Reason::FEDERATION_NOT_PERMITTED)
        });
    }
    // The session remembers the organization whose connection it came through (§3).
    let org = (p == ProviderId::Org)
        .then(|| item.s("orgId").map(str::to_owned))
        .flatten();
    crate::accounts::finish_login(
        ciam,
        Who {
            amr,
            org,
            method: Some(crate::org::policy::method_of_provider(p)),
            ..Who::from(&user)
        },
        client,
        clear.into_iter().collect(),
        Reason::AUTHORIZATION_FAILED,
    )
    .await
}

/// The provider of the shared routes' `provider` field: one that links; else
/// INVALID_PARAMETER naming it.
pub fn provider_named(name: &str) -> Result<ProviderId> {
    ProviderId::linked_by_name(name).ok_or_else(|| {
        Error::field(
            Reason::INVALID_PARAMETER,
            "provider",
            "不支持的登录方式",
            "Unknown sign-in provider",
        )
    })
}

/// A pending identity, as read for its phone proof or sign-up.
pub(super) struct PendingIdentity {
    pub(super) item: Item,
    pub(super) provider: ProviderId,
    pub(super) subject: String,
}

/// Reads the pending identity `token` of a sign-in for the browser holding `bind`: missing,
/// expired, bound to another browser or a security centre's pending link is
/// AUTHORIZATION_FAILED (the item is kept for its owner). Round trips: 1.
pub(super) async fn read_pending(ciam: &Ciam, token: &str, bind: &str) -> Result<PendingIdentity> {
    let p = read_any_pending(ciam, token, bind).await?;
    if p.item.s("linkFor").is_some() {
        return Err(Error {
            cause: Some("a pending link of the security centre".into()),
            ..Error::new(Reason::AUTHORIZATION_FAILED)
        });
    }
    Ok(p)
}

/// [`read_pending`] without the kind check: a sign-in's or a security centre's pending link.
pub(super) async fn read_any_pending(
    ciam: &Ciam,
    token: &str,
    bind: &str,
) -> Result<PendingIdentity> {
    check_text(
        "pending",
        token,
        "待关联身份无效",
        "Invalid pending identity",
    )?;
    check_text("bind", bind, "浏览器绑定值无效", "Invalid browser binding")?;
    let item = ciam
        .store
        .get(&pending_key(ciam, token))
        .await?
        .ok_or(Reason::AUTHORIZATION_FAILED)?;
    if !same_browser(&item, bind) {
        return Err(another_browser());
    }
    // `org`: a person an organization's connection vouched for without a company mail
    // (`org_links`).
    let provider = item
        .s("provider")
        .and_then(|name| match name {
            "org" => Some(ProviderId::Org),
            _ => ProviderId::linked_by_name(name),
        })
        .ok_or(Reason::AUTHORIZATION_FAILED)?;
    let subject = item.s("subject").unwrap_or_default().to_owned();
    if subject.is_empty() {
        return Err(Reason::AUTHORIZATION_FAILED.into());
    }
    Ok(PendingIdentity {
        item,
        provider,
        subject,
    })
}

/// The writes of a link of `p` to `user_id` (§2.2), in this order, so a failed condition is
/// read by index: the lookup (0: the subject is linked to an account already), the account's
/// item (1: the account has this provider already), the user's count (2: the account must be
/// active and not suspended), the pending identity's end (3: used meanwhile).
pub(super) fn link_ops(ciam: &Ciam, p: &PendingIdentity, user_id: &str, via: &str) -> Vec<TxOp> {
    let [lookup, account] = link_puts(ciam, p, user_id, via);
    vec![lookup, account, count_link(user_id, None), spend_pending(p)]
}

/// The link's two items: the lookup by subject and the account's item of the provider, each
/// new (a subject linked meanwhile, or this provider on the account already, fails them).
pub(super) fn link_puts(ciam: &Ciam, p: &PendingIdentity, user_id: &str, via: &str) -> [TxOp; 2] {
    let now = ciam.now();
    let mut lookup = Item::new(link_key(p.provider, &p.subject))
        .with("userId", user_id)
        .with("provider", p.provider.name())
        .with("subject", p.subject.as_str())
        .with("linkedAt", now)
        .with("via", via);
    if let (Some(app), Some(sub)) = (p.item.s("app"), p.item.s("appSubject")) {
        lookup = lookup.with("app", app).with("appSubject", sub);
    }
    let account = Item::new(account_link_key(user_id, p.provider))
        .with("subject", p.subject.as_str())
        .with_opt("name", p.item.s("name").map(str::to_owned))
        .with("linkedAt", now);
    [
        TxOp::Put {
            item: lookup,
            cond: Some(Cond::NotExists),
        },
        TxOp::Put {
            item: account,
            cond: Some(Cond::NotExists),
        },
    ]
}

/// One more link on the account's count, on an active account that is not suspended (and
/// `also`, e.g. the session's generation).
pub(super) fn count_link(user_id: &str, also: Option<Cond>) -> TxOp {
    let live = Cond::Exists
        .and(Cond::eq("status", "active"))
        .and(Cond::attr_not_exists("suspendedAt"));
    TxOp::Update {
        key: profile_key(user_id),
        ops: vec![Update::Add("links".into(), 1)],
        cond: Some(match also {
            Some(c) => live.and(c),
            None => live,
        }),
    }
}

/// The pending identity used up (still there: else it was spent meanwhile).
pub(super) fn spend_pending(p: &PendingIdentity) -> TxOp {
    TxOp::Delete {
        key: p.item.key.clone(),
        cond: Some(Cond::Exists),
    }
}

pub(super) fn link_exists() -> Error {
    Error::new(Reason::FEDERATION_LINK_EXISTS)
}

/// What the phone proof led to.
#[derive(Debug)]
pub enum PhoneProof {
    /// The phone's account is linked and signed in (or NEED_TOTP_VERIFY, as an error).
    SignedIn(SignedIn),
    /// No account has the phone: the pending identity now holds it, proven; sign-up is next.
    SignUp,
}

/// The phone's account `uid`, as a phone proof may sign it in: active and not suspended (else
/// the code sign-in's answer, CODE_ERROR, the code used up) and not locked (ACCOUNT_LOCKED).
/// Round trips: 1 (the account), 1 more for the code's use when refused.
pub(super) async fn owner_signing_in(
    ciam: &Ciam,
    uid: &str,
    verified: codes::Verified,
) -> Result<(User, codes::Verified)> {
    let Some(user) = live_user(ciam, uid).await?.filter(User::usable) else {
        codes::consume(ciam, verified).await?;
        return Err(Error {
            cause: Some("the phone's account may not sign in".into()),
            ..Error::new(Reason::CODE_ERROR)
        });
    };
    ensure_unlocked(&user, ciam.now())?;
    Ok((user, verified))
}

/// The sign-in's clearing of the account's failed attempts, when it has some to clear.
pub(super) fn unlock_op(user: &User) -> Option<TxOp> {
    clear_ops(user).map(|clear| TxOp::Update {
        key: profile_key(&user.id),
        ops: clear,
        cond: Some(Cond::Exists),
    })
}

/// No account has the proven `phone`: the code's use and the proven phone on the pending item
/// (sign-up comes next). Round trips: 1.
pub(super) async fn prove_for_sign_up(
    ciam: &Ciam,
    pending: &PendingIdentity,
    phone: &Identity,
    verified: codes::Verified,
) -> Result<PhoneProof> {
    let proven = TxOp::Update {
        key: pending.item.key.clone(),
        ops: vec![
            Update::Set("phone".into(), phone.as_str().into()),
            Update::Set("provenAt".into(), ciam.now().into()),
        ],
        cond: Some(Cond::Exists),
    };
    match ciam.store.transact(vec![verified.consume, proven]).await {
        Ok(()) => Ok(PhoneProof::SignUp),
        Err(e) if e.condition_failed_at(0) => Err(Reason::VERIFYCODE_NOT_FOUND.into()),
        Err(e) if e.condition_failed_at(1) => Err(Reason::AUTHORIZATION_FAILED.into()),
        Err(e) => Err(e.into()),
    }
}

/// The activity entry (`identityLinked` or `identityUnlinked`, naming `p`) and the partner event
/// `user.identity_changed` of a link of `p` made (`linked`) or removed on `user`, for the
/// change's transaction.
pub(super) fn told_ops(
    ciam: &Ciam,
    user: &User,
    p: ProviderId,
    linked: bool,
    client: &ClientInfo,
) -> impl Iterator<Item = TxOp> {
    let event = if linked {
        Event::IdentityLinked
    } else {
        Event::IdentityUnlinked
    };
    let entry = activity::record_named(ciam, &user.id, event, p.name(), client);
    std::iter::once(entry).chain(events::identity_changed(ciam, user, p.name(), linked))
}

/// The deletes of every link of `user_id` (its `FED#` items and their lookups, an
/// organization's connection's too), for the
/// account's deactivation transaction. Round trips: 1 (the query).
pub async fn delete_ops(ciam: &Ciam, user_id: &str) -> std::result::Result<Vec<TxOp>, StoreError> {
    let q = Query::partition(user_pk(user_id)).prefix("FED#");
    let mut ops = Vec::new();
    for item in ciam.store.query(q).await? {
        let name = item.key.sk.trim_start_matches("FED#");
        let subject = item.s("subject").unwrap_or_default();
        ops.push(TxOp::Delete {
            key: item.key.clone(),
            cond: None,
        });
        let lookup = match company_links::conn_of(name) {
            Some(conn) => Some(company_links::link_key(&conn, subject)),
            None => ProviderId::linked_by_name(name).map(|p| link_key(p, subject)),
        };
        if let Some(key) = lookup {
            ops.push(TxOp::Delete {
                key,
                cond: Some(Cond::eq("userId", user_id)),
            });
        }
    }
    Ok(ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_name_the_provider_and_the_subject() {
        let k = link_key(ProviderId::Mock, "sub-1");
        assert_eq!((k.pk.as_str(), k.sk.as_str()), ("FEDID#mock#sub-1", "LINK"));
        let k = account_link_key("u1", ProviderId::Mock);
        assert_eq!((k.pk.as_str(), k.sk.as_str()), ("USER#u1", "FED#mock"));
    }

    #[test]
    fn the_shared_routes_take_only_providers_that_link() {
        assert_eq!(
            provider_named("staff").unwrap_err().reason,
            Reason::INVALID_PARAMETER
        );
        assert_eq!(provider_named("mock").ok(), Some(ProviderId::Mock));
    }
}
