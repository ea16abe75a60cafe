//! The sign-in outcome line: one structured log line per request to a sign-in route, with the
//! outcome (`success` or the refusal's reason) and the method, and nothing about who tried (no
//! account, no address): CloudWatch turns it into the `Ciam/SignIn` metric by outcome and method
//! (the metric filter matches `message = "sign-in"`; docs/operations.md).
//!
//! It is a layer on those routes rather than a call in each handler, so that every way a request
//! can end is counted once, a body refused before the handler runs included: the outcome is read
//! from the response, where an error leaves its reason for the error middleware to render.
//!
//! The same layer counts the sign-in in the console's numbers (`ciam_core::numbers`): its
//! method and outcome, the lockout it caused, and the account's activity of the day and month
//! (the handler leaves the account on the response, [`signed_in`]). After the answer is decided
//! and inside the request (a Lambda is frozen once it has answered), within its own budget
//! ([`COUNT_BUDGET`]), best effort: a counter that fails never changes the answer. A password
//! sign-in whose session carries its facts for the stream (`SignedIn::counted_later`, AWS)
//! writes nothing here: its request stays at 2 round trips and 3 write units.

use crate::error::PendingError;
use crate::AppState;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::MethodRouter;
use ciam_core::accounts::SignedIn;
use ciam_core::numbers::{self, Method, Outcome, SignIn};
use ciam_core::{Ciam, Message, Reason};
use std::time::Duration;

/// `handler` with the outcome line when the row names a sign-in method (`RouteDef::sign_in`).
/// A route layer, so a request with another HTTP method (405) is no sign-in attempt; it wraps
/// the body limit, so a body refused for its size is counted too.
pub fn logged(
    method: Option<&'static str>,
    handler: MethodRouter<AppState>,
    ciam: &Ciam,
) -> MethodRouter<AppState> {
    match method {
        Some(method) => {
            let ciam = ciam.clone();
            handler.route_layer(axum::middleware::from_fn(
                move |req: Request, next: Next| outcome(method, ciam.clone(), req, next),
            ))
        }
        None => handler,
    }
}

/// The time the numbers' writes of a sign-in may take after its answer (outside the
/// request's own budget, which Lambda's timeout exceeds by 2 s).
pub const COUNT_BUDGET: Duration = Duration::from_secs(1);

/// The account a successful sign-in signed in, left on the response for the numbers, whether
/// its identity had already signed in today (`SignedIn::active_today`), and whether the
/// table's stream counts it (`SignedIn::counted_later`).
#[derive(Clone, Debug)]
pub struct SignedInAs(pub String, pub bool, pub bool);

/// The answer of a successful sign-in: the session as JSON, and the account for the numbers.
pub fn signed_in(s: SignedIn) -> Response {
    use axum::response::IntoResponse;
    let as_ = SignedInAs(s.user_id.clone(), s.active_today, s.counted_later);
    let mut res = axum::Json(s).into_response();
    res.extensions_mut().insert(as_);
    res
}

/// A successful sign-in as a handler's return type: 200 with the session (`SignedIn`, so
/// docs/openapi.json's answer is that type's schema), the account left on the response for
/// the numbers ([`signed_in`]).
pub struct SignInReply(pub SignedIn);

impl axum::response::IntoResponse for SignInReply {
    fn into_response(self) -> Response {
        signed_in(self.0)
    }
}

#[cfg(feature = "openapi")]
impl crate::doc::Outcome for SignInReply {
    fn add(shape: &mut crate::doc::Shape, gens: &mut crate::doc::Generators) {
        shape
            .answers
            .push((200, gens.answer.subschema_for::<SignedIn>()));
    }
}

/// Left on a sign-in's response by its outcome line: the request's `response` line
/// (`middleware`) would repeat it, and each log line is paid for (docs/cost.md).
#[derive(Clone, Copy, Debug)]
pub struct OutcomeLogged;

/// The outcome of a sign-in answered 503 SERVICE_UNAVAILABLE (metric `Ciam/SignInUnavailable`).
pub const UNAVAILABLE: &str = "unavailable";

/// The method of a row every linking provider shares (`RouteDef::sign_in_per_provider`): the
/// line and the numbers name the provider the request noted (`numbers::note_method`: the login
/// code's, the pending identity's), or [`FEDERATION`] when it failed before one was known.
pub const PER_PROVIDER: &str = "*";

