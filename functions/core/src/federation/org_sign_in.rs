//! The company's own sign-in (docs/organizations-connections.md §0.3, §0.6-8): a federated
//! sign-in through one of an organization's connections (provider `org`, the state naming the
//! connection). The start and the callback find the connection by its id alone
//! (`org::connections::find`); the callback's identity reaches an account by the connection's
//! link rule (§0.6), then the organization's just-in-time rule (§0.7), then a one-time login
//! code redeemed by `POST /auth/login/federation` with provider `org`. A test sign-in (§0.8)
//! signs nobody in: its outcome is recorded on the connection and shown.
//!
//! Items: the link `FEDID#org:<connId>#<subject>` / `LINK` {userId, provider `org:<connId>`,
//! subject, orgId, linkedAt, via}, so two companies' subjects never collide, and the account's
//! item `USER#<userId>` / `FED#org:<connId>` {subject, orgId, linkedAt} (counted in the user's
//! `links`: listed in the security centre, deleted with the account); the shared
//! `FEDSTATE#` (with `conn`, `test`) and `FEDCODE#` (with `orgId`, `mfa`) items.

use super::company_links::link_key;
use super::links::{code_key, LOGIN_CODE_TTL};
use super::org_links::{company_link_ops, pending_identity, prior_link, Prior};
use super::{ExternalIdentity, Finished, Pending, Through, ORG};
use crate::accounts::create_ops;
use crate::domains::claims;
use crate::domains::name::DomainName;
use crate::error::{Error, Result};
use crate::lock::ensure_unlocked;
use crate::org::connections::{self, ConnId, Connection, Jit, Protocol, Status};
use crate::org::{self, Organization};
use crate::staff::{bind_hash, token};
use crate::user::{live_user, unique_key, User};
use crate::validate::{self, Email, Identity};
use crate::{random_digits, Ciam, Reason};
use ciam_store::{Cond, Item, TxOp};

pub(super) fn not_permitted(cause: impl Into<String>) -> Error {
    Error {
        cause: Some(cause.into()),
        ..Error::new(Reason::FEDERATION_NOT_PERMITTED)
    }
}

/// The connection `conn_id` names and its organization, for a sign-in through it: an unknown
/// connection is AUTHORIZATION_FAILED; an organization not active ORG_NOT_ACTIVE; a connection
/// that is not `on` FEDERATION_NOT_PERMITTED, unless `test` (a test sign-in runs on a draft).
/// Round trips: 3 (the look-up, the connection, the organization).
pub async fn connection_of(
    ciam: &Ciam,
    conn_id: &str,
    test: bool,
) -> Result<(Connection, Organization)> {
    let id = ConnId::parse(conn_id).ok_or_else(|| Error {
        cause: Some("not a connection id".into()),
        ..Error::new(Reason::AUTHORIZATION_FAILED)
    })?;
    let store = ciam.store.as_ref();
    let c = connections::find(store, &id).await?.ok_or_else(|| Error {
        cause: Some("no such connection".into()),
        ..Error::new(Reason::AUTHORIZATION_FAILED)
    })?;
    let o = org::get(store, &c.org_id)
        .await?
        .ok_or(Reason::AUTHORIZATION_FAILED)?;
    if o.status != org::Status::Active {
        return Err(Error {
            cause: Some(format!("organization {} is not active", o.org_id)),
            ..Error::new(Reason::ORG_NOT_ACTIVE)
        });
    }
    if !test && c.status != Status::On {
        return Err(not_permitted(format!(
            "connection {} is {}",
            c.conn_id.as_str(),
            c.status.as_str()
        )));
    }
    Ok((c, o))
}

/// The connection a returning sign-in went through (its state's `conn`); a state without one
/// (not a connection's) is AUTHORIZATION_FAILED.
pub fn through(pending: &Pending) -> Result<&Through> {
    pending.connection.as_ref().ok_or_else(|| Error {
        cause: Some("the state names no connection".into()),
        ..Error::new(Reason::AUTHORIZATION_FAILED)
    })
}

