//! Remembered consents: the consent screen's context, and the personal centre's list and
//! revocation. Allow itself is `POST /auth/login/token` (tickets.rs), which remembers the decision.

use crate::error::ApiError;
use crate::extract::{Authed, Client, Lang, Params};
use crate::reply::{done, Done, Reply};
use crate::AppState;
use axum::extract::{Path, State};
use ciam_core::consents::{self, Context, Granted};
use serde::Serialize;

/// The apps the user allowed.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct Consents {
    /// Newest first.
    apps: Vec<Granted>,
}

/// What the consent screen shows
///
/// The app (APPID_NOT_FOUND when unknown) and the serviceUrl, which must equal one of the app's
/// registered service URLs exactly (INVALID_PARAMETER on serviceUrl otherwise; a missing parameter
/// is INVALID_PARAMETER naming it). `name` is in the request's language; `scopes` are those the app
/// asks for now; `granted` is true when the user already allowed all of them (the screen then asks
/// for the ticket at once). `cancelUrl` is the registered serviceUrl with `cError=access_denied`
/// appended: Cancel goes there and nowhere else. Allow is POST /auth/login/token, which remembers
/// the decision.
///
/// Reasons: APPID_NOT_FOUND, INVALID_PARAMETER.
///
/// `GET /auth/consent?appId&serviceUrl`. Round trips: 2 (authentication, the app and the consent
/// together).
pub async fn context(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Lang(lang): Lang,
    q: Params,
) -> Result<Reply<Context>, ApiError> {
    let (app_id, service_url) = (q.get("appId")?, q.get("serviceUrl")?);
    let ctx = consents::context(&s.ciam, &sess, &app_id, &service_url, lang).await?;
    Ok(Reply(ctx))
}

/// The apps the user allowed
///
/// Remembered consents, newest first by grantedAt (unix seconds; the latest Allow or ticket under
/// it): the app's name in the request's language, its logo and the scopes allowed. An app deleted
/// since is left out.
///
/// Reasons: none.
///
/// `GET /auth/consents`. Round trips: 3 (authentication, the consents, their apps together).
pub async fn list(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Lang(lang): Lang,
) -> Result<Reply<Consents>, ApiError> {
    let apps = consents::list(&s.ciam, &sess, lang).await?;
    Ok(Reply(Consents { apps }))
}

/// Revoke a consent
///
/// Forgets the user's decision for this app, so its next sign-in shows the consent screen again.
/// Idempotent: an app without a consent (or unknown) also answers ok. Tickets already issued are
/// not affected; the app's OpenID Connect access tokens stop working at once (allowing the app
/// again later does not revive them).
///
/// Reasons: none.
///
/// `DELETE /auth/consents/{appId}`: an unknown or malformed appId is nothing to revoke (ok). Round
/// trips: 2 (authentication, one transaction).
pub async fn revoke(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
    Path(app_id): Path<String>,
) -> Result<Reply<Done>, ApiError> {
    consents::revoke(&s.ciam, &sess, &app_id, &client).await?;
    Ok(done())
}
