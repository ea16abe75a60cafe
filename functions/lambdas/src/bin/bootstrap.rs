//! The one Lambda binary of every function: it serves the route whose id is in `CIAM_ROUTE`
//! (template.yaml sets it per function). `sam build` compiles and links it once.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    ciam_lambdas::run_from_env().await
}
