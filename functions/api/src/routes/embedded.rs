//! The embedded sign-in page (issue 5 §5; its row is `super::EMBEDDED_PAGE`):
//! `GET /{zh-CN|en-US}/embedded/signin`, the only page another site may frame. One handler for both servers: `ciam serve` (functions/local, the page
//! from the built web folder) and its Lambda (functions/lambdas, from the web bucket). It answers
//! the built index.html with the security headers of `infra/security-headers.json`
//! (`crate::headers`) whose CSP names, in `frame-ancestors`, the frame origins registered for the
//! query's `appId` when its `serviceUrl` is one the app registered
//! (`ciam_core::apps::frame_ancestors`, read on every request; nothing is cached). A failed
//! lookup keeps 'none', so the page is never framable by mistake. Its X-Frame-Options DENY
//! stays: browsers that know `frame-ancestors` ignore it (checked in Chromium by
//! web/tests/e2e/embedded.test.mjs), older ones refuse the frame.
//!
//! The query is read by ONE parser, [`query_param`], the rule the page's own code uses
//! (`serviceUrlOf` in web/src/lib/redirect.ts), so the policy is decided for the serviceUrl the
//! page will ask a ticket for. functions/api/tests/query-vectors.json pins the two together (a
//! Rust test here and web/src/lib/service-url-query.vectors.test.ts).
//!
//! Round trips per request: 1 table read and 1 read of index.html, concurrently.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::response::Response;
use axum::Router;
use ciam_core::apps::{self, is_embedded_signin};
use ciam_core::{BlobStore, Ciam};
use std::sync::Arc;

/// The object holding the built SPA's entry page (in the web bucket, or the built web folder).
pub const INDEX_KEY: &str = "index.html";

/// The value of the first `name` in `query` (without its `?`), or None when it has none.
///
/// The rule, that of `serviceUrlOf` in web/src/lib/redirect.ts: the query is split at every
/// `&`; a part's name is what comes before its first `=` (compared as written, not decoded),
/// its value everything after it, up to the next `&` (spec §2: partners write serviceUrl
/// unencoded and last, so it carries at most one query parameter of its own). The value is
/// percent-decoded as `decodeURIComponent` does, and a value that does not decode (a `%` not
/// followed by two hex digits, or bytes that are not UTF-8) is taken as written.
///
/// A `+` is a plus, not a space: form-urlencoded parsers (`URLSearchParams`,
/// `url::form_urlencoded`) read it as a space, but a serviceUrl is a URL written unencoded, and
/// in a URL's query a `+` is itself (`https://a.example.com/cb?q=a+b`); it must be the
/// serviceUrl the page asks a ticket for, which is the one the app registered.
pub fn query_param(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|part| {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        (key == name).then(|| decode_component(value))
    })
}

/// `decodeURIComponent(raw)`, or `raw` itself where that would throw.
fn decode_component(raw: &str) -> String {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            let Some(byte) = hex else {
                return raw.to_owned();
            };
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| raw.to_owned())
}

/// The `frame-ancestors` source list for a request of the page with `query`: the app's
/// registered frame origins when `appId` names an app that registered `serviceUrl`, else 'none'
/// (also when the lookup fails).
pub async fn frame_ancestors(ciam: &Ciam, query: Option<&str>) -> String {
    let param = |name| query.and_then(|q| query_param(q, name));
    let (Some(app_id), Some(service_url)) = (param("appId"), param("serviceUrl")) else {
        return apps::NO_FRAMING.to_owned();
    };
    if app_id.is_empty() {
        return apps::NO_FRAMING.to_owned();
    }
    apps::frame_ancestors(ciam, &app_id, &service_url)
        .await
        .unwrap_or_else(|e| {
            tracing::error!(reason = ?e.reason, "frame-ancestors lookup failed");
            apps::NO_FRAMING.to_owned()
        })
}

/// The page's answer for the built index.html (None: not deployed, 503) and `ancestors` (a
/// `frame-ancestors` source list).
pub fn page_response(html: Option<Vec<u8>>, ancestors: &str) -> Response {
    let Some(html) = html else {
        return plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "The web app is not deployed",
        );
    };
    let mut res = Response::new(Body::from(html));
    let h = res.headers_mut();
    h.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    crate::headers::apply(h, Some(ancestors));
    // Per app and per admin change: never kept by CloudFront or the browser without asking.
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    res
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    let mut res = Response::new(Body::from(text));
    *res.status_mut() = status;
    res.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    crate::headers::apply(res.headers_mut(), None);
    res
}

