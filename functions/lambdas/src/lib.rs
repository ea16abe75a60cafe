//! One AWS Lambda per /ciam/v1 route, each running one of two binaries: `bootstrap`
//! (`src/bin/bootstrap.rs`, the routes of `ciam_api::ROUTES` and the embedded page) or
//! `passkeys` (`src/bin/passkeys.rs`, the WebAuthn ceremonies of `ciam_api::CEREMONY_ROUTES`,
//! docs/passkeys-design.md §1.4). A binary reads the route id from `CIAM_ROUTE` (template.yaml
//! sets it on each function) and serves the same `ciam_api` router the local server uses,
//! restricted to that route, over `lambda_http`. `sam build` makes one build per binary (two
//! links for all the functions, docs/operations.md §10).
//!
//! What differs between the two is a [`Binary`]: its route table and the ports it builds
//! besides the store and the keys. Each `main` names its own, so the code it reaches (all that
//! fat LTO keeps) is its own table's: `bootstrap` never names `CEREMONY_ROUTES` (no WebAuthn
//! crate in it), `passkeys` never builds an S3, SES, SNS or KMS client (its notifier and blob
//! store are [`Unavailable`]).
//!
//! Everything slow happens once per execution environment, during init, never per request:
//! configuration, the secrets (Secrets Manager) and the OpenID Connect public keys (KMS), the AWS
//! SDK clients, the router. A bad configuration or an unreadable secret fails the init (logged,
//! nonzero exit), so a misdeployed function never serves with half a configuration or a made-up
//! key.

mod blob;
pub mod kms;
mod notifier;
pub mod origin;
pub mod page;
pub mod secrets;
mod settings;
mod unavailable;

pub use blob::S3Blobs;
pub use notifier::AwsNotifier;
pub use origin::OriginCheck;
pub use settings::{Settings, StaffClient};
pub use unavailable::Unavailable;

use aws_config::meta::region::RegionProviderChain;
use aws_config::BehaviorVersion;
use ciam_api::{PageDef, RouteDef};
use ciam_core::{BlobStore, Ciam, Config, Keys, Notifier, OidcSigner, OsEntropy, SystemClock};
use ciam_store::dynamodb::DynamoStore;
use ciam_store::{Clock, Store};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tracing::Instrument;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The routes that never touch the table (their template functions get no table policy).
pub const NO_TABLE: &[&str] = &[
    "auth_location",
    "auth_captcha",
    "avatar_get",
    "openapi",
    "oidc_discovery",
    "oidc_jwks",
    "client_error",
    "version",
    // Passkey sign-in options: a sealed challenge from the keys, nothing stored (§2.4).
    "auth_login_passkey_options",
];

/// The functions that derive no key from the root: they never read `CIAM_ROOT_SECRET_ARN` and
/// get a random per-process root instead. `oidc_jwks` publishes KMS public keys; without
/// `CIAM_OIDC_KMS_KEY_ID` (tests, local runs) it publishes keys derived from the root and then
/// needs the root like any other function. Plain string literals: infra/tests reads this list
/// (and NO_TABLE) from the source to check the template's secret grants.
pub const NO_KEYS: &[&str] = &[
    "auth_location",
    "avatar_get",
    "openapi",
    "oidc_discovery",
    "oidc_jwks",
    "app_language",
    "embedded_page",
    "version",
    "client_error",
];

const OIDC_JWKS: &str = "oidc_jwks";
const OIDC_TOKEN: &str = "oidc_token";
/// The one function that sends the staff client secret (it exchanges the code).
pub const STAFF_CALLBACK: &str = "auth_staff_callback";

/// How long the init waits for the warm-up. In the region the GetItem takes ~10-20 ms with the
/// connection (DynamoDB Local: ~5 ms); with the store down the init must still end quickly
/// (the whole init within 300 ms), and the requests then answer 503 by themselves.
pub const WARM_UP_BUDGET: Duration = Duration::from_millis(150);

/// Opens the SDK's connection to DynamoDB during init (DNS, TCP, TLS), so the first request of
/// a fresh execution environment does not pay for it: one GetItem of a key that never exists.
/// Its outcome does not matter and never fails the init, and it never holds the init more than
/// `WARM_UP_BUDGET`.
pub async fn warm_up(ciam: &Ciam) {
    let key = ciam_store::Key::new("WARMUP", "WARMUP");
    match tokio::time::timeout(WARM_UP_BUDGET, ciam.store.get(&key)).await {
        Ok(Ok(_)) => tracing::debug!("store connection warmed"),
        Ok(Err(e)) => tracing::warn!(error = %e, "store warm-up failed"),
        Err(_) => tracing::warn!("store warm-up timed out"),
    }
}

