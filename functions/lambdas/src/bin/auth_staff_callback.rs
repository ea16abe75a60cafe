#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    ciam_lambdas::run("auth_staff_callback").await
}
