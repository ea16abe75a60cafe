//! The route table: one row per route, and nothing else lists routes. A row names the route's
//! id (the `CIAM_ROUTE` of its function), method, path under `/ciam/v1`, handler, who may call
//! it, the `operationId` of its operation in docs/openapi.json, and its function in AWS (a
//! per-area default of `Lambda` and what differs); a sign-in route says its method, a route with
//! another body than JSON says which. The router, the Lambda binaries, the OpenAPI tests and the
//! template generator (`ciam-gen`: template.yaml, infra/routes.json, docs/operations.md §2) all
//! read these tables; docs/adding-a-route.md walks through adding a row.
//!
//! The handlers live in files named for what they do. Each handler's doc comment states its
//! sequential store round trips (see docs/data-model.md).

use crate::route::{
    route, Body, Images, InternalDef, Kms, Lambda, PageDef, RouteDef, Staff, Table, Waf, S3,
};
use ciam_core::KeyPurpose as K;

mod account;
mod admin;
mod admin_apps;
mod admin_export;
mod admin_suspend;
mod apps;
mod auth;
mod avatar;
mod client_error;
mod consents;
pub mod embedded;
mod me;
mod meta;
mod oidc;
mod passkeys;
mod staff;
mod tickets;
mod two_factor;
mod webhooks;

pub use client_error::RELEASE;

/// The per-area defaults the rows start from.
const STATIC: Lambda = Lambda::STATIC;
const KEYS: Lambda = Lambda::KEYS;
const READS: Lambda = Lambda::READS;
const WRITES: Lambda = Lambda::WRITES;
const HASHING: Lambda = Lambda::HASHING;

/// The embedded sign-in (embedded.rs, `embedded::router`), served by `ciam serve` and its own
/// function: the built index.html from the web bucket with its app's frame policy. It reads that
/// one object and app items (GetItem), nothing else.
pub const EMBEDDED_PAGE: PageDef = PageDef {
    id: "embedded_page",
    method: "GET",
    path: "/{lang}/embedded/signin",
    summary: "The embedded sign-in page with its app's frame policy",
    lambda: STATIC.table(Table::GetItem).s3(S3::WebIndex),
};

/// The pages outside `/ciam/v1` (the embedded sign-in only): rows beside `ROUTES`, as they have
/// no `/ciam/v1` path, auth requirement or OpenAPI operation. Binary `bootstrap`.
pub const PAGES: &[PageDef] = &[EMBEDDED_PAGE];

/// The avatar decoder: `auth_avatar` sends it each upload and gets the thumbnail back, so the
/// image decoders run where there is nothing to take (no key, secret, table or bucket).
pub const IMAGE_DECODER: InternalDef = InternalDef {
    id: "avatar_decode",
    summary: "Decodes an uploaded avatar into its thumbnail (no route: auth_avatar invokes it)",
    lambda: Lambda {
        memory: 512,
        timeout: 6,
        ..STATIC.images(Images::Decode)
    },
};

/// The functions with no route (binary `bootstrap`).
pub const INTERNAL: &[InternalDef] = &[IMAGE_DECODER];

/// Every route of both tables: `ROUTES` (binary `bootstrap`) then `CEREMONY_ROUTES` (binary
/// `passkeys`). For `ciam serve`, the OpenAPI checks and the generator; never called by
/// `bootstrap`.
pub fn all_routes() -> impl Iterator<Item = &'static RouteDef> {
    ROUTES.iter().chain(CEREMONY_ROUTES)
}

