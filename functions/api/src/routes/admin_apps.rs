//! Partner apps in the operator console (`/admin/apps...`, docs/console-design.md §5), the only
//! door to the registry (docs/partners.md §1): each handler takes `extract::Op` first (its row's
//! role; a fresh proof for a change); the changes need a reason and are audited in their
//! transaction (`ciam_core::console::apps`).

use crate::error::ApiError;
use crate::extract::{Facts, Json, Op};
use crate::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use ciam_core::apps::{AppFields, Names};
use ciam_core::console::apps;
use ciam_core::{Error, Reason};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

type ApiResult = Result<Response, ApiError>;

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

/// An app's fields and the operator's reason. Lists and the names object arrive as raw JSON
/// and are typed here, so that each wrong value is reported on its own field.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AppChange {
    #[cfg_attr(
        feature = "openapi",
        schemars(with = "Option<std::collections::BTreeMap<String, String>>")
    )]
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
    reason: String,
}

impl AppChange {
    fn fields(self) -> Result<(AppFields, String), Error> {
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
            self.reason,
        ))
    }
}

/// A `POST /admin/apps` body read as the route reads it, for `ciam admin apps create`: the
/// fields and the reason, or the route's 400.
pub fn app_change(bytes: &[u8]) -> Result<(AppFields, String), ApiError> {
    let b: AppChange = crate::extract::parse(bytes)?;
    Ok(b.fields()?)
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReasonBody {
    reason: String,
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RotateBody {
    reason: String,
    previous_valid_until: Option<i64>,
}

/// `GET /admin/apps`: every registered app. Round trips: 2 (authentication, the registry).
pub async fn list(Op(_): Op, State(s): State<AppState>) -> ApiResult {
    Ok(axum::Json(json!({ "apps": apps::list(&s.ciam).await? })).into_response())
}

/// `GET /admin/apps/{appId}`: the app and what deleting it ends. Round trips: 2.
pub async fn get(Op(_): Op, State(s): State<AppState>, Path(app_id): Path<String>) -> ApiResult {
    Ok(axum::Json(apps::get(&s.ciam, &app_id).await?).into_response())
}

/// `POST /admin/apps`: registers an app; its secret is in this answer only. Round trips: 2.
pub async fn create(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Json(b): Json<AppChange>,
) -> ApiResult {
    let (fields, reason) = b.fields()?;
    let created = apps::create(&s.ciam, &op, fields, &reason, &facts).await?;
    Ok((StatusCode::CREATED, axum::Json(created)).into_response())
}

/// `PATCH /admin/apps/{appId}`: changes the given fields. Round trips: 4.
pub async fn patch(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(app_id): Path<String>,
    Json(b): Json<AppChange>,
) -> ApiResult {
    let (fields, reason) = b.fields()?;
    let app = apps::update(&s.ciam, &op, &app_id, fields, &reason, &facts).await?;
    Ok(axum::Json(json!({ "app": app })).into_response())
}

/// `POST /admin/apps/{appId}/secret`: a new secret (in this answer only); the previous one
/// works until `previousValidUntil` (default 24 hours, at most 30 days). Round trips: 4.
pub async fn rotate_secret(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(app_id): Path<String>,
    Json(b): Json<RotateBody>,
) -> ApiResult {
    let rotated = apps::rotate(
        &s.ciam,
        &op,
        &app_id,
        b.previous_valid_until,
        &b.reason,
        &facts,
    )
    .await?;
    Ok(axum::Json(rotated).into_response())
}

/// `POST /admin/apps/{appId}/retire-previous-secret`: the previous secret stops at once. Round
/// trips: 4.
pub async fn retire_previous_secret(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(app_id): Path<String>,
    Json(b): Json<ReasonBody>,
) -> ApiResult {
    let app = apps::retire_previous(&s.ciam, &op, &app_id, &b.reason, &facts).await?;
    Ok(axum::Json(json!({ "app": app })).into_response())
}

/// `DELETE /admin/apps/{appId}` with `{reason}`: the app and its names. Round trips: 3.
pub async fn delete(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(app_id): Path<String>,
    Json(b): Json<ReasonBody>,
) -> ApiResult {
    apps::delete(&s.ciam, &op, &app_id, &b.reason, &facts).await?;
    Ok(axum::Json(json!({ "ok": true })).into_response())
}
