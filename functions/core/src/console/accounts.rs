//! Finding one account by an exact value and its page in the console, with mail and phone
//! masked; revealing them is an audited act (design §1, §3).

use super::audit::{self, RequestFacts};
use super::Operator;
use crate::error::{Error, Result};
use crate::me::{EventView, RecentApp, SessionView};
use crate::sessions::Session;
use crate::user::{profile_key, unique_key, username_pk, User};
use crate::validate::{Email, Identity, Phone};
use crate::{Ciam, Lang, Reason};
use ciam_store::{Cond, Key, TxOp, Update};
use serde::Serialize;

/// What to look an account up by: one exact value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    Mail(String),
    Phone(String),
    UserName(String),
    UserId(String),
}

impl Lookup {
    /// The one lookup among the query's values, else INVALID_PARAMETER on `query`.
    pub fn one_of(
        mail: Option<String>,
        phone: Option<String>,
        user_name: Option<String>,
        user_id: Option<String>,
    ) -> Result<Lookup> {
        let all: Vec<Lookup> = [
            mail.map(Lookup::Mail),
            phone.map(Lookup::Phone),
            user_name.map(Lookup::UserName),
            user_id.map(Lookup::UserId),
        ]
        .into_iter()
        .flatten()
        .collect();
        match <[Lookup; 1]>::try_from(all) {
            Ok([one]) => Ok(one),
            Err(_) => Err(Error::field(
                Reason::INVALID_PARAMETER,
                "query",
                "请只给出 mail、phone、userName 或 userId 之一",
                "Give exactly one of mail, phone, userName or userId",
            )),
        }
    }
}

/// An account as a search result lists it: mail and phone masked.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "AccountSummary"))]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub user_id: String,
    pub user_name: String,
    pub mail: Option<String>,
    pub phone: Option<String>,
    pub company: Option<String>,
    /// `active`, `locked`, `suspended` or `deactivated`.
    #[cfg_attr(
        feature = "openapi",
        schemars(extend("enum" = ["active", "locked", "suspended", "deactivated"]))
    )]
    pub status: &'static str,
    pub locked_until: Option<i64>,
    /// When support suspended it (Unix seconds), while it is.
    pub suspended_at: Option<i64>,
    pub created_at: i64,
    pub role: Option<&'static str>,
}

fn masked_mail(u: &User) -> Option<String> {
    u.mail
        .as_deref()
        .map(|m| Email::parse(m).map_or_else(|_| "***".to_owned(), |e| e.masked()))
}

fn masked_phone(u: &User) -> Option<String> {
    u.phone
        .as_deref()
        .map(|p| Phone::parse(p).map_or_else(|_| "***".to_owned(), |p| p.masked()))
}

pub(super) fn summary(u: &User, now: i64) -> Summary {
    let locked = u.locked_until.filter(|t| *t > now);
    Summary {
        user_id: u.id.clone(),
        user_name: u.user_name.clone(),
        mail: masked_mail(u),
        phone: masked_phone(u),
        company: u.company.clone(),
        status: if u.deactivated {
            "deactivated"
        } else if u.suspended_at.is_some() {
            "suspended"
        } else if locked.is_some() {
            "locked"
        } else {
            "active"
        },
        locked_until: locked,
        suspended_at: u.suspended_at,
        created_at: u.created_at,
        role: super::Role::of(u).map(super::Role::as_str),
    }
}

/// An operator's reason for an action: required (not blank), at most 500 characters.
pub(crate) fn reason_of(raw: &str) -> Result<String> {
    let reason = crate::validate::prose("reason", raw, 500)?;
    if reason.is_empty() {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "reason",
            "请说明原因",
            "Give a reason",
        ));
    }
    Ok(reason)
}

/// The account `user_id` (deactivated ones too), else ACCOUNT_NOT_FOUND. Round trips: 1.
pub(super) async fn load(ciam: &Ciam, user_id: &str) -> Result<User> {
    let ok = !user_id.is_empty() && user_id.len() <= 64;
    let item = if ok {
        ciam.store.get(&profile_key(user_id)).await?
    } else {
        None
    };
    item.as_ref()
        .and_then(User::from_item)
        .ok_or_else(|| Error::new(Reason::ACCOUNT_NOT_FOUND))
}

/// `GET /admin/accounts?mail=|phone=|userName=|userId=`: the one account with exactly that
/// value (mail and phone normalised as at sign-in, the user name folded), else
/// ACCOUNT_NOT_FOUND. Round trips: 2 (the identity item, the user item); 1 by user id.
pub async fn find(ciam: &Ciam, by: &Lookup) -> Result<Summary> {
    let holder = match by {
        Lookup::UserId(id) => return Ok(summary(&load(ciam, id).await?, ciam.now())),
        Lookup::Mail(m) => Identity::Mail(Email::parse(m)?).unique_pk(),
        Lookup::Phone(p) => Identity::Phone(Phone::parse(p)?).unique_pk(),
        Lookup::UserName(n) => username_pk(n),
    };
    let owner = holder_of(ciam, holder)
        .await?
        .ok_or(Reason::ACCOUNT_NOT_FOUND)?;
    Ok(summary(&load(ciam, &owner).await?, ciam.now()))
}

