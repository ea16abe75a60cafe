//! The Lambda binary of every function but the WebAuthn ceremonies: it serves the route of
//! `ciam_api::ROUTES` (or the embedded page) whose id is in `CIAM_ROUTE` (template.yaml sets it
//! per function). It never names `ciam_api::CEREMONY_ROUTES`, so fat LTO leaves the WebAuthn
//! crate out (`npm run build:lambda` checks it). `sam build` compiles and links it once.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    ciam_lambdas::run_from_env::<ciam_lambdas::Bootstrap>().await
}