/// The verified mail `identity` vouches for at a domain `o` verified (§0.6); else
/// FEDERATION_NOT_PERMITTED. Round trips: 1 (the domain's owner).
pub async fn company_mail(
    ciam: &Ciam,
    o: &Organization,
    identity: &ExternalIdentity,
) -> Result<Email> {
    let Some((mail, verified)) = &identity.vouches.mail else {
        return Err(not_permitted("the identity provider gave no mail"));
    };
    if !verified {
        return Err(not_permitted(
            "the identity provider did not verify the mail",
        ));
    }
    let mail = Email::parse(mail).map_err(|_| not_permitted("not a mail address"))?;
    let domain =
        DomainName::of_mail(mail.as_str()).ok_or_else(|| not_permitted("no domain of its own"))?;
    match claims::owner_of(ciam.store.as_ref(), &domain).await? {
        Some(owner) if owner.org == o.org_id => Ok(mail),
        _ => Err(not_permitted(format!(
            "{} is not a domain organization {} verified",
            domain.as_str(),
            o.org_id
        ))),
    }
}

/// A username from the mail's local part; `attempt` > 0 adds a random suffix.
fn username_candidate(ciam: &Ciam, mail: &Email, attempt: usize) -> String {
    let local = mail.as_str().split('@').next().unwrap_or_default();
    let mut base: String = local.chars().take(24).collect();
    if base.chars().count() < 2 {
        base = format!("user-{base}");
    }
    if attempt == 0 {
        base
    } else {
        format!("{base}-{}", random_digits(ciam.entropy.as_ref(), 4))
    }
}

