//! One door: CloudFront adds `X-Ciam-Origin-Verify: <originVerify>` to every request it sends to
//! the API, and a function configured with `CIAM_ORIGIN_SECRET_ARN` refuses any request that
//! lacks an accepted value, so the execute-api URL cannot be used to go around CloudFront (its
//! web ACL, its viewer-country header). The refusal is the standard error body, 403
//! PERMISSION_DENIED; the log says "not through CloudFront" and never the value, and one
//! CloudWatch Embedded Metric Format line counts it (`Ciam/Edge` `OriginRefused`, no dimension),
//! so an alarm needs no metric filter.
//!
//! Rotation without a refusal (docs/operations.md §1): the secret may hold the previous value
//! beside the current one (`previousOriginVerify`), and both are accepted. A function reads the
//! secret at init; a request it would refuse first makes it read the secret again (at most once
//! per `REREAD_WINDOW` per execution environment, whatever the number of refused requests), so
//! an environment started before the secret changed accepts the new header as soon as
//! CloudFront sends it.

use async_trait::async_trait;
use ciam_core::{Lang, Reason};
use http::{HeaderMap, StatusCode};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};
use subtle::ConstantTimeEq;

/// The header CloudFront adds on the `api` origin.
pub const HEADER: &str = "x-ciam-origin-verify";
/// A refused request re-reads the secret at most once per this window (per execution
/// environment): a flood of forged headers costs one `GetSecretValue` per 30 s, and an
/// environment that missed a rotation catches up on the first request it would refuse.
pub const REREAD_WINDOW: Duration = Duration::from_secs(30);
/// The metric of each refusal (Embedded Metric Format).
pub const METRIC_NAMESPACE: &str = "Ciam/Edge";
pub const METRIC_NAME: &str = "OriginRefused";

/// The accepted values: the current, and while a rotation is under way the previous.
#[derive(Clone, PartialEq, Eq)]
pub struct OriginValues {
    pub current: String,
    pub previous: Option<String>,
}

impl std::fmt::Debug for OriginValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "OriginValues(.., previous: {})", self.previous.is_some())
    }
}

impl OriginValues {
    pub fn new(current: impl Into<String>) -> Self {
        OriginValues {
            current: current.into(),
            previous: None,
        }
    }
}

/// Where the values come from again after init: Secrets Manager in AWS
/// (`secrets::OriginSecret`), a value a test changes in process.
#[async_trait]
pub trait OriginSource: Send + Sync {
    async fn read(&self) -> Result<OriginValues, String>;
}

/// The check. Clones share the values and the re-read window. `Debug` never shows a value.
#[derive(Clone)]
pub struct OriginCheck {
    inner: Arc<Inner>,
}

struct Inner {
    accepted: RwLock<Arc<OriginValues>>,
    source: Option<Arc<dyn OriginSource>>,
    window: Duration,
    /// When the last re-read started; the lock also makes concurrent refusals share one read.
    last_reread: tokio::sync::Mutex<Option<Instant>>,
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

/// Whether `value` is exactly `expected`, in the same time wherever the first difference is.
fn same(value: &[u8], expected: &str) -> bool {
    bool::from(value.ct_eq(expected.as_bytes()))
}

impl OriginCheck {
    /// One value, never read again.
    pub fn new(expected: String) -> Self {
        Self::build(OriginValues::new(expected), None, REREAD_WINDOW)
    }

    /// The values read at init, and where to read them again before a refusal (at most once
    /// per `window`).
    pub fn rotating(values: OriginValues, source: Arc<dyn OriginSource>, window: Duration) -> Self {
        Self::build(values, Some(source), window)
    }

    fn build(
        values: OriginValues,
        source: Option<Arc<dyn OriginSource>>,
        window: Duration,
    ) -> Self {
        OriginCheck {
            inner: Arc::new(Inner {
                accepted: RwLock::new(Arc::new(values)),
                source,
                window,
                last_reread: tokio::sync::Mutex::new(None),
            }),
        }
    }

