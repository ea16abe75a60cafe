//! Sign-out that reaches the partner (issue 23, docs/events-design.md §4).
//!
//! **RP-Initiated Logout 1.0.** `GET|POST /oidc/logout` (the `end_session_endpoint`) reads no
//! session (the session is the SPA's bearer token, which a navigation does not carry, as for
//! `/authorize`): it sends the browser to the SPA's `/{lang}/passport/end-session` with the
//! request's parameters ([`spa_location`]). The SPA asks what the request means ([`context`]:
//! the app, the checked redirect) and, holding the session, ends it ([`end`]): at once when the
//! `id_token_hint` is a valid ID token of ours (an expired one is fine) naming this session
//! (`sid`) or its user, else only after the user confirmed. The redirect is
//! `post_logout_redirect_uri` with `state`, followed only when it is exactly one of the app's
//! registered `postLogoutRedirectUris`; the app is `client_id`'s or the hint's `aud` (both
//! given: they must be the same). A hint that does not verify is treated as absent (§4 of the
//! specification): the user is asked.
//!
//! **Back-Channel Logout 1.0.** [`notice`]: for an ended session, what an app it signed in to
//! (`app_sessions`) is told: a logout token (`typ` `logout+jwt`, ES256 by the logout key)
//! POSTed as `logout_token=` (form) to its `backchannelLogoutUri`, and the same to a ticket
//! app's `logoutUrl`. Sending them (fan-out from the `session.ended` event, SSRF guard, a fresh
//! token at each attempt, retries, the log) is `webhooks::notices`'.

use super::{b64, bad_param, issuer, signer, MAX_ECHO};
use crate::apps::{app_key, with_params, App, AppId};
use crate::error::Result;
use crate::sessions::{self, Session};
use crate::signer::sign_typed_jwt;
use crate::{app_sessions, random, Ciam, Error, Lang};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use p256::ecdsa::signature::Verifier;
use serde::Serialize;
use serde_json::{json, Value as Json};

/// How long a logout token is valid (its `exp` after its `iat`).
pub const LOGOUT_TOKEN_SECS: i64 = 120;
/// The `events` member of a logout token.
pub const BACKCHANNEL_EVENT: &str = "http://schemas.openid.net/event/backchannel-logout";
/// The SPA's page of an end-session request, below `/{lang}`.
pub const SPA_PATH: &str = "passport/end-session";
/// The request parameters carried to the SPA, in this order.
const PARAMS: [&str; 4] = [
    "id_token_hint",
    "client_id",
    "post_logout_redirect_uri",
    "state",
];
const MAX_HINT: usize = 8 * 1024;
const MAX_URI: usize = 2048;

/// An end-session request's parameters, as sent (each at most once: the first is taken).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EndSession {
    pub id_token_hint: Option<String>,
    pub client_id: Option<String>,
    pub post_logout_redirect_uri: Option<String>,
    pub state: Option<String>,
}

impl EndSession {
    /// From query or form pairs; empty values are absent.
    pub fn from_pairs(params: &[(String, String)]) -> EndSession {
        let get = |name: &str| {
            params
                .iter()
                .find(|(k, v)| k == name && !v.is_empty())
                .map(|(_, v)| v.clone())
        };
        EndSession {
            id_token_hint: get("id_token_hint"),
            client_id: get("client_id"),
            post_logout_redirect_uri: get("post_logout_redirect_uri"),
            state: get("state"),
        }
    }
}

/// Where `GET|POST /logout` sends the browser: `/{lang}/passport/end-session` with the request's
/// parameters (form-encoded); the language is the first of `ui_locales` that is zh-CN or
/// en-US, else `accept`'s.
pub fn spa_location(params: &[(String, String)], accept: Lang) -> String {
    let lang = params
        .iter()
        .find(|(k, _)| k == "ui_locales")
        .and_then(|(_, l)| l.split_ascii_whitespace().find_map(Lang::parse_tag))
        .unwrap_or(accept);
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    for name in PARAMS {
        if let Some((k, v)) = params.iter().find(|(k, v)| k == name && !v.is_empty()) {
            q.append_pair(k, v);
        }
    }
    let q = q.finish();
    let sep = if q.is_empty() { "" } else { "?" };
    format!("/{}/{SPA_PATH}{sep}{q}", lang.tag())
}

