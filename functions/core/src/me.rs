//! What the account owner sees of their own account beyond the profile: privacy choices and
//! their history, the active sessions (each revocable), the security activity, and their apps.

use crate::apps::APPS_PK;
use crate::audit::Entry;
use crate::error::{Error, Result};
use crate::sessions::{same_session, Session, SessionItem};
use crate::tickets::AppLogin;
use crate::user::{profile_key, user_pk, User, PRIVACY_CHOICES};
use crate::{random, Ciam, LostRace, Reason};
use ciam_store::{Cond, Item, Key, Query, TxOp, Update, Value};
use serde::Serialize;
use std::collections::BTreeMap;

const HISTORY_SHOWN: usize = 50;

fn attr(choice: &str) -> String {
    format!("privacy_{choice}")
}

#[derive(Debug, Serialize)]
pub struct PrivacyChange {
    pub at: i64,
    pub changes: BTreeMap<String, bool>,
}

#[derive(Debug, Serialize)]
pub struct Privacy {
    pub settings: BTreeMap<String, bool>,
    pub history: Vec<PrivacyChange>,
}

/// Every choice, those never made off.
fn settings_of(user: &User) -> BTreeMap<String, bool> {
    PRIVACY_CHOICES
        .iter()
        .map(|c| {
            (
                c.to_string(),
                user.privacy.get(*c).copied().unwrap_or(false),
            )
        })
        .collect()
}

async fn history(ciam: &Ciam, user_id: &str) -> Result<Vec<PrivacyChange>> {
    let q = Query::partition(user_pk(user_id))
        .prefix("PRIVACY#")
        .descending()
        .limit(HISTORY_SHOWN);
    Ok(ciam
        .store
        .query(q)
        .await?
        .iter()
        .map(|i| PrivacyChange {
            at: i.n("at").unwrap_or(0),
            changes: match i.attrs.get("changes") {
                Some(Value::M(m)) => m
                    .iter()
                    .filter_map(|(k, v)| match v {
                        Value::Bool(b) => Some((k.clone(), *b)),
                        _ => None,
                    })
                    .collect(),
                _ => BTreeMap::new(),
            },
        })
        .collect())
}

/// `GET /auth/privacy`: the settings from the profile the session loaded. Round trips: 1 (the
/// history).
pub async fn privacy(ciam: &Ciam, s: &Session) -> Result<Privacy> {
    Ok(Privacy {
        settings: settings_of(&s.user),
        history: history(ciam, &s.user.id).await?,
    })
}

/// `PATCH /auth/privacy`: stores the changed choices and one history entry of what changed.
/// The current settings are those of the profile the session loaded. Round trips: 1
/// transaction, 1 query (the history).
pub async fn set_privacy(
    ciam: &Ciam,
    s: &Session,
    wanted: BTreeMap<String, bool>,
) -> Result<Privacy> {
    if let Some(bad) = wanted
        .keys()
        .find(|k| !PRIVACY_CHOICES.contains(&k.as_str()))
    {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "body",
            "未知的隐私选项",
            "Unknown privacy choice",
        )
        .raw_message(format!("{bad}: unknown privacy choice")));
    }
    let mut settings = settings_of(&s.user);
    let current = settings.clone();
    let changes: BTreeMap<String, bool> = wanted
        .into_iter()
        .filter(|(k, v)| current.get(k) != Some(v))
        .collect();
    if !changes.is_empty() {
        let now = ciam.now();
        let ops: Vec<Update> = changes
            .iter()
            .map(|(k, v)| Update::Set(attr(k), (*v).into()))
            .collect();
        let sk = format!(
            "PRIVACY#{now:012}#{}",
            hex::encode(random::<4>(ciam.entropy.as_ref()))
        );
        let entry = Item::new(Key::new(user_pk(&s.user.id), sk))
            .with("at", now)
            .with(
                "changes",
                Value::M(
                    changes
                        .iter()
                        .map(|(k, v)| (k.clone(), Value::Bool(*v)))
                        .collect(),
                ),
            );
        let tx = vec![
            TxOp::Update {
                key: profile_key(&s.user.id),
                ops,
                cond: Some(same_session(s)),
            },
            TxOp::Put {
                item: entry,
                cond: None,
            },
        ];
        ciam.store
            .transact(tx)
            .await
            .or_reason(Reason::AUTHORIZATION_FAILED)?;
        settings.extend(changes);
    }
    // The settings are known now; only the history needs reading back.
    Ok(Privacy {
        settings,
        history: history(ciam, &s.user.id).await?,
    })
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    pub id: String,
    pub created_at: i64,
    pub last_seen: i64,
    pub device: Option<String>,
    pub country: Option<String>,
    pub current: bool,
}

fn session_id(sk: &str) -> String {
    sk.trim_start_matches("SESSION#").chars().take(16).collect()
}

/// The session items of the user (live, ended and expired: each is also a sign-in's entry in
/// the security activity, kept 180 days).
async fn session_items(ciam: &Ciam, user_id: &str) -> Result<Vec<Item>> {
    Ok(ciam
        .store
        .query(Query::partition(user_pk(user_id)).prefix("SESSION#"))
        .await?)
}

async fn live_sessions(ciam: &Ciam, s: &Session) -> Result<Vec<SessionItem>> {
    let now = ciam.now();
    Ok(session_items(ciam, &s.user.id)
        .await?
        .iter()
        .map(SessionItem::from_item)
        .filter(|i| i.sess_gen == Some(s.user.sess_gen) && i.is_live(now))
        .collect())
}

