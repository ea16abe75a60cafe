//! Account changes: marketing opt-in, mail and phone binding, deactivation.

use crate::error::ApiError;
use crate::extract::{Authed, Client, Json, Lang};
use crate::AppState;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use ciam_core::changes;
use ciam_core::validate::{Email, Identity, Phone};
use serde::Deserialize;
use serde_json::json;

type ApiResult = Result<Response, ApiError>;

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Advertisement {
    advertisement: String,
}

/// `PATCH /auth/advertisement`. Round trips: 2 (authentication, one update).
pub async fn advertisement(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(b): Json<Advertisement>,
) -> ApiResult {
    Ok(
        axum::Json(changes::set_advertisement(&s.ciam, &sess, &b.advertisement).await?)
            .into_response(),
    )
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NewMail {
    mail: String,
    code: String,
}

/// `PATCH /auth/mail`. Round trips: 3 (authentication, code, one transaction) + the notice.
pub async fn mail(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
    Lang(lang): Lang,
    Json(b): Json<NewMail>,
) -> ApiResult {
    let new = Identity::Mail(Email::parse(&b.mail)?);
    Ok(
        axum::Json(changes::bind(&s.ciam, &sess, new, &b.code, lang, &client).await?)
            .into_response(),
    )
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NewPhone {
    phone: String,
    code: String,
}

/// `PATCH /auth/phone`. Round trips: 3 (authentication, code, one transaction) + the notice.
pub async fn phone(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
    Lang(lang): Lang,
    Json(b): Json<NewPhone>,
) -> ApiResult {
    let new = Identity::Phone(Phone::parse(&b.phone)?);
    Ok(
        axum::Json(changes::bind(&s.ciam, &sess, new, &b.code, lang, &client).await?)
            .into_response(),
    )
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Deactivation {
    password: Option<String>,
    code: Option<String>,
}

/// `PATCH /auth/deactivation`. Round trips: 2-3 (authentication, proof, one transaction) plus
/// tidying of codes, backup codes, consents and the avatar blob, then the numbers'
/// deactivation (2 writes side by side, best effort).
pub async fn deactivation(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Lang(lang): Lang,
    Json(b): Json<Deactivation>,
) -> ApiResult {
    changes::deactivate(
        &s.ciam,
        &sess,
        b.password.as_deref(),
        b.code.as_deref(),
        lang,
    )
    .await?;
    ciam_core::numbers::count_deactivation(&s.ciam).await;
    Ok(axum::Json(json!({ "ok": true })).into_response())
}
