//! Over 500 lines because `ciam serve` is put together in one place (the store, the providers
//! read from the environment, the outbox, the SPA); splitting it is the next change here.
//! The local server: every route of `ciam_api` on one port, the built SPA, the embedded store,
//! and a dev outbox that shows the codes a real deployment would mail or text.

pub mod admin_cli;
pub mod apps_cli;
pub mod audit_cli;
mod blob;
pub mod cell;
pub mod logout_cli;
pub mod mail;
pub mod org_sign_in_cli;
mod outbox;
mod sms;
mod web;
pub mod webhooks;
pub mod webhooks_cli;

pub use blob::FolderBlobs;
pub use outbox::{DevOutbox, OutboxEntry};
pub use sms::{SmsChoice, SmsOptions};
pub use web::IMMUTABLE;

use axum::Router;
use ciam_core::{Ciam, Config, Keys, OsEntropy, SystemClock};
use ciam_store::dynamodb::{DynamoConfig, DynamoStore};
use ciam_store::sqlite::SqliteStore;
use ciam_store::{Clock, Store};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StoreChoice {
    Sqlite,
    Dynamodb,
}

/// Where the accounts live; shared by every `ciam` command that opens the store.
#[derive(Clone, Debug, clap::Args)]
pub struct StoreOptions {
    /// Data folder: the SQLite file, the generated secret key and the avatars.
    #[arg(long, default_value = "./.ciam", env = "CIAM_DATA")]
    pub data: PathBuf,
    #[arg(long, value_enum, default_value = "sqlite", env = "CIAM_STORE")]
    pub store: StoreChoice,
    /// DynamoDB table (with --store dynamodb).
    #[arg(long, default_value = "ciam", env = "CIAM_TABLE")]
    pub table: String,
    /// DynamoDB endpoint, e.g. http://127.0.0.1:8000 for DynamoDB Local.
    #[arg(long, env = "CIAM_DYNAMODB_ENDPOINT")]
    pub endpoint: Option<String>,
}

pub struct ServeOptions {
    pub addr: SocketAddr,
    pub store: StoreOptions,
    pub dev_outbox: bool,
    /// Serve the operator console's routes (`--no-console` turns them off).
    pub console: bool,
    pub web_dist: PathBuf,
    pub internal_domains: Option<Vec<String>>,
    /// Where browsers reach this server; `http://<bound address>` when not given.
    pub public_url: Option<String>,
    /// Passkeys: the RP ID when it is not the public URL's host (`--passkey-rp-id`).
    pub passkey_rp_id: Option<String>,
    /// Passkeys: origins allowed besides the public URL's own (`--passkey-origin`, repeatable).
    pub passkey_origins: Vec<String>,
    /// The OpenID Connect signing-key version (1 or more).
    pub oidc_key_version: u32,
    /// Webhooks under production rules: https only, no loopback (`--webhooks-strict`); by
    /// default `ciam serve` also delivers to http://localhost, 127.0.0.1 and [::1].
    pub webhooks_strict: bool,
    /// The company identity provider for staff sign-in (`--staff-issuer` and the client).
    pub staff_idp: Option<ciam_core::staff::StaffIdp>,
    /// The provider's `acr` values that mean a second factor (`--staff-mfa-acr`).
    pub staff_mfa_acr: Vec<String>,
    /// The federated providers but staff, from `CIAM_<P>_*` as the Lambdas read them
    /// ([`federation_from_env`]): WeChat's app ids, secrets and, for ciam-fakes, its bases.
    pub federation: std::collections::HashMap<
        ciam_core::federation::ProviderId,
        ciam_core::federation::ProviderConfig,
    >,
    /// How long console audit entries are kept, in days (`--audit-retention-days`).
    pub audit_retention_days: u32,
    /// Mail through an SMTP relay (`--mail smtp`), None for the dev outbox.
    pub smtp: Option<ciam_mail::SmtpConfig>,
    /// Where texts go (`--sms`, `--sms-fallback` and the providers' settings).
    pub sms: SmsOptions,
    /// The cn cell's per-client limits (`--client-limits`; `Config::client_limits`).
    pub client_limits: bool,
    /// Which cell this is and where the other is (`--cell`, `--other-cell`).
    pub cell: cell::CellOptions,
}

