//! Sign-in and the profile (sign-up: `registration`; password changes and resets: `passwords`).

use crate::attempts::{self, Way};
use crate::challenge::{self, Challenge};
use crate::client::ClientInfo;
use crate::error::{Error, Result};
use crate::lock::locked_error;
use crate::sessions::{self, same_session, Session};
use crate::signin::{self, Attempt, SignInRecord};
use crate::user::{live_user, profile_key, unique_key, username_pk, User, UserInfo};
use crate::validate::{self, Identity};
use crate::{codes, password, random, Ciam, LostRace, Purpose, Reason};
use ciam_store::{Cond, Item, StoreError, TxOp, Update};
use serde::Serialize;

pub use crate::passwords::{change_password, reset_password};

/// The writes that create the account `user` signing up with `id`, each only if new: the user
/// item (0), the identity's item with its sign-in record (1: a failed condition means the
/// identity is taken) and the username's (2: the username is taken). Registration and the first
/// staff sign-in.
pub(crate) fn create_ops(user: &User, id: &Identity) -> Vec<TxOp> {
    [
        user.to_item(),
        signin::new_identity_item(unique_key(id.unique_pk()), user),
        Item::new(unique_key(username_pk(&user.user_name))).with("userId", user.id.as_str()),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, item)| TxOp::Put {
        item,
        // The identity's key may hold an unknown name's budget of attempts (`signin`).
        cond: Some(if i == 1 {
            signin::name_free()
        } else {
            Cond::NotExists
        }),
    })
    .collect()
}

/// What a successful sign-in returns: the session.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SignedIn {
    /// The session's bearer token.
    pub token: String,
    /// The account signed in.
    pub user_id: String,
    /// unix seconds; moves with activity (30 min idle, 12 h cap)
    pub expires_at: i64,
    /// The identity it signed in by had already signed in today (its `actDay`): the console's
    /// numbers need not look at the account's day again (`numbers::SignIn::active_today`).
    #[serde(skip)]
    pub active_today: bool,
    /// Its session carries what the numbers count (`numbers::tally`): the table's stream
    /// counts it, so the sign-in's request writes no counter (`Config::numbers_from_stream`).
    #[serde(skip)]
    pub counted_later: bool,
}

/// `POST /auth/login/password`. PASSWORD_ERROR alike for an unknown account, a deactivated one
/// and a wrong password (a suspended account's included), each after one argon2 verification and
/// the same single store call (the attempt, `signin::take_attempt`); ACCOUNT_SUSPENDED only after
/// a suspended account's right password (docs/console-design.md §4); ORG_SIGN_IN_REQUIRED only
/// after the right password of a mail whose domain requires its company's sign-in (its owner
/// item read beside the attempt, docs/organizations-connections.md §0.5; the attempt given
/// back). Round trips: 2 (the attempt beside the domain's owner item, then the reset and the
/// session side by side, `finish_password`; or the lock after the last allowed failure).
pub async fn login_password(
    ciam: &Ciam,
    account: &str,
    pw: &str,
    client: &ClientInfo,
) -> Result<SignedIn> {
    // A mail's domain may require its company's sign-in (docs/organizations-connections.md
    // §0.5): its owner item is read beside the attempt (no round trip more; nothing for a phone
    // or a domain nobody can claim) and told only after the right password.
    let (attempt, required) = match Identity::parse(account) {
        Ok(id) => {
            let (attempt, required) = tokio::join!(
                signin::take_attempt(ciam, &id),
                crate::domains::sign_in::required_for(ciam.store.as_ref(), &id)
            );
            (Some(attempt?), required)
        }
        // No account can have a malformed name: nothing to count.
        Err(_) => (None, Ok(None)),
    };
    let rec = match attempt {
        Some(Attempt::Taken(rec)) => rec,
        Some(Attempt::Locked(until)) => return Err(locked_error(until)),
        Some(Attempt::NoAccount(budget)) => {
            password::verify(pw.to_owned(), None).await?;
            let base = Reason::PASSWORD_ERROR.into();
            return Err(attempts::failed_unknown(ciam, &budget, Way::Password, client, base).await);
        }
        None => {
            password::verify(pw.to_owned(), None).await?;
            return Err(Reason::PASSWORD_ERROR.into());
        }
    };
    if rec.pwd_hash.is_none() {
        password::verify(pw.to_owned(), None).await?;
        // Only accounts made by staff sign-in have no password; the answer tells them.
        let staff = live_user(ciam, &rec.user_id)
            .await?
            .is_some_and(|u| u.eiam_uid.is_some());
        let base = if staff {
            Reason::EIAM_PASSWORD_UNSET
        } else {
            Reason::PASSWORD_ERROR
        };
        return Err(attempts::failed(ciam, &rec, Way::Password, client, base.into()).await);
    }
    if !password::verify(pw.to_owned(), rec.pwd_hash.clone()).await? {
        let base = Reason::PASSWORD_ERROR.into();
        return Err(attempts::failed(ciam, &rec, Way::Password, client, base).await);
    }
    if rec.suspended {
        // The right password proves the owner: told the truth, the attempt given back (not a
        // guess), the lock and the counter otherwise left alone, no session.
        return Err(signin::proven_suspended(ciam, &rec).await);
    }
    if let Some(e) = required_refusal(ciam, &rec, required).await {
        return Err(e);
    }
    let answer = finish_password(ciam, &rec, client).await;
    signin::settle(ciam, &rec, answer).await
}

