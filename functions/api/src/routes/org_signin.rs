//! The company's own sign-in (docs/organizations-connections.md §0.3, §0.8): the browser leaves
//! from `start` for the identity provider of the connection it names and comes back to
//! `callback` (one redirect URI for every company: the state names the connection); a linked
//! or just-in-time member gets a one-time login code (`orgCode`, redeemed by
//! `POST /auth/login/federation` with provider `org`), a WeCom, DingTalk or Feishu person
//! without a company mail a pending identity (`orgPending`: the phone proof), anything else `orgError=<REASON>` (and,
//! for FEDERATION_NOT_PERMITTED, `orgName` naming the organization). The test sign-in of an
//! admin (`test`, and its console twin `admin_test`) goes the same way and signs nobody in: the
//! callback records the outcome on the connection and shows what the identity provider said.
//! The rules are `ciam_core::federation::org_sign_in`'s; the protocol `federation::org`'s.

use crate::error::ApiError;
use crate::extract::{Authed, Lang};
use crate::federation::org::ConnectionSignIn;
use crate::reply::Reply;
use crate::AppState;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use ciam_core::federation::{self, org_sign_in, Through};
use ciam_core::org::access;
use ciam_core::org::connections::{self, ConnId, Connection};
use ciam_core::org::Organization;
use ciam_core::staff;
use ciam_core::{Ciam, Error, Reason};
use serde::{Deserialize, Serialize};

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

/// Back to sign-in with `orgError=<REASON>` (and `orgName` when the organization refused the
/// person), logged.
fn failed(lang: ciam_core::Lang, e: &Error, org: Option<&Organization>, query: &str) -> Response {
    let cause = e.cause.as_deref().unwrap_or("");
    if e.reason.status() >= 500 {
        tracing::error!(provider = "org", reason = %e.reason, cause, "company sign-in failed");
    } else {
        tracing::info!(provider = "org", reason = %e.reason, cause, "company sign-in refused");
    }
    let mut rest = String::new();
    if let (Reason::FEDERATION_NOT_PERMITTED, Some(o)) = (e.reason, org) {
        let name = match lang {
            ciam_core::Lang::ZhCn => &o.name_zh,
            _ => &o.name_en,
        };
        let name: String = url::form_urlencoded::byte_serialize(name.as_bytes()).collect();
        rest = format!("orgName={name}");
    }
    if !query.is_empty() {
        if !rest.is_empty() {
            rest.push('&');
        }
        rest.push_str(query);
    }
    redirect(staff::signin_url(lang, "orgError", e.reason.code(), &rest))
}

#[derive(Deserialize)]
pub struct StartQuery {
    /// The connection's id (`conn_…`).
    connection: Option<String>,
    lang: Option<String>,
    /// The SPA's query to return to (e.g. `appId=…&serviceUrl=…`), URL-encoded once.
    query: Option<String>,
    /// `base64url(SHA-256(bind))` of the browser's random `bind` (required).
    #[serde(rename = "bindHash")]
    bind_hash: Option<String>,
}

/// Company sign-in: leave for the organization's identity provider
///
/// A browser navigation, not an API call. Finds the connection by its id (an unknown one:
/// `orgError=AUTHORIZATION_FAILED`; one not `on`: FEDERATION_NOT_PERMITTED; its organization
/// not active: ORG_NOT_ACTIVE). OpenID Connect: reads the identity provider's discovery
/// document (its issuer must be the connection's, its endpoints https, else
/// SERVICE_UNAVAILABLE). Stores the state of the sign-in (10 minutes: the connection, nonce,
/// PKCE S256 verifier, language, the browser's surface, the query to return to, bindHash) and
/// redirects to the protocol's authorization page with redirect_uri
/// `<public url>/ciam/v1/auth/org/callback`: OpenID Connect's authorization endpoint
/// (response_type code, the connection's scopes, state, nonce, code_challenge S256); WeCom's
/// web login of the connection's corpId and agentId, or inside WeCom's own browser (`wxwork`)
/// its in-client authorization (`snsapi_privateinfo`); DingTalk's (scope `openid corpid`);
/// Feishu's or Lark's (the connection's region; code_challenge S256). No public URL:
/// `orgError=UNAVAILABLE`; no valid bindHash: `orgError=INVALID_PARAMETER`.
///
/// Reasons: none.
///
/// `GET /auth/org/start?connection=&lang=&query=&bindHash=`: every answer is a 302; a refusal
/// goes back to sign-in with `orgError=<REASON>`. Round trips: 3 (the connection's look-up, the
/// connection, the organization), 1 (the state), plus, for OpenID Connect, the provider's
/// discovery document when not cached.
pub async fn start(
    State(s): State<AppState>,
    Lang(req_lang): Lang,
    headers: axum::http::HeaderMap,
    q: Result<Query<StartQuery>, QueryRejection>,
) -> Response {
    let (lang, query, bind_hash, conn) = match q {
        Ok(Query(q)) => (
            q.lang
                .as_deref()
                .and_then(ciam_core::Lang::parse_tag)
                .unwrap_or(req_lang),
            staff::return_query(q.query.as_deref().unwrap_or("")),
            q.bind_hash.unwrap_or_default(),
            q.connection.unwrap_or_default(),
        ),
        Err(_) => (req_lang, String::new(), String::new(), String::new()),
    };
    if s.ciam.config.public_url.is_empty() {
        return redirect(staff::signin_url(lang, "orgError", "UNAVAILABLE", &query));
    }
    let (c, o) = match org_sign_in::connection_of(&s.ciam, &conn, false).await {
        Ok(found) => found,
        Err(e) => return failed(lang, &e, None, &query),
    };
    let through = Through {
        conn_id: c.conn_id.as_str().to_owned(),
        test: false,
    };
    let signing = ConnectionSignIn(&c);
    let surface = crate::federation::surface(&headers);
    let at = federation::connection_request(
        &s.ciam, &signing, &through, lang, &query, &bind_hash, surface,
    );
    match at.await {
        Ok(url) => redirect(url),
        Err(e) => failed(lang, &e, Some(&o), &query),
    }
}

