//! The Lambda binary of the avatar decoder (`ciam_api::IMAGE_DECODER`, issue 22): `auth_avatar`
//! invokes it with each upload and stores the thumbnail it answers. No HTTP route, no table, key,
//! secret or SDK client; the only binary that links the image crates (docs/operations.md §10).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    ciam_lambdas::decoder::run_from_env().await
}
