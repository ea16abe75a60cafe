//! Extractors: JSON bodies parsed into request types with errors that name the field, query
//! parameters, the bearer session, and the console's operator (`Op`, the gate of the row's role).

use crate::error::ApiError;
use crate::route::{Auth, Body};
use crate::AppState;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, Method};
use base64::Engine;
use ciam_core::console::{self, Operator};
use ciam_core::federation::ProviderId;
use ciam_core::sessions::{self, Session};
use ciam_core::{Error, Reason};
use serde::de::DeserializeOwned;
use std::collections::HashMap;

/// A JSON body. Malformed JSON, wrong types, unknown fields or values and missing fields are
/// 400 INVALID_PARAMETER naming the field; so is a body over the route's limit (`body`).
pub struct Json<T>(pub T);

/// The request's language, from Accept-Language (zh-CN or en-US, else zh-CN): set by the
/// conventions middleware on every request, read by `Lang`.
#[derive(Clone, Copy, Debug)]
pub struct RequestLang(pub ciam_core::Lang);

/// The request's id (X-Request-ID, or a fresh UUID): set by the conventions middleware, read
/// by `Facts`.
#[derive(Clone, Debug)]
pub struct RequestId(pub String);

/// The route's body (`RouteDef::body`): set by the route's body-limit layer, read by the
/// extractors that read the body, so that they name the route's limit when they cut it.
#[derive(Clone, Copy, Debug)]
pub struct BodyLimit(pub Body);

/// The route's row's `auth` (`RouteDef::auth`): set by a route layer from the row, read by
/// [`Op`], so that a console handler never names its role.
#[derive(Clone, Copy, Debug)]
pub struct RowAuth(pub Auth);

/// The row's federated sign-in provider (`Lambda::fed`): set by a route layer from the row, read
/// by the generic federation handlers, so that none names a provider. A row without one is a
/// programming error: 503.
#[derive(Clone, Copy, Debug)]
pub struct RowProvider(pub ProviderId);

impl<S: Send + Sync> FromRequestParts<S> for RowProvider {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        parts
            .extensions
            .get::<RowProvider>()
            .copied()
            .ok_or_else(|| {
                ApiError(Error {
                    cause: Some("RowProvider on a route whose row has no Fed".into()),
                    ..Error::new(Reason::SERVICE_UNAVAILABLE)
                })
            })
    }
}

fn invalid(field: String, detail: &str) -> ApiError {
    ApiError(crate::error::invalid(&field, detail))
}

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Json<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let body = req
            .extensions()
            .get::<BodyLimit>()
            .map_or(Body::Json, |l| l.0);
        let json_type = req
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.trim()
                    .to_ascii_lowercase()
                    .starts_with("application/json")
            });
        if !json_type {
            return Err(invalid(
                "body".into(),
                "send JSON with Content-Type: application/json",
            ));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
                ApiError(body.too_large())
            } else {
                invalid("body".into(), "unreadable body")
            }
        })?;
        parse(&bytes).map(Json)
    }
}

pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.inner();
        let msg = inner.to_string();
        // serde reports a missing field at its parent; take its name from the message.
        let field = msg
            .strip_prefix("missing field `")
            .and_then(|r| r.split('`').next())
            .map(|f| {
                if path == "." {
                    f.to_owned()
                } else {
                    format!("{path}.{f}")
                }
            })
            .or_else(|| {
                msg.strip_prefix("unknown field `")
                    .and_then(|r| r.split('`').next())
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| if path == "." { "body".to_owned() } else { path });
        // An unknown field's name is the sender's text: echoed and logged only when it looks
        // like a field name, else the body is at fault (no 8 KiB of anything in a log line).
        let plain = |f: &str| {
            f.len() <= 64
                && f.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '[' | ']'))
        };
        match inner.classify() {
            // Broken JSON is the body's fault, not that of the field where parsing stopped.
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                invalid("body".into(), "malformed JSON")
            }
            _ if !plain(&field) => invalid("body".into(), "unknown or malformed field"),
            _ => invalid(field, msg.split(" at line").next().unwrap_or("invalid")),
        }
    })?;
    // Nothing but whitespace may follow the value.
    de.end()
        .map_err(|_| invalid("body".into(), "malformed JSON"))?;
    Ok(value)
}

