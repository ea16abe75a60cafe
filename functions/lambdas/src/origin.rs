//! One door: CloudFront adds `X-Ciam-Origin-Verify: <originVerify>` to every request it sends to
//! the API, and a function configured with `CIAM_ORIGIN_SECRET_ARN` refuses any request that
//! lacks the exact value, so the execute-api URL cannot be used to go around CloudFront (its web
//! ACL, its viewer-country header). The refusal is the standard error body, 403
//! PERMISSION_DENIED; the log says "not through CloudFront" and never the value.

use ciam_core::{Lang, Reason};
use http::{HeaderMap, StatusCode};
use std::sync::Arc;
use subtle::ConstantTimeEq;

/// The header CloudFront adds on the `api` origin.
pub const HEADER: &str = "x-ciam-origin-verify";

/// The expected header value. `Debug` never shows it.
#[derive(Clone)]
pub struct OriginCheck {
    expected: Arc<[u8]>,
}

impl std::fmt::Debug for OriginCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OriginCheck(..)")
    }
}

/// A request refused: what to answer.
#[derive(Debug)]
pub struct Refusal {
    pub status: StatusCode,
    /// `{reason, message, code}` in the request's language, as `ciam_api` writes error bodies.
    pub body: String,
}

impl OriginCheck {
    pub fn new(expected: String) -> Self {
        OriginCheck {
            expected: expected.into_bytes().into(),
        }
    }

    /// Whether `headers` carry the value; the comparison takes the same time wherever the
    /// first difference is.
    pub fn passes(&self, headers: &HeaderMap) -> bool {
        let mut values = headers.get_all(HEADER).iter();
        match (values.next(), values.next()) {
            (Some(v), None) => bool::from(v.as_bytes().ct_eq(&self.expected)),
            // Absent, or repeated (CloudFront sends it once).
            _ => false,
        }
    }

    /// None when the request came through CloudFront, else the refusal (logged here).
    pub fn check(&self, headers: &HeaderMap) -> Option<Refusal> {
        if self.passes(headers) {
            return None;
        }
        let reason = Reason::PERMISSION_DENIED;
        tracing::warn!(
            reason = reason.code(),
            cause = "not through CloudFront",
            "request refused"
        );
        let lang = Lang::from_accept_language(
            headers
                .get(http::header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok()),
        );
        let body = serde_json::json!({
            "reason": reason.code(),
            "message": reason.message(lang),
            "code": reason.status(),
        });
        Some(Refusal {
            status: StatusCode::from_u16(reason.status()).unwrap_or(StatusCode::FORBIDDEN),
            body: body.to_string(),
        })
    }
}

impl Refusal {
    fn parts(&self) -> [(http::HeaderName, &'static str); 2] {
        [
            (http::header::CONTENT_TYPE, "application/json"),
            (http::header::CACHE_CONTROL, "no-store"),
        ]
    }

    /// As an axum response (the API routes).
    pub fn into_axum(self) -> axum::response::Response {
        use axum::response::IntoResponse;
        (self.status, self.parts(), self.body).into_response()
    }

    /// As a lambda_http response (the embedded page).
    pub fn into_lambda(self) -> lambda_http::Response<lambda_http::Body> {
        let mut res = lambda_http::Response::new(lambda_http::Body::Text(self.body.clone()));
        *res.status_mut() = self.status;
        for (name, value) in self.parts() {
            res.headers_mut()
                .insert(name, http::HeaderValue::from_static(value));
        }
        res
    }
}

/// The router behind the check: with `check` None (no `CIAM_ORIGIN_SECRET_ARN`) it is as it was.
pub fn guard(router: axum::Router, check: Option<OriginCheck>) -> axum::Router {
    let Some(check) = check else {
        return router;
    };
    router.layer(axum::middleware::from_fn(
        move |req: axum::extract::Request, next: axum::middleware::Next| {
            let refusal = check.check(req.headers());
            async move {
                match refusal {
                    Some(r) => r.into_axum(),
                    None => next.run(req).await,
                }
            }
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::Body;
    use tower::ServiceExt;

    const VALUE: &str = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-";

    fn router() -> axum::Router {
        axum::Router::new().route("/ciam/v1/ping", axum::routing::get(|| async { "pong" }))
    }

    async fn call(router: axum::Router, header: Option<&str>) -> (StatusCode, String) {
        let mut req = http::Request::get("/ciam/v1/ping").header("accept-language", "en-US");
        if let Some(v) = header {
            req = req.header("X-Ciam-Origin-Verify", v);
        }
        let res = router
            .oneshot(req.body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = res.status();
        let bytes = http_body_util::BodyExt::collect(res.into_body())
            .await
            .unwrap()
            .to_bytes();
        (status, String::from_utf8_lossy(&bytes).into_owned())
    }

    #[tokio::test]
    async fn a_request_without_the_right_header_is_refused_with_permission_denied() {
        let guarded = || guard(router(), Some(OriginCheck::new(VALUE.into())));
        let wrong = VALUE.replace('Z', "z");
        for header in [None, Some(wrong.as_str()), Some(""), Some(&VALUE[..63])] {
            let (status, body) = call(guarded(), header).await;
            assert_eq!(status, StatusCode::FORBIDDEN, "{header:?}");
            let body: serde_json::Value = serde_json::from_str(&body).unwrap();
            assert_eq!(body["reason"], "PERMISSION_DENIED");
            assert_eq!(body["code"], 403);
            assert_eq!(body["message"], "You do not have permission to do this");
            assert!(!body.to_string().contains(VALUE));
        }
        let (status, body) = call(guarded(), Some(VALUE)).await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, "pong"));
    }

    #[tokio::test]
    async fn without_an_origin_secret_there_is_no_check() {
        let (status, _) = call(guard(router(), None), None).await;
        assert_eq!(status, StatusCode::OK);
    }

    #[test]
    fn the_header_is_compared_whole_and_once() {
        let check = OriginCheck::new(VALUE.into());
        let mut h = HeaderMap::new();
        h.insert(HEADER, http::HeaderValue::from_static(VALUE));
        assert!(check.passes(&h));
        h.append(HEADER, http::HeaderValue::from_static(VALUE));
        assert!(!check.passes(&h), "a repeated header is not CloudFront's");
        let mut h = HeaderMap::new();
        h.insert(
            HEADER,
            http::HeaderValue::from_str(&format!("{VALUE}x")).unwrap(),
        );
        assert!(!check.passes(&h), "a longer value");
        assert!(!format!("{check:?}").contains("0123"));
    }

    #[test]
    fn the_page_gets_the_same_refusal_as_a_lambda_response() {
        let check = OriginCheck::new(VALUE.into());
        let mut h = HeaderMap::new();
        h.insert("accept-language", http::HeaderValue::from_static("zh-CN"));
        let res = check.check(&h).unwrap().into_lambda();
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
        assert_eq!(res.headers()["content-type"], "application/json");
        let lambda_http::Body::Text(body) = res.body() else {
            panic!("not a text body");
        };
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["reason"], "PERMISSION_DENIED");
        assert_eq!(body["message"], "您没有执行此操作的权限");
    }
}