/// The user id that holds the unique item `pk` (a mail's, a phone's or a username's), if any.
/// Round trips: 1.
pub(super) async fn holder_of(ciam: &Ciam, pk: String) -> Result<Option<String>> {
    Ok(ciam
        .store
        .get(&unique_key(pk))
        .await?
        .and_then(|i| i.s("userId").map(str::to_owned)))
}

/// One account's page (`GET /admin/accounts/{userId}`): the summary's fields and the profile,
/// two-factor, passkeys (a count), the last sign-in, the live sessions, recent apps, consents,
/// security activity and linked identities, as the owner's own lists show them. Mail, phone
/// and the linked subjects masked.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "AccountPage"))]
#[serde(rename_all = "camelCase")]
pub struct Page {
    #[serde(flatten)]
    pub summary: Summary,
    pub display_name: Option<String>,
    pub duty: Option<String>,
    pub address: Option<String>,
    pub country: Option<String>,
    pub staff: bool,
    pub two_factor: bool,
    pub passkeys: usize,
    /// The latest sign-in's time, if the activity still holds one.
    pub last_sign_in: Option<i64>,
    // The owner's own lists' items, as their operations answer them.
    pub sessions: Vec<SessionView>,
    pub recent_apps: Vec<RecentApp>,
    pub consents: Vec<crate::consents::Granted>,
    pub activity: Vec<EventView>,
    /// The linked identities (`FED#`), each subject masked.
    pub identities: Vec<crate::federation::identities::Masked>,
    /// The failed sign-in attempts still kept (at most 15), newest first (`attempts`).
    pub failed_attempts: Vec<crate::attempts::Failure>,
    /// The support desk's notes, if any (`notes`); never shown to the customer.
    pub notes: Option<super::notes::Notes>,
}

/// `user` as its own session would see it, for the owner's readers (`me`, `consents`): they
/// read by the session's user only. No session is touched.
fn as_owner(user: User) -> Session {
    Session {
        user,
        key: Key::new("", ""),
        created_at: 0,
        auth_at: 0,
        amr: Vec::new(),
        console_at: None,
        org: None,
        method: None,
    }
}

/// `GET /admin/accounts/{userId}`: the account's page, masked. Round trips: 3 (the user item,
/// then the owner's readers side by side: sessions, activity, apps, consents, passkeys, and
/// the failed attempts and the desk's notes).
pub async fn page(ciam: &Ciam, user_id: &str, lang: Lang) -> Result<Page> {
    let user = load(ciam, user_id).await?;
    let s = as_owner(user.clone());
    let (sessions, activity, apps, consents, passkeys, identities, failed, notes) = tokio::join!(
        crate::me::sessions(ciam, &s),
        crate::me::activity(ciam, &s),
        crate::me::recent_apps(ciam, &s, lang),
        crate::consents::list(ciam, &s, lang),
        crate::passkey::items::items_of(ciam, user_id),
        crate::federation::identities::list_masked(ciam, user_id),
        crate::attempts::list(ciam, user_id),
        super::notes::read(ciam, user_id),
    );
    let activity = activity?;
    let sign_in = crate::audit::Event::SignIn.kind();
    Ok(Page {
        summary: summary(&user, ciam.now()),
        display_name: user.display_name.clone(),
        duty: user.duty.clone(),
        address: user.address.clone(),
        country: user.country.clone(),
        staff: user.eiam_uid.is_some(),
        two_factor: user.enable_totp,
        passkeys: passkeys?.len(),
        last_sign_in: activity.iter().find(|e| e.kind == sign_in).map(|e| e.at),
        sessions: sessions?,
        recent_apps: apps?,
        consents: consents?,
        activity,
        identities: identities?,
        failed_attempts: failed?,
        notes: notes?,
    })
}

/// The unmasked values `reveal` answers.
#[derive(Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Revealed {
    pub user_id: String,
    pub mail: Option<String>,
    pub phone: Option<String>,
}

/// `POST /admin/accounts/{userId}/reveal`: the unmasked mail and phone, recorded in the audit
/// log with the operator's `reason` (required, at most 500 characters). Round trips: 2.
pub async fn reveal(
    ciam: &Ciam,
    op: &Operator,
    user_id: &str,
    reason: &str,
    req: &RequestFacts,
) -> Result<Revealed> {
    let reason = reason_of(reason)?;
    let user = load(ciam, user_id).await?;
    audit::record(
        ciam,
        op,
        audit::AuditAction::AccountReveal,
        user_id,
        Some(&reason),
        None,
        req,
    )
    .await?;
    Ok(Revealed {
        user_id: user.id,
        mail: user.mail,
        phone: user.phone,
    })
}

/// The user item's update, on the condition that nothing changed it since it was read (a
/// deactivation bumps `sessGen` too).
pub(super) fn user_update(user: &User, ops: Vec<Update>) -> TxOp {
    TxOp::Update {
        key: profile_key(&user.id),
        ops,
        cond: Some(Cond::Exists.and(Cond::eq("sessGen", user.sess_gen))),
    }
}
