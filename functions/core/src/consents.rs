//! Remembered consent: the user's decision to let an app see the scopes it asks for, one item
//! per user and app, `USER#<id>` / `CONSENT#<appId>` {appId, scopes, grantedAt, since}. `scopes` are
//! the scopes the user actually approved on a consent screen, merged with those approved before.
//! A consent counts only while it covers every scope asked for now (a ticket: the app's current
//! scopes; an OpenID Connect request: the request's scopes): an app that adds a scope, or a
//! request for a scope never shown, asks again. The ticket flow and the OpenID Connect flow both write it in the transaction that
//! issues the ticket or the code, and both read it to skip the consent screen.
//!
//! The personal centre lists them (`GET /auth/consents`) and revokes them
//! (`DELETE /auth/consents/{appId}`); deactivation deletes them all.

use crate::apps::{self, app_key, App, AppId};
use crate::error::Result;
use crate::events::{Event, Kind};
use crate::sessions::Session;
use crate::user::{profile_key, user_pk, User};
use crate::{Ciam, Lang};
use ciam_store::{Item, Key, Query, TxOp, Value};
use serde::Serialize;
use std::collections::BTreeMap;

pub const PREFIX: &str = "CONSENT#";

pub fn consent_key(user_id: &str, app_id: &str) -> Key {
    Key::new(user_pk(user_id), format!("{PREFIX}{app_id}"))
}

/// A remembered consent, the item `USER#<userId>` / `CONSENT#<appId>` (docs/data-model.md).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Consent {
    pub user_id: String,
    pub app_id: String,
    /// The scopes approved on consent screens, merged, sorted.
    pub scopes: Vec<String>,
    /// The latest Allow (or ticket).
    pub granted_at: i64,
    /// The first Allow after the last revocation: access tokens issued before it are refused.
    /// 0 for a consent written before `since` existed.
    pub since: i64,
}

impl Consent {
    pub fn from_item(item: &Item) -> Consent {
        Consent {
            user_id: item
                .key
                .pk
                .strip_prefix("USER#")
                .unwrap_or_default()
                .to_owned(),
            app_id: item.s("appId").unwrap_or_default().to_owned(),
            scopes: item.strings("scopes"),
            granted_at: item.n("grantedAt").unwrap_or(0),
            since: item.n("since").unwrap_or(0),
        }
    }

    pub fn to_item(&self) -> Item {
        Item::new(consent_key(&self.user_id, &self.app_id))
            .with("appId", self.app_id.as_str())
            .with("scopes", Value::strings(&self.scopes))
            .with("grantedAt", self.granted_at)
            .with("since", self.since)
    }

    /// Whether it covers every scope `asked` now (for a ticket the app's current scopes, for an
    /// OpenID Connect request the request's scopes).
    pub fn covers(&self, asked: &[String]) -> bool {
        asked.iter().all(|s| self.scopes.contains(s))
    }
}

/// The write that remembers the user's "Allow" of `approved` (the scopes the screen showed)
/// for `app_id`, merged with the scopes allowed before (`previous`, the consent item read with
/// the app): a consent only grows until it is revoked. `since` keeps the time of the first
/// Allow after the last revocation: access tokens issued before it stay revoked. Goes into the
/// transaction that issues the ticket or code. The put is conditional on what was read (a new
/// consent: none there; a grown one: still there), so the profile's `consents` count
/// ([`count_op`]) stays exact under a concurrent revocation or a second first Allow: the
/// transaction is then cancelled (503, sent again it succeeds).
pub fn grant_op(
    ciam: &Ciam,
    user_id: &str,
    app_id: &str,
    approved: &[String],
    previous: Option<&Consent>,
) -> TxOp {
    let mut scopes = previous.map(|c| c.scopes.clone()).unwrap_or_default();
    for s in approved {
        if !scopes.contains(s) {
            scopes.push(s.clone());
        }
    }
    scopes.sort();
    // A consent written before `since` existed binds nothing.
    let since = previous.map_or(ciam.now(), |c| c.since);
    let consent = Consent {
        user_id: user_id.to_owned(),
        app_id: app_id.to_owned(),
        scopes,
        granted_at: ciam.now(),
        since,
    };
    TxOp::Put {
        item: consent.to_item(),
        cond: Some(match previous {
            Some(_) => ciam_store::Cond::Exists,
            None => ciam_store::Cond::NotExists,
        }),
    }
}