/// The method of a shared row's request refused before its provider was known (a malformed
/// body, an unknown provider): logged, not in the console's numbers.
pub const FEDERATION: &str = "federation";

async fn outcome(method: &'static str, ciam: Ciam, req: Request, next: Next) -> Response {
    // The second steps: the authenticator or backup code (`totp`), a passkey as second factor.
    let second_step = method == "totp" || req.uri().path().ends_with("/mfa");
    let started = ciam.now();
    let (mut res, method) = if method == PER_PROVIDER {
        let (res, noted) = numbers::with_noted_method(next.run(req)).await;
        (res, noted.map_or(FEDERATION, Method::name))
    } else {
        (next.run(req).await, method)
    };
    // A step on the way that is no outcome (the phone proof's 202: sign-up comes next).
    if res.status() == axum::http::StatusCode::ACCEPTED {
        return res;
    }
    res.extensions_mut().insert(OutcomeLogged);
    let pending = res.extensions().get::<PendingError>().map(|p| &p.0);
    let outcome = match pending {
        // A store fault (or any other transient failure) is not a verdict on the person: its
        // own outcome, never the refusal of a secret.
        Some(e) if e.reason == Reason::SERVICE_UNAVAILABLE => UNAVAILABLE,
        Some(e) => e.reason.code(),
        None if res.status().is_success() => "success",
        // Every refusal of this crate carries its reason; a bare failure is the server's.
        None => Reason::INTERNAL_SERVER_ERROR.code(),
    };
    tracing::info!(outcome, method, "sign-in");
    let refusal = match pending {
        Some(e) => Some(e.reason),
        None if res.status().is_success() => None,
        None => Some(Reason::INTERNAL_SERVER_ERROR),
    };
    let signed = res.extensions().get::<SignedInAs>();
    let later = refusal.is_none() && signed.is_some_and(|s| s.2);
    let counted = Method::from_name(method)
        .zip(Outcome::of(refusal, second_step))
        .filter(|_| !later);
    let signed = signed.filter(|_| !later);
    let s = SignIn {
        counted,
        locked_now: pending.is_some_and(|e| locked_by_this_request(e, started)),
        user_id: signed.map(|s| s.0.as_str()).filter(|_| refusal.is_none()),
        active_today: signed.is_some_and(|s| s.1),
    };
    if s.counted.is_some() || s.locked_now || s.user_id.is_some() {
        ciam_core::deadline::within(COUNT_BUDGET, numbers::record_sign_in(&ciam, s)).await;
    }
    res
}

/// Whether this refusal is the lock this request wrote, rather than a lock met: the lock answer
/// (`VERIFICATION_ATTEMPT_CODE_LIMIT`, its message the unlock time) with an unlock time a full
/// `LOCK_SECS` after the request began, so the lock was written during it. A proxy (the lock
/// itself is written in `lock::lock_account`): parallel guesses refused by a lock written in the
/// same second count too, so a burst may count a lockout more than once.
fn locked_by_this_request(e: &ciam_core::Error, started: i64) -> bool {
    e.reason == Reason::VERIFICATION_ATTEMPT_CODE_LIMIT
        && matches!(&e.message, Some(Message::Raw(until))
            if until.parse::<i64>().is_ok_and(|t| t >= started + ciam_core::lock::LOCK_SECS))
}

#[cfg(test)]
mod tests {

    #[test]
    fn every_sign_in_method_is_one_the_numbers_count() {
        for r in crate::all_routes() {
            if let Some(m) = r.sign_in.filter(|m| *m != super::PER_PROVIDER) {
                assert!(
                    ciam_core::numbers::Method::from_name(m).is_some(),
                    "{}: {m}",
                    r.path
                );
            }
        }
    }

    #[test]
    fn the_sign_in_routes_are_those_that_issue_a_session() {
        let mut signing_in: Vec<(&str, &str)> = crate::all_routes()
            .filter_map(|r| r.sign_in.map(|m| (r.path, m)))
            .collect();
        signing_in.sort_unstable();
        assert_eq!(
            signing_in,
            [
                ("/auth/federation/phone", "*"),
                ("/auth/login/code", "code"),
                ("/auth/login/federation", "*"),
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
