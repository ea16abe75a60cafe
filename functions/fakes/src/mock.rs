//! A made-up platform for Ciam's test-only `mock` provider (`ciam_core::federation::
//! ProviderId::Mock`): the smallest authorization code protocol, so the generic parts of
//! federated sign-in (pending identities, the phone proof, links, the login code) are tested
//! without WeChat. Not any real platform's protocol.
//!
//! - `GET /authorize?client_id=ciam&redirect_uri&state`: the next person approves; back to
//!   `redirect_uri` with `code` and `state` (declined: `error=access_denied` and `state`);
//! - `POST /token` (form `client_id`, `client_secret`, `code`): `{sub, name}` once per code
//!   (5 minutes); an unknown, used or expired code is 400 `{"error": "invalid_grant"}`, a wrong
//!   client 401 `{"error": "invalid_client"}`.
//!
//! The subject is the person's `unionid` (`/_control/next-user {"unionid": ...}`), the name its
//! `nickname`; the control API is the shared one (`down`, `slow`, `clock`, `calls`).

use crate::common::{finish, page, redirect_back, CodeError, Shared, State as FakeState};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;
use std::collections::HashMap;

pub const CLIENT_ID: &str = "ciam";
pub const CLIENT_SECRET: &str = "mock-secret";
pub const CODE_TTL: u64 = 300;

/// The mock platform with its own state (its person, codes and clock), accepting redirects to
/// the default loopback domains.
pub fn router() -> Router {
    let domains: Vec<String> = crate::DEFAULT_DOMAINS
        .iter()
        .map(|d| (*d).to_owned())
        .collect();
    let protocol = Router::new()
        .route("/authorize", get(authorize))
        .route("/token", post(token));
    finish(protocol, FakeState::new(&domains))
}

async fn authorize(State(s): State<Shared>, Query(q): Query<HashMap<String, String>>) -> Response {
    let arg = |k: &str| q.get(k).map(String::as_str).unwrap_or("");
    if arg("client_id") != CLIENT_ID {
        return page(StatusCode::BAD_REQUEST, "unknown client_id");
    }
    let redirect_uri = arg("redirect_uri");
    if !s.domain_ok(redirect_uri) {
        return page(StatusCode::BAD_REQUEST, "redirect_uri not registered");
    }
    let state = arg("state");
    if s.person().decline {
        return redirect_back(
            redirect_uri,
            &[("error", "access_denied"), ("state", state)],
        );
    }
    let code = s.issue_grant(CLIENT_ID, "", redirect_uri, None);
    redirect_back(redirect_uri, &[("code", &code), ("state", state)])
}

fn refuse(status: StatusCode, error: &str) -> Response {
    (status, Json(json!({ "error": error }))).into_response()
}

async fn token(State(s): State<Shared>, body: String) -> Response {
    let f: HashMap<String, String> = url::form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect();
    let arg = |k: &str| f.get(k).map(String::as_str).unwrap_or("");
    if arg("client_id") != CLIENT_ID || arg("client_secret") != CLIENT_SECRET {
        return refuse(StatusCode::UNAUTHORIZED, "invalid_client");
    }
    match s.take_grant(arg("code"), CODE_TTL) {
        Ok(g) => {
            Json(json!({ "sub": g.person.unionid, "name": g.person.nickname })).into_response()
        }
        Err(CodeError::Unknown | CodeError::Used | CodeError::Expired) => {
            refuse(StatusCode::BAD_REQUEST, "invalid_grant")
        }
    }
}
