//! The Lambda binary of the WebAuthn ceremonies (docs/passkeys-design.md §1.4): it serves the
//! route of `ciam_api::CEREMONY_ROUTES` whose id is in `CIAM_ROUTE` (template.yaml sets it per
//! function, with `BuildProperties.Binary: passkeys`). It initialises the store and the keys
//! only: no S3, SES, SNS or KMS client. `sam build` links it once for the 8 functions.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    ciam_lambdas::run_from_env::<ciam_lambdas::Passkeys>().await
}