/// The profile's `consents` count moved by `by` (a consent created: 1, revoked: -1), or None
/// for an account from before the count (`User::consents` None: its count would be wrong, so
/// it is left absent and the account's changes are always announced, `events::heard`).
pub fn count_op(user: &User, by: i64) -> Option<TxOp> {
    user.consents?;
    Some(TxOp::Update {
        key: profile_key(&user.id),
        ops: vec![ciam_store::Update::Add("consents".into(), by)],
        cond: Some(ciam_store::Cond::Exists),
    })
}

/// [`grant_op`] only when it changes the consent: nothing when `previous` already holds every
/// scope of `approved` (then the write would rewrite the same scopes and `since`, and only move
/// `grantedAt`, which therefore tells the latest Allow that widened the consent). A ticket for
/// an app whose consent is held writes no consent (docs/cost.md). A new consent (no
/// `previous`) also counts one more on the profile ([`count_op`]): from then on the user's
/// changes are announced (docs/events-design.md §2).
pub fn grant_if_new(
    ciam: &Ciam,
    user: &User,
    app_id: &str,
    approved: &[String],
    previous: Option<&Consent>,
) -> Vec<TxOp> {
    if previous.is_some_and(|c| c.covers(approved)) {
        return Vec::new();
    }
    let mut ops = vec![grant_op(ciam, &user.id, app_id, approved, previous)];
    if previous.is_none() {
        ops.extend(count_op(user, 1));
    }
    ops
}

/// Who hears `event` and with which scopes: its `audience` when the change recorded one (a
/// deactivation), the app of a `consent.revoked` (its consent is gone; it hears no field),
/// else the user's consents now. For the fan-out. Round trips: 0, or 1 (the consents).
pub async fn audience(ciam: &Ciam, event: &Event) -> Result<Vec<Consent>> {
    let of = |app_id: &str, scopes: Vec<String>| Consent {
        user_id: event.user_id.clone(),
        app_id: app_id.to_owned(),
        scopes,
        ..Consent::default()
    };
    if let Some(a) = &event.audience {
        return Ok(a.iter().map(|(app, s)| of(app, s.clone())).collect());
    }
    // An organization's event is heard by its recorded `eventApps` only, never by the member's
    // consents (an event without them, which no build writes, is heard by nobody).
    if event.kind.is_org() {
        return Ok(Vec::new());
    }
    if event.kind == Kind::ConsentRevoked {
        return Ok(event.app_id.iter().map(|a| of(a, Vec::new())).collect());
    }
    Ok(consent_items(ciam, &event.user_id)
        .await?
        .iter()
        .map(Consent::from_item)
        .collect())
}

/// The user's consents as an event's `audience` (app id to scopes), for a change after whose
/// commit they are deleted (deactivation). Round trips: 1.
pub async fn audience_now(ciam: &Ciam, user_id: &str) -> Result<BTreeMap<String, Vec<String>>> {
    Ok(consent_items(ciam, user_id)
        .await?
        .iter()
        .map(Consent::from_item)
        .map(|c| (c.app_id, c.scopes))
        .collect())
}

/// `url` with `cError=access_denied` appended: where Cancel on the consent screen leads, built
/// from a service URL already matched against the registry (never one the browser chose).
pub fn cancel_url(service_url: &str) -> String {
    apps::with_params(service_url, &[("cError", "access_denied")])
}