/// What a verified `id_token_hint` says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    pub sub: String,
    pub aud: String,
    pub sid: Option<String>,
}

fn part(raw: &str) -> Option<Json> {
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(raw).ok()?).ok()
}

/// The key of `kid` among the published ones (JWKS), as a verifying key.
fn published_key(ciam: &Ciam, kid: &str) -> Option<p256::ecdsa::VerifyingKey> {
    let keys = signer(ciam).jwks();
    let jwk = keys.iter().find(|k| k["kid"] == kid)?;
    let coord = |n: &str| {
        URL_SAFE_NO_PAD
            .decode(jwk[n].as_str()?)
            .ok()
            .filter(|c| c.len() == 32)
    };
    let mut sec1 = vec![4u8];
    sec1.extend(coord("x")?);
    sec1.extend(coord("y")?);
    p256::ecdsa::VerifyingKey::from_sec1_bytes(&sec1).ok()
}

/// The hint, when it is an ID token this provider signed (ES256, by a key the JWKS publishes,
/// our `iss`, a `sub` and one `aud`); its expiry is not checked (RP-Initiated Logout §2). None
/// for anything else. Round trips: 0.
pub fn verify_hint(ciam: &Ciam, token: &str) -> Option<Hint> {
    if token.len() > MAX_HINT {
        return None;
    }
    let mut parts = token.split('.');
    let (h, p, sig) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let header = part(h)?;
    if header["alg"] != "ES256" {
        return None;
    }
    let key = published_key(ciam, header["kid"].as_str()?)?;
    let sig = p256::ecdsa::Signature::from_slice(&URL_SAFE_NO_PAD.decode(sig).ok()?).ok()?;
    key.verify(format!("{h}.{p}").as_bytes(), &sig).ok()?;
    let claims = part(p)?;
    if claims["iss"] != issuer(ciam).as_str() {
        return None;
    }
    let aud = match &claims["aud"] {
        Json::String(a) => a.clone(),
        Json::Array(a) if a.len() == 1 => a[0].as_str()?.to_owned(),
        _ => return None,
    };
    Some(Hint {
        sub: claims["sub"].as_str()?.to_owned(),
        aud,
        sid: claims["sid"].as_str().map(str::to_owned),
    })
}

/// A checked request: the verified hint, the app and where the browser goes after.
struct Plan {
    hint: Option<Hint>,
    app: Option<App>,
    redirect: Option<String>,
}

/// Checks a request. `client_id` unknown, or not the hint's `aud`: INVALID_PARAMETER
/// `client_id`; a `post_logout_redirect_uri` without a known app or not exactly one of its
/// registered ones: INVALID_PARAMETER `post_logout_redirect_uri` (never followed); `state` too
/// long: INVALID_PARAMETER `state`. Round trips: 0 or 1 (the app).
async fn plan(ciam: &Ciam, req: &EndSession) -> Result<Plan> {
    super::configured(ciam)?;
    let hint = req
        .id_token_hint
        .as_deref()
        .and_then(|t| verify_hint(ciam, t));
    let client = match (&req.client_id, &hint) {
        (Some(c), Some(h)) if *c != h.aud => {
            return Err(bad_param(
                "client_id",
                "client_id 与 id_token_hint 的应用不一致",
                "client_id is not the audience of the id_token_hint",
            ))
        }
        (Some(c), _) => Some(c.clone()),
        (None, Some(h)) => Some(h.aud.clone()),
        (None, None) => None,
    };
    let app = match client.as_deref().and_then(AppId::parse) {
        Some(id) => ciam.store.get(&id.key()).await?.map(|i| App::from_item(&i)),
        None => None,
    };
    if req.client_id.is_some() && app.is_none() {
        return Err(bad_param(
            "client_id",
            "未知的应用",
            "client_id is not a registered app",
        ));
    }
    if req.state.as_ref().is_some_and(|s| s.len() > MAX_ECHO) {
        return Err(bad_param("state", "state 过长", "state is too long"));
    }
    let redirect = match &req.post_logout_redirect_uri {
        None => None,
        Some(uri) => {
            let registered = uri.len() <= MAX_URI
                && app
                    .as_ref()
                    .is_some_and(|a| a.post_logout_redirect_uris.iter().any(|u| u == uri));
            if !registered {
                return Err(bad_param(
                    "post_logout_redirect_uri",
                    "post_logout_redirect_uri 未在应用中登记",
                    "post_logout_redirect_uri must be exactly one of the app's registered postLogoutRedirectUris (and the app known by client_id or id_token_hint)",
                ));
            }
            Some(match &req.state {
                Some(s) => with_params(uri, &[("state", s)]),
                None => uri.clone(),
            })
        }
    };
    Ok(Plan {
        hint,
        app,
        redirect,
    })
}