/// A function ready to serve.
pub struct Ready {
    pub ciam: Ciam,
    /// The AWS configuration init loaded (the embedded page reads the web bucket with it).
    pub sdk: aws_config::SdkConfig,
    /// Set when `CIAM_ORIGIN_SECRET_ARN` is: requests must carry CloudFront's header.
    pub origin: Option<OriginCheck>,
}

/// The environment variable naming the route a function serves (template.yaml, per function).
pub const ROUTE_VAR: &str = "CIAM_ROUTE";

/// A Lambda binary: the route table it serves, how it initialises and how it serves a route
/// (docs/passkeys-design.md §1.4). The two are [`Bootstrap`] and [`Passkeys`]; each `src/bin`
/// main names one, and nothing shared names either.
pub trait Binary {
    /// Its name: the file in `src/bin` and template.yaml's `BuildProperties.Binary`.
    const NAME: &'static str;
    /// The route table it serves, and its name for messages.
    const ROUTES: &'static [RouteDef];
    const TABLE: &'static str;
    /// The pages outside /ciam/v1 it serves.
    const PAGES: &'static [PageDef];
    /// Builds the function's `Ciam` (see [`init`] and [`init_passkeys`]).
    fn init(
        route_id: &str,
        settings: Settings,
        sdk: aws_config::SdkConfig,
    ) -> impl Future<Output = Result<Ready, String>>;
    /// Serves `route_id` until the Lambda environment is shut down.
    fn serve(
        route_id: &'static str,
        ready: Ready,
    ) -> impl Future<Output = Result<(), lambda_http::Error>>;
}

/// Every function but the WebAuthn ceremonies: `ciam_api::ROUTES` and the embedded page, with
/// the AWS adapters (SES and SNS, S3, the KMS signer of the OpenID Connect routes).
pub struct Bootstrap;

impl Binary for Bootstrap {
    const NAME: &'static str = "bootstrap";
    const ROUTES: &'static [RouteDef] = ciam_api::ROUTES;
    const TABLE: &'static str = "ciam_api::ROUTES";
    const PAGES: &'static [PageDef] = ciam_api::PAGES;

    async fn init(
        route_id: &str,
        settings: Settings,
        sdk: aws_config::SdkConfig,
    ) -> Result<Ready, String> {
        init(route_id, settings, sdk).await
    }

    async fn serve(route_id: &'static str, ready: Ready) -> Result<(), lambda_http::Error> {
        let Ready { ciam, sdk, origin } = ready;
        // The one page outside /ciam/v1: the embedded sign-in with its per-app frame policy.
        if route_id == page::EMBEDDED_PAGE {
            return page::run(ciam, &sdk, origin)
                .instrument(tracing::info_span!("lambda", route = route_id))
                .await;
        }
        serve_route(Self::ROUTES, route_id, ciam, origin).await
    }
}

/// The WebAuthn ceremonies (`ciam_api::CEREMONY_ROUTES`), the only code that links the
/// relying-party crate. They need the store and the keys only: the other ports are
/// [`Unavailable`], so this binary links no S3, SES, SNS or KMS client.
pub struct Passkeys;

impl Binary for Passkeys {
    const NAME: &'static str = "passkeys";
    const ROUTES: &'static [RouteDef] = ciam_api::CEREMONY_ROUTES;
    const TABLE: &'static str = "ciam_api::CEREMONY_ROUTES";
    const PAGES: &'static [PageDef] = &[];

    async fn init(
        route_id: &str,
        settings: Settings,
        sdk: aws_config::SdkConfig,
    ) -> Result<Ready, String> {
        init_passkeys(route_id, settings, sdk).await
    }

    async fn serve(route_id: &'static str, ready: Ready) -> Result<(), lambda_http::Error> {
        serve_route(Self::ROUTES, route_id, ready.ciam, ready.origin).await
    }
}

/// Every route id a function may serve, of both binaries: `ciam_api::all_routes()` and the
/// pages. For tests and tools; a binary looks its id up in its own table only ([`route_id`]).
pub fn route_ids() -> impl Iterator<Item = &'static str> {
    ciam_api::all_routes()
        .map(|r| r.id)
        .chain(ciam_api::PAGES.iter().map(|p| p.id))
}