/// What the consent screen shows (`GET /auth/consent`, and the OpenID Connect request view).
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "ConsentContext"))]
#[serde(rename_all = "camelCase")]
pub struct Context {
    pub app_id: String,
    /// in the request's language
    pub name: String,
    /// a URL, or empty
    pub logo: String,
    /// the app's privacy policy (https URL), or empty
    pub privacy_url: String,
    /// what the app asks for now
    #[cfg_attr(feature = "openapi", schemars(schema_with = "scopes_schema"))]
    pub scopes: Vec<String>,
    /// the user already allowed every scope asked for
    pub granted: bool,
    pub service_url: String,
    /// where Cancel leads
    pub cancel_url: String,
    /// the organization step when the request asks for an organization (docs/oidc.md
    /// "Organizations"): several choices, the person picks one; a refusal, they cannot go on
    #[serde(skip_serializing_if = "Option::is_none")]
    pub organization: Option<crate::org::tokens::Step>,
}

/// Scopes in an answer: some of [`crate::apps::SCOPES`].
#[cfg(feature = "openapi")]
fn scopes_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "array",
        "items": { "type": "string", "enum": crate::apps::SCOPES }
    })
}

impl Context {
    /// The screen for `app` asking for its current scopes.
    pub fn of(app: &App, lang: Lang, granted: bool, service_url: &str, cancel_url: String) -> Self {
        Context {
            app_id: app.app_id.clone(),
            name: app.localized_name(lang),
            logo: app.logo.clone(),
            privacy_url: app.privacy_url.clone(),
            scopes: app.scopes.clone(),
            granted,
            service_url: service_url.to_owned(),
            cancel_url,
            organization: None,
        }
    }
}

/// `GET /auth/consent?appId&serviceUrl`: the app (APPID_NOT_FOUND), the serviceUrl matched
/// exactly against its registered ones (INVALID_PARAMETER `serviceUrl`), and whether the user
/// already allowed its current scopes; for an app whose `organization` setting asks for one, the
/// organization step (`org::tokens::step_of_session`). Round trips: 1 (the app and the consent
/// together), and 2 more for an app that asks for an organization.
pub async fn context(
    ciam: &Ciam,
    s: &Session,
    app_id: &str,
    service_url: &str,
    lang: Lang,
) -> Result<Context> {
    let (app, consent) = app_and_consent(ciam, s, app_id, service_url).await?;
    let granted = consent.is_some_and(|c| c.covers(&app.scopes));
    let want = crate::org::tokens::Want::of_app(app.organization);
    let mut ctx = Context::of(&app, lang, granted, service_url, cancel_url(service_url));
    ctx.organization = crate::org::tokens::step_of_session(ciam, s, want, None, lang).await?;
    Ok(ctx)
}

/// The app `app_id` (APPID_NOT_FOUND), with `service_url` one of its registered URLs
/// (INVALID_PARAMETER `serviceUrl`), and the user's remembered consent to it, read together:
/// how the consent screen and the ticket it leads to begin. Round trips: 1.
pub async fn app_and_consent(
    ciam: &Ciam,
    s: &Session,
    app_id: &str,
    service_url: &str,
) -> Result<(App, Option<Consent>)> {
    let (app, consent, _) = app_consent_and(ciam, s, app_id, service_url, None).await?;
    Ok((app, consent))
}

/// [`app_and_consent`], and the item at `also` (`key_of(user, app)`) in the same read: the
/// ticket reads the user's recent-app entry for the app with them. Round trips: 1.
pub async fn app_consent_and(
    ciam: &Ciam,
    s: &Session,
    app_id: &str,
    service_url: &str,
    also: Option<fn(&str, &str) -> Key>,
) -> Result<(App, Option<Consent>, Option<Item>)> {
    let app_id = AppId::parse(app_id).ok_or(crate::Reason::APPID_NOT_FOUND)?;
    let mut keys = vec![app_id.key(), consent_key(&s.user.id, app_id.as_str())];
    keys.extend(also.map(|key_of| key_of(&s.user.id, app_id.as_str())));
    let mut got = ciam.store.get_many(&keys).await?.into_iter();
    let (app, consent, other) = (got.next().flatten(), got.next().flatten(), got.next());
    let Some(app) = app.as_ref().map(App::from_item) else {
        return Err(crate::Reason::APPID_NOT_FOUND.into());
    };
    apps::check_service(&app, service_url)?;
    Ok((
        app,
        consent.as_ref().map(Consent::from_item),
        other.flatten(),
    ))
}

