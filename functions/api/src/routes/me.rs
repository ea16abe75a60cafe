//! The owner's view of their account: profile, privacy choices and history, sessions, activity,
//! apps.

use crate::error::ApiError;
use crate::extract::{Authed, Json, Lang};
use crate::reply::{done, Done, Reply};
use crate::AppState;
use axum::extract::{Path, State};
use ciam_core::accounts::{self, ProfilePatch};
use ciam_core::me::{AppView, EventView, Privacy, RecentApp, SessionView};
use ciam_core::user::UserInfo;
use ciam_core::{me, Reason};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The signed-in user
///
/// `mail` and `phone` masked (for display, as the sign-in screen's account picker keeps them);
/// `fullMail` and `fullPhone` whole, for the owner's own account centre. No secret or hash.
///
/// Reasons: none.
///
/// Round trips: 1 (session and user together; +1 idle refresh a minute).
pub async fn info(
    State(s): State<AppState>,
    Authed(sess): Authed,
) -> Result<Reply<UserInfo>, ApiError> {
    Ok(Reply(sess.user.info(&s.ciam)))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InfoPatch {
    company: Option<String>,
    duty: Option<String>,
    address: Option<String>,
    display_name: Option<String>,
    /// ISO 3166-1 alpha-2
    country: Option<String>,
}

/// Update the profile
///
/// Only the fields given change; an empty string clears duty, address or displayName.
///
/// Reasons: none.
///
/// Round trips: 2 (authentication, one conditional update).
pub async fn update_info(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(b): Json<InfoPatch>,
) -> Result<Reply<UserInfo>, ApiError> {
    let patch = ProfilePatch {
        company: b.company,
        duty: b.duty,
        address: b.address,
        display_name: b.display_name,
        country: b.country,
    };
    Ok(Reply(accounts::update_info(&s.ciam, &sess, patch).await?))
}

/// Privacy choices and their history
///
/// Cookies and data-use choices (all off by default) and the history of changes (when, what
/// changed), newest first, at most 50.
///
/// Reasons: none.
///
/// Round trips: 2 (authentication, which loads the settings; the history).
pub async fn privacy(
    State(s): State<AppState>,
    Authed(sess): Authed,
) -> Result<Reply<Privacy>, ApiError> {
    Ok(Reply(me::privacy(&s.ciam, &sess).await?))
}

/// The privacy choices to change (`{analytics?, marketing?}`); the core refuses unknown ones.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct PrivacyPatch(
    #[cfg_attr(
        feature = "openapi",
        schemars(schema_with = "ciam_core::me::privacy_patch_schema")
    )]
    BTreeMap<String, bool>,
);

/// Change privacy choices
///
/// Only the choices given change; each effective change adds a history entry. Unknown choices:
/// INVALID_PARAMETER.
///
/// Reasons: none.
///
/// Round trips: 3.
pub async fn set_privacy(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(b): Json<PrivacyPatch>,
) -> Result<Reply<Privacy>, ApiError> {
    Ok(Reply(me::set_privacy(&s.ciam, &sess, b.0).await?))
}

/// The account's live sessions.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct Sessions {
    /// The current first, then by last activity.
    sessions: Vec<SessionView>,
}

/// Active sessions
///
/// The account's live sessions, the current first, then by last activity.
///
/// Reasons: none.
///
/// Round trips: 2.
pub async fn sessions(
    State(s): State<AppState>,
    Authed(sess): Authed,
) -> Result<Reply<Sessions>, ApiError> {
    Ok(Reply(Sessions {
        sessions: me::sessions(&s.ciam, &sess).await?,
    }))
}

/// End one session
///
/// Ends the session with this id (the current one too). NOT_FOUND for an unknown id.
///
/// Reasons: NOT_FOUND.
///
/// Round trips: 3.
pub async fn revoke_session(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path(id): Path<String>,
) -> Result<Reply<Done>, ApiError> {
    me::revoke_session(&s.ciam, &sess, &id).await?;
    Ok(done())
}

/// The account's security activity.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct Activity {
    /// Newest first, at most 50.
    events: Vec<EventView>,
}

/// Security activity
///
/// The latest 50 events (sign-ins; changes to password, two-factor, mail, phone and passkeys; a
/// passkey whose signature counter went back), newest first; kept 180 days.
///
/// Reasons: none.
///
/// Round trips: 2.
pub async fn activity(
    State(s): State<AppState>,
    Authed(sess): Authed,
) -> Result<Reply<Activity>, ApiError> {
    Ok(Reply(Activity {
        events: me::activity(&s.ciam, &sess).await?,
    }))
}

/// The apps this account used most recently.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct RecentApps {
    /// Newest first by lastLoginTime.
    #[cfg_attr(feature = "openapi", schemars(length(max = 2)))]
    apps: Vec<RecentApp>,
}

/// The 2 most recently used apps
///
/// Apps this account signed into through Ciam, newest first by lastLoginTime (unix seconds).
/// Names in the request's language.
///
/// Reasons: none.
///
/// Round trips: 2.
pub async fn recent_apps(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Lang(lang): Lang,
) -> Result<Reply<RecentApps>, ApiError> {
    Ok(Reply(RecentApps {
        apps: me::recent_apps(&s.ciam, &sess, lang).await?,
    }))
}

/// The registered apps in one language.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct LanguageApps {
    /// Recommended first.
    apps: Vec<AppView>,
}

/// Common and recommended apps
///
/// The registered apps with names in `language` (zh-CN or en-US) and logos, recommended first.
/// The sign-in, sign-up and embedded sign-in pages read an app's name and logo here ("to
/// continue to …"): one query, cached like every STATIC answer.
///
/// Reasons: INVALID_PARAMETER.
///
/// Round trips: 1.
pub async fn apps_in(
    State(s): State<AppState>,
    Path(language): Path<String>,
) -> Result<Reply<LanguageApps>, ApiError> {
    let lang = ciam_core::Lang::parse_tag(&language).ok_or_else(|| {
        ApiError(ciam_core::Error::field(
            Reason::INVALID_PARAMETER,
            "language",
            "只支持 zh-CN 或 en-US",
            "Use zh-CN or en-US",
        ))
    })?;
    Ok(Reply(LanguageApps {
        apps: me::apps_in(&s.ciam, lang).await?,
    }))
}