/// The answer to a right secret of an address that must use its company's sign-in
/// (ORG_SIGN_IN_REQUIRED naming the connection), after giving back the attempt the proof took
/// (no guess: it must not bring the lock closer); a failed read of the domain answers as a
/// failed success does (`signin::settle`). `None`: the sign-in goes on. Round trips: 0, or 1
/// (the refund).
async fn required_refusal(
    ciam: &Ciam,
    rec: &SignInRecord,
    required: Result<Option<crate::org::connections::ConnId>>,
) -> Option<Error> {
    match required {
        Ok(None) => None,
        Ok(Some(conn)) => {
            signin::refund(ciam, rec).await;
            Some(crate::domains::sign_in::refusal(&conn))
        }
        Err(e) => signin::settle(ciam, rec, Err::<(), _>(e)).await.err(),
    }
}

/// `POST /auth/login/code`. The attempt, the code and a mail's domain owner item are read
/// together; the code is consumed in the success transaction; a right code of a mail whose
/// domain requires its company's sign-in is ORG_SIGN_IN_REQUIRED (no session). Round trips: 2
/// (the attempt with the code read, then the success transaction, or the wrong code's count).
pub async fn login_code(
    ciam: &Ciam,
    account: &str,
    code: &str,
    client: &ClientInfo,
) -> Result<SignedIn> {
    let id = Identity::parse(account)?;
    let code = validate::code("code", code)?;
    // A code sent before the domain required its company's sign-in is refused too (the
    // owner item read beside the attempt: no round trip more).
    // The same read serves the enrolment after the proof (below).
    let (attempt, stored, owner) = tokio::join!(
        signin::take_attempt(ciam, &id),
        codes::read(ciam, &id, Purpose::Login),
        crate::domains::sign_in::owner_for(ciam.store.as_ref(), &id)
    );
    // A failed read refuses through `required` (below) and enrols nobody.
    let required = owner.as_ref().map_err(Error::clone).map(|owner| {
        let (_, o) = owner.as_ref()?;
        crate::domains::sign_in::required_of(o)
    });
    let owner = owner.ok().flatten();
    let rec = match attempt? {
        Attempt::Taken(rec) => Ok(rec),
        Attempt::Locked(until) => return Err(locked_error(until)),
        Attempt::NoAccount(budget) => Err(budget),
    };
    let verified = match codes::judge(ciam, &id, Purpose::Login, &code, stored?).await {
        Ok(v) => v,
        Err(e) => {
            return Err(match &rec {
                Ok(r) => attempts::failed(ciam, r, Way::Code, client, e).await,
                Err(budget) => attempts::failed_unknown(ciam, budget, Way::Code, client, e).await,
            })
        }
    };
    let Ok(rec) = rec else {
        codes::consume(ciam, verified).await?;
        return Err(Error::new(id.not_found_reason()));
    };
    if rec.suspended {
        // A right code proves the owner: it is used up and the truth told, as for a password.
        codes::consume(ciam, verified).await?;
        return Err(signin::proven_suspended(ciam, &rec).await);
    }
    if let Some(e) = required_refusal(ciam, &rec, required).await {
        return Err(e);
    }
    let extra = vec![verified.consume, rec.reset()];
    // The right code proved the mail: its domain's enrolment (the owner item read beside the
    // attempt) runs beside the sign-in's transaction, not after it, and also when the account's
    // second factor is still to come (the mail is proven either way).
    let (answer, ()) = tokio::join!(
        finish_login(
            ciam,
            Who {
                // A code sent to the account's own mail or phone is its one factor (RFC 8176
                // `sms`; `email`, not registered there, for mail): never `otp`, which the
                // console reads as a second factor (TOTP, backup codes).
                amr: vec![if matches!(id, Identity::Phone(_)) {
                    "sms"
                } else {
                    "email"
                }],
                ..Who::from(&rec)
            },
            client,
            extra,
            Reason::VERIFYCODE_NOT_FOUND,
        ),
        crate::domains::enrol::after_proof_by_owner(ciam, &rec.user_id, owner),
    );
    signin::settle(ciam, &rec, answer).await
}

