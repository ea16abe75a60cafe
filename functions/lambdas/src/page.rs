//! The one page a Lambda serves (issue 5 §5): `GET /{zh-CN|en-US}/embedded/signin`
//! (`ciam_api::EMBEDDED_PAGE`), answered by `ciam_api::embedded`, the handler `ciam serve` uses
//! too, with the built index.html read from the web bucket (key `index.html`,
//! `CIAM_WEB_BUCKET`). Every other page comes from the bucket through CloudFront, whose
//! response-headers policy sends the file's values as they are (its CSP does not override the
//! origin's, so this page's passes through).
//! Round trips per request: 1 table read and 1 S3 read, concurrently. Nothing is cached.

use crate::S3Blobs;
use ciam_core::{BlobStore, Ciam};
use std::sync::Arc;

/// The route id (Lambda binary and template function) of the embedded page.
pub const EMBEDDED_PAGE: &str = ciam_api::EMBEDDED_PAGE.id;

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
    let page = crate::viewer::layer(ciam_api::embedded::router(ciam, web));
    lambda_http::run(crate::origin::guard(page, origin)).await
}

#[cfg(test)]
mod tests {
    use ciam_api::embedded::{handle, INDEX_KEY};
    use ciam_core::apps;
    use ciam_core::BlobStore;
    use ciam_core::MemoryBlobs;
    use ciam_core::SystemClock;
    use ciam_store::dynamo_local::DynamoLocal;
    use ciam_store::{Clock, Item, Store, Value};
    use std::sync::Arc;

    type Response = axum::response::Response;

    const SERVICE: &str = "https://a.example.com/cb";

    fn request(path: &str, app_id: Option<&str>) -> axum::extract::Request {
        with_service(path, app_id, SERVICE)
    }

    /// A request as the Lambda runtime hands it over: the raw query string in the URI.
    fn with_service(path: &str, app_id: Option<&str>, service_url: &str) -> axum::extract::Request {
        let app = app_id.map(|a| format!("appId={a}&")).unwrap_or_default();
        axum::http::Request::get(format!("{path}?{app}serviceUrl={service_url}"))
            .body(axum::body::Body::empty())
            .unwrap()
    }

    fn header(res: &Response, name: &str) -> Option<String> {
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

    /// On DynamoDB Local: the app's registered origins may frame the page, nobody else.
    #[tokio::test]
    async fn the_apps_registered_origins_may_frame_it_and_nobody_else() {
        let local = DynamoLocal::start().await;
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        let store: Arc<dyn Store> = Arc::new(local.store("ciam-page-test", clock.clone()).await);
        store.ensure_schema().await.unwrap();
        let ciam = ciam_core::testing::Builder::new(0)
            .system_clock()
            .store(store.clone())
            .build()
            .await;
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
        let csp = |res: &Response| header(res, "content-security-policy");
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