/// The query string as names and values; a malformed one is 400 INVALID_PARAMETER on `query`.
pub struct Params(pub HashMap<String, String>);

impl Params {
    /// The value of `name`; a missing one is 400 INVALID_PARAMETER naming it.
    pub fn get(&self, name: &'static str) -> Result<String, ApiError> {
        self.0.get(name).cloned().ok_or_else(|| {
            ApiError(Error::field(
                Reason::INVALID_PARAMETER,
                name,
                "缺少参数",
                "Missing parameter",
            ))
        })
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Params {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let axum::extract::Query(q) = axum::extract::Query::from_request_parts(parts, state)
            .await
            .map_err(|_| {
                ApiError(Error::field(
                    Reason::INVALID_PARAMETER,
                    "query",
                    "查询参数格式不正确",
                    "Malformed query string",
                ))
            })?;
        Ok(Params(q))
    }
}

/// The session behind `Authorization: Bearer <token>`; 401 AUTHORIZATION_FAILED otherwise.
pub struct Authed(pub Session);

impl FromRequestParts<AppState> for Authed {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        Ok(Authed(
            MaybeAuthed::of(&parts.headers).session(state).await?,
        ))
    }
}

/// The operator of a console route (`Auth::Console(role)`): the bearer session (401
/// AUTHORIZATION_FAILED without a live one), past `console::gate` with the role of the request's
/// row ([`RowAuth`]): `change` (a fresh proof) when the method changes something, that is is not
/// GET or HEAD. A handler takes it first, before `Path`, `Params` or `Json`: a refused caller
/// (403 PERMISSION_DENIED for a customer, CONSOLE_MFA_REQUIRED without a second factor) learns
/// nothing of the body's shape. A row that is not a console row is a programming error: 503.
/// Round trips: those of the session and the gate.
pub struct Op(pub Operator);

impl FromRequestParts<AppState> for Op {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Some(RowAuth(Auth::Console(role))) = parts.extensions.get::<RowAuth>().copied() else {
            return Err(ApiError(Error {
                cause: Some("Op on a route whose row is not Auth::Console".into()),
                ..Error::new(Reason::SERVICE_UNAVAILABLE)
            }));
        };
        let session = MaybeAuthed::of(&parts.headers).session(state).await?;
        let change = !matches!(parts.method, Method::GET | Method::HEAD);
        Ok(Op(console::gate(&state.ciam, &session, role, change).await?))
    }
}

/// For a route where the session is optional (`PATCH /auth/pwd`: a change with a session, a
/// reset without one): the bearer token, read by the same parser as [`Authed`], and looked up
/// only when the handler asks, so the other shape neither pays the round trip nor fails on a
/// stale token.
pub struct MaybeAuthed(Option<String>);

impl MaybeAuthed {
    fn of(headers: &HeaderMap) -> Self {
        MaybeAuthed(bearer(headers).filter(|t| !t.is_empty()).map(str::to_owned))
    }

    /// The session behind the token; 401 AUTHORIZATION_FAILED without one or for a dead one.
    pub async fn session(&self, state: &AppState) -> Result<Session, ApiError> {
        Ok(sessions::authenticate(&state.ciam, self.0.as_deref()).await?)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for MaybeAuthed {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(MaybeAuthed::of(&parts.headers))
    }
}

/// The token of `Authorization: Bearer <token>` (scheme case-insensitive), trimmed; possibly
/// empty.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = v.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// `id:secret` from `Authorization: Basic …` (scheme case-insensitive), each form-decoded
/// (RFC 6749 §2.3.1). None without a Basic header; Some(None) when it is Basic but unreadable.
pub fn basic(headers: &HeaderMap) -> Option<Option<(String, String)>> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, rest) = v.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let parsed = base64::engine::general_purpose::STANDARD
        .decode(rest.trim())
        .ok()
        .and_then(|raw| String::from_utf8(raw).ok())
        .and_then(|text| {
            let (id, secret) = text.split_once(':')?;
            let dec = |s: &str| {
                url::form_urlencoded::parse(format!("x={s}").as_bytes())
                    .next()
                    .map(|(_, v)| v.into_owned())
            };
            Some((dec(id)?, dec(secret)?))
        });
    Some(parsed)
}