/// What the SPA's end-session page shows before anything ends.
#[derive(Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "EndSessionContext"))]
#[serde(rename_all = "camelCase")]
pub struct Context {
    /// The app's name in the request's language, when the app is known.
    pub app_name: Option<String>,
    /// Where the browser goes after: the registered `post_logout_redirect_uri` with `state`.
    pub redirect: Option<String>,
    /// Whether the `id_token_hint` verified (the session may then end without asking).
    pub hint: bool,
}

/// `GET /oidc/end-session`: the request checked (see [`plan`]), for any caller: nothing ends.
/// Round trips: 0 or 1.
pub async fn context(ciam: &Ciam, req: &EndSession, lang: Lang) -> Result<Context> {
    let p = plan(ciam, req).await?;
    Ok(Context {
        app_name: p.app.map(|a| a.localized_name(lang)),
        redirect: p.redirect,
        hint: p.hint.is_some(),
    })
}

/// Whether the end-session request ended the session, and where the browser goes then.
#[derive(Debug, Serialize, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "EndedSession"))]
pub struct Ended {
    /// Whether the session ended; false: the user must confirm first.
    pub ended: bool,
    /// Where the browser goes now (after an end only).
    pub redirect: Option<String>,
}

/// `POST /oidc/end-session`: ends the session `s` as sign-out does (`sessions::revoke`, which
/// writes its `session.ended` event) when the hint verified and names this session (`sid`) or
/// its user, or when `confirmed`; else ends nothing and answers `ended: false`. The request is
/// checked as for [`context`]. Round trips: 0 or 1 (the app), then the sign-out's.
pub async fn end(ciam: &Ciam, s: &Session, req: &EndSession, confirmed: bool) -> Result<Ended> {
    let p = plan(ciam, req).await?;
    let sid = sessions::sid(&s.key);
    let same = p
        .hint
        .as_ref()
        .is_some_and(|h| h.sid.as_deref() == Some(sid.as_str()) || h.sub == s.user.id);
    if !same && !confirmed {
        return Ok(Ended {
            ended: false,
            redirect: None,
        });
    }
    sessions::revoke(ciam, s).await?;
    Ok(Ended {
        ended: true,
        redirect: p.redirect,
    })
}

/// Where an app hears of an ended session: its `backchannelLogoutUri` (OpenID Connect) or its
/// `logoutUrl` (tickets). The name is the pseudo endpoint of the app's delivery log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Receiver {
    Backchannel,
    LogoutUrl,
}

impl Receiver {
    pub const ALL: [Receiver; 2] = [Receiver::Backchannel, Receiver::LogoutUrl];

    pub fn name(self) -> &'static str {
        match self {
            Receiver::Backchannel => "backchannel",
            Receiver::LogoutUrl => "logoutUrl",
        }
    }

    pub fn parse(name: &str) -> Option<Receiver> {
        Receiver::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The app's URL of this kind, None when it registered none.
    pub fn url(self, app: &App) -> Option<&str> {
        let u = match self {
            Receiver::Backchannel => &app.backchannel_logout_uri,
            Receiver::LogoutUrl => &app.logout_url,
        };
        (!u.is_empty()).then_some(u.as_str())
    }
}

