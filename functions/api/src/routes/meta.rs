//! The API's description of itself: `GET /openapi.json` (docs/openapi.json, built in).

use axum::response::{IntoResponse, Response};

/// This document
///
/// Reasons: none.
///
/// `GET /openapi.json`: docs/openapi.json, built in (the source's 200: the document as it is).
/// Round trips: 0.
pub async fn openapi() -> Response {
    (
        [("content-type", "application/json")],
        crate::openapi::DOCUMENT,
    )
        .into_response()
}
