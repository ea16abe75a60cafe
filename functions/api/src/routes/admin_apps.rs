//! Partner apps in the operator console (`/admin/apps...`, docs/console-design.md §5), the only
//! door to the registry (docs/partners.md §1): each handler takes `extract::Op` first (its row's
//! role; a fresh proof for a change); the changes need a reason and are audited in their
//! transaction (`ciam_core::console::apps`).

use crate::error::ApiError;
use crate::extract::{Facts, Json, Op};
use crate::reply::{done, Created, Done, Reply};
use crate::AppState;
use axum::extract::{Path, State};
use ciam_core::apps::{AppDetail, AppFields, Names, OrgSetting, WithSecret};
use ciam_core::console::apps::{self, OneApp};
use ciam_core::{Error, Reason};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `v` as a `T`, or INVALID_PARAMETER on `field` saying why.
pub(super) fn typed<T: DeserializeOwned>(
    field: &'static str,
    v: Option<Value>,
) -> Result<Option<T>, Error> {
    v.map(|v| {
        serde_json::from_value(v).map_err(|e| {
            Error::field(
                Reason::INVALID_PARAMETER,
                field,
                "格式不正确",
                "Wrong shape",
            )
            .raw_message(format!("{field}: {e}"))
        })
    })
    .transpose()
}

/// An app's fields and the operator's reason.
// Lists and the names object arrive as raw JSON and are typed here, so that each wrong value is
// reported on its own field; their schemas are the typed ones.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AppChange {
    #[cfg_attr(feature = "openapi", schemars(with = "Option<Names>"))]
    name: Option<Value>,
    description: Option<String>,
    /// https URL
    logo: Option<String>,
    /// https URL of the app's privacy policy, linked from the consent screen; empty removes it
    privacy_url: Option<String>,
    /// Exact URLs tickets may be sent to: https (http only for localhost and 127.0.0.1),
    /// canonical form, no user info, no fragment. They are also the app's OpenID Connect
    /// redirect URIs (matched exactly)
    #[cfg_attr(feature = "openapi", schemars(with = "Option<Vec<String>>"))]
    service_urls: Option<Value>,
    /// Origins allowed to embed the sign-in, e.g. https://app.example.com
    #[cfg_attr(feature = "openapi", schemars(with = "Option<Vec<String>>"))]
    frame_origins: Option<Value>,
    /// Where RP-Initiated Logout may send the browser back (post_logout_redirect_uri), matched
    /// exactly; https (http only for localhost), like serviceUrls
    #[cfg_attr(feature = "openapi", schemars(with = "Option<Vec<String>>"))]
    post_logout_redirect_uris: Option<Value>,
    /// OpenID Connect Back-Channel Logout: where a logout token is POSTed when a session that
    /// signed in to the app ends; https (http://localhost only where Ciam itself serves local
    /// http); empty for none
    backchannel_logout_uri: Option<String>,
    /// Ticket (CAS-style) apps: where a logout token (a JWT signed by the JWKS keys, aud = the
    /// app id, as Back-Channel Logout 1.0) is POSTed as logout_token= when a session that signed
    /// in to the app ends; https (http://localhost only where Ciam itself serves local http);
    /// empty for none
    logout_url: Option<String>,
    #[cfg_attr(
        feature = "openapi",
        schemars(
            with = "Option<Vec<String>>",
            transform = ciam_core::apps::scopes_schema
        )
    )]
    scopes: Option<Value>,
    /// What the app asks of organizations (docs/oidc.md "Organizations"): none (default: only an
    /// OpenID Connect request with the organization scope or parameter gets one), optional (every
    /// token and ticket carries the person's organization when they have one) or required (as
    /// optional, and a person without an active organization is refused at Ciam)
    organization: Option<OrgSetting>,
    recommended: Option<bool>,
    /// the owner's e-mail, told when Ciam disables one of the app's webhook endpoints (a 410, or
    /// 3 days of failures); never shown outside the registry; empty removes it
    owner_mail: Option<String>,
    /// why (required; recorded in the audit log)
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
}

impl AppChange {
    fn fields(self) -> Result<(AppFields, String), Error> {
        Ok((
            AppFields {
                name: typed::<Names>("name", self.name)?,
                description: self.description,
                logo: self.logo,
                privacy_url: self.privacy_url,
                service_urls: typed("serviceUrls", self.service_urls)?,
                frame_origins: typed("frameOrigins", self.frame_origins)?,
                post_logout_redirect_uris: typed(
                    "postLogoutRedirectUris",
                    self.post_logout_redirect_uris,
                )?,
                backchannel_logout_uri: self.backchannel_logout_uri,
                logout_url: self.logout_url,
                scopes: typed("scopes", self.scopes)?,
                organization: self.organization,
                recommended: self.recommended,
                owner_mail: self.owner_mail,
            },
            self.reason,
        ))
    }
}