/// The request's language, for handlers that write localised text.
pub struct Lang(pub ciam_core::Lang);

impl<S: Send + Sync> FromRequestParts<S> for Lang {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Lang(
            parts
                .extensions
                .get::<RequestLang>()
                .map(|l| l.0)
                .unwrap_or_default(),
        ))
    }
}

/// The caller's device and approximate country, for sessions and the activity trail, and its
/// address ([`viewer_ip`]) for the failed sign-in attempts.
pub struct Client(pub ciam_core::client::ClientInfo);

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let h = |n: &str| parts.headers.get(n).and_then(|v| v.to_str().ok());
        let ip = viewer_ip(&parts.headers, &parts.extensions).map(|ip| ip.to_string());
        Ok(Client(
            ciam_core::client::ClientInfo::from_headers(
                h("user-agent"),
                h("cloudfront-viewer-country"),
            )
            .with_ip(ip),
        ))
    }
}

/// The viewer's address: CloudFront-Viewer-Address (`<ip>:<port>`), else the connection's peer.
/// In a Lambda the header never counts: `ciam_lambdas::viewer` removes it and puts the viewer
/// CloudFront appended to X-Forwarded-For as the peer (the managed origin request policy does
/// not forward CloudFront-Viewer-Address, and a viewer could send one itself); under
/// `ciam serve` the peer is the socket's. Read by the cn cell's per-client limits
/// (`middleware::client_limits`) and the audit log ([`Facts`]), so both see the same address,
/// and never the first X-Forwarded-For entry, which is the viewer's to write. None: no address.
pub fn viewer_ip(
    headers: &HeaderMap,
    extensions: &axum::http::Extensions,
) -> Option<std::net::IpAddr> {
    headers
        .get("cloudfront-viewer-address")
        .and_then(|v| v.to_str().ok())
        .and_then(|a| a.rsplit_once(':'))
        .and_then(|(ip, _)| ip.trim_matches(['[', ']']).parse().ok())
        .or_else(|| {
            extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|c| c.0.ip())
        })
}

/// What an audit entry records about the request: its id, the caller's address ([`viewer_ip`]:
/// the one the per-client limits count, never a client-written X-Forwarded-For entry) and device.
pub struct Facts(pub ciam_core::console::audit::RequestFacts);

impl<S: Send + Sync> FromRequestParts<S> for Facts {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let h = |n: &str| parts.headers.get(n).and_then(|v| v.to_str().ok());
        let ip = viewer_ip(&parts.headers, &parts.extensions).map(|ip| ip.to_string());
        Ok(Facts(ciam_core::console::audit::RequestFacts {
            request_id: parts
                .extensions
                .get::<RequestId>()
                .map(|r| r.0.clone())
                .unwrap_or_default(),
            ip,
            device: h("user-agent").map(ciam_core::client::describe),
        }))
    }
}

/// What each extractor says of its operation in docs/openapi.json (`doc::Part`): a `Json<T>` is
/// the request body, `T`'s schema; the others add nothing (the row says who may call).
#[cfg(feature = "openapi")]
mod openapi {
    use super::{Authed, Client, Facts, Json, Lang, MaybeAuthed, Op, Params, RowProvider};
    use crate::doc::{no_part, Generators, Part, Shape};
    use schemars::JsonSchema;

    impl<T: JsonSchema> Part for Json<T> {
        fn add(shape: &mut Shape, gens: &mut Generators) {
            shape.request = Some(gens.request.subschema_for::<T>());
        }
    }

    no_part!(
        Authed,
        MaybeAuthed,
        Op,
        Lang,
        Client,
        Facts,
        Params,
        RowProvider
    );
}
