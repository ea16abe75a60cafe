//! Rotations reach every function (docs/operations.md §1 "Root key rotation"): a function reads
//! its purposes' key secrets at init, and reads them again, without a deploy, a recycle or an
//! alias shift, in two cases:
//!
//! - **A verification miss.** A request the function answers with a refusal (400, 401, 403 or
//!   404: a session, ticket, code, app secret or sealed value it could not find or open under
//!   the keys it holds) makes it read the secrets again, at most once per `miss_window` per
//!   execution environment (concurrent refusals share the one read in flight). When the keys
//!   read differ from those the request was served with, the request is served once more with
//!   the new ones and that answer stands. So an environment started before a rotation accepts
//!   what newer environments already make under the new root, on the first request that meets
//!   it: the aliased functions (`live`, which `recycle` cannot restart) included.
//! - **Before minting under a key that is on its way out.** Keys held longer than `max_age` are
//!   read again before the next request; while a held secret announces the next root
//!   (`nextKey`: the current key is about to be retired) the age allowed is `announced_max_age`.
//!   Nothing marks a key retired to a function that never reads its secret, so a function that
//!   only mints (the password sign-in) relies on this bound: every environment holds the
//!   switched keys within `max_age` of step 2, hours before step 4 may retire the old root.
//!
//! A read that fails keeps the keys held (logged); a secret that does not parse too. The root
//! is never read here, only the purposes' secrets. The request's body is kept (in memory, as
//! Lambda hands it over) so that it can be served twice.

use crate::purpose_keys::{keys_from_secrets, read_all, SecretsPort};
use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use ciam_core::{Ciam, KeyPurpose, Keys, OidcSigner, Purposes};
use http::StatusCode;
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};
use tower::ServiceExt;

/// How long keys are held before the next request reads them again.
pub const MAX_AGE: Duration = Duration::from_secs(15 * 60);
/// The same while a held secret holds `nextKey` (step 1 of a rotation: the switch is near).
pub const ANNOUNCED_MAX_AGE: Duration = Duration::from_secs(30);
/// A refused request reads the secrets again at most once per this window per environment.
pub const MISS_WINDOW: Duration = Duration::from_secs(30);

/// When to read again.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    pub max_age: Duration,
    pub announced_max_age: Duration,
    pub miss_window: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            max_age: MAX_AGE,
            announced_max_age: ANNOUNCED_MAX_AGE,
            miss_window: MISS_WINDOW,
        }
    }
}

/// Where a function's key secrets are read again: the port, the ARNs by purpose, the
/// function's purposes.
#[derive(Clone)]
pub struct KeySecrets {
    pub port: Arc<dyn SecretsPort>,
    pub arns: BTreeMap<KeyPurpose, String>,
    pub purposes: Purposes,
}

/// The KMS signers a function installs on every set of keys it makes: id_tokens' and logout
/// tokens' (each None where its row has none).
#[derive(Clone, Default)]
pub struct Signers {
    pub oidc: Option<Arc<dyn OidcSigner>>,
    pub logout: Option<Arc<dyn OidcSigner>>,
}

impl Signers {
    pub fn install(&self, mut keys: Keys) -> Keys {
        if let Some(s) = &self.oidc {
            keys = keys.with_oidc_signer(s.clone());
        }
        if let Some(s) = &self.logout {
            keys = keys.with_logout_signer(s.clone());
        }
        keys
    }
}

/// Makes the route's router from a `Ciam` (the function's router with its keys).
pub type Build = Arc<dyn Fn(Ciam) -> Option<axum::Router> + Send + Sync>;

/// What the function serves with now.
struct Held {
    texts: BTreeMap<KeyPurpose, String>,
    router: axum::Router,
    read_at: Instant,
    /// Some secret held announces the next root.
    announced: bool,
    generation: u64,
}

struct Inner {
    source: KeySecrets,
    /// Everything but the keys.
    ciam: Ciam,
    signers: Signers,
    build: Build,
    timing: Timing,
    held: RwLock<Arc<Held>>,
    /// When the last read after a miss started; the lock makes concurrent reads share one.
    reading: tokio::sync::Mutex<Option<Instant>>,
}

/// A function's router over keys that follow its secrets. Clones share everything.
#[derive(Clone)]
pub struct Refreshing {
    inner: Arc<Inner>,
}

/// Whether an answer may come from keys that missed a rotation.
fn missed(status: StatusCode) -> bool {
    matches!(status.as_u16(), 400 | 401 | 403 | 404)
}

fn announces(texts: &BTreeMap<KeyPurpose, String>) -> bool {
    texts.values().any(|t| {
        serde_json::from_str::<serde_json::Value>(t)
            .ok()
            .is_some_and(|v| v.get("nextKey").is_some_and(|n| !n.is_null()))
    })
}

