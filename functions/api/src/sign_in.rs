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

/// The sign-in method of a route, if it is a sign-in route. The backup-code second step
/// (`POST /auth/unlockCode`) counts with the authenticator's as `totp`: both finish the
/// two-factor step, and their reasons tell them apart. The OpenID Connect token route is not a
/// sign-in (a partner redeems a code there).
pub fn method_of(route_id: &str) -> Option<&'static str> {
    match route_id {
        "auth_login_password" => Some("password"),
        "auth_login_code" => Some("code"),
        "auth_login_totp" | "auth_unlock_code" => Some("totp"),
        "auth_login_staff" => Some("staff"),
        "auth_login_passkey" | "auth_login_passkey_mfa" => Some("passkey"),
        _ => None,
    }
}

/// `handler` with the outcome line when `route_id` is a sign-in route. A route layer, so a
/// request with another HTTP method (405) is no sign-in attempt.
pub fn logged(route_id: &str, handler: MethodRouter<AppState>) -> MethodRouter<AppState> {
    match method_of(route_id) {
        Some(method) => handler.route_layer(axum::middleware::from_fn(
            move |req: Request, next: Next| outcome(method, req, next),
        )),
        None => handler,
    }
}

async fn outcome(method: &'static str, req: Request, next: Next) -> Response {
    let res = next.run(req).await;
    let outcome = match res.extensions().get::<PendingError>() {
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
    use super::*;

    #[test]
    fn the_sign_in_routes_are_the_seven_that_issue_a_session_and_use_the_five_methods() {
        let mut signing_in: Vec<(&str, &str)> = crate::all_routes()
            .filter_map(|r| method_of(r.id).map(|m| (r.path, m)))
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
