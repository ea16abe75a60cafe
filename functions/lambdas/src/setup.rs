//! What every function's process sets up first, whatever it serves (the two binaries, the
//! webhook functions, the image decoder, the key distributor): its log lines ([`init_tracing`])
//! and the AWS SDK's configuration ([`load_sdk`]).

use aws_config::environment::EnvironmentVariableCredentialsProvider;
use aws_config::{BehaviorVersion, Region};
use aws_sdk_dynamodb::config::SharedCredentialsProvider;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The AWS configuration of a function: the region, the credentials and `AWS_ENDPOINT_URL`
/// (a test pointing the SDK at an emulator) from the environment Lambda gives every function.
/// Everything else (the HTTPS client, retries, timeouts, the identity cache, sleep and clock) is
/// each client's default for the behaviour version: the SDK's default HTTPS client is hyper 1
/// and rustls on aws-lc-rs, whose key exchange offers the post-quantum X25519MLKEM768 first.
///
/// Built by hand rather than with `aws_config::defaults(..).load()`: that loader links every
/// source of settings a machine may have (profile files, the instance metadata service, the
/// container and web-identity credentials, STS for assumed roles) into each binary, about
/// 0.2 MB of zip (docs/operations.md §10), and a Lambda function gets its region and role
/// credentials in environment variables only (AWS_REGION, AWS_ACCESS_KEY_ID,
/// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN).
pub async fn load_sdk() -> aws_config::SdkConfig {
    sdk_from(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
}

fn sdk_from(var: impl Fn(&str) -> Option<String>) -> aws_config::SdkConfig {
    let region = var("AWS_REGION")
        .or_else(|| var("AWS_DEFAULT_REGION"))
        .unwrap_or_else(|| "us-east-1".to_owned());
    let mut sdk = aws_config::SdkConfig::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(region))
        .credentials_provider(SharedCredentialsProvider::new(
            EnvironmentVariableCredentialsProvider::new(),
        ));
    if let Some(endpoint) = var("AWS_ENDPOINT_URL") {
        sdk = sdk.endpoint_url(endpoint);
    }
    sdk.build()
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

#[cfg(test)]
mod tests {
    use super::sdk_from;
    use std::collections::HashMap;

    fn sdk(vars: &[(&str, &str)]) -> aws_config::SdkConfig {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        sdk_from(move |name| vars.get(name).cloned())
    }

    #[test]
    fn a_function_takes_its_region_and_endpoint_from_the_environment() {
        let s = sdk(&[
            ("AWS_REGION", "eu-west-1"),
            ("AWS_DEFAULT_REGION", "us-west-2"),
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:5000"),
        ]);
        assert_eq!(s.region().map(|r| r.as_ref()), Some("eu-west-1"));
        assert_eq!(s.endpoint_url(), Some("http://127.0.0.1:5000"));
        assert!(s.credentials_provider().is_some());
        assert!(s.behavior_version().is_some());
        // No client of its own: each SDK client takes its default HTTPS client (aws-lc-rs).
        assert!(s.http_client().is_none());
    }

    #[test]
    fn without_a_region_or_an_endpoint_it_is_us_east_1_and_the_service_endpoint() {
        let s = sdk(&[]);
        assert_eq!(s.region().map(|r| r.as_ref()), Some("us-east-1"));
        assert_eq!(s.endpoint_url(), None);
        let s = sdk(&[("AWS_DEFAULT_REGION", "ap-east-1")]);
        assert_eq!(s.region().map(|r| r.as_ref()), Some("ap-east-1"));
    }
}