/// The content type of every notice (Back-Channel Logout 1.0 §2.5).
pub const FORM: &str = "application/x-www-form-urlencoded";

/// One message for one app about an ended session, for the delivery pipeline to POST.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogoutNotice {
    pub app_id: String,
    pub receiver: Receiver,
    pub url: String,
    pub content_type: &'static str,
    pub body: String,
}

/// A Back-Channel Logout token (§2.4) for `app_id` about the session `sid` of `user_id`: `typ`
/// `logout+jwt`; `iss`, `aud`, `iat`, `exp` (`LOGOUT_TOKEN_SECS` later), `jti` (128 random
/// bits), `sub`, `sid`, `events`; never a `nonce`. Signed ES256 with the logout key, never an
/// id_token key (`oidc::logout_signer`: its own KMS key in AWS, its own `kid` in the JWKS).
pub async fn logout_token(ciam: &Ciam, app_id: &str, user_id: &str, sid: &str) -> Result<String> {
    let now = ciam.now();
    let claims = json!({
        "iss": issuer(ciam),
        "aud": app_id,
        "iat": now,
        "exp": now + LOGOUT_TOKEN_SECS,
        "jti": b64(&random::<16>(ciam.entropy.as_ref())),
        "sub": user_id,
        "sid": sid,
        "events": { BACKCHANNEL_EVENT: {} },
    });
    let signer = super::logout_signer(ciam);
    sign_typed_jwt(signer.as_ref(), "logout+jwt", &claims)
        .await
        .map_err(|cause| Error {
            cause: Some(format!("the logout token could not be signed: {cause}")),
            ..Error::new(crate::Reason::SERVICE_UNAVAILABLE)
        })
}

/// The message to `app`'s `receiver` URL about the ended session `sid` of `user_id`, signed now
/// (None when the app registered no such URL): `logout_token=<jwt>`, form-encoded, to either
/// URL. A ticket app's `logoutUrl` gets the same logout token as a back-channel URI (its `aud`
/// the app id): every partner verifies it with the published JWKS, no secret needed.
/// Round trips: 0 (one signature: KMS Sign in AWS).
pub async fn notice(
    ciam: &Ciam,
    app: &App,
    receiver: Receiver,
    user_id: &str,
    sid: &str,
) -> Result<Option<LogoutNotice>> {
    let Some(url) = receiver.url(app) else {
        return Ok(None);
    };
    let jwt = logout_token(ciam, &app.app_id, user_id, sid).await?;
    let body = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("logout_token", &jwt)
        .finish();
    Ok(Some(LogoutNotice {
        app_id: app.app_id.clone(),
        receiver,
        url: url.to_owned(),
        content_type: FORM,
        body,
    }))
}

/// What each app the session `sid` of `user_id` signed in to would be told if it ended now:
/// [`notice`] to each URL it registered (the delivery signs a fresh one at each attempt). An app
/// gone or that dropped both URLs since is skipped. Round trips: 1 query (the session's apps),
/// 1 batch read (the apps), then one signature per notice.
pub async fn notices(ciam: &Ciam, user_id: &str, sid: &str) -> Result<Vec<LogoutNotice>> {
    let ids = app_sessions::apps_of(ciam, user_id, sid).await?;
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let keys: Vec<_> = ids.iter().map(|id| app_key(id)).collect();
    let apps = ciam.store.get_many(&keys).await?;
    let mut out = Vec::new();
    for app in apps.iter().flatten().map(App::from_item) {
        for r in Receiver::ALL {
            out.extend(notice(ciam, &app, r, user_id, sid).await?);
        }
    }
    out.sort_by(|a, b| (&a.app_id, &a.url).cmp(&(&b.app_id, &b.url)));
    Ok(out)
}
