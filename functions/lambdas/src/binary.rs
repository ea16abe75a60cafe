//! The two Lambda binaries ([`Bootstrap`], [`Passkeys`]): the route table each serves, how it
//! initialises and how it serves a route; and the entry both share ([`run_from_env`]).

use crate::init::{self, Ready};
use crate::{origin, page, setup, OriginCheck, Settings};
use ciam_api::{PageDef, RouteDef};
use ciam_core::Ciam;
use std::future::Future;
use tracing::Instrument;

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
    /// Builds the function's `Ciam` (see [`init::init`] and [`init::init_passkeys`]).
    fn init(
        route_id: &str,
        settings: Settings,
        sdk: aws_config::SdkConfig,
    ) -> impl Future<Output = Result<Ready, String>>;
    /// Serves `route_id` until the Lambda environment is shut down: by default a route of
    /// [`Binary::ROUTES`] with the ports `ready` holds (only [`Bootstrap`] also serves a page).
    fn serve(
        route_id: &'static str,
        ready: Ready,
    ) -> impl Future<Output = Result<(), lambda_http::Error>> {
        serve_route(
            Self::ROUTES,
            route_id,
            ready.ciam,
            ready.origin,
            ready.key_secrets,
        )
    }
}

/// Every function but the WebAuthn ceremonies: `ciam_api::ROUTES` and the embedded page, with
/// the AWS adapters (SES and SNS, S3, the KMS signer of the OpenID Connect routes).
pub struct Bootstrap;

impl Binary for Bootstrap {
    const NAME: &'static str = ciam_api::Binary::Bootstrap.name();
    const ROUTES: &'static [RouteDef] = ciam_api::ROUTES;
    const TABLE: &'static str = "ciam_api::ROUTES";
    const PAGES: &'static [PageDef] = ciam_api::PAGES;

    async fn init(
        route_id: &str,
        settings: Settings,
        sdk: aws_config::SdkConfig,
    ) -> Result<Ready, String> {
        init::init(route_id, settings, sdk).await
    }

    async fn serve(route_id: &'static str, ready: Ready) -> Result<(), lambda_http::Error> {
        let Ready {
            ciam,
            sdk,
            origin,
            key_secrets,
            ..
        } = ready;
        // The one page outside /ciam/v1: the embedded sign-in with its per-app frame policy.
        if route_id == page::EMBEDDED_PAGE {
            return page::run(ciam, &sdk, origin)
                .instrument(tracing::info_span!("lambda", route = route_id))
                .await;
        }
        serve_route(Self::ROUTES, route_id, ciam, origin, key_secrets).await
    }
}

/// The WebAuthn ceremonies (`ciam_api::CEREMONY_ROUTES`), the only code that links the
/// relying-party crate. They need the store and the keys only: the other ports are
/// [`crate::Unavailable`], so this binary links no S3, SES, SNS or KMS client.
pub struct Passkeys;

impl Binary for Passkeys {
    const NAME: &'static str = ciam_api::Binary::Passkeys.name();
    const ROUTES: &'static [RouteDef] = ciam_api::CEREMONY_ROUTES;
    const TABLE: &'static str = "ciam_api::CEREMONY_ROUTES";
    const PAGES: &'static [PageDef] = &[];

    async fn init(
        route_id: &str,
        settings: Settings,
        sdk: aws_config::SdkConfig,
    ) -> Result<Ready, String> {
        init::init_passkeys(route_id, settings, sdk).await
    }
}

/// The verification of a domain (`ciam_api::DOMAIN_ROUTES`), the only code that links the DNS
/// resolver (docs/organizations-domains.md §1.1). It needs the store and the keys only (a `mail`
/// claim's code is judged here, never sent): the other ports are [`crate::Unavailable`].
pub struct Domains;

impl Binary for Domains {
    const NAME: &'static str = ciam_api::Binary::Domains.name();
    const ROUTES: &'static [RouteDef] = ciam_api::DOMAIN_ROUTES;
    const TABLE: &'static str = "ciam_api::DOMAIN_ROUTES";
    const PAGES: &'static [PageDef] = &[];

