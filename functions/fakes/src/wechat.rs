//! WeChat (微信): the website app's QR login (`open.weixin.qq.com/connect/qrconnect`,
//! `snsapi_login`) and the Official Account's web authorization
//! (`open.weixin.qq.com/connect/oauth2/authorize`, `snsapi_base|snsapi_userinfo`), then
//! `api.weixin.qq.com/sns/oauth2/access_token` and `sns/userinfo`. Both hosts live under one
//! base (the adapter's base setting). Answers follow the Official Account pages
//! (developers.weixin.qq.com/doc/service/api/webdev/access/api_snsaccesstoken, api_snsuserinfo):
//! `unionid` only for `snsapi_userinfo` on the OA flow, `is_snapshotuser: 1` only for a
//! snapshot-mode person; errors are HTTP 200 with `errcode` (docs/federation-design.md §3.1).

use crate::common::{finish, page, redirect_back, CodeError, Shared, TokenError, TokenKind};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::collections::HashMap;

/// The registered website app (Open Platform) and its secret.
pub const WEB_APP_ID: &str = "wxfakeweb0000001";
pub const WEB_SECRET: &str = "fake-web-app-secret";
/// The registered Official Account and its secret.
pub const OA_APP_ID: &str = "wxfakeoa00000001";
pub const OA_SECRET: &str = "fake-oa-app-secret";
/// Codes live 10 minutes, single use [2nd: Open Platform FAQ mirror].
pub const CODE_TTL: u64 = 600;
/// `expires_in` of the web authorization token.
pub const TOKEN_TTL: u64 = 7200;

type Q = Query<HashMap<String, String>>;

pub fn router(state: Shared) -> Router {
    let protocol = Router::new()
        .route("/connect/qrconnect", get(qrconnect))
        .route("/connect/oauth2/authorize", get(oauth2_authorize))
        .route("/sns/oauth2/access_token", get(access_token))
        .route("/sns/userinfo", get(userinfo));
    finish(protocol, state)
}

fn err(code: i64, msg: &str) -> Response {
    Json(json!({"errcode": code, "errmsg": msg})).into_response()
}

fn arg<'a>(q: &'a HashMap<String, String>, k: &str) -> &'a str {
    q.get(k).map(String::as_str).unwrap_or("")
}

async fn qrconnect(State(s): State<Shared>, Query(q): Q) -> Response {
    authorize(&s, &q, WEB_APP_ID, &["snsapi_login"])
}

async fn oauth2_authorize(State(s): State<Shared>, Query(q): Q) -> Response {
    authorize(&s, &q, OA_APP_ID, &["snsapi_base", "snsapi_userinfo"])
}

/// WeChat shows its own error page for a wrong appid, scope or redirect domain; the browser
/// never returns. `#wechat_redirect` is a fragment: it never reaches a server, so only the
/// adapter's own URL test can check it.
fn authorize(s: &Shared, q: &HashMap<String, String>, app: &str, scopes: &[&str]) -> Response {
    if arg(q, "appid") != app {
        return page(StatusCode::BAD_REQUEST, "appid 参数错误");
    }
    if arg(q, "response_type") != "code" {
        return page(StatusCode::BAD_REQUEST, "response_type 参数错误");
    }
    let scope = arg(q, "scope");
    if !scopes.contains(&scope) {
        return page(StatusCode::BAD_REQUEST, "scope 参数错误");
    }
    let redirect_uri = arg(q, "redirect_uri");
    if !s.domain_ok(redirect_uri) {
        return page(StatusCode::BAD_REQUEST, "redirect_uri 参数错误");
    }
    let state = arg(q, "state");
    if s.person().decline {
        return redirect_back(redirect_uri, &[("state", state)]);
    }
    let code = s.issue_grant(app, scope, redirect_uri, None);
    redirect_back(redirect_uri, &[("code", &code), ("state", state)])
}

async fn access_token(State(s): State<Shared>, Query(q): Q) -> Response {
    let appid = arg(&q, "appid");
    let secret = match appid {
        WEB_APP_ID => WEB_SECRET,
        OA_APP_ID => OA_SECRET,
        _ => return err(40013, "invalid appid"),
    };
    if arg(&q, "secret") != secret {
        return err(40125, "invalid appsecret");
    }
    if arg(&q, "grant_type") != "authorization_code" {
        return err(40002, "invalid grant_type");
    }
    let grant = match s.take_grant(arg(&q, "code"), CODE_TTL) {
        Ok(g) if g.app == appid => g,
        Ok(_) | Err(CodeError::Unknown) => return err(40029, "invalid code"),
        Err(CodeError::Used) => return err(40163, "code been used"),
        Err(CodeError::Expired) => return err(42003, "code expired"),
    };
    let p = &grant.person;
    let token = s.issue_token(TokenKind::User, p.clone(), appid, &grant.scope, TOKEN_TTL);
    let mut body = json!({
        "access_token": token,
        "expires_in": TOKEN_TTL,
        "refresh_token": crate::common::random_id(),
        "openid": p.openid_for(appid),
        "scope": grant.scope,
    });
    let qr = appid == WEB_APP_ID;
    if !p.unbound && (qr || grant.scope == "snsapi_userinfo") {
        body["unionid"] = Value::from(p.unionid.clone());
    }
    if p.snapshot {
        body["is_snapshotuser"] = Value::from(1);
    }
    Json(body).into_response()
}

async fn userinfo(State(s): State<Shared>, Query(q): Q) -> Response {
    let t = match s.token(arg(&q, "access_token"), TokenKind::User) {
        Ok(t) => t,
        Err(TokenError::Unknown) => {
            return err(
                40001,
                "invalid credential, access_token is invalid or not latest",
            )
        }
        Err(TokenError::Expired) => return err(42001, "access_token expired"),
    };
    let p = &t.person;
    let openid = p.openid_for(&t.app);
    if arg(&q, "openid") != openid {
        return err(40003, "invalid openid");
    }
    // A snapshot person's token cannot read the profile (community reports: 48001).
    if t.scope == "snsapi_base" || p.snapshot {
        return err(48001, "api unauthorized");
    }
    let mut body = json!({
        "openid": openid,
        "nickname": p.nickname,
        "sex": 0,
        "province": "",
        "city": "",
        "country": "",
        "headimgurl": "",
        "privilege": [],
    });
    if !p.unbound {
        body["unionid"] = Value::from(p.unionid.clone());
    }
    Json(body).into_response()
}