    fn accepted(&self) -> Arc<OriginValues> {
        match self.inner.accepted.read() {
            Ok(v) => v.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Whether `headers` carry an accepted value, with the values held now (no re-read).
    /// Both values are always compared, so the time says nothing about which one matched.
    pub fn passes(&self, headers: &HeaderMap) -> bool {
        let mut values = headers.get_all(HEADER).iter();
        match (values.next(), values.next()) {
            (Some(v), None) => {
                let accepted = self.accepted();
                let current = same(v.as_bytes(), &accepted.current);
                let previous = accepted
                    .previous
                    .as_deref()
                    .is_some_and(|p| same(v.as_bytes(), p));
                current | previous
            }
            // Absent, or repeated (CloudFront sends it once).
            _ => false,
        }
    }

    /// Reads the values again unless a re-read started within the window. Concurrent callers
    /// wait for the one read in flight and then look at its result.
    async fn reread(&self) {
        let Some(source) = &self.inner.source else {
            return;
        };
        let mut last = self.inner.last_reread.lock().await;
        if last.is_some_and(|t| t.elapsed() < self.inner.window) {
            return;
        }
        *last = Some(Instant::now());
        match source.read().await {
            Ok(values) => {
                let mut held = match self.inner.accepted.write() {
                    Ok(g) => g,
                    Err(poisoned) => poisoned.into_inner(),
                };
                if **held != values {
                    tracing::info!("origin header values changed (secret read again)");
                }
                *held = Arc::new(values);
            }
            // The values held stay; the request is refused below.
            Err(e) => tracing::warn!(error = %e, "cannot read the origin secret again"),
        }
    }

    /// None when the request came through CloudFront, else the refusal (logged and counted
    /// here). A request that fails with the values held makes them be read again first.
    pub async fn check(&self, headers: &HeaderMap) -> Option<Refusal> {
        if self.passes(headers) {
            return None;
        }
        if self.inner.source.is_some() {
            self.reread().await;
            if self.passes(headers) {
                return None;
            }
        }
        Some(refuse(headers))
    }
}

/// The refusal of a request that did not come through CloudFront: logged, counted, answered.
fn refuse(headers: &HeaderMap) -> Refusal {
    let reason = Reason::PERMISSION_DENIED;
    tracing::warn!(
        reason = reason.code(),
        cause = "not through CloudFront",
        "request refused"
    );
    // Straight to stdout, not through `tracing`: its JSON lines nest fields under "fields", and
    // EMF needs `_aws` at the top level. Lambda's JSON log format keeps a JSON line as is.
    println!("{}", refusal_metric(now_ms()));
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
    Refusal {
        status: StatusCode::from_u16(reason.status()).unwrap_or(StatusCode::FORBIDDEN),
        body: body.to_string(),
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// One refusal as a CloudWatch Embedded Metric Format line: `Ciam/Edge` `OriginRefused` = 1
/// (Count), in one empty dimension set (a single metric summed over every function: nothing
/// with many values, so the alarm reads one series).
pub fn refusal_metric(timestamp_ms: u64) -> String {
    serde_json::json!({
        "_aws": {
            "Timestamp": timestamp_ms,
            "CloudWatchMetrics": [{
                "Namespace": METRIC_NAMESPACE,
                "Dimensions": [[]],
                "Metrics": [{ "Name": METRIC_NAME, "Unit": "Count" }],
            }],
        },
        METRIC_NAME: 1,
    })
    .to_string()
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
            let check = check.clone();
            async move {
                match check.check(req.headers()).await {
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

    #[tokio::test]
    async fn the_page_gets_the_same_refusal_as_a_lambda_response() {
        let check = OriginCheck::new(VALUE.into());
        let mut h = HeaderMap::new();
        h.insert("accept-language", http::HeaderValue::from_static("zh-CN"));
        let res = check.check(&h).await.unwrap().into_lambda();
        assert_eq!(res.status(), StatusCode::FORBIDDEN);
        assert_eq!(res.headers()["content-type"], "application/json");
        let lambda_http::Body::Text(body) = res.body() else {
            panic!("not a text body");
        };
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["reason"], "PERMISSION_DENIED");
        assert_eq!(body["message"], "您没有执行此操作的权限");
    }

    #[test]
    fn during_a_rotation_both_values_pass_and_nothing_else() {
        let old = VALUE.replace('0', "o");
        let check = OriginCheck::build(
            OriginValues {
                current: VALUE.into(),
                previous: Some(old.clone()),
            },
            None,
            REREAD_WINDOW,
        );
        let with = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(HEADER, http::HeaderValue::from_str(v).unwrap());
            h
        };
        assert!(check.passes(&with(VALUE)));
        assert!(check.passes(&with(&old)));
        assert!(!check.passes(&with(&VALUE.replace('1', "i"))));
        assert!(!check.passes(&HeaderMap::new()));
    }

    #[test]
    fn a_refusal_is_one_embedded_metric_format_line() {
        let line = refusal_metric(1_700_000_000_123);
        assert!(!line.contains('\n'));
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        let aws = &v["_aws"];
        assert_eq!(aws["Timestamp"], 1_700_000_000_123_u64);
        let directives = aws["CloudWatchMetrics"].as_array().unwrap();
        assert_eq!(directives.len(), 1);
        let d = &directives[0];
        assert_eq!(d["Namespace"], "Ciam/Edge");
        assert_eq!(
            d["Metrics"],
            serde_json::json!([{"Name": "OriginRefused", "Unit": "Count"}])
        );
        // One empty dimension set: one series over every function; no request data in it.
        assert_eq!(d["Dimensions"], serde_json::json!([[]]));
        // The value sits at the root, under the metric's name (the spec's member reference).
        assert_eq!(v["OriginRefused"], 1);
        let root: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(root, ["OriginRefused", "_aws"]);
    }

    /// Why the line is printed, not logged: the functions' tracing JSON output puts an event's
    /// fields under "fields", where CloudWatch would not find `_aws`.
    #[test]
    fn the_tracing_json_output_would_not_keep_an_emf_line_at_the_root() {
        use std::io::Write;
        #[derive(Clone, Default)]
        struct Buf(Arc<std::sync::Mutex<Vec<u8>>>);
        impl Write for Buf {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let buf = Buf::default();
        let writer = buf.clone();
        let subscriber = tracing_subscriber::fmt()
            .json()
            .with_writer(move || writer.clone())
            .with_target(false)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(_aws = %refusal_metric(1), OriginRefused = 1, "refused");
        });
        let out = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert!(v.get("_aws").is_none(), "{out}");
        assert!(v["fields"].get("_aws").is_some(), "{out}");
    }
}
