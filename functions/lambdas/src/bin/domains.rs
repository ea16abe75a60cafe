//! The Lambda binary of the verification of a domain (docs/organizations-domains.md §1.1): it
//! serves the route of `ciam_api::DOMAIN_ROUTES` whose id is in `CIAM_ROUTE` (template.yaml and
//! the organizations' stack set it per function, with `BuildProperties.Binary: domains`), the
//! only binary that links the DNS resolver. It initialises the store and the keys only.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    ciam_lambdas::run_from_env::<ciam_lambdas::Domains>().await
}
