//! Request id, language, and rendering of errors in the request's language (`wrap`, around the
//! whole router); the body limit of a route (`limit_body`, a route layer from its row); the
//! request's deadline (`deadline`, a route layer); the keys a route declared (`declared_keys`, a
//! route layer); the cn cell's per-client limits (`client_limits`, a route layer when
//! `Config::client_limits` is on).

use crate::error::{render, ApiError, PendingError};
use crate::extract::{viewer_ip, BodyLimit, RequestId, RequestLang};
use crate::route::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use ciam_core::{Error, Lang, Reason};
use tracing::Instrument;

pub fn wrap(router: Router) -> Router {
    router.layer(axum::middleware::from_fn(conventions))
}

/// How long past its budget a request that is not waiting on the store (a notifier, a provider)
/// may run before it is answered 503 anyway; the store calls themselves stop at the budget.
const DEADLINE_GRACE: std::time::Duration = std::time::Duration::from_millis(250);

/// Runs the request within `budget` (`ciam_core::deadline`): its store calls stop at the
/// deadline and answer 503; whatever else still runs a moment later is dropped and answered 503
/// SERVICE_UNAVAILABLE with Retry-After, so no request outlives its budget.
pub async fn deadline(budget: std::time::Duration, req: Request, next: Next) -> Response {
    let run = ciam_core::deadline::within(budget, next.run(req));
    match tokio::time::timeout(budget + DEADLINE_GRACE, run).await {
        Ok(res) => res,
        Err(_) => ApiError(Error {
            cause: Some(format!("request deadline ({} ms)", budget.as_millis())),
            ..Error::new(Reason::SERVICE_UNAVAILABLE)
        })
        .into_response(),
    }
}

/// Runs the route's handler as one request of its keys (`ciam_core::within_request`): if it
/// used a key outside its row's purposes (a programming error, logged where it happened), its
/// store refused every call after that, and whatever the handler answered is replaced by 503
/// SERVICE_UNAVAILABLE: never a verdict made with a wrong key.
pub async fn declared_keys(route: &'static str, req: Request, next: Next) -> Response {
    match ciam_core::within_request(route, next.run(req)).await {
        (res, ciam_core::Outcome::Clean) => res,
        (_, ciam_core::Outcome::Undeclared) => ApiError(Error {
            cause: Some(format!("{route}: key of an undeclared purpose")),
            ..Error::new(Reason::SERVICE_UNAVAILABLE)
        })
        .into_response(),
    }
}

/// Refuses a body over the route's limit (`RouteDef::body`) by its Content-Length before
/// anything reads it, and cuts a streamed body at the limit whatever Content-Length said (the
/// extractor that reads the body answers for the cut, `BodyLimit`). The error is made only for
/// a body over the limit, never on the way of every request.
pub async fn limit_body(body: Body, mut req: Request, next: Next) -> Response {
    let limit = body.limit();
    let too_big = req
        .headers()
        .get("content-length")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        .is_some_and(|n| n > limit);
    if too_big {
        return ApiError(body.too_large()).into_response();
    }
    req.extensions_mut().insert(BodyLimit(body));
    let (parts, stream) = req.into_parts();
    let req = Request::from_parts(
        parts,
        axum::body::Body::new(http_body_util::Limited::new(stream, limit)),
    );
    next.run(req).await
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
    let lang = Lang::from_accept_language(
        req.headers()
            .get("accept-language")
            .and_then(|v| v.to_str().ok()),
    );
    req.extensions_mut().insert(RequestLang(lang));
    req.extensions_mut().insert(RequestId(id.clone()));
    let span = tracing::info_span!("request", request_id = %id, method = %req.method(), path = %req.uri().path());
    async move {
        let mut res = next.run(req).await;
        // A sign-in's outcome line already tells how it ended (`sign_in::OutcomeLogged`).
        let logged = res
            .extensions()
            .get::<crate::sign_in::OutcomeLogged>()
            .is_some();
        if let Some(PendingError(e)) = res.extensions_mut().remove::<PendingError>() {
            res = render(&e, lang);
        } else if res.status() == StatusCode::METHOD_NOT_ALLOWED {
            res = render(&Error::new(Reason::METHOD_NOT_ALLOWED), lang);
        }
        if !logged {
            tracing::info!(status = res.status().as_u16(), "response");
        }
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

/// The cn cell's per-client limits (`Config::client_limits`; `ciam_core::client_limits`): counts
/// the request of its client against `rules` (the blanket rule and the route's own,
/// `Waf::client_limits`) in one conditional write, and answers a client over a limit 429
/// VERIFYCODE_SENDING_TOO_QUICKLY, the body the global cell's web ACL answers, with Retry-After
/// until its window ends. The client is the address CloudFront saw (`viewer_ip`).
pub async fn client_limits(
    ciam: ciam_core::Ciam,
    rules: std::sync::Arc<[ciam_core::client_limits::Limit]>,
    req: Request,
    next: Next,
) -> Response {
    match over_limit(&ciam, &rules, &req).await {
        Some(refused) => refused,
        None => next.run(req).await,
    }
}

/// Counts `req` against `rules` (see `client_limits`): None when it may go on, else the
/// answer (429 with Retry-After, or the store's 503). The embedded page calls it directly. The
/// request is read before the write (a `&Request` held across it would not be `Send`).
pub(crate) fn over_limit<'a>(
    ciam: &'a ciam_core::Ciam,
    rules: &'a [ciam_core::client_limits::Limit],
    req: &Request,
) -> impl std::future::Future<Output = Option<Response>> + Send + 'a {
    use ciam_core::client_limits::{client_key, count, Verdict};
    let client = client_key(viewer_ip(req.headers(), req.extensions()));
    let lang = req
        .extensions()
        .get::<RequestLang>()
        .map(|l| l.0)
        .unwrap_or_default();
    async move {
        match count(ciam, &client, rules).await {
            Ok(Verdict::Allowed) => None,
            Ok(Verdict::Refused { rule, retry_after }) => {
                tracing::info!(rule, retry_after, "client limit");
                let mut res = render(&Error::new(Reason::VERIFYCODE_SENDING_TOO_QUICKLY), lang);
                res.headers_mut()
                    .insert(axum::http::header::RETRY_AFTER, retry_after.into());
                Some(res)
            }
            Err(e) => Some(ApiError(e).into_response()),
        }
    }
}
