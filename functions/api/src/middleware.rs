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
        let too_big = req
            .headers()
            .get("content-length")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok())
            .is_some_and(|n| n > BODY_LIMIT);
        let mut res = if too_big {
            render(&crate::extract::too_large().0, lang)
        } else {
            let (parts, body) = req.into_parts();
            // Streamed bodies are cut at the limit too, whatever Content-Length said.
            let req = Request::from_parts(
                parts,
                Body::new(http_body_util::Limited::new(body, BODY_LIMIT)),
            );
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
        res.headers_mut()
            .insert("cache-control", HeaderValue::from_static("no-store"));
        res
    }
    .instrument(span)
    .await
}
