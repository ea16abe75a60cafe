//! The Lambda binary of the pre-traffic check (issue 30 item 10, `ciam_lambdas::hook`): CodeDeploy
//! invokes it before it shifts a gradual function's alias to a new version; it invokes that
//! version with a request of the function's own route and reports Succeeded or Failed. No HTTP
//! route, no table, no key; the only binary that links the CodeDeploy client.

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    ciam_lambdas::hook::run().await
}