/// Who is signing in: what issuing the session needs.
pub(crate) struct Who {
    pub id: String,
    pub sess_gen: i64,
    pub enable_totp: bool,
    /// How this step authenticated (RFC 8176 values, e.g. `pwd`): the session's `amr`, or the
    /// second step's challenge's, which adds its own.
    pub amr: Vec<&'static str>,
    /// The organization whose connection it came through: the session's `org`.
    pub org: Option<String>,
    /// The provider it came through (`Session::method`), when `amr` cannot tell.
    pub method: Option<&'static str>,
}

impl From<&SignInRecord> for Who {
    fn from(r: &SignInRecord) -> Who {
        Who {
            id: r.user_id.clone(),
            sess_gen: r.sess_gen,
            enable_totp: r.enable_totp,
            amr: Vec::new(),
            org: None,
            method: None,
        }
    }
}

impl From<&User> for Who {
    fn from(u: &User) -> Who {
        Who {
            id: u.id.clone(),
            sess_gen: u.sess_gen,
            enable_totp: u.enable_totp,
            amr: Vec::new(),
            org: None,
            method: None,
        }
    }
}

/// The session of `who` (which is also the sign-in's activity entry), or, with two-factor on,
/// a single-use challenge for the second step (`NEED_TOTP_VERIFY`): the item to write (with
/// no condition, so a retry of the write is harmless: the key holds 256 random bits) and the
/// answer once it is written.
pub(crate) fn first_write(ciam: &Ciam, who: &Who, client: &ClientInfo) -> (Item, Result<SignedIn>) {
    if who.enable_totp {
        let secret = hex::encode(random::<32>(ciam.entropy.as_ref()));
        let challenge = Challenge {
            key: challenge::mfa_key(ciam, &secret),
            user_id: who.id.clone(),
            amr: who.amr.iter().map(|m| (*m).to_owned()).collect(),
            org: who.org.clone(),
            method: who.method.map(str::to_owned),
            expires_at: Some(ciam.now() + challenge::MFA_TTL),
        };
        let answer = Err(Error {
            challenge: Some(secret),
            ..Error::new(Reason::NEED_TOTP_VERIFY)
        });
        return (challenge.to_item(), answer);
    }
    let (token, mut session) = sessions::mint_for(ciam, &who.id, who.sess_gen, client);
    session.amr = who.amr.iter().map(|m| (*m).to_owned()).collect();
    session.org = who.org.clone();
    session.method = who.method.map(str::to_owned);
    let answer = Ok(SignedIn {
        token,
        user_id: who.id.clone(),
        expires_at: session.deadline(),
        active_today: false,
        counted_later: false,
    });
    (session.to_item(), answer)
}

/// The success of a password sign-in (docs/cost.md): the counter's reset, which also records
/// the day on the identity item (`SignInRecord::reset_update`), and the session (or the
/// challenge), as two single-item writes side by side: 1 write unit each, where a transaction
/// of the two cost 4. With `Config::numbers_from_stream` the session also carries what the
/// console's numbers count (`numbers::TALLY_METHOD`, and `numbers::TALLY_NEWS` on the sign-in
/// name's first success of the day), a few bytes in the same write unit, and the request writes
/// no counter. Nothing half-written is shown: when the reset fails (the account was
/// suspended or deactivated meanwhile: `PASSWORD_ERROR`, as the transaction answered; or a
/// store fault: 503) the session just written is deleted, and no one ever held its token; when
/// the session's write fails after the reset, the answer is 503 and the reset only gave the
/// attempt back early (`signin::settle` then finds nothing to refund). Both writes are safe to
/// send again (a `SET` and a put without condition). Round trips: 1 (2 when undoing).
pub(crate) async fn finish_password(
    ciam: &Ciam,
    rec: &SignInRecord,
    client: &ClientInfo,
) -> Result<SignedIn> {
    let who = Who {
        amr: vec!["pwd"],
        ..Who::from(rec)
    };
    let today = crate::numbers::Day::of(ciam.now()).date();
    let (mut item, answer) = first_write(ciam, &who, client);
    let active_today = rec.day.as_deref().is_some_and(|d| d >= today.as_str());
    let counted_later = ciam.config.numbers_from_stream && answer.is_ok();
    if counted_later {
        item = item.with(crate::numbers::TALLY_METHOD, "password");
        if !active_today {
            item = item.with(crate::numbers::TALLY_NEWS, 1);
        }
    }
    let key = item.key.clone();
    let (ops, cond) = rec.reset_update(&today);
    let (reset, put) = tokio::join!(
        ciam.store.update(&rec.key, ops, Some(cond)),
        ciam.store.put(item, None)
    );
    let refused = match (reset, put) {
        (Ok(_), Ok(())) => {
            return answer.map(|s| SignedIn {
                active_today,
                counted_later,
                ..s
            })
        }
        (Ok(_), Err(e)) => return Err(e.into()),
        (Err(StoreError::ConditionFailed), _) => Error::new(Reason::PASSWORD_ERROR),
        (Err(e), _) => e.into(),
    };
    if let Err(e) = ciam.store.delete(&key, None).await {
        tracing::warn!(store_kind = e.kind(), cause = %e, "a refused sign-in's session was not deleted");
    }
    Err(refused)
}

