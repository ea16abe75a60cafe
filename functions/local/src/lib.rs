//! The local server: every route of `ciam_api` on one port, the built SPA, the embedded store,
//! and a dev outbox that shows the codes a real deployment would mail or text.

mod blob;
mod outbox;

pub use blob::FolderBlobs;
pub use outbox::{DevOutbox, OutboxEntry};

use axum::Router;
use ciam_core::{Ciam, Config, Keys, OsEntropy, SystemClock};
use ciam_store::dynamodb::{DynamoConfig, DynamoStore};
use ciam_store::sqlite::SqliteStore;
use ciam_store::{Clock, Store};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_http::services::{ServeDir, ServeFile};

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
    pub web_dist: PathBuf,
    pub internal_domains: Option<Vec<String>>,
    /// Where browsers reach this server; `http://<bound address>` when not given.
    pub public_url: Option<String>,
    /// The OpenID Connect signing-key version (1 or more).
    pub oidc_key_version: u32,
    /// The company identity provider for staff sign-in (`--staff-issuer` and the client).
    pub staff_idp: Option<ciam_core::staff::StaffIdp>,
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

/// `ciam admin grant <mail>`: the admin role for the account with that mail, in the same store
/// `ciam serve` would open with these options. Answers the user id.
pub async fn grant_admin(mail: &str, opts: &StoreOptions) -> Result<String, String> {
    if opts.store == StoreChoice::Sqlite {
        std::fs::create_dir_all(&opts.data)
            .map_err(|e| format!("cannot create {}: {e}", opts.data.display()))?;
    }
    let store = open_store(opts, Arc::new(SystemClock)).await?;
    ciam_core::apps::grant_admin(store.as_ref(), mail)
        .await
        .map_err(|e| format!("{mail}: {}", e.reason.message(ciam_core::Lang::EnUs)))
}

/// The whole app: API, dev outbox (when on) and the SPA, every answer under the security
/// headers of `infra/security-headers.json` (`response_headers`).
pub fn app(ciam: Ciam, outbox: Option<DevOutbox>, web_dist: &Path) -> Router {
    let policy_ciam = ciam.clone();
    spa(ciam, outbox, web_dist).layer(axum::middleware::from_fn_with_state(
        policy_ciam,
        response_headers,
    ))
}

fn spa(ciam: Ciam, outbox: Option<DevOutbox>, web_dist: &Path) -> Router {
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
        // Unknown paths get index.html, so the SPA's own router handles /zh-CN/... deep links.
        app.fallback_service(ServeDir::new(web_dist).fallback(ServeFile::new(index)))
    } else {
        app.fallback(|| async {
            axum::response::Html(
                "<!doctype html><meta charset=utf-8><title>Ciam</title><h1>Ciam API is running</h1>\
                 <p>The web app is not built (npm run build). API: <a href=/ciam/v1/openapi.json>/ciam/v1/openapi.json</a></p>",
            )
        })
    }
}

/// The `appId` and `serviceUrl` of the embedded sign-in's query, decoded as the browser's
/// URLSearchParams decodes them (the page's own code reads them that way).
fn frame_params(query: Option<&str>) -> Option<(String, String)> {
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query?.as_bytes())
        .into_owned()
        .collect();
    let get = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    Some((get("appId")?, get("serviceUrl").unwrap_or_default()))
}

/// Every answer (pages, assets, API, errors, the dev outbox) carries the headers of
/// `infra/security-headers.json` (`ciam_api::headers`), the same CloudFront adds in AWS; a
/// handler's own CSP (the avatar images' stricter one) stays, as CloudFront lets it. The
/// embedded sign-in's CSP instead names, in `frame-ancestors`, the frame origins registered for
/// its `appId` when its `serviceUrl` is one the app registered (`apps::frame_ancestors`, read per
/// request); a failed lookup keeps 'none', so the page is never framable by mistake. Its
/// X-Frame-Options DENY stays: browsers that know `frame-ancestors` ignore it (checked in
/// Chromium by web/tests/e2e/embedded.test.mjs), older ones refuse the frame.
/// HTML answers also get `Cache-Control: no-cache` (index.html must be revalidated; hashed
/// assets keep theirs).
async fn response_headers(
    axum::extract::State(ciam): axum::extract::State<Ciam>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::http::header::{HeaderValue, CACHE_CONTROL, CONTENT_TYPE};
    let embedded = req.method() == axum::http::Method::GET
        && ciam_core::apps::is_embedded_signin(req.uri().path());
    let app = embedded.then(|| frame_params(req.uri().query())).flatten();
    let mut res = next.run(req).await;
    let html = res
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("text/html"));
    let ancestors = match (embedded && html, app) {
        (true, Some((id, service))) => Some(
            ciam_core::apps::frame_ancestors(&ciam, &id, &service)
                .await
                .unwrap_or_else(|e| {
                    tracing::warn!(reason = ?e.reason, "frame-ancestors lookup failed");
                    ciam_core::apps::NO_FRAMING.to_owned()
                }),
        ),
        _ => None,
    };
    ciam_api::headers::apply(res.headers_mut(), ancestors.as_deref());
    if html {
        res.headers_mut()
            .insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    }
    res
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
        ..Config::default()
    };
    if let Some(d) = &opts.internal_domains {
        config.internal_domains = d
            .iter()
            .map(|s| s.trim().to_lowercase())
            .filter(|s| !s.is_empty())
            .collect();
    }
    let ciam = Ciam {
        store,
        clock,
        entropy: Arc::new(OsEntropy),
        keys,
        notifier: Arc::new(outbox.clone()),
        blobs: Arc::new(FolderBlobs::new(opts.store.data.join("avatars"))),
        config,
    };
    let app_ciam = ciam.clone();
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
    axum::serve(listener, app)
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
