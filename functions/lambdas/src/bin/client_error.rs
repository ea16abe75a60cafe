#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    ciam_lambdas::run("client_error").await
}