/// A new app's fields (`name` and `serviceUrls` required) and the operator's reason.
// Read as an `AppChange` (the same errors); only its schema says what a creation requires.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(transform = new_app_schema))]
#[serde(transparent)]
pub struct NewApp(AppChange);

#[cfg(feature = "openapi")]
fn new_app_schema(schema: &mut schemars::Schema) {
    require(schema, &["name", "serviceUrls"]);
}

/// An object schema whose `names` properties are required, and not null (a creation's schema
/// from its change's type).
#[cfg(feature = "openapi")]
pub(super) fn require(schema: &mut schemars::Schema, names: &[&str]) {
    for name in names {
        let property = schema
            .get_mut("properties")
            .and_then(|p| p.get_mut(*name))
            .and_then(Value::as_object_mut);
        if let Some(property) = property {
            if let Some(Value::Array(types)) = property.get("type") {
                let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                if let [one] = kept.as_slice() {
                    property.insert("type".into(), one.clone());
                }
            }
        }
        if let Some(Value::Array(required)) = schema.get_mut("required") {
            required.push((*name).into());
        }
    }
}

/// A `POST /admin/apps` body read as the route reads it, for `ciam admin apps create`: the
/// fields and the reason, or the route's 400.
pub fn app_change(bytes: &[u8]) -> Result<(AppFields, String), ApiError> {
    let b: AppChange = crate::extract::parse(bytes)?;
    Ok(b.fields()?)
}

/// The operator's reason.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReasonBody {
    /// why (required; recorded in the audit log)
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
}

/// The operator's reason and the previous secret's end.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RotateBody {
    /// why (required; recorded in the audit log)
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
    /// when the previous secret stops working, Unix seconds (now < t <= now + 30 days); default
    /// now + 24 hours
    previous_valid_until: Option<i64>,
}

/// Every registered app.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct AppList {
    apps: Vec<AppDetail>,
}

/// The app as it now is.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct AppChanged {
    app: AppDetail,
}

/// The partner apps
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Every registered app
/// (the registry, which has no other door: docs/partners.md §1), never a secret.
///
/// Reasons: none.
///
/// Round trips: 2 (authentication, the registry).
pub async fn list(Op(_): Op, State(s): State<AppState>) -> Result<Reply<AppList>, ApiError> {
    Ok(Reply(AppList {
        apps: apps::list(&s.ciam).await?,
    }))
}

/// One partner app
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). The app, and what
/// deleting it ends (`deleteEnds`: `tickets` (no new ticket, and an unredeemed one can no longer be
/// redeemed), `oidcSignIn` (authorization requests refused, codes not yet exchanged refused),
/// `embeddedSignIn` (no longer framed: frame-ancestors 'none'; a passkey ceremony started in its
/// frame fails), `appList` (leaves the public app list), `consents` (leaves its users' list of
/// allowed apps)) and what it does not (`deleteKeeps`: `oidcAccessTokens` (issued access tokens
/// answer userinfo until they expire, 1 hour), `recentApps` (the personal centre's recent apps keep
/// the name and link copied at sign-in)). APPID_NOT_FOUND for an unknown id.
///
/// Reasons: APPID_NOT_FOUND.
///
/// Round trips: 2.
pub async fn get(
    Op(_): Op,
    State(s): State<AppState>,
    Path(app_id): Path<String>,
) -> Result<Reply<OneApp>, ApiError> {
    Ok(Reply(apps::get(&s.ciam, &app_id).await?))
}

/// Register a partner app
///
/// Console: the session's account must hold the role `admin` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). The app's fields (names unique
/// across apps and languages: APPNAME_EXIST; service URLs required, which are also the app's OpenID
/// Connect redirect URIs, matched exactly) and a reason. The answer carries the app secret, shown
/// this once. Recorded in the audit log (`app.create`, target: the app id, detail: the fields
/// given, never a secret) in the same transaction, with the reason given (required, at most 500
/// characters: INVALID_PARAMETER on `reason`).
///
/// Reasons: APPNAME_EXIST, INVALID_MAIL.
///
/// Round trips: 2.
pub async fn create(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Json(NewApp(b)): Json<NewApp>,
) -> Result<Created<WithSecret>, ApiError> {
    let (fields, reason) = b.fields()?;
    let created = apps::create(&s.ciam, &op, fields, &reason, &facts).await?;
    Ok(Reply(created))
}

