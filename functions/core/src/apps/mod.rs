//! The partner-app registry, managed by admins: `APPS` / `APP#<appId>` (the same items
//! `GET /app/language/{language}` lists, so its attribute names stay), each name held by an
//! `APPNAME#<lower name>` / `UNIQUE` item taken in the same transaction. The app secret is shown
//! once and stored only as a keyed hash; after a rotation the previous one works until the end
//! the console's admin chose (`console::apps`: 24 hours by default, at most 30 days).
//!
//! Here: the app record and what the sign-in flows ask of it (its service URLs, its secret).
//! `admin`: the registry's writes (each with the console's audit entry in its transaction); `frame`: the framing policy of the embedded
//! sign-in; `urls`: the checks of the URLs an admin registers.

mod admin;
mod fields;
mod frame;
mod urls;

pub use admin::WithSecret;
pub(crate) use admin::{apply, create_app, delete_app, plan};
pub use fields::{check, AppFields};
pub use frame::{
    frame_ancestors, frame_ancestors_csp, is_embedded_signin, NO_FRAMING, NO_FRAMING_CSP,
};

use crate::error::{Error, Result};
use crate::{Ciam, Reason};
use ciam_store::{Cond, Item, Key, Update, Value};
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

/// The claims an app may ask for.
pub const SCOPES: [&str; 5] = ["avatar", "nickname", "company", "phone", "email"];

/// A scopes list's schema: its items are [`SCOPES`] (docs/openapi.json).
#[cfg(feature = "openapi")]
pub fn scopes_schema(schema: &mut schemars::Schema) {
    schema.insert(
        "items".into(),
        serde_json::json!({"type": "string", "enum": SCOPES}),
    );
}

/// What an app asks of organizations (issue 35 item 5, docs/oidc.md "Organizations"): the
/// app setting `organization`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "AppOrganization"))]
#[serde(rename_all = "camelCase")]
pub enum OrgSetting {
    /// Only an OpenID Connect request that asks (the `organization` scope or parameter) gets the
    /// organization; tickets never carry it.
    #[default]
    None,
    /// Every token and ticket carries the person's organization when they have one.
    Optional,
    /// As `optional`, and a person without an active organization is refused at Ciam.
    Required,
}

impl OrgSetting {
    pub fn as_str(self) -> &'static str {
        match self {
            OrgSetting::None => "none",
            OrgSetting::Optional => "optional",
            OrgSetting::Required => "required",
        }
    }

    /// The setting named `s` (an unknown or absent name reads as `none`).
    pub fn parse(s: &str) -> Option<OrgSetting> {
        [OrgSetting::None, OrgSetting::Optional, OrgSetting::Required]
            .into_iter()
            .find(|x| x.as_str() == s)
    }
}

/// How long a rotated-out secret keeps working.
pub const PREVIOUS_SECRET_SECS: i64 = 24 * 60 * 60;

pub(crate) const SECRET_LABEL: &str = "app-secret";

/// The registry partition: `APPS` / `APP#<appId>` {appId, name_zh-CN, name_en-US, url,
/// recommended}. The partner-apps issue manages it; `me::seed_demo_app` fills it locally.
pub const APPS_PK: &str = "APPS";

pub fn app_key(app_id: &str) -> Key {
    Key::new(APPS_PK, format!("APP#{app_id}"))
}

/// An app id as a caller gives it (`appId`, `client_id`): 1 to [`AppId::MAX_LEN`] bytes. Longer
/// or empty is no app's, so it is answered without a read (and no key is built from it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppId(String);

impl AppId {
    pub const MAX_LEN: usize = 64;

