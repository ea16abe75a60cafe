#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    ciam_lambdas::run("oidc_request_get").await
}