/// The route id of `routes` or `pages` that `value` names (the value of `CIAM_ROUTE`), or why
/// it names none. `table` names the routes in the message.
pub fn route_id(
    routes: &'static [RouteDef],
    pages: &'static [PageDef],
    table: &str,
    value: Option<&str>,
) -> Result<&'static str, String> {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Err(format!(
            "{ROUTE_VAR} is not set: every function names the route it serves in {ROUTE_VAR} \
             (template.yaml), e.g. {ROUTE_VAR}=auth_info_get"
        ));
    };
    let ids = routes
        .iter()
        .map(|r| r.id)
        .chain(pages.iter().map(|p| p.id));
    ids.into_iter().find(|id| *id == value).ok_or_else(|| {
        let pages: Vec<&str> = pages.iter().map(|p| p.id).collect();
        let also = if pages.is_empty() {
            String::new()
        } else {
            format!(" or {}", pages.join(", "))
        };
        format!("{ROUTE_VAR}={value:?} is not a route id ({table}{also})")
    })
}

/// The entry of a binary: serves the route of `B`'s table named by `CIAM_ROUTE`. A missing or
/// unknown route id fails the init (logged, nonzero exit) before anything else is read.
pub async fn run_from_env<B: Binary>() -> Result<(), lambda_http::Error> {
    let value = std::env::var(ROUTE_VAR).ok();
    match route_id(B::ROUTES, B::PAGES, B::TABLE, value.as_deref()) {
        Ok(id) => run::<B>(id).await,
        Err(e) => {
            init_tracing();
            tracing::error!(binary = B::NAME, error = %e, "init failed");
            Err(e.into())
        }
    }
}

/// Initialises and serves the route `route_id` of `B` until the Lambda environment is shut
/// down.
pub async fn run<B: Binary>(route_id: &'static str) -> Result<(), lambda_http::Error> {
    init_tracing();
    let ready = match Settings::from_env() {
        Ok(settings) => B::init(route_id, settings, load_sdk().await).await,
        Err(e) => Err(e),
    };
    let ready = match ready {
        Ok(ready) => ready,
        Err(e) => {
            tracing::error!(route = route_id, error = %e, "init failed");
            return Err(e.into());
        }
    };
    if !NO_TABLE.contains(&route_id) {
        warm_up(&ready.ciam).await;
    }
    B::serve(route_id, ready).await
}

/// Serves the route `route_id` of `table` over `lambda_http`.
async fn serve_route(
    table: &'static [RouteDef],
    route_id: &'static str,
    ciam: Ciam,
    origin: Option<OriginCheck>,
) -> Result<(), lambda_http::Error> {
    let Some(router) = ciam_api::router_for(table, route_id, ciam) else {
        let e = format!("no route with id {route_id}");
        tracing::error!(route = route_id, error = %e, "init failed");
        return Err(e.into());
    };
    // Every log line names its route, so lines stay attributable wherever they are gathered.
    lambda_http::run(origin::guard(router, origin))
        .instrument(tracing::info_span!("lambda", route = route_id))
        .await
}

/// The AWS configuration of the environment (region, credentials, and `AWS_ENDPOINT_URL` when
/// a test points the SDK at an emulator).
pub async fn load_sdk() -> aws_config::SdkConfig {
    let region = RegionProviderChain::default_provider().or_else("us-east-1");
    aws_config::defaults(BehaviorVersion::latest())
        .region(region)
        .load()
        .await
}

/// Whether `route_id` derives keys from the root (see `NO_KEYS`).
fn needs_root(route_id: &str, settings: &Settings) -> bool {
    !NO_KEYS.contains(&route_id) || (route_id == OIDC_JWKS && settings.oidc_kms_key_id.is_none())
}

/// The root: the secret's, else `CIAM_SECRET_KEY` (tests), else none at all: refused.
fn root_keys(fetched: Option<Keys>, settings: &Settings) -> Result<Keys, String> {
    fetched
        .or_else(|| settings.secret_key.clone())
        .ok_or_else(|| {
            "CIAM_ROOT_SECRET_ARN is required (CIAM_SECRET_KEY only in tests and local runs)".into()
        })
}

/// The staff identity provider: only the callback holds the client secret (from
/// `CIAM_STAFF_SECRET_ARN`, or `CIAM_STAFF_CLIENT_SECRET` in tests); the other staff routes
/// only redirect and never send it.
fn staff_idp(
    route_id: &str,
    settings: &Settings,
    fetched: Option<String>,
) -> Result<Option<ciam_core::staff::StaffIdp>, String> {
    let Some(client) = &settings.staff else {
        return Ok(None);
    };
    let secret = fetched.or_else(|| client.env_secret.clone());
    let client_secret = match secret {
        Some(s) => s,
        None if route_id == STAFF_CALLBACK => {
            return Err(format!(
                "CIAM_STAFF_SECRET_ARN is required by {STAFF_CALLBACK} (CIAM_STAFF_CLIENT_SECRET \
                 only in tests and local runs)"
            ))
        }
        None => String::new(),
    };
    Ok(Some(ciam_core::staff::StaffIdp {
        issuer: client.issuer.clone(),
        client_id: client.client_id.clone(),
        client_secret,
    }))
}

