//! The route table: one row per route, and nothing else lists routes. Each row names the route's
//! id (the `CIAM_ROUTE` of its Lambda), method, path under `/ciam/v1`, handler, who may call it
//! and the `operationId` of its operation in docs/openapi.json. The router (`crate::router`,
//! `crate::router_for`), the Lambda route ids, the template check and the OpenAPI tests all read
//! this table; docs/adding-a-route.md walks through adding a row.
//!
//! The handlers live in files named for what they do. Each handler's doc comment states its
//! sequential store round trips (see docs/data-model.md).

use crate::AppState;
use axum::routing::MethodRouter;

mod account;
mod apps;
mod auth;
mod avatar;
mod client_error;
mod consents;
pub mod embedded;
mod me;
mod meta;
mod oidc;
mod staff;
mod tickets;
mod two_factor;

pub use client_error::{CLIENT_ERROR_LIMIT, RELEASE};

/// Who may call a route: the credentials it reads. Each is one `security` of docs/openapi.json
/// (`Auth::openapi_security`, checked by functions/api/tests/openapi.rs). Finer checks live in
/// core and are not part of the table: a fresh proof of identity (`totp::require_fresh`) and the
/// admin role (`apps::require_admin`) are asked of a session after it is authenticated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Auth {
    /// Anyone: no credentials are read.
    Public,
    /// A live session: `Authorization: Bearer <token>` (`extract::Authed`), else 401
    /// AUTHORIZATION_FAILED before the body is read.
    Session,
    /// A session, or a one-time code in the body instead (`extract::MaybeAuthed`):
    /// `PATCH /auth/pwd` changes the password with one and resets it with the other.
    SessionOrCode,
    /// A partner app's id and secret, by HTTP Basic or in the query or form.
    App,
    /// An OpenID Connect access token, in the `Authorization` header only.
    AccessToken,
    /// An OpenID Connect access token, in the `Authorization` header or the form body.
    AccessTokenOrForm,
}

impl Auth {
    /// The `security` of an operation with this requirement in docs/openapi.json: the schemes
    /// of each alternative, `[]` being "no credentials". A public operation may also leave
    /// `security` out.
    pub fn openapi_security(self) -> &'static [&'static [&'static str]] {
        match self {
            Auth::Public => &[&[]],
            Auth::Session => &[&["bearer"]],
            Auth::SessionOrCode => &[&["bearer"], &[]],
            Auth::App => &[&[], &["appBasic"]],
            Auth::AccessToken => &[&["oidcAccessToken"]],
            Auth::AccessTokenOrForm => &[&["oidcAccessToken"], &[]],
        }
    }
}

/// One route. `handler` builds its method router (the method is written once, in the table).
#[derive(Clone, Copy, Debug)]
pub struct RouteDef {
    /// Also the `CIAM_ROUTE` of its template function.
    pub id: &'static str,
    pub method: &'static str,
    /// Under `/ciam/v1` (`crate::BASE`).
    pub path: &'static str,
    pub handler: fn() -> MethodRouter<AppState>,
    pub auth: Auth,
    /// The `operationId` of its operation in docs/openapi.json.
    pub operation_id: &'static str,
}

/// A page outside `/ciam/v1`, served by its own Lambda and not described in docs/openapi.json.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageDef {
    /// Also the `CIAM_ROUTE` of its template function.
    pub id: &'static str,
    pub method: &'static str,
    /// As in template.yaml.
    pub path: &'static str,
}

/// The embedded sign-in (embedded.rs, `embedded::router`), served by `ciam serve` and its own
/// Lambda.
pub const EMBEDDED_PAGE: PageDef = PageDef {
    id: "embedded_page",
    method: "GET",
    path: "/{lang}/embedded/signin",
};

/// The pages outside `/ciam/v1` (the embedded sign-in only): rows beside `ROUTES`, as they have
/// no `/ciam/v1` path, auth requirement or OpenAPI operation.
pub const PAGES: &[PageDef] = &[EMBEDDED_PAGE];

/// Every route of both tables: `ROUTES` (binary `bootstrap`) then `CEREMONY_ROUTES` (binary
/// `passkeys`). For `ciam serve`, the OpenAPI and template checks; never called by `bootstrap`.
pub fn all_routes() -> impl Iterator<Item = &'static RouteDef> {
    ROUTES.iter().chain(CEREMONY_ROUTES)
}

