//! The connection to DynamoDB: where the table is ([`DynamoConfig`]), the SDK's configuration
//! for it, and the client with bounded waits (a store that cannot be reached answers
//! `StoreError::Unavailable` within about [`OPERATION_TIMEOUT`], never hangs).

use aws_config::meta::region::RegionProviderChain;
use aws_config::{BehaviorVersion, Region};
use aws_sdk_dynamodb::config::{AsyncSleep, Credentials};
use aws_sdk_dynamodb::Client;
use std::time::Duration;

/// Where the table is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DynamoConfig {
    pub table: String,
    /// A custom endpoint, e.g. DynamoDB Local (`http://127.0.0.1:8000`).
    pub endpoint: Option<String>,
    /// Defaults to the environment's region, then `us-east-1`.
    pub region: Option<String>,
}

/// How long a connection to DynamoDB may take (DNS, TCP, TLS). In the region a connection is made
/// in about 10 ms; a store that does not connect within this is down for us.
pub const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
/// How long one operation may take, all attempts and backoffs included (DynamoDB answers in a few
/// milliseconds). There is no shorter per-attempt timeout on purpose: an attempt that timed out
/// may have been applied, and retrying a conditional write then fails its own condition; the
/// retries are for failures that certainly did not apply (no connection) or that DynamoDB says
/// to retry (throttling, 5xx).
pub const OPERATION_TIMEOUT: Duration = Duration::from_secs(3);
/// The same against a custom endpoint (DynamoDB Local in tests and local runs): a JVM on a busy
/// machine can pause for seconds, and that is not an outage.
pub const LOCAL_OPERATION_TIMEOUT: Duration = Duration::from_secs(30);
/// Attempts per operation (the SDK's standard retry mode), with exponential backoff from
/// `INITIAL_BACKOFF` up to `MAX_BACKOFF` (jittered).
pub const MAX_ATTEMPTS: u32 = 3;
const INITIAL_BACKOFF: Duration = Duration::from_millis(50);
const MAX_BACKOFF: Duration = Duration::from_secs(1);

/// The DynamoDB client the store uses: the SDK configuration `sdk` with bounded waits (a store
/// that cannot be reached answers [`StoreError::Unavailable`] within about `OPERATION_TIMEOUT`,
/// never hangs), and `endpoint` when set (DynamoDB Local; static dummy credentials when the
/// environment names none).
pub fn client(sdk: &aws_config::SdkConfig, endpoint: Option<&str>) -> Client {
    let operation = if endpoint.is_some() {
        LOCAL_OPERATION_TIMEOUT
    } else {
        OPERATION_TIMEOUT
    };
    client_with_timeout(sdk, endpoint, operation)
}

/// [`client`] with another operation timeout (tests).
pub fn client_with_timeout(
    sdk: &aws_config::SdkConfig,
    endpoint: Option<&str>,
    operation: Duration,
) -> Client {
    use aws_sdk_dynamodb::config::retry::RetryConfig;
    use aws_sdk_dynamodb::config::timeout::TimeoutConfig;
    let mut conf = aws_sdk_dynamodb::config::Builder::from(sdk)
        .timeout_config(
            TimeoutConfig::builder()
                .connect_timeout(CONNECT_TIMEOUT)
                .operation_timeout(operation)
                .build(),
        )
        .retry_config(
            RetryConfig::standard()
                .with_max_attempts(MAX_ATTEMPTS)
                .with_initial_backoff(INITIAL_BACKOFF)
                .with_max_backoff(MAX_BACKOFF),
        );
    if let Some(endpoint) = endpoint {
        conf = conf.endpoint_url(endpoint);
        if !env_has_credentials() {
            conf = conf.credentials_provider(Credentials::new(
                "local",
                "local",
                None,
                None,
                "ciam-local",
            ));
        }
    }
    Client::from_conf(conf.build())
}

/// The AWS configuration of the environment for `cfg`'s region. With an endpoint (DynamoDB Local)
/// and no credentials in the environment, static dummy credentials are used.
pub(super) async fn sdk_of(cfg: &DynamoConfig) -> aws_config::SdkConfig {
    let region = RegionProviderChain::first_try(cfg.region.clone().map(Region::new))
        .or_default_provider()
        .or_else(Region::new("us-east-1"));
    let mut loader = aws_config::defaults(BehaviorVersion::latest()).region(region);
    if cfg.endpoint.is_some() && !env_has_credentials() {
        // Not the environment's chain: without credentials it would look for instance
        // metadata first, which takes seconds off AWS.
        loader = loader.credentials_provider(Credentials::new(
            "local",
            "local",
            None,
            None,
            "ciam-local",
        ));
    }
    loader.load().await
}

/// Whether the environment names AWS credentials of its own.
fn env_has_credentials() -> bool {
    [
        "AWS_ACCESS_KEY_ID",
        "AWS_PROFILE",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
    ]
    .iter()
    .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

/// A short wait before attempt `attempt` again (25 ms, doubling, at most 1.6 s), on the client's
/// sleep.
pub(super) async fn pause(client: &Client, attempt: u32) {
    if let Some(sleep) = client.config().sleep_impl() {
        let ms = 25u64.saturating_mul(1 << attempt.min(6));
        sleep.sleep(Duration::from_millis(ms)).await;
    }
}
