//! The security headers of every response: `infra/security-headers.json` (header name -> value)
//! is their one source, compiled in here and used by `ciam serve` (every answer) and by the
//! embedded-page Lambda; CloudFront's response-headers policy carries the same values. The
//! embedded sign-in replaces only the CSP's `frame-ancestors` directive with its app's origins.

use axum::http::header::{CONTENT_SECURITY_POLICY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS};
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use std::sync::LazyLock;

/// `infra/security-headers.json`, as built into this binary.
pub const SOURCE: &str = include_str!("../../../infra/security-headers.json");

/// What nothing can run under: used only if the compiled-in file were unusable.
const FAIL_CLOSED_CSP: &str = "default-src 'none'; frame-ancestors 'none'";

static HEADERS: LazyLock<Vec<(HeaderName, HeaderValue)>> = LazyLock::new(|| {
    parse(SOURCE).unwrap_or_else(|e| {
        // A unit test parses the very bytes compiled in, so this cannot ship; if it ever did,
        // fail closed: nothing may run or frame the page rather than run without a policy.
        tracing::error!(error = %e, "infra/security-headers.json is unusable");
        vec![
            (
                CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(FAIL_CLOSED_CSP),
            ),
            (X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
            (X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
        ]
    })
});

/// The headers of `infra/security-headers.json`, in the file's order.
pub fn security_headers() -> &'static [(HeaderName, HeaderValue)] {
    &HEADERS
}

/// A JSON object of header names to string values, each a valid header.
pub fn parse(json: &str) -> Result<Vec<(HeaderName, HeaderValue)>, String> {
    let map: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(json).map_err(|e| e.to_string())?;
    map.into_iter()
        .map(|(name, value)| {
            let value = value
                .as_str()
                .ok_or_else(|| format!("{name}: the value is not a string"))?;
            let header = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| format!("{name}: not a header name"))?;
            let value =
                HeaderValue::from_str(value).map_err(|_| format!("{name}: not a header value"))?;
            Ok((header, value))
        })
        .collect()
}

/// The CSP of the file with its `frame-ancestors` directive replaced by
/// `frame-ancestors <ancestors>` (a source list from `ciam_core::apps::frame_ancestors`). A list
/// a header cannot carry leaves the file's directive, which refuses every frame.
pub fn csp_with_frame_ancestors(ancestors: &str) -> HeaderValue {
    let base = security_headers()
        .iter()
        .find(|(n, _)| n == CONTENT_SECURITY_POLICY)
        .and_then(|(_, v)| v.to_str().ok())
        .unwrap_or(FAIL_CLOSED_CSP);
    let replaced = ciam_core::apps::frame_ancestors_csp(ancestors);
    let mut found = false;
    let mut directives: Vec<&str> = base
        .split(';')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| {
            let name = d.split_ascii_whitespace().next().unwrap_or("");
            if name.eq_ignore_ascii_case("frame-ancestors") {
                found = true;
                replaced.as_str()
            } else {
                d
            }
        })
        .collect();
    if !found {
        directives.push(&replaced);
    }
    HeaderValue::from_str(&directives.join("; "))
        .unwrap_or_else(|_| HeaderValue::from_static(FAIL_CLOSED_CSP))
}

/// Image sources `ciam serve` adds to the CSP's `img-src`: logos of apps registered on a loopback
/// http URL while developing (the registry accepts http on localhost and 127.0.0.1). Never in
/// `infra/security-headers.json`, so never in CloudFront's policy or a Lambda's answer.
pub const DEV_IMAGE_SOURCES: &str = "http://localhost:* http://127.0.0.1:*";

/// `csp` with `sources` added to its `img-src` directive. A CSP without one (the avatar's own
/// `default-src 'none'; sandbox`) is returned unchanged: nothing is ever widened that the
/// handler did not open for images.
pub fn with_image_sources(csp: &HeaderValue, sources: &str) -> HeaderValue {
    let Ok(text) = csp.to_str() else {
        return csp.clone();
    };
    let mut found = false;
    let directives: Vec<String> = text
        .split(';')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| {
            let name = d.split_ascii_whitespace().next().unwrap_or("");
            if !found && name.eq_ignore_ascii_case("img-src") {
                found = true;
                format!("{d} {sources}")
            } else {
                d.to_owned()
            }
        })
        .collect();
    if !found {
        return csp.clone();
    }
    HeaderValue::from_str(&directives.join("; ")).unwrap_or_else(|_| csp.clone())
}

