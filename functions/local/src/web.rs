//! The built web app (`--web-dist`): its files, index.html for the SPA's routes, and the caching
//! and compression rules of a fast first paint.
//!
//! - Hashed assets (`/assets/...`, vite puts a content hash in every name there) are
//!   `Cache-Control: public, max-age=31536000, immutable`; HTML gets `no-cache` from
//!   `response_headers` (lib.rs), so a new build is seen on the next load.
//! - A `.br` or `.gz` sibling written at build time (web/scripts/precompress.mjs) is sent when the
//!   request's `Accept-Encoding` takes it (brotli first), with `Vary: Accept-Encoding` on every
//!   file answer; otherwise the file as it is.
//! - A missing path that looks like a file (anything under /assets/, or a last segment with an
//!   extension: /favicon.ico, /robots.txt) is 404; any other path is a route of the SPA and gets
//!   index.html.
//! - A language segment in the wrong case (`/zh-cn/...`, `/EN-us`) is redirected (308) to its
//!   canonical form, same page, keeping the query as the SPA's redirects do (web/src/lib/redirect.ts:
//!   a serviceUrl with an encoded '=' or '/' is dropped). The embedded sign-in is matched on the
//!   canonical path only, so this also gets a wrong-case embedded page its framing policy.

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{HeaderValue, CACHE_CONTROL, CONTENT_TYPE, LOCATION, VARY};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use std::path::Path;
use std::sync::Arc;
use tower_http::services::{ServeDir, ServeFile};

/// What hashed assets are sent with: cached for a year, never revalidated.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// The two ways of serving the dist folder.
#[derive(Clone)]
pub(crate) struct WebFiles {
    /// Files only: a missing one is 404.
    files: ServeDir,
    /// Files, else index.html.
    pages: ServeDir<ServeFile>,
    /// index.html with the cells' tags (`cell::tagged_index`), answered instead of the built one
    /// (and its precompressed copies, which lack them) when there is another cell.
    index: Option<Arc<str>>,
}

impl WebFiles {
    pub(crate) fn new(dist: &Path, index: Option<Arc<str>>) -> Arc<Self> {
        let files = ServeDir::new(dist).precompressed_br().precompressed_gzip();
        let index_file = ServeFile::new(dist.join("index.html"))
            .precompressed_br()
            .precompressed_gzip();
        Arc::new(Self {
            pages: files.clone().fallback(index_file),
            files,
            index,
        })
    }
}

/// The router's fallback: every path no route answered.
pub(crate) async fn serve(web: Arc<WebFiles>, req: Request) -> Response {
    let path = req.uri().path().to_owned();
    if matches!(*req.method(), Method::GET | Method::HEAD) {
        if let Some(to) = canonical_language(&path, req.uri().query()) {
            return redirect(&to);
        }
    }
    if let Some(html) = &web.index {
        if !looks_like_file(&path) || path == "/index.html" {
            let mut res = axum::response::Html(html.to_string()).into_response();
            res.headers_mut()
                .append(VARY, HeaderValue::from_static("accept-encoding"));
            return res;
        }
    }
    let answer = if looks_like_file(&path) {
        web.files.clone().try_call(req).await
    } else {
        web.pages.clone().try_call(req).await
    };
    let mut res = match answer {
        Ok(res) => res.map(Body::new),
        Err(e) => {
            tracing::error!(path, error = %e, "cannot read the web app's file");
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    };
    let status = res.status();
    if status.is_success() || status == StatusCode::NOT_MODIFIED {
        let html = res
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.starts_with("text/html"));
        let headers = res.headers_mut();
        headers.append(VARY, HeaderValue::from_static("accept-encoding"));
        if path.starts_with("/assets/") && !html {
            headers.insert(CACHE_CONTROL, HeaderValue::from_static(IMMUTABLE));
        }
    }
    res
}

/// Anything under /assets/, or a last segment with an extension (`favicon.ico`, `.env`):
/// a file, which is there or 404, never a route of the SPA.
fn looks_like_file(path: &str) -> bool {
    if path.starts_with("/assets/") {
        return true;
    }
    let last = path.rsplit('/').next().unwrap_or_default();
    last.rsplit_once('.').is_some_and(|(_, ext)| {
        !ext.is_empty() && ext.len() <= 10 && ext.bytes().all(|b| b.is_ascii_alphanumeric())
    })
}

/// The same path with its language segment in canonical case, and the kept query, when the
/// first segment is zh-CN or en-US in another case.
fn canonical_language(path: &str, query: Option<&str>) -> Option<String> {
    let rest = path.strip_prefix('/')?;
    let (segment, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let canonical = ciam_core::Lang::parse_tag(segment)?.tag();
    if canonical == segment {
        return None;
    }
    let query = kept_query(query.unwrap_or_default());
    let query = if query.is_empty() {
        String::new()
    } else {
        format!("?{query}")
    };
    Some(format!("/{canonical}{tail}{query}"))
}

/// The query a redirect carries over (spec §2, as web/src/lib/redirect.ts `keepQuery`): the
/// parameters as they came, without a serviceUrl whose value has an encoded '=' or '/'.
fn kept_query(query: &str) -> String {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .filter(|p| {
            let (name, value) = p.split_once('=').unwrap_or((p, ""));
            let value = value.to_ascii_lowercase();
            name != "serviceUrl" || !(value.contains("%3d") || value.contains("%2f"))
        })
        .collect::<Vec<_>>()
        .join("&")
}

fn redirect(to: &str) -> Response {
    match HeaderValue::try_from(to) {
        Ok(location) => (StatusCode::PERMANENT_REDIRECT, [(LOCATION, location)]).into_response(),
        Err(_) => StatusCode::NOT_FOUND.into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_looks_like_a_file() {
        for p in [
            "/favicon.ico",
            "/robots.txt",
            "/assets/nope.js",
            "/assets/",
            "/assets/x",
            "/a/b.json",
            "/.env",
            "/index.html",
        ] {
            assert!(looks_like_file(p), "{p}");
        }
        for p in [
            "/",
            "/zh-CN/passport/login",
            "/en-US",
            "/zh-CN/agreement/privacy",
            "/signout",
            "/assets",
            "/a/b.",
            "/a/b.c-d",
        ] {
            assert!(!looks_like_file(p), "{p}");
        }
    }

    #[test]
    fn a_language_in_the_wrong_case_gets_its_canonical_form() {
        let c = |p: &str, q: Option<&str>| canonical_language(p, q);
        assert_eq!(
            c("/zh-cn/passport/register", Some("x=1")).as_deref(),
            Some("/zh-CN/passport/register?x=1")
        );
        assert_eq!(c("/EN-us", None).as_deref(), Some("/en-US"));
        assert_eq!(c("/en-us/", Some("")).as_deref(), Some("/en-US/"));
        assert_eq!(
            c(
                "/zh-cn/embedded/signin",
                Some("appId=a&serviceUrl=https://p.example/cb")
            )
            .as_deref(),
            Some("/zh-CN/embedded/signin?appId=a&serviceUrl=https://p.example/cb")
        );
        assert_eq!(
            c("/zh-cn/x", Some("serviceUrl=https%3A%2F%2Fp.example&b=2")).as_deref(),
            Some("/zh-CN/x?b=2")
        );
        for p in [
            "/zh-CN/passport/register",
            "/en-US",
            "/",
            "/fr-FR/x",
            "/zh-cnx/a",
            "/ciam/v1",
        ] {
            assert_eq!(c(p, Some("x=1")), None, "{p}");
        }
    }
}
