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

/// One change of the privacy choices.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct PrivacyChange {
    /// unix seconds
    pub at: i64,
    /// The choices it changed, with their new values.
    pub changes: BTreeMap<String, bool>,
}

/// The privacy choices and the history of their changes.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct Privacy {
    /// Cookies and data-use choices (all off by default).
    #[cfg_attr(feature = "openapi", schemars(schema_with = "privacy_settings_schema"))]
    pub settings: BTreeMap<String, bool>,
    /// The changes, newest first, at most 50.
    pub history: Vec<PrivacyChange>,
}

/// The schema of the privacy choices (`PRIVACY_CHOICES`): every choice, a boolean.
#[cfg(feature = "openapi")]
pub fn privacy_settings_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    choices_schema(true)
}

/// The schema of a change of the privacy choices: the choices to change, each optional.
#[cfg(feature = "openapi")]
pub fn privacy_patch_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    choices_schema(false)
}

#[cfg(feature = "openapi")]
fn choices_schema(all_required: bool) -> schemars::Schema {
    let properties: serde_json::Map<String, serde_json::Value> = PRIVACY_CHOICES
        .iter()
        .map(|c| (c.to_string(), serde_json::json!({"type": "boolean"})))
        .collect();
    let required: &[&str] = if all_required { &PRIVACY_CHOICES } else { &[] };
    schemars::json_schema!({
        "type": "object",
        "additionalProperties": false,
        "properties": properties,
        "required": required,
    })
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

/// One live session of the account.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "ActiveSession"))]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    /// The id `DELETE /auth/sessions/{id}` takes.
    pub id: String,
    /// unix seconds
    pub created_at: i64,
    /// unix seconds
    pub last_seen: i64,
    /// The device it signed in from, as its browser named it.
    pub device: Option<String>,
    /// The country it signed in from (ISO 3166-1 alpha-2), when known.
    pub country: Option<String>,
    /// Whether it is the session of this request.
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

/// One security event.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "SecurityEvent"))]
pub struct EventView {
    /// unix seconds
    pub at: i64,
    #[cfg_attr(
        feature = "openapi",
        schemars(schema_with = "crate::audit::kind_schema")
    )]
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

/// A registered app as the sign-in pages show it.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "AppListing"))]
#[serde(rename_all = "camelCase")]
pub struct AppView {
    pub app_id: String,
    /// Its name in the requested language.
    pub name: String,
    pub url: String,
    /// Recommended apps come first.
    pub recommended: bool,
    /// The registry's logo: an https URL, or empty
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

/// An app this account signed into through Ciam.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RecentApp {
    pub app_id: String,
    /// Its name in the request's language.
    pub name: String,
    pub url: String,
    /// unix seconds
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