/// The `bootstrap` init: builds the domain's ports from the settings. The secrets and the KMS
/// public keys are read concurrently, each within a few seconds; DynamoDB, SES, SNS and S3
/// clients share `sdk`.
pub async fn init(
    route_id: &str,
    mut settings: Settings,
    sdk: aws_config::SdkConfig,
) -> Result<Ready, String> {
    let kms_key = settings
        .oidc_kms_key_id
        .clone()
        .filter(|_| route_id == OIDC_TOKEN || route_id == OIDC_JWKS);
    let previous: Vec<String> = if route_id == OIDC_JWKS {
        settings.oidc_kms_previous_key_ids.clone()
    } else {
        Vec::new()
    };
    let kms = kms_key.map(|id| (aws_sdk_kms::Client::new(&sdk), id));
    let signer = async move {
        match kms {
            Some((client, id)) => kms::KmsSigner::load(client, &id, &previous, secrets::TIMEOUT)
                .await
                .map(|s| Some(Arc::new(s) as Arc<dyn OidcSigner>)),
            None => Ok(None),
        }
    };
    let notifier = AwsNotifier::new(
        aws_sdk_sesv2::Client::new(&sdk),
        aws_sdk_sns::Client::new(&sdk),
        settings.mail_from.take(),
    );
    let blobs = S3Blobs::from_env(aws_sdk_s3::Client::new(&sdk));
    init_with(
        route_id,
        settings,
        sdk,
        signer,
        Arc::new(notifier),
        Arc::new(blobs),
    )
    .await
}

/// The `passkeys` init: the store and the keys (and the secrets that give them) only. No
/// ceremony sends mail or SMS, stores a blob or signs an id_token, so the notifier and the
/// blob store are [`Unavailable`] and there is no KMS signer.
pub async fn init_passkeys(
    route_id: &str,
    settings: Settings,
    sdk: aws_config::SdkConfig,
) -> Result<Ready, String> {
    let no_signer = std::future::ready(Ok::<Option<Arc<dyn OidcSigner>>, String>(None));
    init_with(
        route_id,
        settings,
        sdk,
        no_signer,
        Arc::new(Unavailable),
        Arc::new(Unavailable),
    )
    .await
}

/// What both inits share: the secrets (read alongside `signer`), the keys, the store and the
/// configuration.
async fn init_with(
    route_id: &str,
    settings: Settings,
    sdk: aws_config::SdkConfig,
    signer: impl Future<Output = Result<Option<Arc<dyn OidcSigner>>, String>>,
    notifier: Arc<dyn Notifier>,
    blobs: Arc<dyn BlobStore>,
) -> Result<Ready, String> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let wanted = secrets::Wanted {
        root: settings
            .root_secret_arn
            .as_deref()
            .filter(|_| needs_root(route_id, &settings)),
        staff: settings
            .staff_secret_arn
            .as_deref()
            .filter(|_| route_id == STAFF_CALLBACK),
        origin: settings.origin_secret_arn.as_deref(),
    };
    let sm = aws_sdk_secretsmanager::Client::new(&sdk);
    let (fetched, signer) =
        tokio::try_join!(secrets::fetch(&sm, wanted, secrets::TIMEOUT), signer)?;
    let mut keys = if needs_root(route_id, &settings) {
        root_keys(fetched.keys, &settings)?
    } else {
        // Never used: a keyless function must not be able to forge anything either.
        Keys::from_root(ciam_core::random::<32>(&OsEntropy))
    };
    if let Some(signer) = signer {
        keys = keys.with_oidc_signer(signer);
    }
    let staff_idp = staff_idp(route_id, &settings, fetched.staff_client_secret)?;
    // The client waits for DynamoDB at most `ciam_store::dynamodb::CONNECT_TIMEOUT` per
    // connection and `OPERATION_TIMEOUT` per operation: a store that cannot be reached answers
    // 503 with Retry-After, never a hang. `CIAM_DYNAMODB_ENDPOINT` is DynamoDB Local (tests).
    let store: Arc<dyn Store> = Arc::new(DynamoStore::new(
        ciam_store::dynamodb::client(&sdk, settings.dynamodb_endpoint.as_deref()),
        settings.table,
        clock.clone(),
    ));
    let mut config = Config::default();
    if let Some(domains) = settings.internal_domains {
        config.internal_domains = domains;
    }
    // No local default in AWS: without CIAM_PUBLIC_URL the OpenID Connect provider answers 503
    // rather than advertise a wrong issuer (and every passkey route answers 503
    // PASSKEY_UNAVAILABLE: no RP ID).
    config.public_url = settings.public_url.unwrap_or_default();
    if let Some(v) = settings.oidc_key_version {
        config.oidc_key_version = v;
    }
    config.staff_idp = staff_idp;
    config.passkey_rp_id = settings.passkey_rp_id;
    config.passkey_origins = settings.passkey_origins;
    let ciam = Ciam {
        store,
        clock,
        entropy: Arc::new(OsEntropy),
        keys,
        notifier,
        blobs,
        config,
    };
    Ok(Ready {
        ciam,
        sdk,
        origin: fetched.origin_verify.map(OriginCheck::new),
    })
}