    pub fn parse(raw: &str) -> Option<AppId> {
        (!raw.is_empty() && raw.len() <= Self::MAX_LEN).then(|| AppId(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Made only of the characters app ids are made of (letters, digits, `-`, `_`), for where
    /// the id is embedded in another value (a passkey challenge's binding).
    pub fn is_plain(&self) -> bool {
        self.0
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    }

    /// The key of its registry item.
    pub fn key(&self) -> Key {
        app_key(&self.0)
    }
}

impl std::fmt::Display for AppId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The names of an app, one per language.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "AppNames"))]
#[serde(deny_unknown_fields)]
pub struct Names {
    #[serde(rename = "zh-CN")]
    pub zh_cn: String,
    #[serde(rename = "en-US")]
    pub en_us: String,
}

impl Names {
    /// The name in `lang`, falling back to the Chinese one when it has none in that language.
    pub fn localized(&self, lang: crate::Lang) -> String {
        let name = match lang {
            crate::Lang::EnUs => &self.en_us,
            crate::Lang::ZhCn => &self.zh_cn,
        };
        if name.is_empty() { &self.zh_cn } else { name }.clone()
    }
}

/// An app as its admin sees it (never its secret).
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "App"))]
#[serde(rename_all = "camelCase")]
pub struct AppDetail {
    pub app_id: String,
    pub name: Names,
    pub description: String,
    pub logo: String,
    /// The app's privacy policy (https), linked from the consent screen; empty when none.
    pub privacy_url: String,
    pub service_urls: Vec<String>,
    pub frame_origins: Vec<String>,
    pub post_logout_redirect_uris: Vec<String>,
    pub backchannel_logout_uri: String,
    pub logout_url: String,
    #[cfg_attr(feature = "openapi", schemars(transform = scopes_schema))]
    pub scopes: Vec<String>,
    /// What the app asks of organizations: `none`, `optional` (tokens and tickets carry the
    /// person's organization) or `required` (a person without one is refused at Ciam).
    pub organization: OrgSetting,
    pub recommended: bool,
    /// Who is told when Ciam disables one of its webhook endpoints; empty when none.
    pub owner_mail: String,
    pub created_at: i64,
    /// While a rotation's overlap runs: when the previous secret stops working (Unix seconds);
    /// null otherwise.
    pub previous_secret_until: Option<i64>,
    /// When the secret was last rotated (Unix seconds); null if never.
    pub secret_rotated_at: Option<i64>,
}

/// A registered app, the item `APPS` / `APP#<appId>` (docs/data-model.md). An attribute that
/// is absent reads as empty (the demo app `me::seed_demo_app` writes only the first five).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct App {
    pub app_id: String,
    pub name: Names,
    /// The first service URL, the link of the public app list.
    pub url: String,
    pub recommended: bool,
    pub description: String,
    pub logo: String,
    /// The app's privacy policy (https), linked from the consent screen; empty when none.
    pub privacy_url: String,
    pub service_urls: Vec<String>,
    pub frame_origins: Vec<String>,
    /// Where RP-Initiated Logout may send the browser back (`oidc::logout`), matched exactly.
    pub post_logout_redirect_uris: Vec<String>,
    /// Where Back-Channel Logout tokens are POSTed (empty: none).
    pub backchannel_logout_uri: String,
    /// Where a ticket (CAS-style) app gets the logout token of an ended session (empty: none).
    pub logout_url: String,
    pub scopes: Vec<String>,
    /// What it asks of organizations (`organization`; absent: `none`).
    pub organization: OrgSetting,
    /// The owner's contact (never shown outside the registry): told when Ciam disables one of
    /// the app's webhook endpoints (`webhooks::owner`); empty when none.
    pub owner_mail: String,
    /// The keyed hash (`app-secret`) of the secret.
    pub secret_hash: Option<String>,
    /// The secret before the last rotation, working until `prev_secret_until`.
    pub prev_secret_hash: Option<String>,
    pub prev_secret_until: Option<i64>,
    /// When the secret was last rotated.
    pub secret_rotated_at: Option<i64>,
    pub created_at: i64,
}