#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    /// DingTalk's name for the code.
    #[serde(rename = "authCode")]
    auth_code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    /// RFC 9207: the issuer of the answer, when the provider sends it.
    iss: Option<String>,
}

/// Company sign-in: back from the organization's identity provider
///
/// The one redirect URI every organization registers at its identity provider. Consumes the
/// state (single use: a replay, an unknown one or another provider's is refused), finds the
/// connection it names (not `on` any more: FEDERATION_NOT_PERMITTED; its organization not
/// active: ORG_NOT_ACTIVE) and asks its identity provider who came back, with the connection's
/// sealed secret. OpenID Connect: exchanges the code (client_secret_basic, code_verifier),
/// checks the id_token's iss, aud, exp and nonce, takes sub and email with email_verified
/// (id_token, else userinfo). WeCom: the corp token of the connection's corpId (cached), then
/// `getuserinfo` (a person of another corp answers an openid: FEDERATION_NOT_PERMITTED) and, in
/// WeCom's browser, `getuserdetail` (the corp mailbox `biz_mail`); subject `<corpId>/<userid>`.
/// DingTalk (the code is `authCode`): the user token, whose corpId must be the connection's
/// (else FEDERATION_NOT_PERMITTED), then `users/me` (unionId; its mail is the one the person
/// typed, never vouched for). Feishu: the token (PKCE), then `user_info` (union_id), whose
/// tenant_key must be the connection's (else FEDERATION_NOT_PERMITTED); the tenant's
/// `enterprise_email` is vouched for. The mail must be vouched for and be at a domain the
/// organization verified, else FEDERATION_NOT_PERMITTED (OpenID Connect); for WeCom, DingTalk
/// and Feishu a subject not linked yet without such a mail becomes a pending identity (15
/// minutes: the connection, the organization, the identity provider's second factor) and the
/// browser goes to `/{lang}/passport/signin?orgPending=<token>&<query>`: the person proves a
/// phone (POST /auth/federation/phone, then POST /auth/federation/register). The subject's link
/// (`FEDID#org:<connId>#<subject>`) names the account, else the account that has the mail, else
/// (just in time `join`) a new one; a non-member joins with the organization's default role
/// (`join`, with `organization.member_added` and `member.join` in its audit slice) or is
/// refused (`off`: FEDERATION_NOT_PERMITTED, `orgName` naming the organization). Then
/// redirects to `/{lang}/passport/signin?orgCode=<one-time code, 60 s, bound to the state's
/// bindHash>&<query>`; on failure `orgError=<REASON>&<query>`. A test sign-in's state instead
/// answers a page (200, text/html) with what the identity provider said (subject, the tenant of
/// WeCom, DingTalk and Feishu, mail, whether verified and at a verified domain) or the failed
/// step with the provider's error (WeCom `gettoken`, DingTalk `userAccessToken`, Feishu
/// `token`: a wrong secret; a WeCom test fetches a fresh corp token), and records
/// the outcome on the connection (`tested`, or back to `draft`); nobody is signed in.
///
/// Reasons: none.
///
/// `GET /auth/org/callback?code&state`: every sign-in answer is a 302, refusals as
/// `orgError=<REASON>`. Round trips: 2 (state read and delete), 3 (the connection's look-up,
/// the connection, the organization), 1 (the domain), 1 (the link), 1 (the mail's owner when
/// not linked), 1 (the account), 1 (the membership), at most 1 transaction (the link, the
/// account, the membership), 1 (the login code); plus the identity provider's calls: OpenID
/// Connect the token request (and userinfo when the id_token has no verified mail); WeCom 1 or
/// 2 calls and the corp token (1 read when cached; else the lease, gettoken and the put);
/// DingTalk and Feishu 2 calls.
pub async fn callback(
    State(s): State<AppState>,
    Lang(req_lang): Lang,
    q: Result<Query<CallbackQuery>, QueryRejection>,
) -> Response {
    let Ok(Query(q)) = q else {
        return failed(req_lang, &Reason::AUTHORIZATION_FAILED.into(), None, "");
    };
    let state = q.state.as_deref().unwrap_or("");
    let p = federation::ProviderId::Org;
    let pending = match federation::take_state(&s.ciam, p, state).await {
        Ok(pending) => pending,
        Err(e) => return failed(req_lang, &e, None, ""),
    };
    let (lang, query) = (pending.lang, pending.query.clone());
    let through = match org_sign_in::through(&pending) {
        Ok(t) => t.clone(),
        Err(e) => return failed(lang, &e, None, &query),
    };
    let (c, o) = match org_sign_in::connection_of(&s.ciam, &through.conn_id, through.test).await {
        Ok(found) => found,
        Err(e) => return failed(lang, &e, None, &query),
    };
    let cb = federation::Callback {
        code: q.code.or(q.auth_code),
        error: q.error,
        iss: q.iss,
    };
    let signing = ConnectionSignIn(&c);
    let identified = federation::Provider::identify(&signing, &s.ciam, &cb, &pending).await;
    if through.test {
        if let Some(issuer) = signing.issuer() {
            crate::federation::oidc_forget(issuer);
        }
        let identified = identified.map_err(|e| {
            let reason = federation::reason_of(&e);
            let cause = ciam_core::Error::from(e).cause.unwrap_or_default();
            format!("{}: {cause}", reason.code())
        });
        return match org_sign_in::record_test(&s.ciam, &c, &o, identified).await {
            Ok(outcome) => test_page(lang, &c, &outcome),
            Err(e) => ApiError(e).into_response(),
        };
    }
    let identity = match identified {
        Ok(identity) => identity,
        Err(e) => return failed(lang, &e.into(), Some(&o), &query),
    };
    match org_sign_in::arrive(&s.ciam, &c, &o, &identity, &pending).await {
        Ok(federation::Finished::Code(code)) => {
            redirect(staff::signin_url(lang, "orgCode", &code, &query))
        }
        Ok(federation::Finished::Pending(token)) => {
            redirect(staff::signin_url(lang, "orgPending", &token, &query))
        }
        Ok(federation::Finished::Link(_)) => {
            failed(lang, &Reason::AUTHORIZATION_FAILED.into(), Some(&o), &query)
        }
        Err(e) => failed(lang, &e, Some(&o), &query),
    }
}

