//! Request id, language, body limit, and rendering of errors in the request's language.

use crate::error::{render, PendingError};
use crate::BODY_LIMIT;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use axum::Router;
use ciam_core::{Error, Lang, Reason};
use tracing::Instrument;

/// The request's language, from Accept-Language (zh-CN or en-US, else zh-CN).
#[derive(Clone, Copy, Debug)]
pub struct RequestLang(pub Lang);

pub fn wrap(router: Router) -> Router {
    router.layer(axum::middleware::from_fn(conventions))
}

/// The body limit of the request, for the extractor that reads the body and names the limit.
#[derive(Clone, Copy, Debug)]
pub struct BodyLimit(pub usize);

/// The body limit of a path, and the error for a body over it: the avatar upload carries an
/// image (1 MiB); an anonymous client error report is small (8 KiB); every other body is JSON
/// (64 KiB).
/// The error is made only for a body over the limit, never on the way of every request.
fn body_limit(path: &str) -> (usize, fn(usize) -> Error) {
    let json_too_large: fn(usize) -> Error = |limit| crate::extract::too_large(limit).0;
    match path.strip_prefix(crate::BASE) {
        Some("/auth/avatar") => (ciam_core::avatar::MAX_BYTES, |_| {
            Error::new(Reason::AVATAR_TOO_LARGE)
        }),
        Some("/client-errors") => (crate::routes::CLIENT_ERROR_LIMIT, json_too_large),
        _ => (BODY_LIMIT, json_too_large),
    }
}

/// The request id is the client's X-Request-ID when it is a UUID, else a fresh one; it is on
/// every log line of the request (the span) and on the response.
async fn conventions(mut req: Request, next: Next) -> Response {
    let id = req
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|s| uuid::Uuid::parse_str(s.trim()).ok())
        .unwrap_or_else(uuid::Uuid::new_v4)
        .hyphenated()
        .to_string();
    let lang = RequestLang(Lang::from_accept_language(
        req.headers()
            .get("accept-language")
            .and_then(|v| v.to_str().ok()),
    ));
    req.extensions_mut().insert(lang);
    let span = tracing::info_span!("request", request_id = %id, method = %req.method(), path = %req.uri().path());
    async move {
        let (limit, too_large) = body_limit(req.uri().path());
        let too_big = req
            .headers()
            .get("content-length")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok())
            .is_some_and(|n| n > limit);
        let mut res = if too_big {
            render(&too_large(limit), lang)
        } else {
            req.extensions_mut().insert(BodyLimit(limit));
            let (parts, body) = req.into_parts();
            // Streamed bodies are cut at the limit too, whatever Content-Length said; the
            // handler that reads the body answers for the cut.
            let req =
                Request::from_parts(parts, Body::new(http_body_util::Limited::new(body, limit)));
            next.run(req).await
        };
        if let Some(PendingError(e)) = res.extensions_mut().remove::<PendingError>() {
            res = render(&e, lang);
        } else if res.status() == StatusCode::METHOD_NOT_ALLOWED {
            res = render(&Error::new(Reason::METHOD_NOT_ALLOWED), lang);
        }
        tracing::info!(status = res.status().as_u16(), "response");
        if let Ok(v) = HeaderValue::from_str(&id) {
            res.headers_mut().insert("x-request-id", v);
        }
        // A handler that chose its caching (the immutable avatar images) keeps it.
        if !res.headers().contains_key("cache-control") {
            res.headers_mut()
                .insert("cache-control", HeaderValue::from_static("no-store"));
        }
        res
    }
    .instrument(span)
    .await
}