impl App {
    pub fn from_item(i: &Item) -> App {
        let s = |n: &str| i.s(n).unwrap_or_default().to_owned();
        App {
            app_id: s("appId"),
            name: Names {
                zh_cn: s("name_zh-CN"),
                en_us: s("name_en-US"),
            },
            url: s("url"),
            recommended: i.bool("recommended").unwrap_or(false),
            description: s("description"),
            logo: s("logo"),
            privacy_url: s("privacyUrl"),
            service_urls: i.strings("serviceUrls"),
            frame_origins: i.strings("frameOrigins"),
            post_logout_redirect_uris: i.strings("postLogoutRedirectUris"),
            backchannel_logout_uri: s("backchannelLogoutUri"),
            logout_url: s("logoutUrl"),
            scopes: i.strings("scopes"),
            organization: i
                .s("organization")
                .and_then(OrgSetting::parse)
                .unwrap_or_default(),
            owner_mail: s("ownerMail"),
            secret_hash: i.s("secretHash").map(str::to_owned),
            prev_secret_hash: i.s("prevSecretHash").map(str::to_owned),
            prev_secret_until: i.n("prevSecretUntil"),
            secret_rotated_at: i.n("secretRotatedAt"),
            created_at: i.n("createdAt").unwrap_or(0),
        }
    }

    pub fn to_item(&self) -> Item {
        Item::new(app_key(&self.app_id))
            .with("appId", self.app_id.as_str())
            .with("name_zh-CN", self.name.zh_cn.as_str())
            .with("name_en-US", self.name.en_us.as_str())
            .with("url", self.url.as_str())
            .with("recommended", self.recommended)
            .with("description", self.description.as_str())
            .with("logo", self.logo.as_str())
            .with("privacyUrl", self.privacy_url.as_str())
            .with("serviceUrls", Value::strings(&self.service_urls))
            .with("frameOrigins", Value::strings(&self.frame_origins))
            .with(
                "postLogoutRedirectUris",
                Value::strings(&self.post_logout_redirect_uris),
            )
            .with("backchannelLogoutUri", self.backchannel_logout_uri.as_str())
            .with("logoutUrl", self.logout_url.as_str())
            .with("scopes", Value::strings(&self.scopes))
            .with_opt(
                "organization",
                (self.organization != OrgSetting::None).then_some(self.organization.as_str()),
            )
            .with_opt(
                "ownerMail",
                (!self.owner_mail.is_empty()).then_some(self.owner_mail.as_str()),
            )
            .with_opt("secretHash", self.secret_hash.as_deref())
            .with_opt("prevSecretHash", self.prev_secret_hash.as_deref())
            .with_opt("prevSecretUntil", self.prev_secret_until)
            .with_opt("secretRotatedAt", self.secret_rotated_at)
            .with("createdAt", self.created_at)
    }

    /// Whether `url` is exactly (string equality, no normalisation) one of the registered
    /// service URLs, so no open redirect through look-alike URLs.
    pub fn registers(&self, url: &str) -> bool {
        self.service_urls.iter().any(|u| u == url)
    }

    /// Whether a session's sign-in to it is recorded (`app_sessions`): it registered a
    /// Back-Channel Logout URI or a ticket logout URL, so the session's end reaches it.
    pub fn hears_logout(&self) -> bool {
        !self.backchannel_logout_uri.is_empty() || !self.logout_url.is_empty()
    }

    /// The app's name in `lang`, falling back to the Chinese one when it has none in that
    /// language.
    pub fn localized_name(&self, lang: crate::Lang) -> String {
        self.name.localized(lang)
    }

    /// When the previous secret stops working, while that is after `now`.
    pub fn previous_live_until(&self, now: i64) -> Option<i64> {
        self.prev_secret_hash
            .as_ref()
            .and(self.prev_secret_until)
            .filter(|t| *t > now)
    }

