//! The error body `{reason, message, code}`: the one place where a domain error becomes a
//! response. The cause goes to the log with the request id, never into the body.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use ciam_core::{Error, Lang, Message, Reason};
use serde::Serialize;

#[derive(Debug)]
pub struct ApiError(pub Error);

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        ApiError(e)
    }
}

impl From<Reason> for ApiError {
    fn from(r: Reason) -> Self {
        ApiError(Error::new(r))
    }
}

#[derive(Serialize)]
pub struct ErrorBody {
    pub reason: &'static str,
    pub message: String,
    pub code: u16,
    /// The field at fault, for INVALID_PARAMETER and the other validation reasons.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// For NEED_TOTP_VERIFY: the single-use challenge of the second step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub challenge: Option<String>,
    /// For PHONE_MAINLAND_SERVICE_ONLY: the other cell's origin, where the user goes instead.
    #[serde(rename = "otherCell", skip_serializing_if = "Option::is_none")]
    pub other_cell: Option<String>,
    /// For ORG_SIGN_IN_REQUIRED: the connection (its id) the address must sign in through.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connection: Option<String>,
}

pub fn body(e: &Error, lang: Lang) -> ErrorBody {
    let message = match &e.message {
        Some(Message::Text { zh, en }) => lang.pick(zh, en).to_owned(),
        Some(Message::Raw(s)) => s.clone(),
        Some(Message::OtherCell(_) | Message::Connection(_)) | None => {
            e.reason.message(lang).to_owned()
        }
    };
    ErrorBody {
        reason: e.reason.code(),
        message,
        code: e.reason.status(),
        field: e.field.as_deref().map(str::to_owned),
        challenge: e.challenge.clone(),
        other_cell: match &e.message {
            Some(Message::OtherCell(origin)) => Some(origin.clone()),
            _ => None,
        },
        connection: match &e.message {
            Some(Message::Connection(conn)) => Some(conn.clone()),
            _ => None,
        },
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.0.reason.status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if let Some(kind) = self.0.store_kind {
            // A store fault (docs/operations.md, "When the store stumbles"): its own line, with its
            // kind, whatever the route made of it.
            tracing::warn!(store_kind = kind.as_str(), reason = %self.0.reason, cause = self.0.cause.as_deref().unwrap_or(""), "store fault");
        } else if status.is_server_error() {
            tracing::error!(reason = %self.0.reason, cause = self.0.cause.as_deref().unwrap_or(""), "request failed");
        } else {
            tracing::info!(reason = %self.0.reason, field = self.0.field.as_deref().unwrap_or(""), cause = self.0.cause.as_deref().unwrap_or(""), "request refused");
        }
        // The language is applied by the middleware, which knows the request; stash the error.
        let mut res = status.into_response();
        res.extensions_mut().insert(PendingError(self.0));
        res
    }
}

/// An error waiting for the middleware to render it in the request's language.
#[derive(Clone)]
pub struct PendingError(pub Error);

/// Seconds a client should wait before retrying a 503 (`Retry-After`): a conflicting write is
/// over in milliseconds, and a store outage is not helped by clients retrying in a tight loop.
pub const RETRY_AFTER_SECS: u32 = 1;

pub fn render(e: &Error, lang: Lang) -> Response {
    let status =
        StatusCode::from_u16(e.reason.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut res = (status, Json(body(e, lang))).into_response();
    // Every 503 is transient (SERVICE_UNAVAILABLE: a store that could not be reached in time, a
    // conflicting write, a provider that did not answer): say when to come back.
    if status == StatusCode::SERVICE_UNAVAILABLE {
        res.headers_mut()
            .insert(axum::http::header::RETRY_AFTER, RETRY_AFTER_SECS.into());
    }
    res
}

/// A body over the route's limit (`limit` bytes): 400 INVALID_PARAMETER on `body`, naming the
/// limit (`route::Body::too_large`).
pub fn too_large(limit: usize) -> Error {
    invalid("body", &format!("larger than {} KiB", limit / 1024))
}

/// 400 INVALID_PARAMETER on `field`, the detail in the message.
pub fn invalid(field: &str, detail: &str) -> Error {
    Error {
        message: Some(Message::Raw(format!("{field}: {detail}"))),
        field: Some(field.to_owned().into()),
        ..Error::new(Reason::INVALID_PARAMETER)
    }
}

pub async fn not_found() -> ApiError {
    Reason::NOT_FOUND.into()
}