/// Every provider that signs in through links (`LinkRule::ProvePhone`) whose settings `get`
/// (the environment) has: `CIAM_<P>_<SETTING>`, the bases `CIAM_<P>_<BASE>` and the secret's
/// fields `CIAM_<P>_<FIELD>` (`CIAM_WECHAT_APP_SECRET`), as the Lambda init reads them
/// (`Facts::from_env`). A base must be https, or http on loopback (ciam-fakes).
pub fn federation_from_env(
    get: impl Fn(&str) -> Option<String>,
) -> Result<
    std::collections::HashMap<
        ciam_core::federation::ProviderId,
        ciam_core::federation::ProviderConfig,
    >,
    String,
> {
    let mut out = std::collections::HashMap::new();
    for f in ciam_core::federation::ProviderId::linking().map(|p| p.facts()) {
        let Some(c) = f.from_env(&get, true) else {
            continue;
        };
        for b in f.bases {
            if c.setting(b)
                .is_some_and(|u| !ciam_core::staff::secure_url(u))
            {
                return Err(format!(
                    "{}_{b} must be an https URL (http only on loopback)",
                    f.env
                ));
            }
        }
        if c.secret(f.secret_field).is_none() {
            return Err(format!(
                "{} is required with {}_* (the code exchange needs it)",
                f.secret_env_var(f.secret_field),
                f.env
            ));
        }
        out.insert(f.id, c);
    }
    Ok(out)
}

/// The root secret, generated on first start into the data folder (owner-only permissions).
pub fn load_or_create_keys(data: &Path) -> Result<Keys, String> {
    let path = data.join("secret.key");
    if let Ok(s) = std::fs::read_to_string(&path) {
        return Keys::from_hex(&s)
            .ok_or_else(|| format!("{} is not 64 hex characters", path.display()));
    }
    std::fs::create_dir_all(data).map_err(|e| format!("cannot create {}: {e}", data.display()))?;
    let root = ciam_core::random::<32>(&OsEntropy);
    let hex = hex::encode(root);
    write_private(&path, &hex).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(Keys::from_root(root))
}

#[cfg(unix)]
fn write_private(path: &Path, content: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(content.as_bytes())?;
    f.sync_all()
}

#[cfg(not(unix))]
fn write_private(path: &Path, content: &str) -> std::io::Result<()> {
    std::fs::write(path, content)
}

pub async fn open_store(
    opts: &StoreOptions,
    clock: Arc<dyn Clock>,
) -> Result<Arc<dyn Store>, String> {
    let store: Arc<dyn Store> = match opts.store {
        StoreChoice::Sqlite => Arc::new(
            SqliteStore::open(&opts.data.join("ciam.db"), clock).map_err(|e| e.to_string())?,
        ),
        StoreChoice::Dynamodb => {
            let cfg = DynamoConfig {
                table: opts.table.clone(),
                endpoint: opts.endpoint.clone(),
                region: None,
            };
            Arc::new(
                DynamoStore::connect(cfg, clock)
                    .await
                    .map_err(|e| e.to_string())?,
            )
        }
    };
    store.ensure_schema().await.map_err(|e| e.to_string())?;
    Ok(store)
}

/// `ciam admin grant <mail> [--role viewer|operator|admin]`: the console role (default admin)
/// for the account with that mail, in the same store `ciam serve` would open with these
/// options. Answers the user id.
pub async fn grant_role(
    mail: &str,
    role: ciam_core::console::Role,
    opts: &StoreOptions,
) -> Result<String, String> {
    let ciam = admin_cli::ciam(opts).await?;
    let facts = ciam_core::console::audit::RequestFacts::default();
    ciam_core::console::roles::grant_by_mail(&ciam, &admin_cli::operator(), mail, role, &facts)
        .await
        .map_err(|e| format!("{mail}: {}", e.reason.message(ciam_core::Lang::EnUs)))
}

/// The whole app: API, dev outbox (when on) and the SPA, every answer under the security
/// headers of `infra/security-headers.json` (`response_headers`).
pub fn app(ciam: Ciam, outbox: Option<DevOutbox>, web_dist: &Path) -> Router {
    spa(ciam, outbox, web_dist).layer(axum::middleware::from_fn(response_headers))
}