/// Issues the session, or, with two-factor on, a single-use challenge for the second step
/// (`NEED_TOTP_VERIFY`) and no session; in one transaction with `extra` (the counter's reset,
/// a code's consumption), which come first. A cancelled transaction (the account or the code
/// changed meanwhile) answers `lost`.
pub(crate) async fn finish_login(
    ciam: &Ciam,
    who: Who,
    client: &ClientInfo,
    mut ops: Vec<TxOp>,
    lost: Reason,
) -> Result<SignedIn> {
    let (item, mut outcome) = first_write(ciam, &who, client);
    ops.push(TxOp::Put { item, cond: None });
    let written = match ops.len() {
        1 => match ops.pop() {
            Some(TxOp::Put { item, cond }) => ciam.store.put(item, cond).await,
            _ => Err(StoreError::Invalid("one put".into())),
        },
        _ => ciam.store.transact(ops).await,
    };
    match written {
        Ok(()) => {}
        // Only a condition that did not hold is a lost race; a throttle is 503, never `lost`.
        Err(e @ StoreError::TxCanceled(_)) if e.is_condition_failed() => outcome = Err(lost.into()),
        Err(e) => outcome = Err(e.into()),
    }
    outcome
}

/// `PATCH /auth/info`: only the fields given change; an empty string clears an optional one.
#[derive(Default)]
pub struct ProfilePatch {
    pub company: Option<String>,
    pub duty: Option<String>,
    pub address: Option<String>,
    pub display_name: Option<String>,
    pub country: Option<String>,
}

/// Round trips: 1 conditional update (the user must still be on the same session generation);
/// 2 when the company changes (a transaction that also moves its directory entry, then the read)
/// or a partner hears of it (the `user.updated` event in the same transaction: a change of a
/// field under a scope, `nickname` or `company`, of an account with a consent).
pub async fn update_info(ciam: &Ciam, s: &Session, p: ProfilePatch) -> Result<UserInfo> {
    let mut ops = Vec::new();
    let mut after = s.user.clone();
    let mut set = |name: &str, v: Option<String>| match v {
        Some(v) => ops.push(Update::Set(name.into(), v.into())),
        None => ops.push(Update::Remove(name.into())),
    };
    if let Some(c) = p.company {
        let c = validate::company(&c)?;
        set("company", Some(c.clone()));
        after.company = Some(c);
    }
    if let Some(d) = p.duty {
        after.duty = validate::optional_text("duty", &d, 100)?;
        set("duty", after.duty.clone());
    }
    if let Some(a) = p.address {
        after.address = validate::optional_text("address", &a, 200)?;
        set("address", after.address.clone());
    }
    if let Some(n) = p.display_name {
        after.display_name = validate::optional_text("displayName", &n, 50)?;
        set("displayName", after.display_name.clone());
    }
    if let Some(c) = p.country {
        after.country = Some(validate::country(&c)?);
        set("country", after.country.clone());
    }
    if ops.is_empty() {
        return Ok(s.user.info(ciam));
    }
    let cond = same_session(s);
    let key = profile_key(&s.user.id);
    let event = crate::events::profile_changes(ciam, &s.user, &after)
        .and_then(|d| crate::events::op_for(ciam, &s.user, crate::events::Kind::UserUpdated, d));
    // A new company moves the account's entry in the console's company list, in the same
    // commit (nothing when its folded key stays).
    let moves = crate::directory::moves(&s.user, &after);
    let after = if moves.is_empty() && event.is_none() {
        ciam.store
            .update(&key, ops, Some(cond))
            .await
            .or_reason(Reason::AUTHORIZATION_FAILED)?
    } else {
        // One transaction, then the user item read back.
        let mut tx = vec![TxOp::Update {
            key: key.clone(),
            ops,
            cond: Some(cond),
        }];
        tx.extend(moves);
        tx.extend(event);
        ciam.store
            .transact(tx)
            .await
            .or_reason(Reason::AUTHORIZATION_FAILED)?;
        ciam.store
            .get(&key)
            .await?
            .ok_or(Reason::AUTHORIZATION_FAILED)?
    };
    Ok(User::from_item(&after)
        .ok_or_else(|| Error::internal("user item unreadable"))?
        .info(ciam))
}
