//! WeCom (企业微信), a self-built app: the desktop web login
//! (`login.work.weixin.qq.com/wwlogin/sso/login?login_type=CorpApp`, developer.work.weixin.qq.com
//! path/98171), the in-client OAuth (`open.weixin.qq.com/connect/oauth2/authorize`,
//! `snsapi_base|snsapi_privateinfo`), the corp token (`qyapi.weixin.qq.com/cgi-bin/gettoken`,
//! 7200 s, revocable early), `cgi-bin/auth/getuserinfo` (code 5 minutes, single use; the
//! redirect domain must match the app's trusted domain, else 50001: path/96442, path/98177)
//! and `cgi-bin/auth/getuserdetail` by `user_ticket` (1800 s). All hosts under one base.

use crate::common::{finish, page, redirect_back, Shared, TokenError, TokenKind};
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;

pub const CORP_ID: &str = "wwfakecorp0000001";
pub const AGENT_ID: &str = "1000002";
pub const CORP_SECRET: &str = "fake-wecom-corp-secret";
pub const CODE_TTL: u64 = 300;
pub const TOKEN_TTL: u64 = 7200;
pub const TICKET_TTL: u64 = 1800;
/// The desktop flow has no scope; it is remembered as this.
const DESKTOP: &str = "desktop";

type Q = Query<HashMap<String, String>>;

pub fn router(state: Shared) -> Router {
    let protocol = Router::new()
        .route("/wwlogin/sso/login", get(sso_login))
        .route("/connect/oauth2/authorize", get(oauth2_authorize))
        .route("/cgi-bin/gettoken", get(gettoken))
        .route("/cgi-bin/auth/getuserinfo", get(getuserinfo))
        .route("/cgi-bin/auth/getuserdetail", post(getuserdetail));
    finish(protocol, state)
}

fn err(code: i64, msg: &str) -> Response {
    Json(json!({"errcode": code, "errmsg": msg})).into_response()
}

fn arg<'a>(q: &'a HashMap<String, String>, k: &str) -> &'a str {
    q.get(k).map(String::as_str).unwrap_or("")
}

/// Declined (or the window closed): back with the state and no code ("用户禁止授权则无code").
fn back(s: &Shared, q: &HashMap<String, String>, scope: &str) -> Response {
    let redirect_uri = arg(q, "redirect_uri");
    let state = arg(q, "state");
    if s.person().decline {
        return redirect_back(redirect_uri, &[("state", state)]);
    }
    // The trusted-domain check happens at getuserinfo (50001), as documented.
    let code = s.issue_grant(CORP_ID, scope, redirect_uri, None);
    redirect_back(redirect_uri, &[("code", &code), ("state", state)])
}

async fn sso_login(State(s): State<Shared>, Query(q): Q) -> Response {
    if arg(&q, "login_type") != "CorpApp" {
        return page(StatusCode::BAD_REQUEST, "login_type 参数错误");
    }
    if arg(&q, "appid") != CORP_ID || arg(&q, "agentid") != AGENT_ID {
        return page(StatusCode::BAD_REQUEST, "appid 或 agentid 参数错误");
    }
    back(&s, &q, DESKTOP)
}

async fn oauth2_authorize(State(s): State<Shared>, Query(q): Q) -> Response {
    if arg(&q, "appid") != CORP_ID || arg(&q, "response_type") != "code" {
        return page(StatusCode::BAD_REQUEST, "appid 或 response_type 参数错误");
    }
    let scope = arg(&q, "scope");
    let ok = match scope {
        "snsapi_base" => true,
        // agentid is required with snsapi_privateinfo [2nd].
        "snsapi_privateinfo" => arg(&q, "agentid") == AGENT_ID,
        _ => false,
    };
    if !ok {
        return page(StatusCode::BAD_REQUEST, "scope 或 agentid 参数错误");
    }
    back(&s, &q, scope)
}

async fn gettoken(State(s): State<Shared>, Query(q): Q) -> Response {
    if arg(&q, "corpid") != CORP_ID {
        return err(40013, "invalid corpid");
    }
    if arg(&q, "corpsecret") != CORP_SECRET {
        return err(40001, "invalid credential");
    }
    let person = s.person();
    let token = s.issue_token(TokenKind::Corp, person, CORP_ID, "", TOKEN_TTL);
    Json(json!({"errcode": 0, "errmsg": "ok", "access_token": token, "expires_in": TOKEN_TTL}))
        .into_response()
}

/// The refusal of a call's corp token, if any: revoked early → 40014, expired → 42001.
fn corp_token_refused(s: &Shared, token: &str) -> Option<Response> {
    match s.token(token, TokenKind::Corp) {
        Ok(_) => None,
        Err(TokenError::Unknown) => Some(err(40014, "invalid access_token")),
        Err(TokenError::Expired) => Some(err(42001, "access_token expired")),
    }
}

/// The token is checked before the code is touched, so a code survives an invalid-token answer
/// and the adapter's single retry can use it (docs/federation-design.md §2.2; whether the real
/// platform does the same is §6 question 2).
async fn getuserinfo(State(s): State<Shared>, Query(q): Q) -> Response {
    if let Some(r) = corp_token_refused(&s, arg(&q, "access_token")) {
        return r;
    }
    let Ok(grant) = s.take_grant(arg(&q, "code"), CODE_TTL) else {
        return err(40029, "invalid code");
    };
    if !s.domain_ok(&grant.redirect_uri) {
        return err(50001, "redirect_url not in the app's trusted domain");
    }
    let p = &grant.person;
    if !p.member {
        return Json(json!({"errcode": 0, "errmsg": "ok", "openid": p.openid_for(CORP_ID)}))
            .into_response();
    }
    let mut body = json!({"errcode": 0, "errmsg": "ok", "userid": p.userid});
    if grant.scope == "snsapi_privateinfo" && p.visible {
        let ticket = s.issue_token(TokenKind::Ticket, p.clone(), CORP_ID, "", TICKET_TTL);
        body["user_ticket"] = Value::from(ticket);
    }
    Json(body).into_response()
}

#[derive(Deserialize)]
struct Detail {
    #[serde(default)]
    user_ticket: String,
}

async fn getuserdetail(State(s): State<Shared>, Query(q): Q, body: String) -> Response {
    if let Some(r) = corp_token_refused(&s, arg(&q, "access_token")) {
        return r;
    }
    let Ok(detail) = serde_json::from_str::<Detail>(&body) else {
        return err(47001, "data format error");
    };
    // The ticket's own refusal code was not found in the pages [UNVERIFIED].
    let Ok(t) = s.token(&detail.user_ticket, TokenKind::Ticket) else {
        return err(40129, "invalid user_ticket");
    };
    let p = &t.person;
    Json(json!({
        "errcode": 0,
        "errmsg": "ok",
        "userid": p.userid,
        "gender": "0",
        "avatar": "",
        "qr_code": "",
        "mobile": p.phone.clone().unwrap_or_default(),
        "email": p.mail.clone().unwrap_or_default(),
        "biz_mail": p.mail.clone().unwrap_or_default(),
        "address": "",
    }))
    .into_response()
}
