//! A typed JSON answer: what a handler sends is its return type, so docs/openapi.json's answer
//! for the status is that type's schema (`doc::Outcome`), and a change to the type is a change
//! to the document (`ciam-gen --check`).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// `T` as JSON with status `S` (200 unless said).
pub struct Reply<T, const S: u16 = 200>(pub T);

/// `T` as JSON with 201 Created.
pub type Created<T> = Reply<T, 201>;

impl<T: Serialize, const S: u16> IntoResponse for Reply<T, S> {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(S).unwrap_or(StatusCode::OK);
        (status, axum::Json(self.0)).into_response()
    }
}

/// A JSON answer `T`, or a download (`?format=`) whose content types the operation's source
/// describes (docs/openapi/source.json): the JSON's schema is still the type's.
pub enum OrDownload<T> {
    Json(T),
    File(Response),
}

impl<T: Serialize> IntoResponse for OrDownload<T> {
    fn into_response(self) -> Response {
        match self {
            OrDownload::Json(t) => axum::Json(t).into_response(),
            OrDownload::File(r) => r,
        }
    }
}

/// `{"ok": true}`: the answer of a change with nothing else to say.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "Ok"))]
pub struct Done {
    /// Always true.
    #[cfg_attr(feature = "openapi", schemars(extend("const" = true)))]
    pub ok: bool,
}

/// The `{"ok": true}` answer.
pub fn done() -> Reply<Done> {
    Reply(Done { ok: true })
}
