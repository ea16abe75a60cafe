//! The browser's half of the flow: `GET /authorize` stores the request, the consent screen
//! reads it (`request_context`) and Allow turns it into a code (`approve`).

use super::records::{code_key, request_key, Code, Request};
use super::{b64, bad_param, cancel_url, error_redirect, issuer, MAX_ECHO, OPENID};
use crate::apps::{app_key, with_params, App, AppId};
use crate::consents::{self, consent_key, Consent};
use crate::error::Result;
use crate::org::tokens::{self as org_tokens, Want};
use crate::org::OrgId;
use crate::sessions::Session;
use crate::tickets;
use crate::{random, Ciam, Error, Lang, LostRace, Reason};
use ciam_store::{get_each, Cond, Item, TxOp};
use serde::Serialize;

/// What `GET /authorize` answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Authorize {
    /// The request is stored: the browser goes to `/{lang}/passport/authorize?oidcRequest=<id>`.
    Consent { request_id: String, lang: Lang },
    /// A refusal that goes back to the client's (verified) redirect URI.
    Redirect(String),
}

impl Authorize {
    /// The `Location` to send the browser to (a path of the SPA, or the client's URI).
    pub fn location(&self) -> String {
        match self {
            Authorize::Consent { request_id, lang } => {
                format!(
                    "/{}/passport/authorize?oidcRequest={request_id}",
                    lang.tag()
                )
            }
            Authorize::Redirect(url) => url.clone(),
        }
    }
}