    /// What its admin sees at `now` (never the secret).
    pub fn detail(&self, now: i64) -> AppDetail {
        AppDetail {
            app_id: self.app_id.clone(),
            name: self.name.clone(),
            description: self.description.clone(),
            logo: self.logo.clone(),
            privacy_url: self.privacy_url.clone(),
            service_urls: self.service_urls.clone(),
            frame_origins: self.frame_origins.clone(),
            post_logout_redirect_uris: self.post_logout_redirect_uris.clone(),
            backchannel_logout_uri: self.backchannel_logout_uri.clone(),
            logout_url: self.logout_url.clone(),
            scopes: self.scopes.clone(),
            organization: self.organization,
            recommended: self.recommended,
            owner_mail: self.owner_mail.clone(),
            created_at: self.created_at,
            previous_secret_until: self.previous_live_until(now),
            secret_rotated_at: self.secret_rotated_at,
        }
    }
}

/// `url` with the query parameters appended, each form-encoded: how
/// tickets, cancel URLs and OpenID Connect answers are added to a registered service URL.
pub fn with_params(url: &str, params: &[(&str, &str)]) -> String {
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in params {
        q.append_pair(k, v);
    }
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{}", q.finish())
}

/// Whether `presented` is the app's secret, or its previous one before `prevSecretUntil`.
/// Every comparison always runs, in constant time. During a root key rotation's overlap the
/// hash under the previous root is accepted too, and a match that only it finds writes the hash
/// under the current root back (1 conditional write, once per app and hash), so an app in use
/// keeps working once the previous root is removed.
pub async fn secret_matches(ciam: &Ciam, app: &App, presented: &str) -> bool {
    let hash = |keys: &crate::Keys| keys.keyed_hash(SECRET_LABEL, presented.as_bytes());
    let current = hash(&ciam.keys);
    let (secret, prev) = (app.secret_hash.as_deref(), app.prev_secret_hash.as_deref());
    let eq = |stored: Option<&str>, h: &str| -> subtle::Choice {
        stored
            .map(|stored| stored.as_bytes().ct_eq(h.as_bytes()))
            .unwrap_or_else(|| subtle::Choice::from(0))
    };
    let previous_live = subtle::Choice::from(u8::from(
        app.prev_secret_until.is_some_and(|t| t > ciam.now()),
    ));
    let now_ok = eq(secret, &current) | (eq(prev, &current) & previous_live);
    let Some(old) = ciam.keys.previous().map(hash) else {
        return bool::from(now_ok);
    };
    let under_old = [
        ("secretHash", eq(secret, &old)),
        ("prevSecretHash", eq(prev, &old) & previous_live),
    ];
    if bool::from(now_ok) {
        return true;
    }
    let Some((name, _)) = under_old.iter().find(|(_, m)| bool::from(*m)) else {
        return false;
    };
    if !ciam.keys.writes_back() {
        return true;
    }
    let ops = vec![Update::Set((*name).into(), current.as_str().into())];
    if let Err(cause) = ciam
        .store
        .update(
            &app_key(&app.app_id),
            ops,
            Some(Cond::eq(name, old.as_str())),
        )
        .await
    {
        tracing::warn!(cause = %cause, "apps: could not rehash a secret under the current root");
    }
    true
}

/// One app, or APPID_NOT_FOUND. Round trips: 1.
pub async fn find(ciam: &Ciam, app_id: &str) -> Result<App> {
    let app_id = AppId::parse(app_id).ok_or(Reason::APPID_NOT_FOUND)?;
    ciam.store
        .get(&app_id.key())
        .await?
        .map(|i| App::from_item(&i))
        .ok_or_else(|| Reason::APPID_NOT_FOUND.into())
}

fn bad_service() -> Error {
    Error::field(
        Reason::INVALID_PARAMETER,
        "serviceUrl",
        "该服务地址未在应用中登记",
        "The serviceUrl is not registered for this app",
    )
}

/// Refuses (INVALID_PARAMETER `serviceUrl`) a service URL that is not one of the app's
/// registered ones. Exact string equality: no normalisation, so no open redirect through
/// look-alike URLs.
pub fn check_service(app: &App, service_url: &str) -> Result<()> {
    if app.registers(service_url) {
        Ok(())
    } else {
        Err(bad_service())
    }
}
