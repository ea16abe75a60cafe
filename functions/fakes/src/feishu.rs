//! Feishu (飞书) and Lark: `accounts.feishu.cn/open-apis/authen/v1/authorize` (code 5 minutes,
//! single use), `open.feishu.cn/open-apis/authen/v2/oauth/token` (RFC 6749 shape; 20010 when
//! the person is outside the app's availability: open.feishu.cn get-user-access-token), the v3
//! `accounts.feishu.cn/oauth/v3/token` (same body; PKCE enforced: a verifier without a
//! challenge is refused) and `open-apis/authen/v1/user_info` with a Bearer token. Lark's hosts
//! are the same fake under a second prefix (`/lark`). Codes other than 20010 are
//! [UNVERIFIED]: the constants below (docs/federation-design.md §3.4).

use crate::common::{finish, page, redirect_back, CodeError, Shared, TokenError, TokenKind};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine;
use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

pub const APP_ID: &str = "cli_fakefeishu00001";
pub const APP_SECRET: &str = "fake-feishu-app-secret";
/// The tenant a person belongs to unless the control names another (`corp`).
pub const TENANT_KEY: &str = "fakefeishutenant01";
pub const CODE_TTL: u64 = 300;
pub const TOKEN_TTL: u64 = 7200;
/// Token endpoint codes: 20010 is documented; the others are the fake's [UNVERIFIED].
pub const NOT_AVAILABLE: i64 = 20010;
pub const INVALID_CLIENT: i64 = 20002;
pub const INVALID_CODE: i64 = 20003;
pub const EXPIRED_CODE: i64 = 20004;
pub const INVALID_TOKEN: i64 = 99991668;
pub const EXPIRED_TOKEN: i64 = 99991677;

pub fn router(state: Shared) -> Router {
    let protocol = Router::new()
        .route("/open-apis/authen/v1/authorize", get(authorize))
        .route("/open-apis/authen/v2/oauth/token", post(token_v2))
        .route("/oauth/v3/token", post(token_v3))
        .route("/open-apis/authen/v1/user_info", get(user_info));
    finish(protocol, state)
}

/// The S256 challenge of a verifier (RFC 7636).
pub fn challenge_of(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

async fn authorize(State(s): State<Shared>, Query(q): Query<HashMap<String, String>>) -> Response {
    let arg = |k: &str| q.get(k).map(String::as_str).unwrap_or("");
    if arg("client_id") != APP_ID {
        return page(StatusCode::BAD_REQUEST, "client_id 错误");
    }
    let redirect_uri = arg("redirect_uri");
    if !s.domain_ok(redirect_uri) {
        return page(StatusCode::BAD_REQUEST, "redirect_uri 未在安全设置中配置");
    }
    let challenge = q.get("code_challenge").cloned();
    if challenge.is_some() && arg("code_challenge_method") != "S256" {
        return page(StatusCode::BAD_REQUEST, "code_challenge_method 错误");
    }
    let state = arg("state");
    if s.person().decline {
        return redirect_back(
            redirect_uri,
            &[("error", "access_denied"), ("state", state)],
        );
    }
    let code = s.issue_grant(APP_ID, arg("scope"), redirect_uri, challenge);
    redirect_back(redirect_uri, &[("code", &code), ("state", state)])
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct TokenBody {
    grant_type: String,
    client_id: String,
    client_secret: String,
    code: String,
    redirect_uri: Option<String>,
    code_verifier: Option<String>,
}

fn oauth_err(status: StatusCode, code: i64, error: &str, description: &str) -> Response {
    let body = json!({"code": code, "error": error, "error_description": description});
    (status, Json(body)).into_response()
}

async fn token_v2(State(s): State<Shared>, body: String) -> Response {
    token(&s, &body, false)
}

async fn token_v3(State(s): State<Shared>, body: String) -> Response {
    token(&s, &body, true)
}

fn token(s: &Shared, body: &str, v3: bool) -> Response {
    let bad = StatusCode::BAD_REQUEST;
    let Ok(b) = serde_json::from_str::<TokenBody>(body) else {
        return oauth_err(bad, 20001, "invalid_request", "body is not JSON");
    };
    if b.grant_type != "authorization_code" {
        return oauth_err(bad, 20001, "unsupported_grant_type", "grant_type");
    }
    if b.client_id != APP_ID || b.client_secret != APP_SECRET {
        let unauthorized = StatusCode::UNAUTHORIZED;
        return oauth_err(unauthorized, INVALID_CLIENT, "invalid_client", "client");
    }
    let grant = match s.take_grant(&b.code, CODE_TTL) {
        Ok(g) => g,
        Err(CodeError::Unknown | CodeError::Used) => {
            return oauth_err(
                bad,
                INVALID_CODE,
                "invalid_grant",
                "code is invalid or used",
            )
        }
        Err(CodeError::Expired) => {
            return oauth_err(bad, EXPIRED_CODE, "invalid_grant", "code expired")
        }
    };
    if b.redirect_uri
        .as_ref()
        .is_some_and(|r| *r != grant.redirect_uri)
    {
        return oauth_err(bad, INVALID_CODE, "invalid_grant", "redirect_uri mismatch");
    }
    let pkce_ok = match (&grant.challenge, &b.code_verifier) {
        (Some(c), Some(v)) => *c == challenge_of(v),
        (Some(_), None) => false,
        (None, Some(_)) => !v3,
        (None, None) => true,
    };
    if !pkce_ok {
        return oauth_err(bad, INVALID_CODE, "invalid_grant", "code_verifier");
    }
    let p = &grant.person;
    if !p.available {
        let msg = "the user is outside the app's availability";
        return oauth_err(bad, NOT_AVAILABLE, "access_denied", msg);
    }
    let t = s.issue_token(TokenKind::User, p.clone(), APP_ID, &grant.scope, TOKEN_TTL);
    let mut answer = json!({
        "code": 0,
        "access_token": t,
        "expires_in": TOKEN_TTL,
        "token_type": "Bearer",
        "scope": grant.scope,
    });
    if grant.scope.split(' ').any(|x| x == "offline_access") {
        answer["refresh_token"] = Value::from(crate::common::random_id());
        answer["refresh_token_expires_in"] = Value::from(30 * 24 * 3600);
    }
    Json(answer).into_response()
}

async fn user_info(State(s): State<Shared>, headers: HeaderMap) -> Response {
    let bearer = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    let t = match s.token(bearer, TokenKind::User) {
        Ok(t) => t,
        Err(e) => {
            let (code, msg) = match e {
                TokenError::Unknown => (INVALID_TOKEN, "Invalid access token for authorization"),
                TokenError::Expired => (EXPIRED_TOKEN, "The access token passed has expired"),
            };
            let body = json!({"code": code, "msg": msg});
            return (StatusCode::UNAUTHORIZED, Json(body)).into_response();
        }
    };
    let p = &t.person;
    let mut data = json!({
        "name": p.nickname,
        "en_name": "",
        "avatar_url": "",
        "open_id": p.openid_for(APP_ID),
        "union_id": p.unionid,
        "user_id": p.userid,
        "tenant_key": p.corp.clone().unwrap_or_else(|| TENANT_KEY.into()),
    });
    if let Some(mail) = &p.mail {
        data["email"] = Value::from(mail.clone());
        data["enterprise_email"] = Value::from(mail.clone());
    }
    if let Some(phone) = &p.phone {
        data["mobile"] = Value::from(format!("+86{phone}"));
    }
    Json(json!({"code": 0, "msg": "success", "data": data})).into_response()
}