fn escape(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '<' => "&lt;".to_owned(),
            '>' => "&gt;".to_owned(),
            '&' => "&amp;".to_owned(),
            '"' => "&quot;".to_owned(),
            '\'' => "&#39;".to_owned(),
            c => c.to_string(),
        })
        .collect()
}

/// The test sign-in's page: what the identity provider said, or where it failed.
fn test_page(
    lang: ciam_core::Lang,
    c: &Connection,
    outcome: &org_sign_in::TestOutcome,
) -> Response {
    let zh = lang == ciam_core::Lang::ZhCn;
    let t = |zh_text: &'static str, en: &'static str| if zh { zh_text } else { en };
    let name = if zh { &c.name_zh } else { &c.name_en };
    let mut rows = String::new();
    let mut row = |k: &str, v: &str| {
        rows.push_str(&format!(
            "<tr><th>{}</th><td>{}</td></tr>",
            escape(k),
            escape(v)
        ));
    };
    let passed = outcome.failure.is_none();
    row(
        t("结果", "Result"),
        if passed {
            t("测试通过", "Test passed")
        } else {
            t("测试未通过", "Test failed")
        },
    );
    row(t("状态", "Status"), outcome.status.as_str());
    if let Some(id) = &outcome.identity {
        row(t("主体 (sub)", "Subject (sub)"), &id.subject);
        // A platform's person passed its tenant pinning: the tenant is the connection's.
        if let Some(tenant) = ["corpId", "tenantKey"]
            .iter()
            .find_map(|k| c.settings.get(*k))
            .filter(|_| c.protocol != connections::Protocol::Oidc)
        {
            row(t("租户", "Tenant"), tenant);
        }
        let (mail, verified) = id
            .vouches
            .mail
            .clone()
            .map_or((String::new(), false), |(m, v)| (m, v));
        row(t("邮箱", "Mail"), &mail);
        row(
            t("邮箱已验证", "Mail verified"),
            if verified { "true" } else { "false" },
        );
        row(
            t(
                "属于组织已验证的域名",
                "At a domain the organization verified",
            ),
            if outcome.company_mail {
                "true"
            } else {
                "false"
            },
        );
        row(
            t("第二因素", "Second factor"),
            if id.mfa { "true" } else { "false" },
        );
    }
    if let Some(f) = &outcome.failure {
        row(t("失败的步骤与错误", "Failed step and error"), f);
    }
    let html = format!(
        "<!doctype html><html lang=\"{lang}\"><head><meta charset=\"utf-8\"><title>{title}</title>\
         </head><body><main><h1>{title}: {name}</h1><table>{rows}</table><p>{note}</p></main>\
         </body></html>",
        lang = lang.tag(),
        title = t("登录连接测试", "Connection test"),
        name = escape(name),
        note = t(
            "测试登录不会登录任何人。可关闭此页面。",
            "A test sign-in signs nobody in. You may close this page."
        ),
    );
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
            (header::REFERRER_POLICY, "no-referrer"),
        ],
        html,
    )
        .into_response()
}

