//! The API's description of itself: `GET /openapi.json` (docs/openapi.json, built in).

use axum::response::{IntoResponse, Response};

/// `GET /openapi.json`: the API description partner apps read. Round trips: 0.
pub async fn openapi() -> Response {
    (
        [("content-type", "application/json")],
        crate::openapi::DOCUMENT,
    )
        .into_response()
}