/// The routes of binary `bootstrap`. Throttles (burst, rate per second) are the HTTP API's
/// across all clients (docs/operations.md §3); `waf` names the web ACL's per-client rate rule.
#[rustfmt::skip]
pub const ROUTES: &[RouteDef] = &[
    // Signing up and in (auth.rs).
    route!("auth_location",           GET,    "/auth/location",          auth::location,           Public,        "getLocation",      STATIC),
    route!("auth_captcha",            GET,    "/auth/captcha",           auth::captcha_challenge,  Public,        "getCaptcha",       KEYS.waf(Waf::Captcha).keys(&[K::Captcha])),
    route!("auth_identity",           POST,   "/auth/identity",          auth::identity,           Public,        "sendCode",         WRITES.messages().throttle(40, 20).waf(Waf::Codes).keys(&[K::Code, K::Captcha])),
    route!("auth_register",           POST,   "/auth/register",          auth::register,           Public,        "register",         HASHING.throttle(20, 10).waf(Waf::Register).keys(&[K::Code]).gradual()),
    route!("auth_login_password",     POST,   "/auth/login/password",    auth::login_password,     Public,        "loginPassword",    HASHING.memory(768).throttle(100, 50).waf(Waf::SignIn).function_url().keys(&[K::Session]).gradual()).sign_in("password"),
    route!("auth_login_code",         POST,   "/auth/login/code",        auth::login_code,         Public,        "loginCode",        WRITES.throttle(60, 30).waf(Waf::SignIn).keys(&[K::Code, K::Session])).sign_in("code"),
    route!("auth_info_get",           GET,    "/auth/info",              me::info,                 Session,       "getInfo",          WRITES.gradual()),
    route!("auth_info_patch",         PATCH,  "/auth/info",              me::update_info,          Session,       "patchInfo",        WRITES),
    route!("auth_pwd",                PATCH,  "/auth/pwd",               auth::password,           SessionOrCode, "changePassword",   HASHING.throttle(20, 10).waf(Waf::Codes).keys(&[K::Code])),
    route!("auth_logout",             POST,   "/auth/logout",            auth::logout,             Session,       "logout",           WRITES),
    // Two-factor (two_factor.rs). The backup-code second step counts with the authenticator's
    // as `totp`: both finish the two-factor step, and their reasons tell them apart.
    route!("auth_totp_url",           GET,    "/auth/totp/url",          two_factor::url,          Session,       "getTotpUrl",       WRITES.keys(&[K::Seal])),
    route!("auth_totp_enable",        POST,   "/auth/totp/enable",       two_factor::enable,       Session,       "enableTotp",       HASHING.keys(&[K::Seal])),
    route!("auth_totp_verify",        POST,   "/auth/totp/verify",       two_factor::verify,       Session,       "verifyFresh",      HASHING.keys(&[K::Seal])),
    route!("auth_totp_backup_codes",  POST,   "/auth/totp/backupCodes",  two_factor::backup_codes, Session,       "regenerateBackupCodes", HASHING.keys(&[K::Seal])),
    route!("auth_totp_disable",       POST,   "/auth/totp/disable",      two_factor::disable,      Session,       "disableTotp",      WRITES),
    route!("auth_login_totp",         POST,   "/auth/login/totp",        two_factor::login_totp,   Public,        "loginTotp",        WRITES.throttle(60, 30).waf(Waf::SignIn).keys(&[K::Session, K::Seal])).sign_in("totp"),
    route!("auth_unlock_code",        POST,   "/auth/unlockCode",        two_factor::unlock_code,  Public,        "loginBackupCode",  HASHING.throttle(20, 10).waf(Waf::Codes).keys(&[K::Session, K::Seal])).sign_in("totp"),
    // Passkeys that only touch the table (passkeys.rs; the ceremonies are `CEREMONY_ROUTES`).
    route!("auth_passkeys",           GET,    "/auth/passkeys",          passkeys::list,           Session,       "listPasskeys",     WRITES),
    route!("auth_passkey_rename",     PATCH,  "/auth/passkeys/{id}",     passkeys::rename,         Session,       "renamePasskey",    WRITES),
    route!("auth_passkey_delete",     DELETE, "/auth/passkeys/{id}",     passkeys::remove,         Session,       "deletePasskey",    WRITES),
    // Account changes (account.rs). Binding and deactivating send notices to the old address.
    route!("auth_advertisement",      PATCH,  "/auth/advertisement",     account::advertisement,   Session,       "setAdvertisement", WRITES),
    route!("auth_mail",               PATCH,  "/auth/mail",              account::mail,            Session,       "bindMail",         WRITES.messages().keys(&[K::Code])),
    route!("auth_phone",              PATCH,  "/auth/phone",             account::phone,           Session,       "bindPhone",        WRITES.messages().keys(&[K::Code])),
    route!("auth_deactivation",       PATCH,  "/auth/deactivation",      account::deactivation,    Session,       "deactivate",       HASHING.messages().keys(&[K::Seal])),
    // The owner's view (me.rs).
    route!("auth_privacy_get",        GET,    "/auth/privacy",           me::privacy,              Session,       "getPrivacy",       WRITES),
    route!("auth_privacy_patch",      PATCH,  "/auth/privacy",           me::set_privacy,          Session,       "setPrivacy",       WRITES),
    route!("auth_sessions",           GET,    "/auth/sessions",          me::sessions,             Session,       "listSessions",     WRITES),
    route!("auth_session_delete",     DELETE, "/auth/sessions/{id}",     me::revoke_session,       Session,       "revokeSession",    WRITES),
    route!("auth_activity",           GET,    "/auth/activity",          me::activity,             Session,       "listActivity",     WRITES),
    route!("auth_apps",               GET,    "/auth/apps",              me::recent_apps,          Session,       "recentApps",       WRITES),
    route!("app_language",            GET,    "/app/language/{language}", me::apps_in,             Public,        "appsByLanguage",   STATIC.table(Table::Read)),
    // The avatar (avatar.rs): decoding up to 4096 x 4096 pixels (64 MiB) plus the crop needs
    // the room and the CPU; serving reads the bucket only (the key is the whole lookup).
    route!("auth_avatar",             PATCH,  "/auth/avatar",            avatar::upload,           Session,       "uploadAvatar",     WRITES.s3(S3::AvatarWrite).images(Images::Invoke)).body(Body::Avatar),
    route!("avatar_get",              GET,    "/avatar/{key}",           avatar::serve,            Public,        "getAvatar",        STATIC.s3(S3::AvatarRead)),
    // The partner app registry (apps.rs).
    route!("app_list",                GET,    "/app",                    apps::list,               Session,       "listApps",         WRITES),
    route!("app_create",              POST,   "/app",                    apps::create,             Session,       "createApp",        WRITES.keys(&[K::App])),
    route!("app_get",                 GET,    "/app/{appId}",            apps::get,                Session,       "getApp",           WRITES),
    route!("app_patch",               PATCH,  "/app/{appId}",            apps::update,             Session,       "patchApp",         WRITES.keys(&[K::App])),
    route!("app_delete",              DELETE, "/app/{appId}",            apps::remove,             Session,       "deleteApp",        WRITES),
    // Its webhook endpoints (webhooks.rs): rotating and enabling are fields of the PATCH, as
    // for the app's secret (docs/events-design.md §3: seven rows, not nine, for the budget).
    route!("app_webhooks",            GET,    "/app/{appId}/webhooks",   webhooks::list,           Session,       "listWebhooks",     WRITES),
    route!("app_webhook_create",      POST,   "/app/{appId}/webhooks",   webhooks::create,         Session,       "createWebhook",    WRITES.keys(&[K::Webhook])),
    route!("app_webhook",             GET,    "/app/{appId}/webhooks/{endpointId}", webhooks::get, Session,       "getWebhook",       WRITES),
    route!("app_webhook_patch",       PATCH,  "/app/{appId}/webhooks/{endpointId}", webhooks::update, Session,    "patchWebhook",     WRITES.keys(&[K::Webhook])),
    route!("app_webhook_delete",      DELETE, "/app/{appId}/webhooks/{endpointId}", webhooks::remove, Session,    "deleteWebhook",    WRITES),
    route!("app_webhook_deliveries",  GET,    "/app/{appId}/webhooks/{endpointId}/deliveries", webhooks::deliveries, Session, "listWebhookDeliveries", WRITES),
    route!("app_webhook_replay",      POST,   "/app/{appId}/webhooks/{endpointId}/replay", webhooks::replay, Session, "replayWebhook",   WRITES),
    // Tickets: the consent screen's Allow and the partner's check (tickets.rs).
    route!("auth_login_token",        POST,   "/auth/login/token",       tickets::issue_ticket,    Session,       "issueTicket",      WRITES.keys(&[K::Ticket])),
    route!("auth_login_token_verify", GET,    "/auth/login/token/verify", tickets::verify_ticket,  App,           "verifyTicket",     WRITES.throttle(100, 50).keys(&[K::Ticket, K::App]).gradual()),
    // Consents (consents.rs).
    route!("auth_consent",            GET,    "/auth/consent",           consents::context,        Session,       "consentContext",   WRITES),
    route!("auth_consents",           GET,    "/auth/consents",          consents::list,           Session,       "listConsents",     WRITES),
    route!("auth_consent_delete",     DELETE, "/auth/consents/{appId}",  consents::revoke,         Session,       "revokeConsent",    WRITES),
    // Staff sign-in (staff.rs): only the callback exchanges the code, with the client secret.
    route!("auth_staff_start",        GET,    "/auth/staff/start",       staff::start,             Public,        "staffStart",       WRITES.staff(Staff::Client).throttle(20, 10).waf(Waf::SignIn).keys(&[K::Staff])),
    route!("auth_staff_callback",     GET,    "/auth/staff/callback",    staff::callback,          Public,        "staffCallback",    WRITES.staff(Staff::ClientSecret).throttle(20, 10).waf(Waf::SignIn).keys(&[K::Staff])),
    route!("auth_login_staff",        POST,   "/auth/login/staff",       staff::login,             Public,        "loginStaff",       WRITES.throttle(20, 10).waf(Waf::SignIn).keys(&[K::Staff, K::Session])).sign_in("staff"),
    // OpenID Connect provider (oidc.rs): id_tokens signed in KMS; userinfo only reads.
    route!("oidc_discovery",          GET,    "/oidc/.well-known/openid-configuration", oidc::discovery, Public, "oidcDiscovery", STATIC),
    route!("oidc_authorize",          GET,    "/oidc/authorize",         oidc::authorize,          Public,        "oidcAuthorize",    WRITES.throttle(50, 20).waf(Waf::OidcAuthorize)),
    route!("oidc_request_get",        GET,    "/oidc/requests/{id}",     oidc::request_get,        Session,       "oidcRequestGet",   WRITES),
    route!("oidc_request_post",       POST,   "/oidc/requests/{id}",     oidc::request_post,       Session,       "oidcRequestAllow", WRITES.keys(&[K::Oidc])),
    route!("oidc_token",              POST,   "/oidc/token",             oidc::token,              App,           "oidcToken",        WRITES.kms(Kms::Sign).throttle(100, 50).waf(Waf::OidcToken).keys(&[K::App, K::Oidc, K::Es256]).gradual()),
    route!("oidc_userinfo",           GET,    "/oidc/userinfo",          oidc::userinfo,           AccessToken,   "oidcUserinfo",     READS.keys(&[K::Oidc])),
    route!("oidc_userinfo_post",      POST,   "/oidc/userinfo",          oidc::userinfo_post,      AccessTokenOrForm, "oidcUserinfoPost", READS.keys(&[K::Oidc])),
    route!("oidc_logout",             GET,    "/oidc/logout",            oidc::logout_get,         Public,        "oidcLogout",       STATIC),
    route!("oidc_logout_post",        POST,   "/oidc/logout",            oidc::logout_post,        Public,        "oidcLogoutPost",   STATIC),
    route!("oidc_end_session_get",    GET,    "/oidc/end-session",       oidc::end_session_get,    Public,        "oidcEndSessionGet", READS.kms(Kms::PublicKeys).keys(&[K::Es256])),
    route!("oidc_end_session_post",   POST,   "/oidc/end-session",       oidc::end_session_post,   Session,       "oidcEndSession",   WRITES.kms(Kms::PublicKeys).keys(&[K::Es256])),
    route!("oidc_jwks",               GET,    "/oidc/jwks",              oidc::jwks,               Public,        "oidcJwks",         STATIC.kms(Kms::PublicKeys).keys(&[K::Es256])),
    // The API itself and the web app's reports (meta.rs, client_error.rs).
    route!("openapi",                 GET,    "/openapi.json",           meta::openapi,            Public,        "getOpenApi",       STATIC),
    route!("client_error",            POST,   "/client-errors",          client_error::report,     Public,        "reportClientError", STATIC.memory(128).throttle(20, 10).waf(Waf::ClientErrors)).body(Body::Report),
    route!("version",                 GET,    "/version",                client_error::version,    Public,        "getVersion",       STATIC.memory(128)),
    // The operator console (admin.rs, docs/console-design.md): each row's role is the one its
    // handler passes `console::gate` with; the session's idle deadline and `consoleAt` move.
    route!("admin_me",                GET,    "/admin/me",               admin::me,                Console(Viewer),   "adminMe",          WRITES),
    route!("admin_roles",             GET,    "/admin/roles",            admin::list_roles,        Console(Admin),    "adminListRoles",   WRITES),
    route!("admin_role_put",          PUT,    "/admin/roles/{userId}",   admin::put_role,          Console(Admin),    "adminGrantRole",   WRITES),
    route!("admin_role_delete",       DELETE, "/admin/roles/{userId}",   admin::delete_role,       Console(Admin),    "adminRevokeRole",  WRITES),
    route!("admin_accounts",          GET,    "/admin/accounts",         admin::find,              Console(Viewer),   "adminFindAccount", WRITES),
    route!("admin_directory",         GET,    "/admin/directory",        admin::directory,         Console(Viewer),   "adminDirectory",   WRITES),
    route!("admin_overview",          GET,    "/admin/overview",         admin::overview,          Console(Viewer),   "adminOverview",    WRITES),
    route!("admin_account",           GET,    "/admin/accounts/{userId}", admin::account,          Console(Viewer),   "adminGetAccount",  WRITES),
    route!("admin_account_reveal",    POST,   "/admin/accounts/{userId}/reveal", admin::reveal,    Console(Operator), "adminReveal",      WRITES),
    route!("admin_account_unlock",    POST,   "/admin/accounts/{userId}/unlock", admin::unlock,    Console(Operator), "adminUnlock",      WRITES.messages()),
    route!("admin_account_end_sessions", POST, "/admin/accounts/{userId}/end-sessions", admin::end_sessions, Console(Operator), "adminEndSessions", WRITES.messages()),
    route!("admin_account_reset_two_factor", POST, "/admin/accounts/{userId}/reset-two-factor", admin::reset_two_factor, Console(Operator), "adminResetTwoFactor", WRITES.messages()),
    route!("admin_account_send_reset_code", POST, "/admin/accounts/{userId}/send-reset-code", admin::send_reset_code, Console(Operator), "adminSendResetCode", WRITES.messages().keys(&[K::Code, K::Captcha])),
    route!("admin_account_suspend",   POST,   "/admin/accounts/{userId}/suspend", admin::suspend, Console(Operator), "adminSuspend", WRITES.messages()),
    route!("admin_account_reactivate", POST,  "/admin/accounts/{userId}/reactivate", admin::reactivate, Console(Operator), "adminReactivate", WRITES.messages()),
    route!("admin_account_reset_passkeys", POST, "/admin/accounts/{userId}/reset-passkeys", admin::reset_passkeys, Console(Operator), "adminResetPasskeys", WRITES.messages()),
    route!("admin_account_identity",  PUT,    "/admin/accounts/{userId}/identity", admin_suspend::replace_identity, Console(Admin), "adminReplaceIdentity", WRITES.messages()),
    route!("admin_audit",             GET,    "/admin/audit",            admin::audit_log,         Console(Viewer),   "adminAudit",       WRITES),
    // Partner apps in the console (admin_apps.rs): any role reads, admins change (audited).
    route!("admin_apps",              GET,    "/admin/apps",             admin_apps::list,         Console(Viewer),   "adminListApps",    WRITES),
    route!("admin_app_create",        POST,   "/admin/apps",             admin_apps::create,       Console(Admin),    "adminCreateApp",   WRITES.keys(&[K::App])),
    route!("admin_app",               GET,    "/admin/apps/{appId}",     admin_apps::get,          Console(Viewer),   "adminGetApp",      WRITES),
    route!("admin_app_patch",         PATCH,  "/admin/apps/{appId}",     admin_apps::patch,        Console(Admin),    "adminPatchApp",    WRITES),
    route!("admin_app_delete",        DELETE, "/admin/apps/{appId}",     admin_apps::delete,       Console(Admin),    "adminDeleteApp",   WRITES),
    route!("admin_app_secret",        POST,   "/admin/apps/{appId}/secret", admin_apps::rotate_secret, Console(Admin), "adminRotateAppSecret", WRITES.keys(&[K::App])),
    route!("admin_app_retire_secret", POST,   "/admin/apps/{appId}/retire-previous-secret", admin_apps::retire_previous_secret, Console(Admin), "adminRetirePreviousSecret", WRITES),
];