/// Where the browser goes for a test sign-in.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct TestStart {
    /// The identity provider's authorization URL (open it in the browser; 10 minutes).
    pub url: String,
}

/// The test sign-in's start for `c` of `o`: the state (a test, bound to no browser) and the
/// provider's URL.
pub(super) async fn test_url(
    ciam: &Ciam,
    c: &Connection,
    lang: ciam_core::Lang,
) -> Result<TestStart, Error> {
    if ciam.config.public_url.is_empty() {
        return Err(Reason::SERVICE_UNAVAILABLE.into());
    }
    let through = Through {
        conn_id: c.conn_id.as_str().to_owned(),
        test: true,
    };
    // Nobody is signed in by a test: the state's browser binding is a throwaway one.
    let bind_hash = org_sign_in::throwaway_bind_hash(ciam);
    let url = federation::connection_request(
        ciam,
        &ConnectionSignIn(c),
        &through,
        lang,
        "",
        &bind_hash,
        federation::Surface::Desktop,
    )
    .await?;
    Ok(TestStart { url })
}

/// The connection `conn_id` of `o`; else CONNECTION_NOT_FOUND (as the management routes answer).
pub(super) async fn connection(
    ciam: &Ciam,
    o: &Organization,
    conn_id: &str,
) -> Result<Connection, Error> {
    let id = ConnId::parse(conn_id).ok_or(Reason::CONNECTION_NOT_FOUND)?;
    connections::get(ciam.store.as_ref(), &o.org_id, &id)
        .await?
        .ok_or_else(|| Reason::CONNECTION_NOT_FOUND.into())
}

/// Test a sign-in connection
///
/// An owner or admin (ORG_ROLE_FORBIDDEN; anyone else ORG_NOT_FOUND) starts a test sign-in
/// through one of the organization's connections, whatever its status: answers the identity
/// provider's authorization URL to open in the browser. Its way back
/// (`/auth/org/callback`) signs nobody in: it shows what the provider said (subject, tenant,
/// mail, whether verified and at a verified domain) or the failed step with the provider's error,
/// and records the outcome (`tested`, which allows turning the connection on; a failure takes
/// it back to `draft`). An unknown connection is CONNECTION_NOT_FOUND; an organization
/// not active ORG_NOT_ACTIVE; an identity provider that cannot be reached SERVICE_UNAVAILABLE.
///
/// Reasons: CONNECTION_NOT_FOUND, ORG_NOT_ACTIVE, ORG_NOT_FOUND, ORG_ROLE_FORBIDDEN.
///
/// `POST /org/{orgId}/connections/{connId}/test`. Round trips: 3 (authentication, the
/// organization with the caller's membership, the connection), 1 (the state), plus, for
/// OpenID Connect, the provider's discovery document when not cached.
pub async fn test(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Lang(lang): Lang,
    Path((org_id, conn_id)): Path<(String, String)>,
) -> Result<Reply<TestStart>, ApiError> {
    let id = access::parse_id(&org_id)?;
    let (o, caller) = access::as_member(&s.ciam, &id, &sess.user.id).await?;
    caller.must_manage()?;
    access::must_be_active(&o)?;
    let c = connection(&s.ciam, &o, &conn_id).await?;
    Ok(Reply(test_url(&s.ciam, &c, lang).await?))
}
