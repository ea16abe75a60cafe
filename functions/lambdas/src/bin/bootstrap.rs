//! The Lambda binary of every function but the WebAuthn ceremonies: it serves the route of
//! `ciam_api::ROUTES` (or the embedded page) whose id is in `CIAM_ROUTE` (template.yaml sets it
//! per function). It never names `ciam_api::CEREMONY_ROUTES`, so fat LTO leaves the WebAuthn
//! crate out (`npm run build:lambda` checks it). `sam build` compiles and links it once. The
//! avatar decoder (`ciam_api::IMAGE_DECODER`, no route) runs it too.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    // The avatar decoder has no route: it answers Lambda invocations and reads nothing at init.
    if std::env::var(ciam_lambdas::ROUTE_VAR).as_deref() == Ok(ciam_api::IMAGE_DECODER.id) {
        return ciam_lambdas::decoder::run().await;
    }
    ciam_lambdas::run_from_env::<ciam_lambdas::Bootstrap>().await
}
