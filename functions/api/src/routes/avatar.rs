//! The avatar: upload (`PATCH /auth/avatar`) and serving (`GET /avatar/{key}`). The image work
//! and the storage are `ciam_core::avatar`'s; here are the body and the response headers.

use crate::error::ApiError;
use crate::extract::Authed;
use crate::reply::Reply;
use crate::AppState;
use axum::body::Bytes;
use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use ciam_core::{avatar, Error, Reason};
use serde::Serialize;

/// The uploaded avatar.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct UploadedAvatar {
    /// Its path: the API's base path, then `/avatar/{key}` (the user's `avatar` from now on).
    avatar: String,
}

/// Upload the avatar
///
/// The image itself as the body (Content-Type image/png, image/jpeg or image/webp), at most 1 MB
/// (enforced on the streamed body). Recognised by magic bytes only (the declared Content-Type
/// counts for nothing: application/octet-stream, or none, is accepted too); decoded with a pixel
/// limit; re-encoded to a square thumbnail without metadata. SVG, HTML and polyglots are refused
/// (AVATAR_INVALID); over 1 MB: AVATAR_TOO_LARGE.
///
/// Reasons: AVATAR_INVALID, AVATAR_TOO_LARGE.
///
/// `PATCH /auth/avatar`: the raw image is the body (the source's). Its Content-Type is not trusted
/// (the magic bytes decide), so a missing or generic one is fine. The middleware caps the body at 1
/// MiB by Content-Length and while streaming; a cut stream surfaces here as a 413 from the reader.
/// Round trips: 1 authentication, 1 blob put, 1 conditional update, 1 blob delete.
pub async fn upload(
    State(s): State<AppState>,
    Authed(sess): Authed,
    req: Request,
) -> Result<Reply<UploadedAvatar>, ApiError> {
    let body = Bytes::from_request(req, &s).await.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            Error::new(Reason::AVATAR_TOO_LARGE)
        } else {
            Error {
                cause: Some(format!("unreadable body: {e}")),
                ..Error::new(Reason::AVATAR_INVALID)
            }
        }
    })?;
    let path = avatar::upload(&s.ciam, &sess, body.to_vec()).await?;
    Ok(Reply(UploadedAvatar { avatar: path }))
}

/// An avatar image
///
/// Served with an image content type and X-Content-Type-Options: nosniff; keys change with every
/// upload (cache-busting), so responses are cacheable for a long time.
///
/// Reasons: NOT_FOUND.
///
/// `GET /avatar/{key}`: the stored PNG (the source's 200), public (an `<img>` sends no bearer
/// token; the key has 128 random bits) and immutable (a new upload gets a new key). `nosniff` and a
/// sandboxing CSP keep a browser from treating it as anything but an image. Unknown or malformed
/// keys: 404. SERVICE_UNAVAILABLE: a blob get past the request's deadline (`middleware::deadline`).
/// Round trips: 1 blob get (no table access).
pub async fn serve(
    State(s): State<AppState>,
    key: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let Ok(Path(key)) = key else {
        return Err(Reason::NOT_FOUND.into());
    };
    let png = avatar::fetch(&s.ciam, &key)
        .await?
        .ok_or(Reason::NOT_FOUND)?;
    Ok((
        [
            (header::CONTENT_TYPE, avatar::CONTENT_TYPE),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; sandbox",
            ),
        ],
        png,
    )
        .into_response())
}
