//! CAS-style tickets for partner apps. A signed-in user asks for a ticket to one of an app's
//! registered service URLs (matched exactly); the app redeems it once, server to server, with
//! its secret, for the user's claims limited to the scopes the ticket was issued for. The ticket is stored only as
//! a keyed hash (`TICKET#<hash>` / `TICKET`), lives 5 minutes, and is burned by its one
//! validation attempt, whatever the outcome: a conditional write that marks it used (`usedAt`,
//! a tombstone, absent for every reader), with a token, so a burn whose answer was lost and
//! that is sent again is recognised as this verification's own, not refused as "used".

use crate::apps::{self, App, AppId, Names};
use crate::error::Result;
use crate::org::tokens as org_tokens;
use crate::sessions::Session;
use crate::user::{active_user, user_pk, User};
use crate::validate::{Email, Phone};
use crate::{random, Ciam, LostRace, Reason};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ciam_store::{Cond, Item, Key, TxOp, Update, Value};
use serde::Serialize;

pub const TICKET_SECS: i64 = 5 * 60;
const PREFIX: &str = "ST-";

fn ticket_key(ciam: &Ciam, ticket: &str) -> Key {
    Key::new(
        format!(
            "TICKET#{}",
            ciam.keys.keyed_hash("ticket", ticket.as_bytes())
        ),
        "TICKET",
    )
}

/// A ticket, the item `TICKET#<keyed hash of the ticket>` / `TICKET` (docs/data-model.md);
/// it expires `TICKET_SECS` after `created_at`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ticket {
    pub key: Key,
    pub user_id: String,
    pub app_id: String,
    pub service_url: String,
    /// The scopes it was issued for (the app's at that time).
    pub scopes: Vec<String>,
    /// The organization the person went to the app with, for an app whose `organization`
    /// setting asks for one.
    pub org_id: Option<String>,
    pub created_at: i64,
}

impl Ticket {
    pub fn from_item(item: &Item) -> Ticket {
        let s = |n: &str| item.s(n).unwrap_or_default().to_owned();
        Ticket {
            key: item.key.clone(),
            user_id: s("userId"),
            app_id: s("appId"),
            service_url: s("serviceUrl"),
            scopes: item.strings("scopes"),
            org_id: item.s("orgId").map(str::to_owned),
            created_at: item.n("createdAt").unwrap_or(0),
        }
    }

    pub fn to_item(&self) -> Item {
        Item::new(self.key.clone())
            .with("userId", self.user_id.as_str())
            .with("appId", self.app_id.as_str())
            .with("serviceUrl", self.service_url.as_str())
            .with("scopes", Value::strings(&self.scopes))
            .with_opt("orgId", self.org_id.as_deref())
            .with("createdAt", self.created_at)
            .expires(self.created_at + TICKET_SECS)
    }
}

/// A ticket for a partner app, and where the browser goes with it.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "IssuedTicket"))]
#[serde(rename_all = "camelCase")]
pub struct Issued {
    pub c_ticket: String,
    pub redirect: String,
}

/// Refuses (INVALID_PARAMETER `scopes`) an Allow for other scopes than the app asks for now:
/// the app changed while the consent screen was open, and the screen must be shown again.
fn check_shown(app: &App, shown: Option<&[String]>) -> Result<()> {
    let Some(shown) = shown else {
        return Ok(());
    };
    let current = &app.scopes;
    let same =
        shown.iter().all(|s| current.contains(s)) && current.iter().all(|s| shown.contains(s));
    if same {
        Ok(())
    } else {
        Err(crate::Error::field(
            Reason::INVALID_PARAMETER,
            "scopes",
            "应用请求的权限已变更，请重新确认",
            "The app's scopes changed since the consent screen was shown; review them again",
        ))
    }
}

