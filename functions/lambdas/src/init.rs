//! The init of a function: configuration, the secrets (Secrets Manager) and the OpenID Connect
//! public keys (KMS), the AWS SDK clients, the store. Everything slow happens once per execution
//! environment, never per request. What a function reads is its row's `ciam_api::Lambda`: the
//! secrets of its key purposes (`keys`, `purpose_keys`; the root secret only where the template
//! names none: older stacks, tests), the staff client secret if `fed` is staff's `Callback`, the
//! KMS key if `kms` says so. A bad configuration or an unreadable secret fails the init (logged,
//! nonzero exit), so a misdeployed function never serves with half a configuration or a made-up
//! key.

use crate::key_refresh::Signers;
use crate::{kms, purpose_keys, secrets, OriginCheck, S3Blobs, Settings, Unavailable};
use ciam_api::{Images, Kms, Lambda, PageDef, RouteDef};
use ciam_core::avatar::ImageDecoder;
use ciam_core::federation::ProviderId;
use ciam_core::KeyPurpose;
use ciam_core::{BlobStore, Ciam, Config, Keys, Notifier, OidcSigner, OsEntropy, SystemClock};
use ciam_store::dynamodb::DynamoStore;
use ciam_store::{Clock, Store};
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

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
    /// The function's facts, from its row (read once, by the init).
    pub lambda: Lambda,
    /// Where its key secrets are read again after a miss or when held long (`key_refresh`),
    /// with what init read and the signer to put back on new keys; None where the function
    /// holds no key secret (keyless, or keys from the root: tests, older stacks).
    pub key_secrets: Option<KeysAtInit>,
}

/// What init read of the key secrets, for [`crate::key_refresh::Refreshing`].
pub struct KeysAtInit {
    pub source: crate::key_refresh::KeySecrets,
    pub texts: BTreeMap<KeyPurpose, String>,
    pub signers: Signers,
}

/// The function facts of the route or page `id` of `routes` and `pages`.
pub(crate) fn lambda_of(
    routes: &'static [RouteDef],
    pages: &'static [PageDef],
    id: &str,
) -> Option<Lambda> {
    routes
        .iter()
        .find(|r| r.id == id)
        .map(|r| r.lambda)
        .or_else(|| pages.iter().find(|p| p.id == id).map(|p| p.lambda))
}

/// Whether the function derives keys from the root (where the template names no key secrets):
/// a purpose of its row with a secret, or `Es256` without a KMS key (tests, local runs: the
/// OpenID Connect keys are then derived from the root).
fn needs_root(lambda: &Lambda, settings: &Settings) -> bool {
    lambda.keys.iter().any(|p| p.distributed())
        || (lambda.keys.contains(KeyPurpose::Es256) && settings.oidc_kms_key_id.is_none())
}

/// The facts of `route_id` in `routes` and `pages`, or why there are none.
fn facts(
    routes: &'static [RouteDef],
    pages: &'static [PageDef],
    route_id: &str,
) -> Result<Lambda, String> {
    lambda_of(routes, pages, route_id).ok_or_else(|| format!("no route with id {route_id}"))
}

/// The root: the secret's, else `CIAM_SECRET_KEY` (tests), else none at all: refused.
fn root_keys(fetched: Option<Keys>, settings: &Settings) -> Result<Keys, String> {
    fetched
        .or_else(|| settings.secret_key.clone())
        .ok_or_else(|| {
            "CIAM_ROOT_SECRET_ARN is required (CIAM_SECRET_KEY only in tests and local runs)".into()
        })
}

/// Whether the row is staff's callback, the one function that reads the staff secret
/// (`Fed::Callback`: the code exchange).
fn reads_staff_secret(lambda: &Lambda) -> bool {
    lambda
        .fed
        .secret()
        .is_some_and(|facts| facts.id == ProviderId::Staff)
}