/// The callback's end for a sign-in (not a test) through `c` of `o`: the verified company mail
/// ([`company_mail`]; a WeCom, DingTalk or Feishu connection, whose tenant is pinned, needs
/// it only when the subject is not linked yet, and without one the person proves a phone: a
/// pending identity, `org_links`); the account the subject's link names (a link to an account
/// deactivated since is replaced), else the one that has the mail, else (just in time `join`
/// only) a new one for the mail; the link written by `org_links::company_link_ops` (a link of
/// the account to another subject replaced); a member of `o`, or (`join`) made one with the
/// organization's default role, `organization.member_added` to its event apps
/// and `member.join` in its audit slice, in the link's transaction; `off` refuses a non-member
/// with FEDERATION_NOT_PERMITTED naming the organization. A suspended, deactivated or locked
/// account is refused as the other providers' links are. Answers the one-time login code
/// (60 s, bound to the state's `bindHash`), or the pending identity's token. Round trips: 1
/// (domain, when there is a mail), 1 (link), 1 (the mail's owner, when not linked), 1 (the
/// account), 1 or 2 (the membership beside the account's link, when linking), at most 1
/// transaction, 1 (the login code or the pending identity); a lost race reads again (at most 3
/// times).
pub async fn arrive(
    ciam: &Ciam,
    c: &Connection,
    o: &Organization,
    identity: &ExternalIdentity,
    pending: &Pending,
) -> Result<Finished> {
    // An OpenID Connect provider gives the mail every time; WeCom's web login never does, so
    // for the platforms the subject's link alone is enough (their tenant is pinned).
    let (mail, mut refusal) = match company_mail(ciam, o, identity).await {
        Ok(mail) => (Some(mail), None),
        Err(e) if c.protocol == Protocol::Oidc => return Err(e),
        Err(e) => (None, Some(e)),
    };
    let store = ciam.store.as_ref();
    let lookup = link_key(&c.conn_id, &identity.subject);
    for attempt in 0..3 {
        let linked = store
            .get(&lookup)
            .await?
            .and_then(|l| l.s("userId").map(str::to_owned));
        // A link to an account deactivated since is stale (deactivation deletes the lookup
        // with the account's `FED#org:` item; a link made before that item existed stays):
        // the mail decides again, and the link is replaced.
        let linked_user = match &linked {
            Some(uid) => live_user(ciam, uid).await?,
            None => None,
        };
        let stale = linked.clone().filter(|_| linked_user.is_none());
        // The account (Ok), or, not linked, the company mail that decides (Err); not linked
        // and no company mail: the person proves a phone (a pending identity carrying the
        // connection, the organization and the identity provider's second factor).
        let mut user = match (linked_user, &mail) {
            (Some(u), _) => Ok(u),
            (None, Some(mail)) => Err(mail),
            (None, None) => {
                if let Some(e) = refusal.take() {
                    tracing::info!(
                        cause = e.cause.as_deref().unwrap_or(""),
                        "no company mail: phone proof"
                    );
                }
                return pending_identity(ciam, c, o, identity, pending)
                    .await
                    .map(Finished::Pending);
            }
        };
        if let Err(mail) = user {
            let owner = store
                .get(&unique_key(Identity::Mail(mail.clone()).unique_pk()))
                .await?
                .and_then(|i| i.s("userId").map(str::to_owned));
            if let Some(uid) = owner {
                user = Ok(live_user(ciam, &uid).await?.ok_or_else(|| Error {
                    cause: Some("the mail's account is gone".into()),
                    ..Error::new(Reason::AUTHORIZATION_FAILED)
                })?);
            }
        }
        if let Ok(u) = &user {
            if u.suspended_at.is_some() {
                return Err(Error {
                    cause: Some("the account may not sign in".into()),
                    ..Error::new(Reason::AUTHORIZATION_FAILED)
                });
            }
            ensure_unlocked(u, ciam.now())?;
        }
        // An organization that requires a second factor (§3): the identity provider's (judged
        // by the connection's `mfaAcr`), else the account's own (asked after the login code);
        // with neither, refused before any account or link is made.
        let has = user.as_ref().is_ok_and(|u| u.enable_totp);
        if crate::org::policy::second_factor_missing(o.settings.mfa_required, identity.mfa, has) {
            return Err(not_permitted(format!(
                "organization {} requires a second factor: the identity provider gave none and \
                 the account has none",
                o.org_id
            )));
        }
        // An account's membership and, when the subject is to be linked, its link through
        // the connection, read side by side; a new account has neither.
        let linking = linked.is_none() || stale.is_some();
        let (member, prior) = match &user {
            Ok(u) => {
                let (membership, prior) =
                    tokio::join!(org::membership(store, &o.org_id, &u.id), async {
                        match linking {
                            true => prior_link(ciam, c, &u.id, &identity.subject)
                                .await
                                .map(Some),
                            false => Ok(None),
                        }
                    });
                (membership?.is_some(), prior?)
            }
            Err(_) => (false, Some(Prior::NewAccount)),
        };
        if !member && c.jit == Jit::Off {
            return Err(not_permitted(format!(
                "not a member of organization {} ({})",
                o.org_id, o.name_en
            )));
        }
        let mut ops: Vec<TxOp> = Vec::new();
        let created = user.is_err();
        let user = match user {
            Ok(u) => u,
            Err(mail) => {
                let id = &Identity::Mail(mail.clone());
                let u = User {
                    id: ciam.new_id(),
                    user_name: username_candidate(ciam, mail, attempt),
                    mail: Some(mail.as_str().to_owned()),
                    display_name: identity
                        .name
                        .as_deref()
                        .and_then(|n| validate::optional_text("displayName", n, 50).ok().flatten()),
                    advertisement: "unsubscribe".into(),
                    created_at: ciam.now(),
                    consents: Some(0),
                    // The link made below (the count of its `FED#` items).
                    links: 1,
                    ..User::default()
                };
                // 0 user, 1 the mail, 2 the username.
                ops.extend(create_ops(&u, id));
                ops.extend(crate::directory::puts(&u));
                u
            }
        };
        if let Some(prior) = prior {
            let cond = match &stale {
                Some(old) => Cond::eq("userId", old.as_str()),
                None => Cond::NotExists,
            };
            let via = if created { "signUp" } else { "mail" };
            ops.extend(company_link_ops(
                ciam,
                c,
                o,
                &user.id,
                &identity.subject,
                via,
                cond,
                prior,
            ));
        }
        if !member {
            ops.extend(join_ops(ciam, c, o, &user.id));
        }
        if !ops.is_empty() {
            match store.transact(ops).await {
                Ok(()) => {
                    if created {
                        crate::numbers::count_new_account(ciam).await;
                    }
                }
                // A race (the mail, the username, the link or the membership taken meanwhile,
                // the organization suspended): read again.
                Err(e) if e.is_condition_failed() => continue,
                Err(e) => return Err(e.into()),
            }
        }
        return login_code(ciam, c, o, &user.id, pending, identity.mfa)
            .await
            .map(Finished::Code);
    }
    Err(Error {
        cause: Some("lost three races in a row".into()),
        ..Error::new(Reason::SERVICE_UNAVAILABLE)
    })
}

