//! The Lambda binary of every function but the WebAuthn ceremonies, the webhook pipeline, the
//! pre-traffic check and the image decoder: it serves the route of `ciam_api::ROUTES` (or the
//! embedded page) whose id is in `CIAM_ROUTE` (template.yaml sets it per function). It never
//! names `ciam_api::CEREMONY_ROUTES` or the image decoder, so fat LTO leaves the WebAuthn and
//! image crates out (`npm run build:lambda` checks both). `sam build` compiles and links it once.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    ciam_lambdas::run_from_env::<ciam_lambdas::Bootstrap>().await
}