/// The staff identity provider: only the callback holds the client secret (from
/// `CIAM_STAFF_SECRET_ARN`, or `CIAM_STAFF_CLIENT_SECRET` in tests); the other staff routes
/// only redirect and never send it.
fn staff_idp(
    route_id: &str,
    lambda: &Lambda,
    settings: &Settings,
    fetched: Option<String>,
) -> Result<Option<ciam_core::staff::StaffIdp>, String> {
    let Some(client) = &settings.staff else {
        return Ok(None);
    };
    let secret = fetched.or_else(|| client.env_secret.clone());
    let client_secret = match secret {
        Some(s) => s,
        None if reads_staff_secret(lambda) => {
            return Err(format!(
                "CIAM_STAFF_SECRET_ARN is required by {route_id} (CIAM_STAFF_CLIENT_SECRET \
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

/// The secret of the provider whose callback this function is (not staff's: `staff_idp`),
/// from `CIAM_<P>_SECRET_ARN` when set and the provider is configured.
async fn federation_secret(
    sm: &aws_sdk_secretsmanager::Client,
    lambda: &Lambda,
    settings: &Settings,
) -> Result<Option<BTreeMap<String, String>>, String> {
    let Some(facts) = lambda.fed.secret().filter(|f| f.id != ProviderId::Staff) else {
        return Ok(None);
    };
    let Some(arn) = settings.federation_secret_arns.get(&facts.id) else {
        return Ok(None);
    };
    // Named in errors; made once per execution environment.
    let var: &'static str = Box::leak(facts.secret_arn_var().into_boxed_str());
    let j = secrets::read(sm, var, arn, secrets::TIMEOUT).await?;
    secrets::provider_secret(&j, facts).map(Some)
}

/// The providers but staff as this function serves them: every configured one's settings (the
/// list and the starts read only those), and the callback's secret (from Secrets Manager, or
/// `CIAM_<P>_<FIELD>` in tests); a configured provider's callback without its secret fails the
/// init, as staff's does. No other function keeps a secret it was given by the environment.
fn federation(
    route_id: &str,
    lambda: &Lambda,
    mut configs: std::collections::HashMap<ProviderId, ciam_core::federation::ProviderConfig>,
    fetched: Option<BTreeMap<String, String>>,
) -> Result<std::collections::HashMap<ProviderId, ciam_core::federation::ProviderConfig>, String> {
    let callback = lambda.fed.secret().map(|f| f.id);
    for (id, c) in configs.iter_mut() {
        if Some(*id) != callback {
            c.secret.clear();
            continue;
        }
        if let Some(fields) = fetched.clone() {
            c.secret = fields;
        }
        let facts = id.facts();
        if c.secret(facts.secret_field).is_none() {
            return Err(format!(
                "{} is required by {route_id} ({} only in tests and local runs)",
                facts.secret_arn_var(),
                facts.secret_env_var(facts.secret_field)
            ));
        }
    }
    Ok(configs)
}

/// The `bootstrap` init: builds the domain's ports from the settings. The secrets and the KMS
/// public keys are read concurrently, each within a few seconds (and the cn cell's sender
/// secrets, `senders.rs`); DynamoDB, SES, SNS and S3 clients share `sdk`.
pub async fn init(
    route_id: &str,
    mut settings: Settings,
    sdk: aws_config::SdkConfig,
) -> Result<Ready, String> {
    let lambda = facts(ciam_api::ROUTES, ciam_api::PAGES, route_id)?;
    let signer = kms_signers(&sdk, &lambda, &settings);
    let notifier = crate::senders::notifier(&sdk, &lambda, &mut settings);
    let blobs = S3Blobs::from_env(aws_sdk_s3::Client::new(&sdk));
    init_with(
        route_id,
        lambda,
        settings,
        sdk,
        signer,
        notifier,
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
    init_store_and_keys(ciam_api::CEREMONY_ROUTES, route_id, settings, sdk).await
}

/// The init of a binary whose routes use the store and the keys only (`passkeys`, `domains`):
/// the notifier and the blob store are [`Unavailable`] and there is no KMS signer.
pub async fn init_store_and_keys(
    table: &'static [ciam_api::RouteDef],
    route_id: &str,
    settings: Settings,
    sdk: aws_config::SdkConfig,
) -> Result<Ready, String> {
    let lambda = facts(table, &[], route_id)?;
    let no_signer = std::future::ready(Ok::<Signers, String>(Signers::default()));
    init_with(
        route_id,
        lambda,
        settings,
        sdk,
        no_signer,
        std::future::ready(Ok::<Arc<dyn Notifier>, String>(Arc::new(Unavailable))),
        Arc::new(Unavailable),
    )
    .await
}

/// The `webhooks` init (issue 23): the store, the keys of its row and the notifier (an
/// endpoint disabled after days of failures is told to its app's owner: mail only), and for the
/// delivery (`Kms::SignLogout` on its row) the KMS signer of logout tokens, a key of their own
/// (never the id_token key). It serves no page, stores no blob.
pub async fn init_webhooks(
    route_id: &str,
    mut settings: Settings,
    sdk: aws_config::SdkConfig,
) -> Result<Ready, String> {
    let lambda = ciam_api::WEBHOOK_FUNCTIONS
        .iter()
        .find(|f| f.id == route_id)
        .map(|f| f.lambda)
        .ok_or_else(|| format!("no webhook function with id {route_id}"))?;
    // The delivery signs logout tokens (a fresh one at each attempt of a sign-out's notice)
    // with the logout key in KMS.
    let signer = kms_signers(&sdk, &lambda, &settings);
    let notifier = crate::senders::notifier(&sdk, &lambda, &mut settings);
    init_with(
        route_id,
        lambda,
        settings,
        sdk,
        signer,
        notifier,
        Arc::new(Unavailable),
    )
    .await
}

/// The KMS signers of the row's `kms`, loaded when awaited: the id_token key (`Sign`: the
/// current key; `PublicKeys`, `Jwks`: with the previous ones) and the logout key (`SignLogout`;
/// `Jwks`: its public key, published). None where no key is set.
fn kms_signers(
    sdk: &aws_config::SdkConfig,
    lambda: &Lambda,
    settings: &Settings,
) -> impl std::future::Future<Output = Result<Signers, String>> {
    let oidc = settings
        .oidc_kms_key_id
        .clone()
        .filter(|_| matches!(lambda.kms, Kms::Sign | Kms::PublicKeys | Kms::Jwks));
    let previous: Vec<String> = if matches!(lambda.kms, Kms::PublicKeys | Kms::Jwks) {
        settings.oidc_kms_previous_key_ids.clone()
    } else {
        Vec::new()
    };
    let logout = settings
        .logout_kms_key_id
        .clone()
        .filter(|_| matches!(lambda.kms, Kms::SignLogout | Kms::Jwks));
    let client = (oidc.is_some() || logout.is_some()).then(|| aws_sdk_kms::Client::new(sdk));
    async move {
        let load = |var: &'static str, id: Option<String>, previous: Vec<String>| {
            let client = client.clone();
            async move {
                match (client, id) {
                    (Some(client), Some(id)) => {
                        kms::KmsSigner::load_as(var, client, &id, &previous, secrets::TIMEOUT)
                            .await
                            .map(|s| Some(Arc::new(s) as Arc<dyn OidcSigner>))
                    }
                    _ => Ok(None),
                }
            }
        };
        let (oidc, logout) = tokio::try_join!(
            load(kms::KEY_VAR, oidc, previous),
            load(kms::LOGOUT_KEY_VAR, logout, Vec::new()),
        )?;
        Ok(Signers { oidc, logout })
    }
}

/// What both inits share: the secrets (read alongside `signer`), the keys, the store and the
/// configuration.
async fn init_with(
    route_id: &str,
    lambda: Lambda,
    settings: Settings,
    sdk: aws_config::SdkConfig,
    signer: impl Future<Output = Result<Signers, String>>,
    notifier: impl Future<Output = Result<Arc<dyn Notifier>, String>>,
    blobs: Arc<dyn BlobStore>,
) -> Result<Ready, String> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    // Uploads are decoded by the decoding function, never here (this function holds keys), and
    // only the `decoder` binary links the image crates (docs/operations.md §10).
    let images: Arc<dyn ImageDecoder> = match lambda.images {
        Images::Invoke => Arc::new(crate::decoder::LambdaDecoder::from_env(&sdk)?),
        Images::None | Images::Decode => Arc::new(Unavailable),
    };
    let wanted = secrets::Wanted {
        root: settings
            .root_secret_arn
            .as_deref()
            .filter(|_| needs_root(&lambda, &settings)),
        staff: settings
            .staff_secret_arn
            .as_deref()
            .filter(|_| reads_staff_secret(&lambda)),
        origin: settings.origin_secret_arn.as_deref(),
    };
    // The secrets of the row's key purposes, when the template names them: then the root is
    // never read (docs/operations.md §1, "Keys with smaller reach").
    let purpose_arns: BTreeMap<KeyPurpose, String> = lambda
        .keys
        .iter()
        .filter_map(|p| settings.key_secret_arns.get(&p).map(|a| (p, a.clone())))
        .collect();
    let by_purpose = !purpose_arns.is_empty();
    let wanted = secrets::Wanted {
        root: wanted.root.filter(|_| !by_purpose),
        ..wanted
    };
    let sm = aws_sdk_secretsmanager::Client::new(&sdk);
    let port = Arc::new(purpose_keys::SecretsManager(sm.clone()));
    let (fetched, signer, texts, notifier, fed_secret) = tokio::try_join!(
        secrets::fetch(&sm, wanted, secrets::TIMEOUT),
        signer,
        purpose_keys::read_all(port.as_ref(), &purpose_arns, secrets::TIMEOUT),
        notifier,
        federation_secret(&sm, &lambda, &settings),
    )?;
    let keys = if by_purpose {
        purpose_keys::keys_from_secrets(lambda.keys, &texts)?
    } else if needs_root(&lambda, &settings) {
        root_keys(fetched.keys, &settings)?
    } else {
        // Never used: a keyless function must not be able to forge anything either.
        Keys::from_root(ciam_core::random::<32>(&OsEntropy))
    };
    let keys = signer.install(keys);
    let key_secrets = by_purpose.then(|| KeysAtInit {
        source: crate::key_refresh::KeySecrets {
            port: port.clone(),
            arns: purpose_arns.clone(),
            purposes: lambda.keys,
        },
        texts: texts.clone(),
        signers: signer,
    });
    let staff_idp = staff_idp(route_id, &lambda, &settings, fetched.staff_client_secret)?;
    let federation = federation(route_id, &lambda, settings.federation.clone(), fed_secret)?;
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
    if let Some(days) = settings.audit_retention_days {
        config.audit_retention_days = days;
    }
    // A password sign-in's success is counted from the table's stream by the fan-out
    // (`crate::tally`), not on its request: 2 round trips and 3 write units, the account's first
    // sign-in of the day included (docs/cost.md).
    config.numbers_from_stream = true;
    config.client_limits = settings.client_limits;
    config.cell = settings.cell;
    config.other_cell = settings.other_cell;
    config.staff_idp = staff_idp;
    config.federation = federation;
    config.staff_mfa_acr = settings.staff_mfa_acr;
    config.passkey_rp_id = settings.passkey_rp_id;
    config.passkey_origins = settings.passkey_origins;
    // The request answers 503 before Lambda would cut it off at the function's timeout.
    config.request_budget =
        std::time::Duration::from_secs(u64::from(lambda.timeout.saturating_sub(2).max(1)));
    let ciam = Ciam {
        store,
        clock,
        entropy: Arc::new(OsEntropy),
        keys,
        notifier,
        blobs,
        images,
        config,
    };
    Ok(Ready {
        ciam,
        sdk,
        origin: fetched
            .origin_verify
            .zip(settings.origin_secret_arn)
            .map(|(values, arn)| {
                let source = secrets::OriginSecret { client: sm, arn };
                OriginCheck::rotating(values, Arc::new(source), crate::origin::REREAD_WINDOW)
            }),
        lambda,
        key_secrets,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ciam_store::dynamodb::DynamoConfig;

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
