//! One AWS Lambda per /ciam/v1 route. Each binary in `src/bin/` is `run("<route id>")`: the same
//! `ciam_api` router the local server uses, restricted to that route, over `lambda_http`.
//!
//! Everything slow happens once per execution environment, during init, never per request:
//! configuration, the AWS SDK clients, the router. A bad configuration fails the init (logged,
//! nonzero exit), so a misdeployed function never serves with half a configuration.

mod blob;
mod notifier;
pub mod page;
mod settings;

pub use blob::S3Blobs;
pub use notifier::AwsNotifier;
pub use settings::Settings;

use aws_config::meta::region::RegionProviderChain;
use aws_config::BehaviorVersion;
use ciam_core::{Ciam, Config, OsEntropy, SystemClock};
use ciam_store::dynamodb::{DynamoConfig, DynamoStore};
use ciam_store::{Clock, Store};
use std::sync::Arc;
use std::time::Duration;
use tracing::Instrument;

/// The routes that never touch the table (their template functions get no table policy).
pub const NO_TABLE: &[&str] = &[
    "auth_location",
    "auth_captcha",
    "avatar_get",
    "openapi",
    "oidc_discovery",
    "oidc_jwks",
];

/// Opens the SDK's connection to DynamoDB during init (DNS, TCP, TLS), so the first request of
/// a fresh execution environment does not pay for it: one GetItem of a key that never exists.
/// Its outcome does not matter and never fails the init.
pub async fn warm_up(ciam: &Ciam) {
    let key = ciam_store::Key::new("WARMUP", "WARMUP");
    match tokio::time::timeout(Duration::from_secs(2), ciam.store.get(&key)).await {
        Ok(Ok(_)) => tracing::debug!("store connection warmed"),
        Ok(Err(e)) => tracing::warn!(error = %e, "store warm-up failed"),
        Err(_) => tracing::warn!("store warm-up timed out"),
    }
}

/// Initialises and serves the route `route_id` until the Lambda environment is shut down.
pub async fn run(route_id: &'static str) -> Result<(), lambda_http::Error> {
    init_tracing();
    let ready = match Settings::from_env() {
        Ok(settings) => init(settings).await,
        Err(e) => Err(e),
    };
    let (ciam, sdk) = match ready {
        Ok(ready) => ready,
        Err(e) => {
            tracing::error!(route = route_id, error = %e, "init failed");
            return Err(e.into());
        }
    };
    if !NO_TABLE.contains(&route_id) {
        warm_up(&ciam).await;
    }
    // The one page outside /ciam/v1: the embedded sign-in with its per-app frame policy.
    if route_id == page::EMBEDDED_PAGE {
        return page::run(ciam, &sdk)
            .instrument(tracing::info_span!("lambda", route = route_id))
            .await;
    }
    let Some(router) = ciam_api::router_for(route_id, ciam) else {
        let e = format!("no route with id {route_id}");
        tracing::error!(route = route_id, error = %e, "init failed");
        return Err(e.into());
    };
    // Every log line names its route, so lines stay attributable wherever they are gathered.
    lambda_http::run(router)
        .instrument(tracing::info_span!("lambda", route = route_id))
        .await
}

/// Builds the domain's ports from the settings: DynamoDB, SES and SNS clients share one AWS
/// configuration, loaded once and also returned (the embedded page reads the web bucket with it).
async fn init(settings: Settings) -> Result<(Ciam, aws_config::SdkConfig), String> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let region = RegionProviderChain::default_provider().or_else("us-east-1");
    let sdk = aws_config::defaults(BehaviorVersion::latest())
        .region(region)
        .load()
        .await;
    let store: Arc<dyn Store> = match &settings.dynamodb_endpoint {
        // DynamoDB Local (tests): `connect` knows its region and dummy-credential defaults.
        Some(endpoint) => {
            let cfg = DynamoConfig {
                table: settings.table,
                endpoint: Some(endpoint.clone()),
                region: None,
            };
            Arc::new(
                DynamoStore::connect(cfg, clock.clone())
                    .await
                    .map_err(|e| format!("cannot set up DynamoDB at {endpoint}: {e}"))?,
            )
        }
        None => Arc::new(DynamoStore::new(
            aws_sdk_dynamodb::Client::new(&sdk),
            settings.table,
            clock.clone(),
        )),
    };
    let notifier = AwsNotifier::new(
        aws_sdk_sesv2::Client::new(&sdk),
        aws_sdk_sns::Client::new(&sdk),
        settings.mail_from,
    );
    let mut config = Config::default();
    if let Some(domains) = settings.internal_domains {
        config.internal_domains = domains;
    }
    // No local default in AWS: without CIAM_PUBLIC_URL the OpenID Connect provider answers 503
    // rather than advertise a wrong issuer.
    config.public_url = settings.public_url.unwrap_or_default();
    if let Some(v) = settings.oidc_key_version {
        config.oidc_key_version = v;
    }
    config.staff_idp = settings.staff_idp;
    let ciam = Ciam {
        store,
        clock,
        entropy: Arc::new(OsEntropy),
        keys: settings.keys,
        notifier: Arc::new(notifier),
        blobs: Arc::new(S3Blobs::from_env(aws_sdk_s3::Client::new(&sdk))),
        config,
    };
    Ok((ciam, sdk))
}

/// JSON lines on stdout, which Lambda forwards to CloudWatch Logs. The level comes from
/// `RUST_LOG`, else from the function's `AWS_LAMBDA_LOG_LEVEL`, else `info`.
fn init_tracing() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_from_env("AWS_LAMBDA_LOG_LEVEL"))
        .unwrap_or_else(|_| EnvFilter::new("info"));
    // A second call (tests) keeps the first subscriber; that is fine.
    let _ = tracing_subscriber::fmt()
        .json()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::io::stdout)
        .with_target(false)
        .with_current_span(false)
        .with_span_list(true)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;
    use ciam_core::{Keys, MemoryBlobs, OsEntropy};

    struct NoMail;
    #[async_trait::async_trait]
    impl ciam_core::Notifier for NoMail {
        async fn send_code(&self, _: &ciam_core::CodeMessage) -> Result<(), String> {
            Ok(())
        }
        async fn send_notice(&self, _: &ciam_core::NoticeMessage) -> Result<(), String> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn an_unreachable_store_never_fails_or_stalls_the_init() {
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        // Nothing listens on port 9 of the loopback: the warm-up's request fails at once.
        let cfg = DynamoConfig {
            table: "t".into(),
            endpoint: Some("http://127.0.0.1:9".into()),
            region: None,
        };
        let store = DynamoStore::connect(cfg, clock.clone())
            .await
            .expect("client");
        let ciam = Ciam {
            store: Arc::new(store),
            clock,
            entropy: Arc::new(OsEntropy),
            keys: Keys::from_root([1; 32]),
            notifier: Arc::new(NoMail),
            blobs: Arc::new(MemoryBlobs::default()),
            config: Config::default(),
        };
        let started = std::time::Instant::now();
        warm_up(&ciam).await;
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