/// `POST /auth/login/token`: a ticket for `service_url` of `app_id`; with it, the app is
/// recorded among the user's recent apps and the user's consent to its current scopes is
/// remembered, merged with what was allowed before (this call is the consent screen's Allow),
/// each only when it changes (docs/cost.md), and, for an app that hears logouts (a `logoutUrl`
/// or Back-Channel Logout URI), the session's record (`app_sessions`): the consent when it grows
/// (`consents::grant_if_new`), the recent-app entry when it is new, the app's names or link
/// changed, or its day is past (`recent_app_if_stale`). With the consent held and the app
/// already used today, the ticket's put alone (1 write unit); else one transaction of the
/// ticket and what changed, so no entry or consent is left without its ticket.
/// `shown`, when given, are the scopes the screen showed: they must be the app's current scopes
/// (as a set), else INVALID_PARAMETER `scopes`. The ticket keeps the scopes it was issued for.
/// For an app whose `organization` setting asks for one, the ticket carries the person's
/// organization (`org::tokens::pick`: `organization`, their choice, or their only one;
/// ORG_NOT_FOUND when the app requires one they do not have).
/// Round trips: 1 read (the app, the consent and the recent-app entry together), 1 write; 1 or 2
/// reads more for an app that asks for an organization.
pub async fn issue(
    ciam: &Ciam,
    s: &Session,
    app_id: &str,
    service_url: &str,
    shown: Option<&[String]>,
    organization: Option<&str>,
) -> Result<Issued> {
    let (app, previous, login) =
        crate::consents::app_consent_and(ciam, s, app_id, service_url, Some(app_login_key)).await?;
    check_shown(&app, shown)?;
    let want = org_tokens::Want::of_app(app.organization);
    let step = org_tokens::step_of_session(ciam, s, want, None, crate::Lang::default()).await?;
    let org_id = org_tokens::pick(step.as_ref(), organization)?;
    let ticket = format!(
        "{PREFIX}{}",
        URL_SAFE_NO_PAD.encode(random::<32>(ciam.entropy.as_ref()))
    );
    let t = Ticket {
        key: ticket_key(ciam, &ticket),
        user_id: s.user.id.clone(),
        app_id: app_id.to_owned(),
        service_url: service_url.to_owned(),
        scopes: app.scopes.clone(),
        org_id: org_id.map(|o| o.to_string()),
        created_at: ciam.now(),
    };
    let mut tx = vec![];
    tx.extend(recent_app_if_stale(ciam, &s.user.id, &app, login.as_ref()));
    tx.extend(crate::app_sessions::record_op(ciam, s, &app));
    tx.extend(crate::consents::grant_if_new(
        ciam,
        &s.user,
        app_id,
        &t.scopes,
        previous.as_ref(),
    ));
    // No condition: the key holds 256 random bits, and a put sent again is the same put.
    let written = if tx.is_empty() {
        ciam.store.put(t.to_item(), None).await
    } else {
        tx.insert(
            0,
            TxOp::Put {
                item: t.to_item(),
                cond: None,
            },
        );
        ciam.store.transact(tx).await
    };
    written.or_reason(Reason::SERVICE_UNAVAILABLE)?;
    Ok(Issued {
        redirect: apps::with_params(service_url, &[("cTicket", &ticket)]),
        c_ticket: ticket,
    })
}

/// What an app learns about the user: only what its scopes allow. Phone and mail are full.
#[derive(Debug, Default, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "TicketClaims"))]
#[serde(rename_all = "camelCase")]
pub struct Claims {
    pub user_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nickname: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avatar: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub company: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// The organization the person came with (an app whose `organization` setting asks for one,
    /// and a person who has one): its id
    #[serde(skip_serializing_if = "Option::is_none")]
    pub org_id: Option<String>,
    /// and their roles in it
    #[serde(skip_serializing_if = "Option::is_none")]
    pub org_roles: Option<Vec<String>>,
}

/// The claims of `user` that `scopes` allow (tickets, and the OpenID Connect id_token and
/// userinfo).
pub fn claims(user: &User, scopes: &[String]) -> Claims {
    let has = |s: &str| scopes.iter().any(|x| x == s);
    let nickname = user
        .display_name
        .clone()
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| user.user_name.clone());
    Claims {
        user_id: user.id.clone(),
        nickname: has("nickname").then_some(nickname),
        avatar: user.avatar.clone().filter(|_| has("avatar")),
        company: user.company.clone().filter(|_| has("company")),
        phone: user
            .phone
            .as_deref()
            .and_then(|p| Phone::parse(p).ok())
            .map(|p| p.as_str().to_owned())
            .filter(|_| has("phone")),
        email: user
            .mail
            .as_deref()
            .and_then(|m| Email::parse(m).ok())
            .map(|m| m.as_str().to_owned())
            .filter(|_| has("email")),
        org_id: None,
        org_roles: None,
    }
}

fn not_found(cause: &str) -> crate::Error {
    crate::Error {
        cause: Some(cause.to_owned()),
        ..crate::Error::new(Reason::TICKET_NOT_FOUND)
    }
}