/// Change a partner app
///
/// Console: the session's account must hold the role `admin` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Only the fields given change (those
/// of `POST /admin/apps`; a new secret is `POST /admin/apps/{appId}/secret`); the service URLs are
/// also the app's OpenID Connect redirect URIs (matched exactly). A body with only the reason
/// changes and records nothing. APPNAME_EXIST for a name another app holds; APPID_NOT_FOUND for an
/// unknown id. Recorded in the audit log (`app.update`, target: the app id, detail: the fields
/// whose value changed, never a secret) in the same transaction, with the reason given (required,
/// at most 500 characters: INVALID_PARAMETER on `reason`).
///
/// Reasons: APPID_NOT_FOUND, APPNAME_EXIST, INVALID_MAIL.
///
/// Round trips: 4.
pub async fn patch(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(app_id): Path<String>,
    Json(b): Json<AppChange>,
) -> Result<Reply<AppChanged>, ApiError> {
    let (fields, reason) = b.fields()?;
    let app = apps::update(&s.ciam, &op, &app_id, fields, &reason, &facts).await?;
    Ok(Reply(AppChanged { app }))
}

/// Rotate an app's secret
///
/// Console: the session's account must hold the role `admin` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). A new secret, shown this once; the
/// previous one keeps working until `previousValidUntil` (Unix seconds, after now and at most 30
/// days away: INVALID_PARAMETER on `previousValidUntil` otherwise; absent: 24 hours), so the
/// partner can switch without a failed call. A rotation during an overlap makes the current secret
/// the previous one and ends the older one at once. Two rotations at once: one wins, the other is
/// refused (SERVICE_UNAVAILABLE). APPID_NOT_FOUND for an unknown id. Recorded in the audit log
/// (`app.rotateSecret`, target: the app id, detail: the previous secret's end, never a secret) in
/// the same transaction, with the reason given (required, at most 500 characters: INVALID_PARAMETER
/// on `reason`).
///
/// Reasons: APPID_NOT_FOUND.
///
/// The previous secret works until `previousValidUntil` (default 24 hours, at most 30 days). Round
/// trips: 4.
pub async fn rotate_secret(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(app_id): Path<String>,
    Json(b): Json<RotateBody>,
) -> Result<Reply<WithSecret>, ApiError> {
    let rotated = apps::rotate(
        &s.ciam,
        &op,
        &app_id,
        b.previous_valid_until,
        &b.reason,
        &facts,
    )
    .await?;
    Ok(Reply(rotated))
}

/// End the previous secret now
///
/// Console: the session's account must hold the role `admin` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). The secret before the last rotation
/// stops working at once (`previousSecretUntil` becomes null); without one running it is no error.
/// APPID_NOT_FOUND for an unknown id. Recorded in the audit log (`app.retirePreviousSecret`,
/// target: the app id, detail: the end it had, never a secret) in the same transaction, with the
/// reason given (required, at most 500 characters: INVALID_PARAMETER on `reason`).
///
/// Reasons: APPID_NOT_FOUND.
///
/// Round trips: 4.
pub async fn retire_previous_secret(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(app_id): Path<String>,
    Json(b): Json<ReasonBody>,
) -> Result<Reply<AppChanged>, ApiError> {
    let app = apps::retire_previous(&s.ciam, &op, &app_id, &b.reason, &facts).await?;
    Ok(Reply(AppChanged { app }))
}

/// Remove a partner app
///
/// Console: the session's account must hold the role `admin` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). The app and its name items (its
/// names become free again); see `deleteEnds` of `GET /admin/apps/{appId}` for what that ends.
/// APPID_NOT_FOUND for an unknown id. Recorded in the audit log (`app.delete`, target: the app id,
/// detail: none, never a secret) in the same transaction, with the reason given (required, at most
/// 500 characters: INVALID_PARAMETER on `reason`).
///
/// Reasons: APPID_NOT_FOUND.
///
/// With `{reason}`: the app and its names. Round trips: 3.
pub async fn delete(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(app_id): Path<String>,
    Json(b): Json<ReasonBody>,
) -> Result<Reply<Done>, ApiError> {
    apps::delete(&s.ciam, &op, &app_id, &b.reason, &facts).await?;
    Ok(done())
}