/// `GET /authorize` with its query parameters as sent. A missing or unknown `client_id`, or a
/// `redirect_uri` that is not exactly one of the app's registered service URLs, is an error
/// answered here (INVALID_PARAMETER naming it), never a redirect. Every later refusal goes back
/// to the redirect URI with `error`, `error_description` and `state`. `accept` is the language
/// of Accept-Language, used unless `ui_locales` names zh-CN or en-US.
/// Round trips: 1 read (the app), 1 write (the request).
pub async fn authorize(
    ciam: &Ciam,
    params: &[(String, String)],
    accept: Lang,
) -> Result<Authorize> {
    let count = |name: &str| params.iter().filter(|(k, _)| k == name).count();
    let get = |name: &str| {
        params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let client_id = match (count("client_id"), get("client_id")) {
        (1, Some(id)) if AppId::parse(id).is_some() => id,
        _ => {
            return Err(bad_param(
                "client_id",
                "缺少或重复的 client_id",
                "client_id is missing, repeated or malformed",
            ))
        }
    };
    let app = ciam.store.get(&app_key(client_id)).await?;
    let app = app.as_ref().map(App::from_item).ok_or_else(|| {
        bad_param(
            "client_id",
            "未知的应用",
            "client_id is not a registered app",
        )
    })?;
    let redirect_uri = match (count("redirect_uri"), get("redirect_uri")) {
        (1, Some(u)) if app.registers(u) => u,
        _ => {
            return Err(bad_param(
                "redirect_uri",
                "redirect_uri 未在应用中登记",
                "redirect_uri must be exactly one of the app's registered service URLs",
            ))
        }
    };
    // From here on the client is known and the URI is its own: refusals go back to it.
    let state = get("state").filter(|s| !s.is_empty() && s.len() <= MAX_ECHO);
    let refuse = |error: &str, description: &str| {
        Ok(Authorize::Redirect(error_redirect(
            ciam,
            redirect_uri,
            error,
            Some(description),
            state,
        )))
    };
    if let Some((k, _)) = params.iter().find(|(k, _)| count(k) > 1) {
        return refuse("invalid_request", &format!("{k} is repeated"));
    }
    if get("state").is_some_and(|s| s.len() > MAX_ECHO) {
        return refuse("invalid_request", "state is too long");
    }
    if get("request").is_some() {
        return refuse("request_not_supported", "request objects are not supported");
    }
    if get("request_uri").is_some() {
        return refuse("request_uri_not_supported", "request_uri is not supported");
    }
    match get("response_type") {
        None => return refuse("invalid_request", "response_type is missing"),
        Some("code") => {}
        Some(_) => {
            return refuse(
                "unsupported_response_type",
                "only response_type=code is supported",
            )
        }
    }
    if let Some(mode) = get("response_mode") {
        if mode != "query" {
            return refuse("invalid_request", "only response_mode=query is supported");
        }
    }
    let requested: Vec<&str> = get("scope")
        .unwrap_or("")
        .split_ascii_whitespace()
        .collect();
    if !requested.contains(&OPENID) {
        return refuse("invalid_request", "the scope must include openid");
    }
    match get("code_challenge_method") {
        Some("S256") => {}
        None => {
            return refuse(
                "invalid_request",
                "PKCE is required: code_challenge_method=S256",
            )
        }
        Some(_) => {
            return refuse(
                "invalid_request",
                "only code_challenge_method=S256 is supported",
            )
        }
    }
    let challenge = match get("code_challenge") {
        Some(c) if c.len() == 43 && c.bytes().all(is_b64url) => c,
        Some(_) => return refuse("invalid_request", "code_challenge is not a S256 challenge"),
        None => return refuse("invalid_request", "PKCE is required: code_challenge"),
    };
    let nonce = get("nonce").filter(|n| !n.is_empty());
    if nonce.is_some_and(|n| n.len() > MAX_ECHO) {
        return refuse("invalid_request", "nonce is too long");
    }
    // The session is the SPA's bearer token, which this request cannot see.
    if get("prompt").is_some_and(|p| p.split_ascii_whitespace().any(|x| x == "none")) {
        return refuse("login_required", "prompt=none is not supported");
    }
    // The organization (docs/oidc.md "Organizations"): the scope or the parameter asks for it,
    // the parameter names which one; the app's setting may ask for it (or require it) anyway.
    let organization = get("organization").filter(|o| !o.is_empty());
    if organization.is_some_and(|o| OrgId::parse(o).is_none()) {
        return refuse(
            "invalid_request",
            "organization is not an organization id (org_ and 16 hex characters)",
        );
    }
    let asked_org = requested.contains(&org_tokens::SCOPE) || organization.is_some();
    let org_want =
        Want::of_app(app.organization).max(if asked_org { Want::Optional } else { Want::No });
    let lang = get("ui_locales")
        .and_then(|l| l.split_ascii_whitespace().find_map(Lang::parse_tag))
        .unwrap_or(accept);
    // The app's scopes that were asked for, in the app's order.
    let scopes: Vec<String> = app
        .scopes
        .into_iter()
        .filter(|s| requested.contains(&s.as_str()))
        .collect();
    let id = b64(&random::<32>(ciam.entropy.as_ref()));
    let req = Request {
        id: id.clone(),
        app_id: client_id.to_owned(),
        redirect_uri: redirect_uri.to_owned(),
        scopes,
        state: state.map(str::to_owned),
        nonce: nonce.map(str::to_owned),
        code_challenge: challenge.to_owned(),
        org_want,
        organization: organization.map(str::to_owned),
        created_at: ciam.now(),
    };
    ciam.store.put(req.to_item(), Some(Cond::NotExists)).await?;
    Ok(Authorize::Consent {
        request_id: id,
        lang,
    })
}

fn is_b64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

fn request_gone(cause: &str) -> Error {
    Error {
        cause: Some(cause.to_owned()),
        ..Error::new(Reason::NOT_FOUND)
    }
}

/// The stored request `id`, or NOT_FOUND (unknown, expired or used). Round trips: 1.
async fn load_request(ciam: &Ciam, id: &str) -> Result<Request> {
    if id.is_empty() || id.len() > 64 || !id.bytes().all(is_b64url) {
        return Err(request_gone("malformed request id"));
    }
    ciam.store
        .get(&request_key(id))
        .await?
        .map(|i| Request::from_item(&i))
        .ok_or_else(|| request_gone("unknown, expired or used request"))
}

/// The scopes a request asks for that its app still has (an app may have dropped one since).
fn asked(req: &Request, app: &App) -> Vec<String> {
    req.scopes
        .iter()
        .filter(|s| app.scopes.contains(s))
        .cloned()
        .collect()
}

/// The request's app, still registered with the request's redirect URI.
fn check_app(app: Option<&App>, req: &Request) -> Result<()> {
    let app = app.ok_or(Reason::APPID_NOT_FOUND)?;
    if !app.registers(&req.redirect_uri) {
        return Err(bad_param(
            "redirect_uri",
            "redirect_uri 已不再登记",
            "The redirect_uri is no longer registered for this app",
        ));
    }
    Ok(())
}

/// The stored request `id`, its app (still registering the request's redirect URI), the
/// user's consent to that app, if any, and the app's entry among the user's recent apps, if
/// any. Round trips: 2 (the request; the app, the consent and the entry together).
async fn load_request_with_app(
    ciam: &Ciam,
    s: &Session,
    id: &str,
) -> Result<(Request, App, Option<Consent>, Option<Item>)> {
    let req = load_request(ciam, id).await?;
    let [app, consent, app_login] = get_each(
        ciam.store.as_ref(),
        [
            app_key(&req.app_id),
            consent_key(&s.user.id, &req.app_id),
            tickets::app_login_key(&s.user.id, &req.app_id),
        ],
    )
    .await?;
    let app = app.as_ref().map(App::from_item);
    check_app(app.as_ref(), &req)?;
    let app = app.ok_or(Reason::APPID_NOT_FOUND)?;
    let consent = consent.as_ref().map(Consent::from_item);
    Ok((req, app, consent, app_login))
}

/// `GET /requests/{id}`: what the consent screen shows for a stored request, in the shape of
/// `GET /auth/consent`; `scopes` are the app's scopes the request asked for, `granted` whether
/// the user already allowed all of those, `serviceUrl` is its redirect URI and `cancelUrl` goes
/// back to it with `error=access_denied`.
/// Round trips: 2 (the request; the app and the consent together).
pub async fn request_context(
    ciam: &Ciam,
    s: &Session,
    id: &str,
    lang: Lang,
) -> Result<consents::Context> {
    let (req, app, consent, _) = load_request_with_app(ciam, s, id).await?;
    let scopes = asked(&req, &app);
    let granted = consent.as_ref().is_some_and(|c| c.covers(&scopes));
    let uri = req.redirect_uri.as_str();
    let mut ctx = consents::Context::of(
        &app,
        lang,
        granted,
        uri,
        cancel_url(ciam, uri, req.state.as_deref()),
    );
    ctx.scopes = scopes;
    ctx.organization = org_step(ciam, s, &req, lang).await?;
    Ok(ctx)
}

/// The request's organization step (`org::tokens::step_of_session`: the session's organization
/// when the request names none), if it asks for an organization.
async fn org_step(
    ciam: &Ciam,
    s: &Session,
    req: &Request,
    lang: Lang,
) -> Result<Option<org_tokens::Step>> {
    let named = req.organization.as_deref();
    org_tokens::step_of_session(ciam, s, req.org_want, named, lang).await
}

/// The browser's next stop after Allow.
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "ApprovedRequest"))]
pub struct Approved {
    pub redirect: String,
}

