//! The round trip of a federated sign-in, for whichever provider the row names
//! (`extract::RowProvider`; these handlers never name one): the browser leaves from `start`,
//! the provider sends it back to `callback`. Every answer is a redirect to the SPA's sign-in
//! screen, with `<provider>Code` on success and `<provider>Error=<REASON>` otherwise; never a
//! token in a URL. Each operation's published prose is its provider's (`staff.rs` for staff).

use crate::extract::{Lang, RowProvider};
use crate::federation::adapter;
use crate::AppState;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use ciam_core::federation::{self, ProviderId, Surface};
use ciam_core::staff;
use ciam_core::{Error, Reason};
use serde::Deserialize;

fn redirect(to: String) -> Response {
    (
        StatusCode::FOUND,
        [
            (header::LOCATION, to),
            (header::CACHE_CONTROL, "no-store".to_owned()),
            (header::REFERRER_POLICY, "no-referrer".to_owned()),
        ],
    )
        .into_response()
}

fn refused(p: ProviderId, lang: ciam_core::Lang, reason: &str, query: &str) -> Response {
    let param = format!("{}Error", p.name());
    redirect(staff::signin_url(lang, &param, reason, query))
}

/// Logs why the sign-in stopped, then goes back to sign-in with `<provider>Error=<REASON>`.
fn failed(p: ProviderId, lang: ciam_core::Lang, e: &Error, query: &str) -> Response {
    let cause = e.cause.as_deref().unwrap_or("");
    if e.reason.status() >= 500 {
        tracing::error!(provider = p.name(), reason = %e.reason, cause, "federated sign-in failed");
    } else {
        tracing::info!(provider = p.name(), reason = %e.reason, cause, "federated sign-in refused");
    }
    refused(p, lang, e.reason.code(), query)
}

#[derive(Deserialize)]
pub struct StartQuery {
    lang: Option<String>,
    /// The SPA's query to return to (e.g. `appId=…&serviceUrl=…`), URL-encoded once.
    query: Option<String>,
    /// `base64url(SHA-256(bind))` of the browser's random `bind` (required).
    #[serde(rename = "bindHash")]
    bind_hash: Option<String>,
}

/// Leaves for the row's provider: stores the state and redirects to the provider's
/// authorization URL. Not configured (or no public URL to come back to):
/// `<provider>Error=UNAVAILABLE`. Round trips: 1 (the state), plus the provider's `ready`.
pub async fn start(
    State(s): State<AppState>,
    RowProvider(p): RowProvider,
    Lang(req_lang): Lang,
    headers: HeaderMap,
    q: Result<Query<StartQuery>, QueryRejection>,
) -> Response {
    let (lang, query, bind_hash) = match q {
        Ok(Query(q)) => (
            q.lang
                .as_deref()
                .and_then(ciam_core::Lang::parse_tag)
                .unwrap_or(req_lang),
            staff::return_query(q.query.as_deref().unwrap_or("")),
            q.bind_hash.unwrap_or_default(),
        ),
        Err(_) => (req_lang, String::new(), String::new()),
    };
    let provider = adapter(p);
    // Without a public URL (CIAM_PUBLIC_URL unset on AWS) there is no callback to register.
    if !provider.configured(&s.ciam) || s.ciam.config.public_url.is_empty() {
        return refused(p, lang, "UNAVAILABLE", &query);
    }
    let ua = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let at = federation::authorization_request(
        &s.ciam,
        provider,
        lang,
        &query,
        &bind_hash,
        Surface::of(ua),
    );
    match at.await {
        Ok(url) => redirect(url),
        Err(e) => failed(p, lang, &e, &query),
    }
}

#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    /// RFC 9207: the issuer of the answer, when the provider sends it.
    iss: Option<String>,
}

/// Back from the row's provider: consumes the state (single use), reads the provider's answer
/// into an identity, reaches the account and redirects with a one-time login code bound to the
/// state's bindHash. Round trips: 2 (state read and delete), the link rule's, 1 (the login
/// code); plus the provider's calls.
pub async fn callback(
    State(s): State<AppState>,
    RowProvider(p): RowProvider,
    Lang(req_lang): Lang,
    q: Result<Query<CallbackQuery>, QueryRejection>,
) -> Response {
    let Ok(Query(q)) = q else {
        return refused(p, req_lang, Reason::AUTHORIZATION_FAILED.code(), "");
    };
    let state = q.state.as_deref().unwrap_or("");
    let pending = match federation::take_state(&s.ciam, p, state).await {
        Ok(pending) => pending,
        Err(e) => return failed(p, req_lang, &e, ""),
    };
    let cb = federation::Callback {
        code: q.code,
        error: q.error,
        iss: q.iss,
    };
    match federation::finish(&s.ciam, adapter(p), &pending, cb).await {
        Ok(code) => redirect(staff::signin_url(
            pending.lang,
            &format!("{}Code", p.name()),
            &code,
            &pending.query,
        )),
        Err(e) => failed(p, pending.lang, &e, &pending.query),
    }
}
