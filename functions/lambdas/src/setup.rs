//! What every function's process sets up first, whatever it serves (the two binaries, the
//! webhook functions, the image decoder, the key distributor): its log lines ([`init_tracing`])
//! and the AWS SDK's configuration ([`load_sdk`]).

use aws_config::meta::region::RegionProviderChain;
use aws_config::BehaviorVersion;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The AWS configuration of the environment (region, credentials, and `AWS_ENDPOINT_URL` when
/// a test points the SDK at an emulator).
pub async fn load_sdk() -> aws_config::SdkConfig {
    let region = RegionProviderChain::default_provider().or_else("us-east-1");
    aws_config::defaults(BehaviorVersion::latest())
        .region(region)
        .load()
        .await
}

/// JSON lines on stdout, which Lambda forwards to CloudWatch Logs. The level comes from
/// `RUST_LOG`, else from the function's `AWS_LAMBDA_LOG_LEVEL`, else `info`: a level, or
/// `target=level` directives separated by commas (`info,ciam_store=debug`); Lambda's `FATAL`
/// means `error`. A value that does not parse counts as unset.
pub(crate) fn init_tracing() {
    // `Targets`, not `EnvFilter`: the same directives without span and field matching, and
    // without the regex engine `EnvFilter` links into every function (docs/operations.md §10).
    let filter = ["RUST_LOG", "AWS_LAMBDA_LOG_LEVEL"]
        .iter()
        .find_map(|var| {
            let value = std::env::var(var).ok()?;
            let value = if value.eq_ignore_ascii_case("fatal") {
                "error"
            } else {
                value.as_str()
            };
            value.parse::<Targets>().ok()
        })
        .unwrap_or_else(|| Targets::new().with_default(tracing::Level::INFO));
    // A second call (tests) keeps the first subscriber; that is fine.
    let _ = tracing_subscriber::fmt()
        .json()
        .with_max_level(tracing::level_filters::LevelFilter::TRACE)
        .with_ansi(false)
        .with_writer(std::io::stdout)
        .with_target(false)
        .with_current_span(false)
        .with_span_list(true)
        .finish()
        .with(filter)
        .try_init();
}