    async fn init(
        route_id: &str,
        settings: Settings,
        sdk: aws_config::SdkConfig,
    ) -> Result<Ready, String> {
        init::init_store_and_keys(ciam_api::DOMAIN_ROUTES, route_id, settings, sdk).await
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
    // The key distributor is a function of `bootstrap` with no HTTP route (distributor.rs).
    if B::NAME == Bootstrap::NAME && value.as_deref() == Some(crate::distributor::DISTRIBUTOR) {
        setup::init_tracing();
        return crate::distributor::run().await;
    }
    match route_id(B::ROUTES, B::PAGES, B::TABLE, value.as_deref()) {
        Ok(id) => run::<B>(id).await,
        Err(e) => {
            setup::init_tracing();
            tracing::error!(binary = B::NAME, error = %e, "init failed");
            Err(e.into())
        }
    }
}

/// Initialises and serves the route `route_id` of `B` until the Lambda environment is shut
/// down.
pub async fn run<B: Binary>(route_id: &'static str) -> Result<(), lambda_http::Error> {
    setup::init_tracing();
    let ready = match Settings::from_env() {
        Ok(settings) => B::init(route_id, settings, setup::load_sdk().await).await,
        Err(e) => Err(e),
    };
    let ready = match ready {
        Ok(ready) => ready,
        Err(e) => {
            tracing::error!(route = route_id, error = %e, "init failed");
            return Err(e.into());
        }
    };
    if ready.lambda.table != ciam_api::Table::None {
        // In the route's span like every request line: most functions share one log group.
        init::warm_up(&ready.ciam)
            .instrument(tracing::info_span!("lambda", route = route_id))
            .await;
    }
    B::serve(route_id, ready).await
}

/// Serves the route `route_id` of `table` over `lambda_http`; with key secrets, over keys that
/// follow them (`key_refresh`: rotations reach an environment started before them).
async fn serve_route(
    table: &'static [RouteDef],
    route_id: &'static str,
    ciam: Ciam,
    origin: Option<OriginCheck>,
    key_secrets: Option<crate::init::KeysAtInit>,
) -> Result<(), lambda_http::Error> {
    // The cn cell's limits and the audit log see the viewer CloudFront saw (`viewer.rs`).
    let build: crate::key_refresh::Build = std::sync::Arc::new(move |ciam| {
        ciam_api::router_for(table, route_id, ciam).map(crate::viewer::layer)
    });
    let router = match key_secrets {
        Some(k) => crate::key_refresh::Refreshing::new(
            k.source,
            k.texts,
            ciam,
            k.signers,
            build,
            crate::key_refresh::Timing::default(),
        )
        .map(crate::key_refresh::Refreshing::into_router),
        None => build(ciam),
    };
    let Some(router) = router else {
        let e = format!("no route with id {route_id}");
        tracing::error!(route = route_id, error = %e, "init failed");
        return Err(e.into());
    };
    // Every log line names its route, so lines stay attributable wherever they are gathered.
    lambda_http::run(origin::guard(router, origin))
        .instrument(tracing::info_span!("lambda", route = route_id))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::init::lambda_of;

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

    #[test]
    fn a_function_finds_its_facts_in_its_own_table_only() {
        let page = lambda_of(Bootstrap::ROUTES, Bootstrap::PAGES, page::EMBEDDED_PAGE);
        assert_eq!(page.map(|l| l.table), Some(ciam_api::Table::GetItem));
        let options = "auth_login_passkey_options";
        assert!(lambda_of(Bootstrap::ROUTES, Bootstrap::PAGES, options).is_none());
        let facts = lambda_of(Passkeys::ROUTES, Passkeys::PAGES, options);
        assert_eq!(facts.map(|l| l.table), Some(ciam_api::Table::None));
    }
}
