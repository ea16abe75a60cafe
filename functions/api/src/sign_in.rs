//! The sign-in outcome line: one structured log line per request to a sign-in route, with the
//! outcome (`success` or the refusal's reason) and the method, and nothing about who tried (no
//! account, no address): CloudWatch turns it into the `Ciam/SignIn` metric by outcome and method
//! (the metric filter matches `message = "sign-in"`; docs/operations.md).
//!
//! It is a layer on those routes rather than a call in each handler, so that every way a request
//! can end is counted once, a body refused before the handler runs included: the outcome is read
//! from the response, where an error leaves its reason for the error middleware to render.

use crate::error::PendingError;
use crate::AppState;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::MethodRouter;

/// `handler` with the outcome line when the row names a sign-in method (`RouteDef::sign_in`).
/// A route layer, so a request with another HTTP method (405) is no sign-in attempt; it wraps
/// the body limit, so a body refused for its size is counted too.
pub fn logged(
    method: Option<&'static str>,
    handler: MethodRouter<AppState>,
) -> MethodRouter<AppState> {
    match method {
        Some(method) => handler.route_layer(axum::middleware::from_fn(
            move |req: Request, next: Next| outcome(method, req, next),
        )),
        None => handler,
    }
}

/// The outcome of a sign-in answered 503 SERVICE_UNAVAILABLE (metric `Ciam/SignInUnavailable`).
pub const UNAVAILABLE: &str = "unavailable";

async fn outcome(method: &'static str, req: Request, next: Next) -> Response {
    let res = next.run(req).await;
    let outcome = match res.extensions().get::<PendingError>() {
        // A store fault (or any other transient failure) is not a verdict on the person: its
        // own outcome, never the refusal of a secret.
        Some(PendingError(e)) if e.reason == ciam_core::Reason::SERVICE_UNAVAILABLE => UNAVAILABLE,
        Some(PendingError(e)) => e.reason.code(),
        None if res.status().is_success() => "success",
        // Every refusal of this crate carries its reason; a bare failure is the server's.
        None => ciam_core::Reason::INTERNAL_SERVER_ERROR.code(),
    };
    tracing::info!(outcome, method, "sign-in");
    res
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_sign_in_routes_are_the_seven_that_issue_a_session_and_use_the_five_methods() {
        let mut signing_in: Vec<(&str, &str)> = crate::all_routes()
            .filter_map(|r| r.sign_in.map(|m| (r.path, m)))
            .collect();
        signing_in.sort_unstable();
        assert_eq!(
            signing_in,
            [
                ("/auth/login/code", "code"),
                ("/auth/login/passkey", "passkey"),
                ("/auth/login/passkey/mfa", "passkey"),
                ("/auth/login/password", "password"),
                ("/auth/login/staff", "staff"),
                ("/auth/login/totp", "totp"),
                ("/auth/unlockCode", "totp"),
            ]
        );
    }
}
