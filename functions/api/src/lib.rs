//! Ciam's HTTP layer: the route table (`routes::ROUTES`, one row per /ciam/v1 route) and the
//! handlers in files named for what they do (request type, response type, handler), the
//! bearer-session extractors, the error body and X-Request-ID. The same router serves the local
//! `ciam` binary (all routes) and each Lambda (one route); the embedded sign-in page
//! (`embedded`) is one handler for both too.

#[cfg(feature = "openapi")]
pub mod doc;
mod error;
mod extract;
mod federation;
pub mod headers;
mod middleware;
pub mod openapi;
pub mod reply;
pub mod route;
pub mod routes;
mod sign_in;
pub mod waf;
pub mod webhook_transport;

pub use error::{body as error_body, ApiError, ErrorBody, RETRY_AFTER_SECS};
pub use federation::{dingtalk, feishu, https_put, wechat, wecom};
pub use route::{
    Auth, Binary, Body, Fed, Images, InternalDef, Kms, Lambda, PageDef, RouteDef, Table, Throttle,
    Waf, BODY_LIMIT, CLIENT_ERROR_LIMIT, S3,
};
pub use routes::{
    all_routes, app_change, embedded, CEREMONY_ROUTES, DOMAIN_ROUTES, EMBEDDED_PAGE, IMAGE_DECODER,
    INTERNAL, PAGES, RELEASE, ROUTES, WEBHOOK_DELIVERY, WEBHOOK_FANOUT, WEBHOOK_FUNCTIONS,
};

use axum::Router;
use ciam_core::Ciam;

pub const BASE: &str = "/ciam/v1";

#[derive(Clone)]
pub struct AppState {
    pub ciam: Ciam,
}

/// Every route under `/ciam/v1` (both tables), with the request-id and fallback layers, and
/// each route's body limit, sign-in outcome line, key purposes and auth (the console's role) from
/// its row.
pub fn router(ciam: Ciam) -> Router {
    let console = ciam.config.console;
    let routes = all_routes().filter(move |r| console || !matches!(r.auth, Auth::Console(_)));
    #[cfg(feature = "fakes")]
    let routes = routes.chain(routes::MOCK_ROUTES);
    build(ciam, routes)
}

/// Only the route `id` of `table` (a Lambda serves one route of its binary's table: `ROUTES`
/// for `bootstrap`, `CEREMONY_ROUTES` for `passkeys`). None for an id not in `table`.
pub fn router_for(table: &'static [RouteDef], id: &str, ciam: Ciam) -> Option<Router> {
    table
        .iter()
        .any(|r| r.id == id)
        .then(|| build(ciam, table.iter().filter(|r| r.id == id)))
}

fn build<'a>(mut ciam: Ciam, defs: impl Iterator<Item = &'a RouteDef>) -> Router {
    // Every store call of a request is bounded by the request's deadline (`middleware::deadline`).
    ciam.store = ciam_core::deadline::guard(ciam.store);
    let budget = ciam.config.request_budget;
    let mut api = Router::new();
    for def in defs {
        let body = def.body;
        let route = def.id;
        let auth = extract::RowAuth(def.auth);
        let provider = def.lambda.fed.provider().map(extract::RowProvider);
        // The route's handler sees only the keys of its row's purposes (ciam_core::KeyPurpose).
        let state = AppState {
            ciam: Ciam {
                keys: ciam.keys.clone().restricted(def.purposes()),
                ..ciam.clone()
            },
        };
        let mut handler = (def.handler)().route_layer(axum::middleware::from_fn(
            move |req: axum::extract::Request, next: axum::middleware::Next| {
                middleware::limit_body(body, req, next)
            },
        ));
        // The cn cell's per-client limits (no web ACL there): within the deadline, before the
        // body is read.
        if ciam.config.client_limits {
            let rules: std::sync::Arc<[_]> = def.lambda.waf.client_limits().into();
            let counter = state.ciam.clone();
            handler = handler.route_layer(axum::middleware::from_fn(
                move |req: axum::extract::Request, next: axum::middleware::Next| {
                    middleware::client_limits(counter.clone(), rules.clone(), req, next)
                },
            ));
        }
        // The row's federated sign-in provider, for the generic handlers (`extract::RowProvider`).
        if let Some(provider) = provider {
            handler = handler.route_layer(axum::Extension(provider));
        }
        let handler = handler
            .route_layer(axum::middleware::from_fn(
                move |req: axum::extract::Request, next: axum::middleware::Next| {
                    middleware::deadline(budget, req, next)
                },
            ))
            .route_layer(axum::middleware::from_fn(
                move |req: axum::extract::Request, next: axum::middleware::Next| {
                    middleware::declared_keys(route, req, next)
                },
            ))
            // The row's auth, for the console's gate (`extract::Op`).
            .route_layer(axum::Extension(auth))
            .with_state(state);
        api = api.route(def.path, sign_in::logged(def.sign_in, handler, &ciam));
    }
    let api = api.fallback(error::not_found).with_state(AppState { ciam });
    middleware::wrap(Router::new().nest(BASE, api))
}