impl Refreshing {
    /// Serves with `ciam` (whose keys came from `texts`, read at init) and reads `source`
    /// again as the module says. `signers` are put back on every new set of keys.
    pub fn new(
        source: KeySecrets,
        texts: BTreeMap<KeyPurpose, String>,
        ciam: Ciam,
        signers: Signers,
        build: Build,
        timing: Timing,
    ) -> Option<Refreshing> {
        let router = build(ciam.clone())?;
        let held = Held {
            announced: announces(&texts),
            texts,
            router,
            read_at: Instant::now(),
            generation: 0,
        };
        Some(Refreshing {
            inner: Arc::new(Inner {
                source,
                ciam,
                signers,
                build,
                timing,
                held: RwLock::new(Arc::new(held)),
                reading: tokio::sync::Mutex::new(None),
            }),
        })
    }

    fn held(&self) -> Arc<Held> {
        match self.inner.held.read() {
            Ok(h) => h.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Makes the keys held look `d` older (the drill's stand-in for the hours a rotation's
    /// overlap lasts): the next request reads them again if that passes the allowed age.
    pub fn age_by(&self, d: Duration) {
        let held = self.held();
        self.replace(Held {
            texts: held.texts.clone(),
            router: held.router.clone(),
            read_at: held.read_at.checked_sub(d).unwrap_or(held.read_at),
            announced: held.announced,
            generation: held.generation,
        });
    }

    /// How many times new keys were taken since init (for tests and logs).
    pub fn generation(&self) -> u64 {
        self.held().generation
    }

    /// Reads the secrets and, when they changed, serves with keys made from them.
    async fn read(&self) {
        let s = &self.inner.source;
        let texts = match read_all(s.port.as_ref(), &s.arns, crate::secrets::TIMEOUT).await {
            Ok(t) => t,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the key secrets again: the keys held stay");
                return;
            }
        };
        let held = self.held();
        if texts == held.texts {
            self.replace(Held {
                texts,
                router: held.router.clone(),
                read_at: Instant::now(),
                announced: held.announced,
                generation: held.generation,
            });
            return;
        }
        let keys = match keys_from_secrets(s.purposes, &texts) {
            Ok(k) => k,
            Err(e) => {
                tracing::warn!(error = %e, "the key secrets read again do not parse: the keys held stay");
                return;
            }
        };
        let keys = self.inner.signers.install(keys);
        let ciam = Ciam {
            keys,
            ..self.inner.ciam.clone()
        };
        let Some(router) = (self.inner.build)(ciam) else {
            return;
        };
        tracing::info!("key secrets changed: serving with the keys read again");
        self.replace(Held {
            announced: announces(&texts),
            texts,
            router,
            read_at: Instant::now(),
            generation: held.generation + 1,
        });
    }

    fn replace(&self, held: Held) {
        let mut slot = match self.inner.held.write() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        *slot = Arc::new(held);
    }

    /// The keys to serve a request with: read again first when held too long.
    async fn current(&self) -> Arc<Held> {
        let t = self.inner.timing;
        let too_old = |h: &Held| {
            let limit = if h.announced {
                t.announced_max_age
            } else {
                t.max_age
            };
            h.read_at.elapsed() >= limit
        };
        let held = self.held();
        if !too_old(&held) {
            return held;
        }
        let _one = self.inner.reading.lock().await;
        // Another request may have read them while this one waited.
        if too_old(&self.held()) {
            self.read().await;
            let held = self.held();
            if too_old(&held) {
                // The read failed: try again after a miss window, not on every request.
                let retry_in = t.miss_window.min(t.max_age);
                let age = t.max_age.saturating_sub(retry_in);
                self.replace(Held {
                    texts: held.texts.clone(),
                    router: held.router.clone(),
                    read_at: Instant::now().checked_sub(age).unwrap_or_else(Instant::now),
                    announced: false,
                    generation: held.generation,
                });
            }
        }
        self.held()
    }

    /// After a refusal served with generation `served`: reads again unless a read after a miss
    /// started within the window; whether keys newer than `served` are held now.
    async fn after_miss(&self, served: u64) -> bool {
        {
            let mut last = self.inner.reading.lock().await;
            if self.held().generation != served {
                return true;
            }
            if !last.is_some_and(|t| t.elapsed() < self.inner.timing.miss_window) {
                *last = Some(Instant::now());
                self.read().await;
            }
        }
        self.held().generation != served
    }

    /// Serves one request (the module's two rules).
    pub async fn serve(&self, req: Request) -> Response {
        let held = self.current().await;
        let (parts, body) = req.into_parts();
        let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
            use axum::response::IntoResponse;
            return StatusCode::BAD_REQUEST.into_response();
        };
        let once = Request::from_parts(parts.clone(), Body::from(bytes.clone()));
        let first = match held.router.clone().oneshot(once).await {
            Ok(r) => r,
            Err(never) => match never {},
        };
        if !missed(first.status()) || !self.after_miss(held.generation).await {
            return first;
        }
        let again = Request::from_parts(parts, Body::from(bytes));
        match self.held().router.clone().oneshot(again).await {
            Ok(r) => r,
            Err(never) => match never {},
        }
    }

    /// As an axum router (every path and method goes to [`Refreshing::serve`]).
    pub fn into_router(self) -> axum::Router {
        axum::Router::new().fallback(move |req: Request| {
            let this = self.clone();
            async move { this.serve(req).await }
        })
    }
}

#[cfg(test)]
#[path = "key_refresh_tests.rs"]
mod tests;
