//! The one page a Lambda serves (issue 5 §5): `GET /{zh-CN|en-US}/embedded/signin`, the built
//! index.html (key `index.html` of the web bucket, `CIAM_WEB_BUCKET`) with the security headers
//! of `infra/security-headers.json` (`ciam_api::headers`, the same `ciam serve` sends) whose CSP
//! names, in `frame-ancestors`, the app's registered frame origins — the same decision
//! `ciam serve` makes (`ciam_core::apps::frame_ancestors`). Every other page comes from the
//! bucket through CloudFront, whose response-headers policy sends the file's values as they are
//! (its CSP does not override the origin's, so this page's passes through).
//! Round trips per request: 1 table read and 1 S3 read, concurrently. Nothing is cached.

use crate::S3Blobs;
use ciam_core::apps::{self, is_embedded_signin};
use ciam_core::{BlobStore, Ciam};
use lambda_http::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use lambda_http::http::{HeaderValue, Method, StatusCode};
use lambda_http::{Body, Request, RequestExt, Response};
use std::sync::Arc;

/// The route id (Lambda binary and template function) of the embedded page.
pub const EMBEDDED_PAGE: &str = "embedded_page";

/// Routes served by a Lambda outside `/ciam/v1`: (id, method, path as in template.yaml).
pub const PAGE_ROUTES: &[(&str, &str, &str)] = &[(EMBEDDED_PAGE, "GET", "/{lang}/embedded/signin")];

/// The object holding the built SPA's entry page.
pub const INDEX_KEY: &str = "index.html";

/// The embedded page's answer for `ancestors` (a `frame-ancestors` source list) and the built
/// index.html, if the bucket has one.
pub fn page_response(html: Option<Vec<u8>>, ancestors: &str) -> Response<Body> {
    let Some(html) = html else {
        return plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "The web app is not deployed",
        );
    };
    let mut res = Response::new(Body::Binary(html));
    let h = res.headers_mut();
    h.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    ciam_api::headers::apply(h, Some(ancestors));
    // Per app and per admin change: never kept by CloudFront or the browser without asking.
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    res
}

fn plain(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut res = Response::new(Body::Text(text.to_owned()));
    *res.status_mut() = status;
    res.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    ciam_api::headers::apply(res.headers_mut(), None);
    res
}

/// Answers one request for the embedded page.
pub async fn handle(ciam: &Ciam, web: &dyn BlobStore, req: Request) -> Response<Body> {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return plain(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed");
    }
    if !is_embedded_signin(req.uri().path()) {
        return plain(StatusCode::NOT_FOUND, "Not found");
    }
    let param = |name: &str| {
        req.query_string_parameters_ref()
            .and_then(|q| q.first(name).map(str::to_owned))
            .unwrap_or_default()
    };
    let (app_id, service_url) = (param("appId"), param("serviceUrl"));
    let ancestors = async {
        if app_id.is_empty() {
            return apps::NO_FRAMING.to_owned();
        }
        apps::frame_ancestors(ciam, &app_id, &service_url)
            .await
            .unwrap_or_else(|e| {
                tracing::error!(reason = ?e.reason, "frame-ancestors lookup failed");
                apps::NO_FRAMING.to_owned()
            })
    };
    let (ancestors, html) = tokio::join!(ancestors, web.get(INDEX_KEY));
    match html {
        Ok(html) => page_response(html.map(|b| b.bytes), &ancestors),
        Err(e) => {
            tracing::error!(error = %e, "cannot read index.html from the web bucket");
            plain(StatusCode::SERVICE_UNAVAILABLE, "Service unavailable")
        }
    }
}