/// A table row: `route!(id, METHOD, path, handler, auth, operationId)`.
macro_rules! route {
    ($id:literal, $method:ident, $path:literal, $handler:path, $auth:ident, $op:literal) => {
        RouteDef {
            id: $id,
            method: stringify!($method),
            path: $path,
            handler: || axum::routing::on(axum::routing::MethodFilter::$method, $handler),
            auth: Auth::$auth,
            operation_id: $op,
        }
    };
}

pub mod passkeys;
pub use passkeys::CEREMONY_ROUTES;

#[rustfmt::skip]
pub const ROUTES: &[RouteDef] = &[
    // Signing up and in (auth.rs).
    route!("auth_location",           GET,    "/auth/location",          auth::location,           Public,        "getLocation"),
    route!("auth_captcha",            GET,    "/auth/captcha",           auth::captcha_challenge,  Public,        "getCaptcha"),
    route!("auth_identity",           POST,   "/auth/identity",          auth::identity,           Public,        "sendCode"),
    route!("auth_register",           POST,   "/auth/register",          auth::register,           Public,        "register"),
    route!("auth_login_password",     POST,   "/auth/login/password",    auth::login_password,     Public,        "loginPassword"),
    route!("auth_login_code",         POST,   "/auth/login/code",        auth::login_code,         Public,        "loginCode"),
    route!("auth_info_get",           GET,    "/auth/info",              me::info,                 Session,       "getInfo"),
    route!("auth_info_patch",         PATCH,  "/auth/info",              me::update_info,          Session,       "patchInfo"),
    route!("auth_pwd",                PATCH,  "/auth/pwd",               auth::password,           SessionOrCode, "changePassword"),
    route!("auth_logout",             POST,   "/auth/logout",            auth::logout,             Session,       "logout"),
    // Two-factor (two_factor.rs).
    route!("auth_totp_url",           GET,    "/auth/totp/url",          two_factor::url,          Session,       "getTotpUrl"),
    route!("auth_totp_enable",        POST,   "/auth/totp/enable",       two_factor::enable,       Session,       "enableTotp"),
    route!("auth_totp_verify",        POST,   "/auth/totp/verify",       two_factor::verify,       Session,       "verifyFresh"),
    route!("auth_totp_backup_codes",  POST,   "/auth/totp/backupCodes",  two_factor::backup_codes, Session,       "regenerateBackupCodes"),
    route!("auth_totp_disable",       POST,   "/auth/totp/disable",      two_factor::disable,      Session,       "disableTotp"),
    route!("auth_login_totp",         POST,   "/auth/login/totp",        two_factor::login_totp,   Public,        "loginTotp"),
    route!("auth_unlock_code",        POST,   "/auth/unlockCode",        two_factor::unlock_code,  Public,        "loginBackupCode"),
    // Passkeys that only touch the table (passkeys.rs; the ceremonies are `CEREMONY_ROUTES`).
    route!("auth_passkeys",           GET,    "/auth/passkeys",          passkeys::list,           Session,       "listPasskeys"),
    route!("auth_passkey_rename",     PATCH,  "/auth/passkeys/{id}",     passkeys::rename,         Session,       "renamePasskey"),
    route!("auth_passkey_delete",     DELETE, "/auth/passkeys/{id}",     passkeys::remove,         Session,       "deletePasskey"),
    // Account changes (account.rs).
    route!("auth_advertisement",      PATCH,  "/auth/advertisement",     account::advertisement,   Session,       "setAdvertisement"),
    route!("auth_mail",               PATCH,  "/auth/mail",              account::mail,            Session,       "bindMail"),
    route!("auth_phone",              PATCH,  "/auth/phone",             account::phone,           Session,       "bindPhone"),
    route!("auth_deactivation",       PATCH,  "/auth/deactivation",      account::deactivation,    Session,       "deactivate"),
    // The owner's view (me.rs).
    route!("auth_privacy_get",        GET,    "/auth/privacy",           me::privacy,              Session,       "getPrivacy"),
    route!("auth_privacy_patch",      PATCH,  "/auth/privacy",           me::set_privacy,          Session,       "setPrivacy"),
    route!("auth_sessions",           GET,    "/auth/sessions",          me::sessions,             Session,       "listSessions"),
    route!("auth_session_delete",     DELETE, "/auth/sessions/{id}",     me::revoke_session,       Session,       "revokeSession"),
    route!("auth_activity",           GET,    "/auth/activity",          me::activity,             Session,       "listActivity"),
    route!("auth_apps",               GET,    "/auth/apps",              me::recent_apps,          Session,       "recentApps"),
    route!("app_language",            GET,    "/app/language/{language}", me::apps_in,             Public,        "appsByLanguage"),
    // The avatar (avatar.rs).
    route!("auth_avatar",             PATCH,  "/auth/avatar",            avatar::upload,           Session,       "uploadAvatar"),
    route!("avatar_get",              GET,    "/avatar/{key}",           avatar::serve,            Public,        "getAvatar"),
    // The partner app registry (apps.rs).
    route!("app_list",                GET,    "/app",                    apps::list,               Session,       "listApps"),
    route!("app_create",              POST,   "/app",                    apps::create,             Session,       "createApp"),
    route!("app_get",                 GET,    "/app/{appId}",            apps::get,                Session,       "getApp"),
    route!("app_patch",               PATCH,  "/app/{appId}",            apps::update,             Session,       "patchApp"),
    route!("app_delete",              DELETE, "/app/{appId}",            apps::remove,             Session,       "deleteApp"),
    // Tickets: the consent screen's Allow and the partner's check (tickets.rs).
    route!("auth_login_token",        POST,   "/auth/login/token",       tickets::issue_ticket,    Session,       "issueTicket"),
    route!("auth_login_token_verify", GET,    "/auth/login/token/verify", tickets::verify_ticket,  App,           "verifyTicket"),
    // Consents (consents.rs).
    route!("auth_consent",            GET,    "/auth/consent",           consents::context,        Session,       "consentContext"),
    route!("auth_consents",           GET,    "/auth/consents",          consents::list,           Session,       "listConsents"),
    route!("auth_consent_delete",     DELETE, "/auth/consents/{appId}",  consents::revoke,         Session,       "revokeConsent"),
    // Staff sign-in (staff.rs).
    route!("auth_staff_start",        GET,    "/auth/staff/start",       staff::start,             Public,        "staffStart"),
    route!("auth_staff_callback",     GET,    "/auth/staff/callback",    staff::callback,          Public,        "staffCallback"),
    route!("auth_login_staff",        POST,   "/auth/login/staff",       staff::login,             Public,        "loginStaff"),
    // OpenID Connect provider (oidc.rs).
    route!("oidc_discovery",          GET,    "/oidc/.well-known/openid-configuration", oidc::discovery, Public, "oidcDiscovery"),
    route!("oidc_authorize",          GET,    "/oidc/authorize",         oidc::authorize,          Public,        "oidcAuthorize"),
    route!("oidc_request_get",        GET,    "/oidc/requests/{id}",     oidc::request_get,        Session,       "oidcRequestGet"),
    route!("oidc_request_post",       POST,   "/oidc/requests/{id}",     oidc::request_post,       Session,       "oidcRequestAllow"),
    route!("oidc_token",              POST,   "/oidc/token",             oidc::token,              App,           "oidcToken"),
    route!("oidc_userinfo",           GET,    "/oidc/userinfo",          oidc::userinfo,           AccessToken,   "oidcUserinfo"),
    route!("oidc_userinfo_post",      POST,   "/oidc/userinfo",          oidc::userinfo_post,      AccessTokenOrForm, "oidcUserinfoPost"),
    route!("oidc_jwks",               GET,    "/oidc/jwks",              oidc::jwks,               Public,        "oidcJwks"),
    // The API itself and the web app's reports (meta.rs, client_error.rs).
    route!("openapi",                 GET,    "/openapi.json",           meta::openapi,            Public,        "getOpenApi"),
    route!("client_error",            POST,   "/client-errors",          client_error::report,     Public,        "reportClientError"),
    route!("version",                 GET,    "/version",                client_error::version,    Public,        "getVersion"),
];