/// `GET /auth/login/token/verify`: the app redeems a ticket. A single validation attempt:
/// any attempt that names a live ticket burns it first (a conditional delete: of concurrent
/// attempts exactly one wins), whatever follows — wrong app credentials (APPSECRET_ERROR),
/// another app or service (TICKET_NOT_FOUND). The claims are those of the scopes the ticket was
/// issued for; a ticket of an organization adds `orgId` and `orgRoles` (the role now), and is
/// TICKET_NOT_FOUND when its person is no longer an active member of it. Round trips: 1 read
/// (app and ticket together), 1 conditional delete (when the ticket exists), 1 read (the user),
/// 1 read (the organization and the membership together, for a ticket of an organization).
pub async fn verify(
    ciam: &Ciam,
    app_id: &str,
    app_secret: &str,
    ticket: &str,
    service_url: &str,
) -> Result<Claims> {
    let secret_error = || crate::Error::new(Reason::APPSECRET_ERROR);
    let tkey = ticket_key(ciam, ticket);
    let keys = if let Some(id) = AppId::parse(app_id) {
        vec![tkey.clone(), id.key()]
    } else {
        vec![tkey.clone()]
    };
    let got = ciam.store.get_many(&keys).await?;
    let (ticket_item, app) = match got.as_slice() {
        [ticket_item, app @ ..] => (ticket_item, app.first().and_then(Option::as_ref)),
        [] => (&None, None),
    };
    // A used ticket is a tombstone: absent.
    let ticket_item = ticket_item.as_ref().filter(|t| t.n("usedAt").is_none());
    let burned = match ticket_item {
        None => Err(not_found("unknown, expired or used ticket")),
        Some(t) => {
            let now = ciam.now();
            let burn = vec![
                Update::Set("usedAt".into(), now.into()),
                Update::Expires(Some(t.expires_at.unwrap_or(now).min(now + TICKET_SECS))),
            ];
            let unused = Cond::Exists.and(Cond::attr_not_exists("usedAt"));
            crate::once::update(ciam, &tkey, burn, Some(unused))
                .await?
                .map_err(|_| not_found("ticket already used"))
        }
    };
    let matches = match app {
        Some(app) => apps::secret_matches(ciam, &App::from_item(app), app_secret).await,
        None => false,
    };
    if !matches {
        return Err(secret_error());
    }
    burned?;
    let Some(item) = ticket_item else {
        return Err(not_found("unknown, expired or used ticket"));
    };
    let t = Ticket::from_item(item);
    if t.app_id != app_id || t.service_url != service_url {
        return Err(not_found("ticket of another app or service"));
    }
    let user = active_user(ciam, &t.user_id)
        .await?
        .ok_or_else(|| not_found("user gone"))?;
    let mut c = claims(&user, &t.scopes);
    if let Some(org_id) = &t.org_id {
        // Read again: a member removed (or an organization suspended) since gets no claim.
        let role = org_tokens::current(ciam.store.as_ref(), org_id, &user.id)
            .await?
            .ok_or_else(|| not_found("no longer an active member of the organization"))?;
        c.org_id = Some(org_id.clone());
        c.org_roles = Some(org_tokens::roles(role));
    }
    Ok(c)
}

/// One of the user's recent apps, the item `USER#<id>` / `APPLOGIN#<appId>`: the app's id,
/// names and link as they were when its last ticket or OpenID Connect code was issued.
#[derive(Clone, Debug, PartialEq)]
pub struct AppLogin {
    pub user_id: String,
    pub app_id: String,
    pub names: Names,
    pub url: String,
    pub last_login_time: i64,
}

impl AppLogin {
    pub fn from_item(i: &Item) -> AppLogin {
        let s = |n: &str| i.s(n).unwrap_or_default().to_owned();
        AppLogin {
            user_id: i
                .key
                .pk
                .strip_prefix("USER#")
                .unwrap_or_default()
                .to_owned(),
            app_id: s("appId"),
            names: Names {
                zh_cn: s("name_zh-CN"),
                en_us: s("name_en-US"),
            },
            url: s("url"),
            last_login_time: i.n("lastLoginTime").unwrap_or(0),
        }
    }

    pub fn to_item(&self) -> Item {
        Item::new(app_login_key(&self.user_id, &self.app_id))
            .with("appId", self.app_id.as_str())
            .with("name_zh-CN", self.names.zh_cn.as_str())
            .with("name_en-US", self.names.en_us.as_str())
            .with("url", self.url.as_str())
            .with("lastLoginTime", self.last_login_time)
    }
}

/// `USER#<id>` / `APPLOGIN#<appId>`.
pub fn app_login_key(user_id: &str, app_id: &str) -> Key {
    Key::new(user_pk(user_id), format!("APPLOGIN#{app_id}"))
}

/// [`recent_app_op`] only when the entry `current` would change beyond its time of the same
/// day: it is missing, the app's names or link changed, or its `lastLoginTime` is of an earlier
/// UTC day. So the recent apps tell the day an app was last used (the personal centre shows the
/// day), and the entry is rewritten at most once a day per app while the app is unchanged.
pub fn recent_app_if_stale(
    ciam: &Ciam,
    user_id: &str,
    app: &App,
    current: Option<&Item>,
) -> Option<TxOp> {
    let day = |t: i64| t.div_euclid(86_400);
    let fresh = current.map(AppLogin::from_item).is_some_and(|c| {
        c.names == app.name
            && c.url == app.url
            && c.app_id == app.app_id
            && day(c.last_login_time) >= day(ciam.now())
    });
    (!fresh).then(|| recent_app_op(ciam, user_id, app))
}

/// The write that records `app` among the user's recent apps (`APPLOGIN#<appId>`, with its
/// `lastLoginTime`); goes into the transaction that issues a ticket or an OpenID Connect code.
pub fn recent_app_op(ciam: &Ciam, user_id: &str, app: &App) -> TxOp {
    let login = AppLogin {
        user_id: user_id.to_owned(),
        app_id: app.app_id.clone(),
        names: app.name.clone(),
        url: app.url.clone(),
        last_login_time: ciam.now(),
    };
    TxOp::Put {
        item: login.to_item(),
        cond: None,
    }
}
