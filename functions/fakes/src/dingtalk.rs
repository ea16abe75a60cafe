//! DingTalk (钉钉): `login.dingtalk.com/oauth2/auth` back with **`authCode`** (not `code`),
//! `api.dingtalk.com/v1.0/oauth2/userAccessToken` (JSON body `clientId, clientSecret, code,
//! grantType`; answer `accessToken, refreshToken, expireIn, corpId`: help.dingtalk.io
//! obtain-user-token) and `v1.0/contact/users/me` with the `x-acs-dingtalk-access-token`
//! header (help.dingtalk.io dingtalk-retrieve-user-information: "set unionId to me"). Error
//! names and the code lifetime are not in the pages [UNVERIFIED]: the fake uses the constants
//! below and 5 minutes, single use (docs/federation-design.md §3.3).

use crate::common::{finish, page, redirect_back, CodeError, Shared, TokenKind};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;

pub const CLIENT_ID: &str = "dingfakeclient00001";
pub const CLIENT_SECRET: &str = "fake-dingtalk-client-secret";
/// The organization a person belongs to unless the control names another.
pub const CORP_ID: &str = "dingfakecorp00001";
pub const CODE_TTL: u64 = 300;
pub const TOKEN_TTL: u64 = 7200;
/// The fake's error codes (HTTP 400/401 bodies `{code, message}`) [UNVERIFIED names].
pub const INVALID_CLIENT: &str = "invalid.client";
pub const INVALID_CODE: &str = "invalidAuthCode";
pub const INVALID_TOKEN: &str = "InvalidAuthentication";

pub fn router(state: Shared) -> Router {
    let protocol = Router::new()
        .route("/oauth2/auth", get(auth))
        .route("/v1.0/oauth2/userAccessToken", post(user_access_token))
        .route("/v1.0/contact/users/me", get(users_me));
    finish(protocol, state)
}

fn err(status: StatusCode, code: &str, message: &str) -> Response {
    (status, Json(json!({"code": code, "message": message}))).into_response()
}

async fn auth(State(s): State<Shared>, Query(q): Query<HashMap<String, String>>) -> Response {
    let arg = |k: &str| q.get(k).map(String::as_str).unwrap_or("");
    if arg("client_id") != CLIENT_ID || arg("response_type") != "code" {
        return page(
            StatusCode::BAD_REQUEST,
            "client_id 或 response_type 参数错误",
        );
    }
    let scope = arg("scope");
    if !scope.split(' ').any(|x| x == "openid") || arg("prompt") != "consent" {
        return page(StatusCode::BAD_REQUEST, "scope 或 prompt 参数错误");
    }
    let redirect_uri = arg("redirect_uri");
    if !s.domain_ok(redirect_uri) {
        return page(
            StatusCode::BAD_REQUEST,
            "redirect_uri 与应用配置的回调域名不一致",
        );
    }
    let state = arg("state");
    if s.person().decline {
        return redirect_back(
            redirect_uri,
            &[("error", "access_denied"), ("state", state)],
        );
    }
    let code = s.issue_grant(CLIENT_ID, scope, redirect_uri, None);
    redirect_back(redirect_uri, &[("authCode", &code), ("state", state)])
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TokenBody {
    #[serde(default)]
    client_id: String,
    #[serde(default)]
    client_secret: String,
    #[serde(default)]
    code: String,
    #[serde(default)]
    grant_type: String,
}

async fn user_access_token(State(s): State<Shared>, body: String) -> Response {
    let Ok(b) = serde_json::from_str::<TokenBody>(&body) else {
        return err(
            StatusCode::BAD_REQUEST,
            "MissingParameter",
            "body is not JSON",
        );
    };
    if b.client_id != CLIENT_ID || b.client_secret != CLIENT_SECRET {
        return err(
            StatusCode::BAD_REQUEST,
            INVALID_CLIENT,
            "无效的clientId或clientSecret",
        );
    }
    if b.grant_type != "authorization_code" {
        return err(
            StatusCode::BAD_REQUEST,
            "invalidParameter.grantType",
            "grantType 错误",
        );
    }
    let grant = match s.take_grant(&b.code, CODE_TTL) {
        Ok(g) => g,
        Err(CodeError::Unknown | CodeError::Used) => {
            return err(StatusCode::BAD_REQUEST, INVALID_CODE, "不合法的临时授权码")
        }
        Err(CodeError::Expired) => {
            return err(StatusCode::BAD_REQUEST, INVALID_CODE, "临时授权码已过期")
        }
    };
    let p = &grant.person;
    let token = s.issue_token(
        TokenKind::User,
        p.clone(),
        CLIENT_ID,
        &grant.scope,
        TOKEN_TTL,
    );
    let mut answer = json!({
        "accessToken": token,
        "refreshToken": crate::common::random_id(),
        "expireIn": TOKEN_TTL,
    });
    // The organization comes with the `corpid` scope (the person picks one when asked).
    if grant.scope.split(' ').any(|x| x == "corpid") {
        answer["corpId"] = Value::from(p.corp.clone().unwrap_or_else(|| CORP_ID.into()));
    }
    Json(answer).into_response()
}

async fn users_me(State(s): State<Shared>, headers: HeaderMap) -> Response {
    let token = headers
        .get("x-acs-dingtalk-access-token")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let Ok(t) = s.token(token, TokenKind::User) else {
        return err(
            StatusCode::UNAUTHORIZED,
            INVALID_TOKEN,
            "不合法的access_token",
        );
    };
    let p = &t.person;
    let mut body = json!({
        "nick": p.nickname,
        "avatarUrl": "",
        "openId": p.openid_for(CLIENT_ID),
        "unionId": p.unionid,
    });
    if let Some(phone) = &p.phone {
        body["mobile"] = Value::from(phone.clone());
        body["stateCode"] = Value::from("86");
    }
    if let Some(mail) = &p.mail {
        body["email"] = Value::from(mail.clone());
    }
    Json(body).into_response()
}