fn spa(ciam: Ciam, outbox: Option<DevOutbox>, web_dist: &Path) -> Router {
    let page_ciam = ciam.clone();
    let mut app = ciam_api::router(ciam);
    app = match outbox {
        Some(outbox) => app.merge(outbox.router()),
        None => app.route(
            "/ciam/dev/outbox",
            axum::routing::get(|| async { axum::http::StatusCode::NOT_FOUND }),
        ),
    };
    let index = web_dist.join("index.html");
    if index.exists() {
        // The embedded sign-in is `ciam_api::embedded`, the handler its Lambda runs, with the
        // built index.html; the rest is `web::serve`: files (compressed, cached), 404 for a
        // missing file, index.html for the SPA's own routes (/zh-CN/... deep links).
        let mut web: Arc<dyn ciam_core::BlobStore> = Arc::new(FolderBlobs::new(web_dist));
        // With another cell, both read index.html with the cells' tags in its head.
        let tagged = page_ciam.config.other_cell.as_deref().and_then(|other| {
            let built = std::fs::read_to_string(&index).ok()?;
            let html: Arc<str> =
                cell::tagged_index(&built, page_ciam.config.cell, Some(other)).into();
            Some(html)
        });
        if let Some(html) = &tagged {
            web = Arc::new(cell::TaggedIndex {
                inner: web,
                index: html.clone(),
            });
        }
        let files = web::WebFiles::new(web_dist, tagged);
        app.fallback(move |req| web::serve(files, req))
            .layer(axum::middleware::from_fn_with_state(
                (Arc::new(page_ciam), web),
                embedded_page,
            ))
    } else {
        app.fallback(|| async {
            axum::response::Html(
                "<!doctype html><meta charset=utf-8><title>Ciam</title><h1>Ciam API is running</h1>\
                 <p>The web app is not built (npm run build). API: <a href=/ciam/v1/openapi.json>/ciam/v1/openapi.json</a></p>",
            )
        })
    }
}

/// The embedded sign-in's paths go to `ciam_api::embedded::handle` (with the built index.html),
/// the rest on.
async fn embedded_page(
    axum::extract::State((ciam, web)): axum::extract::State<(
        Arc<Ciam>,
        Arc<dyn ciam_core::BlobStore>,
    )>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if ciam_core::apps::is_embedded_signin(req.uri().path()) {
        ciam_api::embedded::handle(&ciam, web.as_ref(), req).await
    } else {
        next.run(req).await
    }
}

/// Every answer (pages, assets, API, errors, the dev outbox) carries the headers of
/// `infra/security-headers.json` (`ciam_api::headers`), the same CloudFront adds in AWS; a
/// handler's own CSP (the avatar images' stricter one, the embedded sign-in's, which names the
/// frame origins of its app: `ciam_api::embedded`) stays, as CloudFront lets it. The CSP's
/// `img-src` also allows loopback http here (`DEV_IMAGE_SOURCES`), and only here.
/// HTML answers also get `Cache-Control: no-cache` (index.html must be revalidated; hashed
/// assets keep theirs).
async fn response_headers(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::http::header::{HeaderValue, CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE};
    let mut res = next.run(req).await;
    let html = res
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("text/html"));
    ciam_api::headers::apply(res.headers_mut(), None);
    // Development only: logos of apps registered on loopback http (CloudFront's policy and the
    // Lambdas' answers, from the same file, have none).
    if let Some(csp) = res.headers().get(CONTENT_SECURITY_POLICY) {
        let dev = ciam_api::headers::with_image_sources(csp, ciam_api::headers::DEV_IMAGE_SOURCES);
        res.headers_mut().insert(CONTENT_SECURITY_POLICY, dev);
    }
    if html {
        res.headers_mut()
            .insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    }
    res
}