/// The WebAuthn ceremonies (passkeys.rs): binary `passkeys` (docs/passkeys-design.md §1.4),
/// the only one that links the relying-party crate. Nothing reachable from `bootstrap` names
/// this table. Sign-in options are a sealed challenge from the keys: nothing stored.
#[rustfmt::skip]
pub const CEREMONY_ROUTES: &[RouteDef] = &[
    route!("auth_passkey_register_options", POST, "/auth/passkeys/options",          passkeys::register_options, Session, "passkeyRegisterOptions", WRITES.keys(&[K::Passkey])),
    route!("auth_passkey_register",         POST, "/auth/passkeys",                  passkeys::register,         Session, "passkeyRegister",        WRITES.keys(&[K::Passkey])),
    route!("auth_login_passkey_options",    POST, "/auth/login/passkey/options",     passkeys::login_options,    Public,  "passkeyLoginOptions",    KEYS.throttle(100, 50).waf(Waf::SignIn).keys(&[K::Passkey])),
    route!("auth_login_passkey",            POST, "/auth/login/passkey",             passkeys::login,            Public,  "loginPasskey",           WRITES.throttle(100, 50).waf(Waf::SignIn).keys(&[K::Passkey, K::Session]).gradual()).sign_in("passkey"),
    route!("auth_mfa_passkey_options",      POST, "/auth/login/passkey/mfa/options", passkeys::mfa_options,      Public,  "passkeyMfaOptions",      READS.throttle(60, 30).waf(Waf::SignIn).keys(&[K::Passkey, K::Session])),
    route!("auth_login_passkey_mfa",        POST, "/auth/login/passkey/mfa",         passkeys::login_mfa,        Public,  "loginPasskeyMfa",        WRITES.throttle(60, 30).waf(Waf::SignIn).keys(&[K::Passkey, K::Session])).sign_in("passkey"),
    route!("auth_reauth_passkey_options",   POST, "/auth/reauth/passkey/options",    passkeys::reauth_options,   Session, "passkeyReauthOptions",   WRITES.keys(&[K::Passkey])),
    route!("auth_reauth_passkey",           POST, "/auth/reauth/passkey",            passkeys::reauth,           Session, "reauthPasskey",          WRITES.keys(&[K::Passkey])),
];
