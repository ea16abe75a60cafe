//! Partner apps: the registry (admins only). Their tickets are tickets.rs's.

use crate::error::ApiError;
use crate::extract::{Authed, Facts, Json};
use crate::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use ciam_core::apps::{self, AppFields, Names};
use ciam_core::console::audit::{self, RequestFacts};
use ciam_core::console::{Operator, Role};
use ciam_core::{Error, Reason};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

type ApiResult = Result<Response, ApiError>;

/// The registry body. Lists and the names object arrive as raw JSON and are typed here, so that
/// each wrong value is reported on its own field.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AppBody {
    name: Option<Value>,
    description: Option<String>,
    logo: Option<String>,
    privacy_url: Option<String>,
    service_urls: Option<Value>,
    frame_origins: Option<Value>,
    post_logout_redirect_uris: Option<Value>,
    backchannel_logout_uri: Option<String>,
    logout_url: Option<String>,
    scopes: Option<Value>,
    recommended: Option<bool>,
    owner_mail: Option<String>,
    rotate_secret: Option<bool>,
}

/// `v` as a `T`, or INVALID_PARAMETER on `field` saying why.
pub(super) fn typed<T: DeserializeOwned>(
    field: &'static str,
    v: Option<Value>,
) -> Result<Option<T>, Error> {
    v.map(|v| {
        serde_json::from_value(v).map_err(|e| {
            Error::field(
                Reason::INVALID_PARAMETER,
                field,
                "格式不正确",
                "Wrong shape",
            )
            .raw_message(format!("{field}: {e}"))
        })
    })
    .transpose()
}

impl AppBody {
    fn fields(self) -> Result<(AppFields, bool), Error> {
        Ok((
            AppFields {
                name: typed::<Names>("name", self.name)?,
                description: self.description,
                logo: self.logo,
                privacy_url: self.privacy_url,
                service_urls: typed("serviceUrls", self.service_urls)?,
                frame_origins: typed("frameOrigins", self.frame_origins)?,
                post_logout_redirect_uris: typed(
                    "postLogoutRedirectUris",
                    self.post_logout_redirect_uris,
                )?,
                backchannel_logout_uri: self.backchannel_logout_uri,
                logout_url: self.logout_url,
                scopes: typed("scopes", self.scopes)?,
                recommended: self.recommended,
                owner_mail: self.owner_mail,
            },
            self.rotate_secret.unwrap_or(false),
        ))
    }
}

/// A change through the registry API (an admin's session, as before the console) is recorded in
/// the console's audit log like the console's own app changes (after the change, with the reason
/// `registry API`). The console's routes (`/admin/apps...`) also ask for a second factor and a
/// fresh proof; this API does not yet (docs/console-design.md §5: scripts and the end-to-end
/// suite use it with a password session).
pub(super) fn admin_change(sess: &ciam_core::sessions::Session) -> Result<Operator, ApiError> {
    apps::require_admin(sess)?;
    Ok(Operator {
        user: sess.user.clone(),
        role: Role::Admin,
        session: sess.key.clone(),
    })
}

pub(super) async fn audited(
    s: &AppState,
    op: &Operator,
    action: &str,
    app_id: &str,
    detail: Option<String>,
    facts: &RequestFacts,
) -> Result<(), ApiError> {
    audit::record(
        &s.ciam,
        op,
        action,
        app_id,
        Some("registry API"),
        detail,
        facts,
    )
    .await?;
    Ok(())
}

/// `GET /app`: every registered app. Round trips: 2 (authentication, the registry).
pub async fn list(State(s): State<AppState>, Authed(sess): Authed) -> ApiResult {
    Ok(axum::Json(json!({ "apps": apps::list_all(&s.ciam, &sess).await? })).into_response())
}

/// `POST /app`: registers an app; its secret is in this answer only. Round trips: 2.
pub async fn create(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Facts(facts): Facts,
    Json(b): Json<AppBody>,
) -> ApiResult {
    let op = admin_change(&sess)?;
    let (fields, rotate) = b.fields()?;
    if rotate {
        return Err(ApiError(Error::field(
            Reason::INVALID_PARAMETER,
            "rotateSecret",
            "新应用无需更换密钥",
            "A new app has no secret to rotate",
        )));
    }
    let created = apps::create(&s.ciam, &sess, fields).await?;
    audited(&s, &op, "app.create", &created.app.app_id, None, &facts).await?;
    Ok((StatusCode::CREATED, axum::Json(created)).into_response())
}

/// `GET /app/{appId}`. Round trips: 2.
pub async fn get(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path(app_id): Path<String>,
) -> ApiResult {
    Ok(axum::Json(apps::get(&s.ciam, &sess, &app_id).await?).into_response())
}

/// `PATCH /app/{appId}`: changes fields; `rotateSecret` answers a new secret once. Round trips: 4.
pub async fn update(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Facts(facts): Facts,
    Path(app_id): Path<String>,
    Json(b): Json<AppBody>,
) -> ApiResult {
    let op = admin_change(&sess)?;
    let (fields, rotate) = b.fields()?;
    let updated = apps::update(&s.ciam, &sess, &app_id, fields, rotate).await?;
    let action = if rotate {
        "app.rotateSecret"
    } else {
        "app.update"
    };
    audited(&s, &op, action, &app_id, None, &facts).await?;
    Ok(axum::Json(updated).into_response())
}

/// `DELETE /app/{appId}`. Round trips: 3.
pub async fn remove(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Facts(facts): Facts,
    Path(app_id): Path<String>,
) -> ApiResult {
    let op = admin_change(&sess)?;
    apps::delete(&s.ciam, &sess, &app_id).await?;
    audited(&s, &op, "app.delete", &app_id, None, &facts).await?;
    Ok(axum::Json(json!({ "ok": true })).into_response())
}