/// JSON lines on stdout, which Lambda forwards to CloudWatch Logs. The level comes from
/// `RUST_LOG`, else from the function's `AWS_LAMBDA_LOG_LEVEL`, else `info`: a level, or
/// `target=level` directives separated by commas (`info,ciam_store=debug`); Lambda's `FATAL`
/// means `error`. A value that does not parse counts as unset.
fn init_tracing() {
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
    use super::*;
    use ciam_store::dynamodb::DynamoConfig;

    fn bootstrap_id(value: Option<&str>) -> Result<&'static str, String> {
        route_id(Bootstrap::ROUTES, Bootstrap::PAGES, Bootstrap::TABLE, value)
    }

    fn passkeys_id(value: Option<&str>) -> Result<&'static str, String> {
        route_id(Passkeys::ROUTES, Passkeys::PAGES, Passkeys::TABLE, value)
    }

    #[test]
    fn the_route_comes_from_a_known_id_only() {
        assert_eq!(bootstrap_id(Some("auth_info_get")), Ok("auth_info_get"));
        assert_eq!(
            bootstrap_id(Some(page::EMBEDDED_PAGE)),
            Ok(page::EMBEDDED_PAGE)
        );
        for missing in [None, Some(""), Some("  ")] {
            let e = bootstrap_id(missing).unwrap_err();
            assert!(e.contains("CIAM_ROUTE is not set"), "{e}");
            let e = passkeys_id(missing).unwrap_err();
            assert!(e.contains("CIAM_ROUTE is not set"), "{e}");
        }
        let e = bootstrap_id(Some("auth_nope")).unwrap_err();
        assert!(e.contains("\"auth_nope\" is not a route id"), "{e}");
        let ids: Vec<_> = route_ids().collect();
        let unique: std::collections::BTreeSet<_> = ids.iter().collect();
        assert_eq!(ids.len(), unique.len(), "route ids are unique");
    }

    #[test]
    fn each_binary_serves_its_own_table_only() {
        for r in ciam_api::CEREMONY_ROUTES {
            assert_eq!(passkeys_id(Some(r.id)), Ok(r.id));
            let e = bootstrap_id(Some(r.id)).unwrap_err();
            assert!(e.contains("(ciam_api::ROUTES or embedded_page)"), "{e}");
        }
        for r in ciam_api::ROUTES {
            assert_eq!(bootstrap_id(Some(r.id)), Ok(r.id));
            let e = passkeys_id(Some(r.id)).unwrap_err();
            assert!(e.ends_with("(ciam_api::CEREMONY_ROUTES)"), "{e}");
        }
        let e = passkeys_id(Some(page::EMBEDDED_PAGE)).unwrap_err();
        assert!(e.contains("is not a route id"), "{e}");
        assert_eq!(
            route_ids().count(),
            ciam_api::all_routes().count() + ciam_api::PAGES.len()
        );
        assert_eq!(Bootstrap::NAME, "bootstrap");
        assert_eq!(Passkeys::NAME, "passkeys");
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
        // The in-memory schema step is skipped for a store handed over: nothing is reached yet.
        let ciam = ciam_core::testing::Builder::new(0)
            .system_clock()
            .store(Arc::new(store))
            .build()
            .await;
        let started = std::time::Instant::now();
        warm_up(&ciam).await;
        assert!(started.elapsed() < WARM_UP_BUDGET + Duration::from_millis(100));
    }
}