/// Serves the embedded page until the Lambda environment is shut down, reading the web bucket
/// with the AWS configuration `init` loaded; with `origin`, only requests through CloudFront.
pub async fn run(
    ciam: Ciam,
    sdk: &aws_config::SdkConfig,
    origin: Option<crate::OriginCheck>,
) -> Result<(), lambda_http::Error> {
    let bucket = std::env::var("CIAM_WEB_BUCKET")
        .ok()
        .filter(|b| !b.trim().is_empty());
    let Some(bucket) = bucket else {
        let e = "CIAM_WEB_BUCKET is required";
        tracing::error!(route = EMBEDDED_PAGE, error = e, "init failed");
        return Err(e.into());
    };
    let web: Arc<dyn BlobStore> =
        Arc::new(S3Blobs::new(aws_sdk_s3::Client::new(sdk), Some(bucket)));
    let ciam = Arc::new(ciam);
    lambda_http::run(lambda_http::service_fn(move |req: Request| {
        let (ciam, web) = (ciam.clone(), web.clone());
        let refusal = origin.as_ref().and_then(|o| o.check(req.headers()));
        async move {
            Ok::<_, std::convert::Infallible>(match refusal {
                Some(r) => r.into_lambda(),
                None => handle(&ciam, web.as_ref(), req).await,
            })
        }
    }))
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use ciam_core::SystemClock;
    use ciam_core::{CodeMessage, Config, Keys, MemoryBlobs, NoticeMessage, Notifier, OsEntropy};
    use ciam_store::dynamo_local::DynamoLocal;
    use ciam_store::{Clock, Item, Store, Value};

    struct NoMail;

    #[async_trait::async_trait]
    impl Notifier for NoMail {
        async fn send_code(&self, _: &CodeMessage) -> Result<(), String> {
            Err("no notifier here".into())
        }
        async fn send_notice(&self, _: &NoticeMessage) -> Result<(), String> {
            Err("no notifier here".into())
        }
    }

    const SERVICE: &str = "https://a.example.com/cb";

    fn request(path: &str, app_id: Option<&str>) -> Request {
        with_service(path, app_id, SERVICE)
    }

    fn with_service(path: &str, app_id: Option<&str>, service_url: &str) -> Request {
        let mut params: std::collections::HashMap<String, String> = app_id
            .map(|a| [("appId".to_owned(), a.to_owned())].into())
            .unwrap_or_default();
        params.insert("serviceUrl".to_owned(), service_url.to_owned());
        lambda_http::http::Request::get(path)
            .body(Body::Empty)
            .unwrap()
            .with_query_string_parameters(params)
    }

    fn header(res: &Response<Body>, name: &str) -> Option<String> {
        res.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    }

    /// The CSP of infra/security-headers.json with `frame-ancestors` naming `ancestors`.
    fn csp_for(ancestors: &str) -> String {
        ciam_api::headers::csp_with_frame_ancestors(ancestors)
            .to_str()
            .unwrap()
            .to_owned()
    }

    #[test]
    fn the_page_carries_every_security_header_with_the_given_frame_ancestors() {
        let res = page_response(Some(b"<!doctype html>".to_vec()), "https://a.example.com");
        assert_eq!(res.status(), 200);
        let csp = header(&res, "content-security-policy").unwrap();
        assert_eq!(csp, csp_for("https://a.example.com"));
        assert!(
            csp.contains("; frame-ancestors https://a.example.com"),
            "{csp}"
        );
        assert!(csp.starts_with("default-src 'self'"), "{csp}");
        for (name, value) in ciam_api::headers::security_headers() {
            if name.as_str() != "content-security-policy" {
                assert_eq!(res.headers().get(name), Some(value), "{name}");
            }
        }
        assert_eq!(header(&res, "cache-control").as_deref(), Some("no-cache"));
        assert!(header(&res, "content-type")
            .unwrap()
            .starts_with("text/html"));
        assert_eq!(page_response(None, "'none'").status(), 503);
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

    /// On DynamoDB Local: the app's registered origins may frame the page, nobody else.
    #[tokio::test]
    async fn the_apps_registered_origins_may_frame_it_and_nobody_else() {
        let local = DynamoLocal::start().await;
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        let store: Arc<dyn Store> = Arc::new(local.store("ciam-page-test", clock.clone()).await);
        store.ensure_schema().await.unwrap();
        let ciam = Ciam {
            store: store.clone(),
            clock,
            entropy: Arc::new(OsEntropy),
            keys: Keys::from_root([1; 32]),
            notifier: Arc::new(NoMail),
            blobs: Arc::new(MemoryBlobs::default()),
            config: Config::default(),
        };
        store
            .put(
                Item::new(apps::app_key("a1"))
                    .with(
                        "frameOrigins",
                        Value::L(vec![Value::S("https://a.example.com".into())]),
                    )
                    .with("serviceUrls", Value::L(vec![Value::S(SERVICE.into())])),
                None,
            )
            .await
            .unwrap();
        let web = MemoryBlobs::default();
        let page = handle(&ciam, &web, request("/en-US/embedded/signin", Some("a1"))).await;
        assert_eq!(page.status(), 503, "no index.html deployed yet");
        web.put(INDEX_KEY, b"<!doctype html>".to_vec(), "text/html")
            .await
            .unwrap();
        let csp = |res: &Response<Body>| header(res, "content-security-policy");
        let r = handle(&ciam, &web, request("/en-US/embedded/signin", Some("a1"))).await;
        assert_eq!(r.status(), 200);
        assert_eq!(csp(&r), Some(csp_for("https://a.example.com")));
        // Kept: browsers that know frame-ancestors ignore it (see functions/local/src/lib.rs).
        assert_eq!(header(&r, "x-frame-options").as_deref(), Some("DENY"));
        for app in [Some("zz"), Some(""), None] {
            let r = handle(&ciam, &web, request("/zh-CN/embedded/signin", app)).await;
            assert_eq!(r.status(), 200);
            assert_eq!(csp(&r), Some(csp_for("'none'")), "{app:?}");
        }
        // A serviceUrl the app did not register: the frame never renders anywhere.
        for service in [
            "https://a.example.com/cb/",
            "https://evil.example.net/cb",
            "",
        ] {
            let r = handle(
                &ciam,
                &web,
                with_service("/zh-CN/embedded/signin", Some("a1"), service),
            )
            .await;
            assert_eq!(csp(&r), Some(csp_for("'none'")), "{service}");
        }
        let r = handle(&ciam, &web, request("/en-US/passport/signin", Some("a1"))).await;
        assert_eq!(r.status(), 404);
    }
}