/// Sets every security header on `headers`, replacing what a handler set, except a CSP of the
/// handler's own (the avatar images' `default-src 'none'; sandbox`, stricter than the app's):
/// CloudFront's policy does the same (its CSP does not override the origin's). With
/// `frame_ancestors` (the embedded sign-in), the CSP is the file's with that `frame-ancestors`.
pub fn apply(headers: &mut HeaderMap, frame_ancestors: Option<&str>) {
    for (name, value) in security_headers() {
        if name == CONTENT_SECURITY_POLICY && headers.contains_key(CONTENT_SECURITY_POLICY) {
            continue;
        }
        headers.insert(name.clone(), value.clone());
    }
    if let Some(ancestors) = frame_ancestors {
        headers.insert(CONTENT_SECURITY_POLICY, csp_with_frame_ancestors(ancestors));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csp() -> String {
        security_headers()
            .iter()
            .find(|(n, _)| n == CONTENT_SECURITY_POLICY)
            .map(|(_, v)| v.to_str().unwrap().to_owned())
            .expect("a CSP")
    }

    #[test]
    fn the_compiled_in_file_parses_into_the_headers_the_issue_asks_for() {
        let parsed = parse(SOURCE).expect("infra/security-headers.json parses");
        let names: Vec<&str> = parsed.iter().map(|(n, _)| n.as_str()).collect();
        for want in [
            "content-security-policy",
            "referrer-policy",
            "strict-transport-security",
            "x-content-type-options",
            "x-frame-options",
            "permissions-policy",
        ] {
            assert!(names.contains(&want), "{want} missing from {names:?}");
        }
        assert_eq!(parsed, security_headers());
    }

    #[test]
    fn the_csp_is_strict() {
        let csp = csp();
        for d in [
            "default-src 'self'",
            "script-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(csp.split("; ").any(|x| x == d), "{d} missing from {csp}");
        }
        assert!(!csp.contains("unsafe-"), "{csp}");
    }

    #[test]
    fn the_embedded_csp_differs_only_in_its_frame_ancestors() {
        let base = csp();
        let framed = csp_with_frame_ancestors("https://a.example.com http://127.0.0.1:5173");
        assert_eq!(
            framed.to_str().unwrap(),
            base.replace(
                "frame-ancestors 'none'",
                "frame-ancestors https://a.example.com http://127.0.0.1:5173"
            )
        );
        // A value a header cannot carry never widens anything.
        assert_eq!(csp_with_frame_ancestors("https://a.example.com\n*"), base);
    }

    #[test]
    fn production_loads_no_image_from_loopback_and_dev_adds_it_to_img_src_only() {
        let csp = csp();
        for loopback in ["localhost", "127.0.0.1", "[::1]", "http:"] {
            assert!(!csp.contains(loopback), "{loopback} in {csp}");
        }
        let dev = with_image_sources(&HeaderValue::from_str(&csp).unwrap(), DEV_IMAGE_SOURCES);
        let dev = dev.to_str().unwrap();
        let img = |c: &str| {
            c.split("; ")
                .find(|d| d.starts_with("img-src "))
                .map(str::to_owned)
        };
        assert_eq!(
            img(dev),
            Some(format!("{} {DEV_IMAGE_SOURCES}", img(&csp).unwrap()))
        );
        // Every other directive is the file's, in the file's order.
        let others = |c: &str| {
            c.split("; ")
                .filter(|d| !d.starts_with("img-src "))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(others(dev), others(&csp));
        // A CSP that opens nothing for images stays as it is.
        let own = HeaderValue::from_static("default-src 'none'; sandbox");
        assert_eq!(with_image_sources(&own, DEV_IMAGE_SOURCES), own);
    }

    #[test]
    fn malformed_files_are_refused() {
        for bad in [
            "[]",
            "{\"X-A\": 1}",
            "{\"Bad Name\": \"x\"}",
            "{\"X-A\": \"a\\nb\"}",
            "{",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn apply_replaces_what_a_handler_set_but_its_own_csp() {
        let mut h = HeaderMap::new();
        h.insert(X_FRAME_OPTIONS, HeaderValue::from_static("SAMEORIGIN"));
        apply(&mut h, None);
        assert_eq!(h.get(X_FRAME_OPTIONS).unwrap(), "DENY");
        assert_eq!(
            h.get(CONTENT_SECURITY_POLICY).unwrap().to_str().unwrap(),
            csp()
        );
        let mut own = HeaderMap::new();
        own.insert(
            CONTENT_SECURITY_POLICY,
            HeaderValue::from_static("default-src 'none'; sandbox"),
        );
        apply(&mut own, None);
        assert_eq!(
            own.get(CONTENT_SECURITY_POLICY).unwrap(),
            "default-src 'none'; sandbox"
        );
        assert_eq!(own.get(X_FRAME_OPTIONS).unwrap(), "DENY");
        apply(&mut h, Some("https://a.example.com"));
        let framed = h.get(CONTENT_SECURITY_POLICY).unwrap().to_str().unwrap();
        assert!(
            framed.contains("frame-ancestors https://a.example.com"),
            "{framed}"
        );
        assert!(!framed.contains("frame-ancestors 'none'"), "{framed}");
    }
}