/// The passkey settings into `config`. Without them passkeys follow the public URL (and answer
/// 503 PASSKEY_UNAVAILABLE on an IP-literal host such as the default http://127.0.0.1:8080);
/// given, they must fit the public URL, else the start fails (docs/passkeys-design.md §3.6).
pub fn passkey_settings(config: &mut Config, opts: &ServeOptions) -> Result<(), String> {
    let rp_id = opts
        .passkey_rp_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned);
    let origins: Vec<String> = opts
        .passkey_origins
        .iter()
        .map(|o| o.trim().to_owned())
        .filter(|o| !o.is_empty())
        .collect();
    if rp_id.is_some() || !origins.is_empty() {
        ciam_core::passkey::PasskeyConfig::new(
            Some(&config.public_url),
            rp_id.as_deref(),
            &origins,
        )
        .map_err(|e| {
            format!(
                "--passkey-rp-id or --passkey-origin with the public URL {}: {e} (passkeys \
                 need --public-url with a host name, e.g. http://localhost:8080)",
                config.public_url
            )
        })?;
    }
    config.passkey_rp_id = rp_id;
    config.passkey_origins = origins;
    Ok(())
}

pub async fn serve(opts: ServeOptions) -> Result<(), String> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let keys = load_or_create_keys(&opts.store.data)?;
    let store = open_store(&opts.store, clock.clone()).await?;
    let outbox = DevOutbox::default();
    let listener = tokio::net::TcpListener::bind(opts.addr)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", opts.addr))?;
    let local = listener.local_addr().map_err(|e| e.to_string())?;
    let mut config = Config {
        public_url: opts
            .public_url
            .clone()
            .map(|u| u.trim_end_matches('/').to_owned())
            .unwrap_or_else(|| format!("http://{local}")),
        oidc_key_version: opts.oidc_key_version.max(1),
        staff_idp: opts.staff_idp.clone(),
        federation: opts.federation.clone(),
        console: opts.console,
        staff_mfa_acr: opts
            .staff_mfa_acr
            .iter()
            .map(|a| a.trim().to_owned())
            .filter(|a| !a.is_empty())
            .collect(),
        audit_retention_days: opts.audit_retention_days,
        client_limits: opts.client_limits,
        cell: opts.cell.cell.0,
        other_cell: opts.cell.other_cell.clone(),
        ..Config::default()
    };
    passkey_settings(&mut config, &opts)?;
    if let Some(d) = &opts.internal_domains {
        config.internal_domains = d
            .iter()
            .map(|s| s.trim().to_lowercase())
            .filter(|s| !s.is_empty())
            .collect();
    }
    // The webhook worker drains the outbox; the routes' store notices what wakes it.
    let wake = Arc::new(tokio::sync::Notify::new());
    let raw_store = store.clone();
    let store: Arc<dyn Store> = Arc::new(webhooks::NoticingStore::new(store, wake.clone()));
    config.webhooks_local_http = !opts.webhooks_strict;
    let ciam = Ciam {
        store,
        clock,
        entropy: Arc::new(OsEntropy),
        keys,
        // Mail through the SMTP relay when given; texts (and mail otherwise) as `--sms` says.
        notifier: mail::notifier(opts.smtp.clone(), opts.sms.notifier(&outbox)?)?,
        blobs: Arc::new(FolderBlobs::new(opts.store.data.join("avatars"))),
        // Locally the decoding runs in this process (in AWS: a function of its own).
        images: Arc::new(ciam_core::avatar::InProcessDecoder),
        config,
    };
    let app_ciam = ciam.clone();
    webhooks::spawn(
        Ciam {
            store: raw_store,
            ..ciam.clone()
        },
        wake,
    );
    let app = app(
        ciam,
        opts.dev_outbox.then(|| outbox.clone()),
        &opts.web_dist,
    );
    // The registry is the partner-apps issue's; locally a demo app keeps the apps section alive.
    ciam_core::me::seed_demo_app(&app_ciam, &format!("http://{local}/"))
        .await
        .map_err(|e| e.to_string())?;
    println!(
        "ciam: serving http://{local}/ (API at /ciam/v1, store: {:?}, data: {})",
        opts.store.store,
        opts.store.data.display()
    );
    if opts.dev_outbox {
        println!("ciam: dev outbox at http://{local}/ciam/dev/outbox");
    }
    if let Some(smtp) = &opts.smtp {
        println!(
            "ciam: mail through the SMTP relay {}:{} ({:?}), texts as --sms says",
            smtp.host, smtp.port, smtp.tls
        );
    }
    // The peer's address reaches the per-client limits (`--client-limits`).
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown_signal())
    .await
    .map_err(|e| e.to_string())?;
    // Every answered write was committed (SQLite FULL sync) before its answer; nothing to flush.
    println!("ciam: stopped");
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(public_url: &str, rp_id: Option<&str>, origins: &[&str]) -> (Config, ServeOptions) {
        let config = Config {
            public_url: public_url.to_owned(),
            ..Config::default()
        };
        let opts = ServeOptions {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            store: StoreOptions {
                data: PathBuf::from("./.ciam-test"),
                store: StoreChoice::Sqlite,
                table: "ciam".into(),
                endpoint: None,
            },
            dev_outbox: false,
            console: true,
            web_dist: PathBuf::from("web/dist"),
            internal_domains: None,
            public_url: Some(public_url.to_owned()),
            passkey_rp_id: rp_id.map(str::to_owned),
            passkey_origins: origins.iter().map(|o| o.to_string()).collect(),
            oidc_key_version: 1,
            webhooks_strict: false,
            staff_idp: None,
            staff_mfa_acr: Vec::new(),
            federation: Default::default(),
            audit_retention_days: 400,
            smtp: None,
            sms: SmsOptions::default(),
            client_limits: false,
            cell: cell::CellOptions::default(),
        };
        (config, opts)
    }

    #[test]
    fn the_passkey_flags_become_the_config_and_are_checked_against_the_public_url() {
        let (mut config, opts) = options(
            "http://id.example.test:8080",
            Some(" example.test "),
            &["http://app.example.test:3000", " "],
        );
        assert_eq!(passkey_settings(&mut config, &opts), Ok(()));
        assert_eq!(config.passkey_rp_id.as_deref(), Some("example.test"));
        assert_eq!(config.passkey_origins, ["http://app.example.test:3000"]);

        // No flags: nothing to check, passkeys follow the public URL (even an IP one: they
        // answer 503 PASSKEY_UNAVAILABLE then).
        let (mut config, opts) = options("http://127.0.0.1:8080", None, &[]);
        assert_eq!(passkey_settings(&mut config, &opts), Ok(()));
        assert_eq!(config.passkey_rp_id, None);
        assert!(config.passkey_origins.is_empty());

        let (mut config, opts) = options("http://127.0.0.1:8080", Some("localhost"), &[]);
        let e = passkey_settings(&mut config, &opts).unwrap_err();
        assert!(e.contains("--public-url"), "{e}");
    }

    /// `ciam serve` reads Feishu (Lark's region) from `CIAM_FEISHU_*` as the Lambda init does:
    /// the settings, the bases for ciam-fakes and the secret; without the secret, or with a base
    /// that is plain http off loopback, it refuses to start, naming the variable.
    #[test]
    fn feishu_comes_from_its_environment_variables() {
        use ciam_core::federation::ProviderId;
        let env = |extra: &[(&'static str, &'static str)]| {
            let mut vars: std::collections::HashMap<&str, &str> = [
                ("CIAM_FEISHU_APP_ID", "cli_fakefeishu00001"),
                ("CIAM_FEISHU_REGION", "lark"),
                ("CIAM_FEISHU_ACCOUNTS_BASE", "http://127.0.0.1:7800/lark"),
                ("CIAM_FEISHU_OPEN_BASE", "http://127.0.0.1:7800/lark"),
                ("CIAM_FEISHU_APP_SECRET", "fake-feishu-app-secret"),
            ]
            .into();
            vars.extend(extra.iter().copied());
            move |k: &str| {
                vars.get(k)
                    .filter(|v| !v.is_empty())
                    .map(|v| (*v).to_owned())
            }
        };
        let got = federation_from_env(env(&[])).unwrap();
        let feishu = &got[&ProviderId::Feishu];
        assert_eq!(feishu.setting("REGION"), Some("lark"));
        assert_eq!(
            feishu.setting("OPEN_BASE"),
            Some("http://127.0.0.1:7800/lark")
        );
        assert_eq!(feishu.secret("appSecret"), Some("fake-feishu-app-secret"));
        let e = federation_from_env(env(&[("CIAM_FEISHU_APP_SECRET", "")])).unwrap_err();
        assert!(e.contains("CIAM_FEISHU_APP_SECRET"), "{e}");
        let plain = [("CIAM_FEISHU_OPEN_BASE", "http://open.feishu.cn")];
        let e = federation_from_env(env(&plain)).unwrap_err();
        assert!(e.contains("CIAM_FEISHU_OPEN_BASE"), "{e}");
    }
}