/// One remembered consent, as the personal centre lists it.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "AllowedApp"))]
#[serde(rename_all = "camelCase")]
pub struct Granted {
    pub app_id: String,
    pub name: String,
    pub logo: String,
    #[cfg_attr(feature = "openapi", schemars(schema_with = "scopes_schema"))]
    pub scopes: Vec<String>,
    pub granted_at: i64,
}

async fn consent_items(ciam: &Ciam, user_id: &str) -> Result<Vec<Item>> {
    Ok(ciam
        .store
        .query(Query::partition(user_pk(user_id)).prefix(PREFIX))
        .await?)
}

/// `GET /auth/consents`: the apps the user allowed, newest first, with the scopes allowed; an
/// app deleted since is left out. Round trips: 2 (the consents, then their apps together).
pub async fn list(ciam: &Ciam, s: &Session, lang: Lang) -> Result<Vec<Granted>> {
    let consents: Vec<Consent> = consent_items(ciam, &s.user.id)
        .await?
        .iter()
        .map(Consent::from_item)
        .collect();
    if consents.is_empty() {
        return Ok(Vec::new());
    }
    let keys: Vec<Key> = consents.iter().map(|c| app_key(&c.app_id)).collect();
    let apps = ciam.store.get_many(&keys).await?;
    let mut v: Vec<Granted> = consents
        .iter()
        .zip(apps.iter())
        .filter_map(|(c, app)| {
            let app = App::from_item(app.as_ref()?);
            Some(Granted {
                app_id: c.app_id.clone(),
                name: app.localized_name(lang),
                logo: app.logo,
                scopes: c.scopes.clone(),
                granted_at: c.granted_at,
            })
        })
        .collect();
    v.sort_by(|a, b| {
        b.granted_at
            .cmp(&a.granted_at)
            .then_with(|| a.app_id.cmp(&b.app_id))
    });
    Ok(v)
}

/// `DELETE /auth/consents/{appId}`: forgets the decision, so the next visit asks again, and
/// records `appRevoked` in the security activity and the `consent.revoked` event the app hears
/// (its last about this user), one off the profile's `consents` count. Idempotent: nothing to
/// revoke, nothing written. Round trips: 1 (a transaction).
pub async fn revoke(
    ciam: &Ciam,
    s: &Session,
    app_id: &str,
    client: &crate::client::ClientInfo,
) -> Result<()> {
    let Some(app_id) = AppId::parse(app_id) else {
        return Ok(());
    };
    let app_id = app_id.as_str();
    let mut event = Event::new(ciam, &s.user.id, Kind::ConsentRevoked, Default::default());
    event.app_id = Some(app_id.to_owned());
    // The delete, its line in the security activity and its event, together; nothing to
    // revoke, no line and no event.
    let mut tx = vec![
        TxOp::Delete {
            key: consent_key(&s.user.id, app_id),
            cond: Some(ciam_store::Cond::Exists),
        },
        crate::audit::record(ciam, &s.user.id, crate::audit::Event::AppRevoked, client),
        event.op(),
    ];
    tx.extend(count_op(&s.user, -1));
    match ciam.store.transact(tx).await {
        Ok(()) => Ok(()),
        Err(e) if e.condition_failed_at(0) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Deletes every consent of a user (deactivation, after its transaction). Best effort: a failure
/// is logged. Round trips: 1 query, then 1 delete per consent.
pub async fn forget_all(ciam: &Ciam, user_id: &str) {
    let items = match consent_items(ciam, user_id).await {
        Ok(items) => items,
        Err(cause) => {
            tracing::warn!(cause = %cause, "could not list the consents of a deactivated account");
            return;
        }
    };
    for c in items {
        if let Err(cause) = ciam.store.delete(&c.key, None).await {
            tracing::warn!(cause = %cause, "could not delete a consent of a deactivated account");
        }
    }
}