/// Answers one request for the embedded page: GET or HEAD of its two paths; 405 and 404 else.
/// With `Config::client_limits` (the cn cell), the request first counts under the blanket
/// per-client rule, as the global cell's web ACL counts `/{lang}/embedded/...`
/// (`middleware::client_limits`), in the Lambda and in `ciam serve` alike.
pub async fn handle(ciam: &Ciam, web: &dyn BlobStore, req: Request) -> Response {
    if ciam.config.client_limits {
        if let Some(refused) =
            crate::middleware::over_limit(ciam, &[crate::waf::BLANKET], &req).await
        {
            return refused;
        }
    }
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return plain(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed");
    }
    if !is_embedded_signin(req.uri().path()) {
        return plain(StatusCode::NOT_FOUND, "Not found");
    }
    let ancestors = frame_ancestors(ciam, req.uri().query());
    let (ancestors, html) = tokio::join!(ancestors, web.get(INDEX_KEY));
    match html {
        Ok(html) => page_response(html.map(|b| b.bytes), &ancestors),
        Err(e) => {
            tracing::error!(error = %e, "cannot read index.html");
            plain(StatusCode::SERVICE_UNAVAILABLE, "Service unavailable")
        }
    }
}

/// The page as a router: every request goes to [`handle`], the page read from `web`.
pub fn router(ciam: Ciam, web: Arc<dyn BlobStore>) -> Router {
    Router::new()
        .fallback(
            |State((ciam, web)): State<(Arc<Ciam>, Arc<dyn BlobStore>)>, req: Request| async move {
                handle(&ciam, web.as_ref(), req).await
            },
        )
        .with_state((Arc::new(ciam), web))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    /// One line of functions/api/tests/query-vectors.json.
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct Vector {
        query: String,
        /// None: the query has no serviceUrl, the frame is refused.
        service_url: Option<String>,
        why: String,
    }

    #[test]
    fn the_shared_vectors_read_the_service_url_as_the_web_app_reads_it() {
        let vectors: Vec<Vector> =
            serde_json::from_str(include_str!("../../tests/query-vectors.json")).unwrap();
        assert!(vectors.len() >= 10);
        for v in vectors {
            let query = v.query.strip_prefix('?').unwrap_or(&v.query);
            assert_eq!(
                query_param(query, "serviceUrl"),
                v.service_url,
                "{:?}: {}",
                v.query,
                v.why
            );
        }
    }

    #[test]
    fn only_the_two_embedded_paths_are_the_page() {
        assert!(is_embedded_signin("/zh-CN/embedded/signin"));
        assert!(is_embedded_signin("/en-US/embedded/signin"));
        for p in [
            "/fr-FR/embedded/signin",
            "/zh-CN/embedded",
            "/zh-CN/passport/signin",
        ] {
            assert!(!is_embedded_signin(p), "{p}");
        }
    }

    #[test]
    fn the_page_carries_every_security_header_with_the_given_frame_ancestors() {
        let res = page_response(Some(b"<!doctype html>".to_vec()), "https://a.example.com");
        assert_eq!(res.status(), 200);
        let header = |n: &str| res.headers().get(n).map(|v| v.to_str().unwrap().to_owned());
        let csp = header("content-security-policy").unwrap();
        assert_eq!(
            csp,
            crate::headers::csp_with_frame_ancestors("https://a.example.com")
                .to_str()
                .unwrap()
        );
        assert!(
            csp.contains("; frame-ancestors https://a.example.com"),
            "{csp}"
        );
        assert!(csp.starts_with("default-src 'self'"), "{csp}");
        for (name, value) in crate::headers::security_headers() {
            if name.as_str() != "content-security-policy" {
                assert_eq!(res.headers().get(name), Some(value), "{name}");
            }
        }
        assert_eq!(header("cache-control").as_deref(), Some("no-cache"));
        assert!(header("content-type").unwrap().starts_with("text/html"));
        assert_eq!(page_response(None, "'none'").status(), 503);
    }
}
