//! Replacing a customer's bound mail or phone (admin, docs/console-design.md §5), after the
//! gate of its row (`extract::Op`, with a fresh proof). The other account actions are `admin.rs`'s.

use crate::error::ApiError;
use crate::extract::{Facts, Json, Op};
use crate::AppState;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use ciam_core::console::identity;
use serde::Deserialize;
use serde_json::json;

type ApiResult = Result<Response, ApiError>;

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct IdentityBody {
    reason: String,
    mail: Option<String>,
    phone: Option<String>,
    country: Option<String>,
}

/// `PUT /admin/accounts/{userId}/identity`: replaces the bound mail (`mail`) or phone (`phone`,
/// `country`) (admin, a fresh proof). Round trips: 3, then the notice to the old address.
pub async fn replace_identity(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(user_id): Path<String>,
    Json(b): Json<IdentityBody>,
) -> ApiResult {
    let new = identity::new_identity(b.mail.as_deref(), b.phone.as_deref(), b.country.as_deref())?;
    identity::replace(&s.ciam, &op, &user_id, new, &b.reason, &facts).await?;
    Ok(axum::Json(json!({ "ok": true })).into_response())
}