/// `GET /auth/sessions`: the account's live sessions, most recently active first. Round trips: 2.
pub async fn sessions(ciam: &Ciam, s: &Session) -> Result<Vec<SessionView>> {
    let mut v: Vec<SessionView> = live_sessions(ciam, s)
        .await?
        .into_iter()
        .map(|i| SessionView {
            id: session_id(&i.key.sk),
            created_at: i.created_at,
            last_seen: i.last_seen,
            current: i.key == s.key,
            device: i.device,
            country: i.country,
        })
        .collect();
    v.sort_by(|a, b| {
        b.current
            .cmp(&a.current)
            .then(b.last_seen.cmp(&a.last_seen))
    });
    Ok(v)
}

/// `DELETE /auth/sessions/{id}`: ends one session (the current one too). Round trips: 3.
pub async fn revoke_session(ciam: &Ciam, s: &Session, id: &str) -> Result<()> {
    let found = live_sessions(ciam, s)
        .await?
        .into_iter()
        .find(|i| session_id(&i.key.sk) == id);
    let item = found.ok_or(Reason::NOT_FOUND)?;
    crate::sessions::end(ciam, &s.user, &item.key).await
}

#[derive(Debug, Serialize)]
pub struct EventView {
    pub at: i64,
    pub kind: String,
    pub device: Option<String>,
    pub country: Option<String>,
    /// The passkey a passkey event is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// How many events the activity shows.
const ACTIVITY_SHOWN: usize = 50;

/// `GET /auth/activity`: the latest 50 security events, newest first: the event items and the
/// sign-ins (each session item is its sign-in's entry). Round trips: 2 (the two queries run
/// side by side after the session read).
pub async fn activity(ciam: &Ciam, s: &Session) -> Result<Vec<EventView>> {
    // Eventually consistent: a list to read, no decision depends on it (half the read cost).
    let q = Query::partition(user_pk(&s.user.id))
        .prefix("EVENT#")
        .descending()
        .limit(ACTIVITY_SHOWN)
        .eventual();
    let (events, sign_ins) = tokio::join!(ciam.store.query(q), session_items(ciam, &s.user.id));
    let event = |i: &Item| {
        let e = Entry::from_item(i);
        EventView {
            at: e.at,
            kind: e.kind,
            device: e.device,
            country: e.country,
            name: e.name,
        }
    };
    let sign_in = |i: &Item| {
        let sess = SessionItem::from_item(i);
        EventView {
            at: sess.created_at,
            kind: crate::audit::Event::SignIn.kind().to_owned(),
            device: sess.device,
            country: sess.country,
            name: None,
        }
    };
    let mut v: Vec<EventView> = events?.iter().map(event).collect();
    v.extend(sign_ins?.iter().map(sign_in));
    v.sort_by_key(|e| std::cmp::Reverse(e.at));
    v.truncate(ACTIVITY_SHOWN);
    Ok(v)
}

// ---- applications ----

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppView {
    pub app_id: String,
    pub name: String,
    pub url: String,
    pub recommended: bool,
    /// The registry's logo (an https URL, or empty): the sign-in pages show it (issue 23).
    pub logo: String,
}

/// `GET /app/language/{language}`: the common and recommended apps, names in that language.
/// Round trips: 1.
pub async fn apps_in(ciam: &Ciam, language: crate::Lang) -> Result<Vec<AppView>> {
    let items = ciam
        .store
        // Eventually consistent: the public app list of an anonymous page (half the read cost).
        .query(Query::partition(APPS_PK).prefix("APP#").eventual())
        .await?;
    let mut v: Vec<AppView> = items
        .iter()
        .map(|i| {
            let app = crate::apps::App::from_item(i);
            AppView {
                name: app.localized_name(language),
                app_id: app.app_id,
                url: app.url,
                recommended: app.recommended,
                logo: app.logo,
            }
        })
        .collect();
    v.sort_by(|a, b| b.recommended.cmp(&a.recommended).then(a.name.cmp(&b.name)));
    Ok(v)
}

/// Puts the demo app into the registry when it is missing (the local server, at start-up).
pub async fn seed_demo_app(ciam: &Ciam, url: &str) -> Result<()> {
    let item = Item::new(Key::new(APPS_PK, "APP#demo-factory"))
        .with("appId", "demo-factory")
        .with("name_zh-CN", "演示工厂门户")
        .with("name_en-US", "Demo factory portal")
        .with("url", url)
        .with("recommended", true);
    // Already there: kept as it is.
    ciam.store.put(item, Some(Cond::NotExists)).await.won()?;
    Ok(())
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecentApp {
    pub app_id: String,
    pub name: String,
    pub url: String,
    pub last_login_time: i64,
}

/// `GET /auth/apps`: the 2 apps this account signed into most recently, newest first, from the
/// `USER#<id>` / `APPLOGIN#<appId>` items written when an app's ticket is issued. Round trips: 2.
pub async fn recent_apps(
    ciam: &Ciam,
    s: &Session,
    language: crate::Lang,
) -> Result<Vec<RecentApp>> {
    let items = ciam
        .store
        .query(
            Query::partition(user_pk(&s.user.id))
                .prefix("APPLOGIN#")
                .eventual(),
        )
        .await?;
    let mut v: Vec<RecentApp> = items
        .iter()
        .map(|i| {
            let a = AppLogin::from_item(i);
            RecentApp {
                name: a.names.localized(language),
                app_id: a.app_id,
                url: a.url,
                last_login_time: a.last_login_time,
            }
        })
        .collect();
    v.sort_by_key(|a| std::cmp::Reverse(a.last_login_time));
    v.truncate(2);
    Ok(v)
}