/// The just-in-time membership of `user_id` in `o` through `c`: the two membership items and
/// the counters, the event, the audit entry.
pub(super) fn join_ops(ciam: &Ciam, c: &Connection, o: &Organization, user_id: &str) -> Vec<TxOp> {
    let role = o.settings.default_role;
    let by = format!("connection:{}", c.conn_id.as_str());
    let mut ops = org::members::join_ops(&o.org_id, user_id, role, &by, ciam.now(), Vec::new());
    ops.extend(org::events::op(
        ciam,
        o,
        crate::events::Kind::OrgMemberAdded,
        user_id,
        role,
        None,
    ));
    let actor = org::audit::Actor {
        user_id,
        role: role.as_str(),
    };
    ops.push(org::audit::record(
        ciam,
        &o.org_id,
        &actor,
        org::audit::OrgAction::MemberJoin,
        user_id,
        None,
        Some(by),
    ));
    ops
}

/// The one-time login code of provider `org` (60 s), bound to the state's `bindHash`, naming
/// the organization; `mfa` when the identity provider says a second factor was used and the
/// connection's `mfaAcr` (or `amr`) counts it. Round trips: 1.
async fn login_code(
    ciam: &Ciam,
    c: &Connection,
    o: &Organization,
    user_id: &str,
    pending: &Pending,
    mfa: bool,
) -> Result<String> {
    let code = token(ciam);
    let mut item = Item::new(code_key(ciam, &ORG, &code))
        .with("provider", ORG.name)
        .with("userId", user_id)
        .with("bindHash", pending.bind_hash.as_str())
        .with("orgId", o.org_id.as_str())
        .with("conn", c.conn_id.as_str());
    if mfa {
        item = item.with("mfa", true);
    }
    if o.settings.mfa_required {
        item = item.with("mfaRequired", true);
    }
    let item = item.expires(ciam.now() + LOGIN_CODE_TTL);
    ciam.store.put(item, Some(Cond::NotExists)).await?;
    Ok(code)
}

/// What a test sign-in learnt from the identity provider (§0.8), shown to the admin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestOutcome {
    /// The connection's status after the test.
    pub status: Status,
    /// The identity, when the identity provider gave one.
    pub identity: Option<ExternalIdentity>,
    /// Whether the mail is verified at a domain the organization verified (who may sign in).
    pub company_mail: bool,
    /// The failed step and the identity provider's error, when it failed.
    pub failure: Option<String>,
}

/// Records a test sign-in through `c`: passed when the identity provider gave an identity
/// (`identified`), whatever the mail; the status goes `tested` (an `on` connection stays on)
/// or back to `draft`. Nobody is signed in. Round trips: 1 (the domain's owner, when there is
/// a mail), 1 (the record).
pub async fn record_test(
    ciam: &Ciam,
    c: &Connection,
    o: &Organization,
    identified: std::result::Result<ExternalIdentity, String>,
) -> Result<TestOutcome> {
    let passed = identified.is_ok();
    let status = connections::record_test(ciam, c, passed).await?;
    Ok(match identified {
        Ok(identity) => TestOutcome {
            status,
            company_mail: company_mail(ciam, o, &identity).await.is_ok(),
            identity: Some(identity),
            failure: None,
        },
        Err(failure) => TestOutcome {
            status,
            identity: None,
            company_mail: false,
            failure: Some(failure),
        },
    })
}

/// The browser binding of a test sign-in's state: a fresh random one nobody holds (a test signs
/// nobody in, so no browser redeems anything).
pub fn throwaway_bind_hash(ciam: &Ciam) -> String {
    bind_hash(&token(ciam))
}