/// `POST /requests/{id}`: the user allows the request. The request is consumed (single use)
/// and, in the same transaction, the code is written (bound to the user, app, redirect URI,
/// scopes, nonce, PKCE challenge and the session's last proof of identity), the consent to the
/// request's scopes (those the screen showed) remembered, merged with what was allowed before,
/// and the app recorded among the user's recent apps; the last two only when they change (as
/// for a ticket, docs/cost.md: the consent when it grows, the recent-app entry at most once a
/// day), so a code for an app whose consent is held and used today writes the request's delete
/// and the code alone; an app that hears logouts (`App::hears_logout`) also gets the session's
/// record (`app_sessions`) in it. The code carries the session's `sid`, and the organization
/// (`org::tokens::pick`: `organization`, the person's choice, or their only one) when the request
/// asks for one: a request the person cannot go on with (the app requires an organization they
/// do not have, or the named one is not theirs) is ORG_NOT_FOUND, several organizations and no
/// choice INVALID_PARAMETER `organization`. Answers the redirect URI with `code`, `state` and
/// `iss`. Round trips: 2 reads (the request; the app, the consent and the recent-app entry
/// together), 1 transaction; 1 or 2 reads more when the request asks for an organization.
pub async fn approve(
    ciam: &Ciam,
    s: &Session,
    id: &str,
    organization: Option<&str>,
) -> Result<Approved> {
    let (req, app, consent, login) = load_request_with_app(ciam, s, id).await?;
    let step = org_step(ciam, s, &req, Lang::default()).await?;
    let org_id = org_tokens::pick(step.as_ref(), organization)?;
    let code = b64(&random::<32>(ciam.entropy.as_ref()));
    let c = Code {
        key: code_key(ciam, &code),
        user_id: s.user.id.clone(),
        app_id: req.app_id.clone(),
        redirect_uri: req.redirect_uri.clone(),
        scopes: asked(&req, &app),
        nonce: req.nonce.clone(),
        code_challenge: req.code_challenge.clone(),
        auth_time: Some(s.auth_at),
        amr: s.amr.clone(),
        sid: Some(crate::sessions::sid(&s.key)),
        org_id: org_id.map(|o| o.to_string()),
        created_at: ciam.now(),
        used_at: None,
        token_hash: None,
    };
    let mut tx = vec![
        TxOp::Delete {
            key: req.key(),
            cond: Some(Cond::Exists),
        },
        TxOp::Put {
            item: c.to_item(),
            cond: Some(Cond::NotExists),
        },
    ];
    tx.extend(consents::grant_if_new(
        ciam,
        &s.user,
        &c.app_id,
        &c.scopes,
        consent.as_ref(),
    ));
    tx.extend(tickets::recent_app_if_stale(
        ciam,
        &s.user.id,
        &app,
        login.as_ref(),
    ));
    tx.extend(crate::app_sessions::record_op(ciam, s, &app));
    match ciam.store.transact(tx).await {
        Ok(()) => {}
        Err(e) if e.condition_failed_at(0) => return Err(request_gone("request used meanwhile")),
        other => other.or_reason(Reason::SERVICE_UNAVAILABLE)?,
    }
    let iss = issuer(ciam);
    let mut p = vec![("code", code.as_str())];
    if let Some(st) = &req.state {
        p.push(("state", st));
    }
    p.push(("iss", iss.as_str()));
    Ok(Approved {
        redirect: with_params(&req.redirect_uri, &p),
    })
}
