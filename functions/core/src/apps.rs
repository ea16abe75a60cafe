//! The partner-app registry, managed by admins: `APPS` / `APP#<appId>` (the same items
//! `GET /app/language/{language}` lists, so its attribute names stay), each name held by an
//! `APPNAME#<lower name>` / `UNIQUE` item taken in the same transaction. The app secret is shown
//! once and stored only as a keyed hash; after a rotation the previous one works for 24 hours.

use crate::error::{Error, Result};
use crate::sessions::Session;
use crate::user::unique_key;
use crate::{random, Ciam, LostRace, Reason};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ciam_store::{Cond, Item, Key, Query, StoreError, TxOp, Update, Value};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use subtle::ConstantTimeEq;

mod urls;

/// The claims an app may ask for.
pub const SCOPES: [&str; 5] = ["avatar", "nickname", "company", "phone", "email"];
/// How long a rotated-out secret keeps working.
pub const PREVIOUS_SECRET_SECS: i64 = 24 * 60 * 60;
const MAX_URLS: usize = 20;
pub(crate) const SECRET_LABEL: &str = "app-secret";

/// The registry partition: `APPS` / `APP#<appId>` {appId, name_zh-CN, name_en-US, url,
/// recommended}. The partner-apps issue manages it; `me::seed_demo_app` fills it locally.
pub const APPS_PK: &str = "APPS";

pub fn app_key(app_id: &str) -> Key {
    Key::new(APPS_PK, format!("APP#{app_id}"))
}

fn name_key(name: &str) -> Key {
    unique_key(format!("APPNAME#{}", name.to_lowercase()))
}

/// The names of an app, one per language.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Names {
    #[serde(rename = "zh-CN")]
    pub zh_cn: String,
    #[serde(rename = "en-US")]
    pub en_us: String,
}

/// What an admin sends to create an app, already parsed into domain values.
#[derive(Clone, Debug, Default)]
pub struct AppFields {
    pub name: Option<Names>,
    pub description: Option<String>,
    pub logo: Option<String>,
    pub service_urls: Option<Vec<String>>,
    pub frame_origins: Option<Vec<String>>,
    pub scopes: Option<Vec<String>>,
    pub recommended: Option<bool>,
}

/// An app as its admin sees it (never its secret).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppDetail {
    pub app_id: String,
    pub name: Names,
    pub description: String,
    pub logo: String,
    pub service_urls: Vec<String>,
    pub frame_origins: Vec<String>,
    pub scopes: Vec<String>,
    pub recommended: bool,
    pub created_at: i64,
}

impl AppDetail {
    pub fn from_item(i: &Item) -> AppDetail {
        let s = |n: &str| i.s(n).unwrap_or_default().to_owned();
        AppDetail {
            app_id: s("appId"),
            name: Names {
                zh_cn: s("name_zh-CN"),
                en_us: s("name_en-US"),
            },
            description: s("description"),
            logo: s("logo"),
            service_urls: i.strings("serviceUrls"),
            frame_origins: i.strings("frameOrigins"),
            scopes: i.strings("scopes"),
            recommended: i.bool("recommended").unwrap_or(false),
            created_at: i.n("createdAt").unwrap_or(0),
        }
    }
}

/// An app's name in `lang`, falling back to the Chinese one when it has none in that language.
/// Works on registry items and on the recent-app items (`APPLOGIN#`) that copy their names.
pub fn localized_name(app: &Item, lang: crate::Lang) -> String {
    app.s(&format!("name_{}", lang.tag()))
        .filter(|n| !n.is_empty())
        .or_else(|| app.s("name_zh-CN"))
        .unwrap_or_default()
        .to_owned()
}

/// The registered service URLs of an app item.
pub fn service_urls(i: &Item) -> Vec<String> {
    i.strings("serviceUrls")
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

/// Whether `url` is exactly (string equality, no normalisation) one of the app's registered
/// service URLs, so no open redirect through look-alike URLs.
pub fn registers(app: &Item, url: &str) -> bool {
    service_urls(app).iter().any(|u| u == url)
}

/// The scopes of an app item.
pub fn scopes(i: &Item) -> Vec<String> {
    i.strings("scopes")
}

fn invalid(field: &'static str, zh: &'static str, en: &'static str) -> Error {
    Error::field(Reason::INVALID_PARAMETER, field, zh, en)
}

fn name(field: &'static str, raw: &str) -> Result<String> {
    crate::validate::required_text(field, raw, 64)
}

/// Checks each entry of a list; an entry's error names it as the JSON body's path does
/// (`serviceUrls[2]`), a list too long names the list.
fn check_list<T>(
    field: &'static str,
    raw: Vec<String>,
    one: impl Fn(Cow<'static, str>, &str) -> Result<T>,
) -> Result<Vec<T>> {
    if raw.len() > MAX_URLS {
        return Err(invalid(field, "数量过多", "Too many entries"));
    }
    raw.iter()
        .enumerate()
        .map(|(i, r)| one(format!("{field}[{i}]").into(), r))
        .collect()
}

/// Parses and checks the fields an admin sent; `creating` requires names and service URLs.
pub fn check(f: AppFields, creating: bool) -> Result<AppFields> {
    let names = match f.name {
        Some(n) => Some(Names {
            zh_cn: name("name.zh-CN", &n.zh_cn)?,
            en_us: name("name.en-US", &n.en_us)?,
        }),
        None if creating => return Err(invalid("name", "请填写应用名称", "Give the app's names")),
        None => None,
    };
    let service_urls = match f.service_urls {
        Some(v) => {
            let v = check_list("serviceUrls", v, urls::service_url)?;
            if v.is_empty() {
                return Err(invalid(
                    "serviceUrls",
                    "至少需要一个服务地址",
                    "Give at least one service URL",
                ));
            }
            Some(v)
        }
        None if creating => {
            return Err(invalid(
                "serviceUrls",
                "至少需要一个服务地址",
                "Give at least one service URL",
            ))
        }
        None => None,
    };
    let frame_origins = f
        .frame_origins
        .map(|v| check_list("frameOrigins", v, urls::origin))
        .transpose()?;
    let scopes = f
        .scopes
        .map(|v| {
            check_list("scopes", v, |field, s| {
                if SCOPES.contains(&s) {
                    Ok(s.to_owned())
                } else {
                    Err(Error {
                        field: Some(field.clone()),
                        ..invalid("scopes", "未知的授权范围", "Unknown scope")
                            .raw_message(format!("{field}: {s} is not one of {}", SCOPES.join(",")))
                    })
                }
            })
        })
        .transpose()?
        .map(|mut v| {
            v.sort();
            v.dedup();
            v
        });
    let description = f
        .description
        .map(|d| crate::validate::prose("description", &d, 500))
        .transpose()?;
    let logo = match f.logo {
        Some(l) if !l.is_empty() => Some(urls::web_url("logo".into(), &l)?.to_string()),
        l => l,
    };
    Ok(AppFields {
        name: names,
        description,
        logo,
        service_urls,
        frame_origins,
        scopes,
        recommended: f.recommended,
    })
}

/// Only admins manage the registry.
pub fn require_admin(s: &Session) -> Result<()> {
    if s.user.is_admin() {
        Ok(())
    } else {
        Err(Reason::PERMISSION_DENIED.into())
    }
}

fn new_secret(ciam: &Ciam) -> (String, String) {
    let secret = URL_SAFE_NO_PAD.encode(random::<32>(ciam.entropy.as_ref()));
    let hash = ciam.keys.keyed_hash(SECRET_LABEL, secret.as_bytes());
    (secret, hash)
}

/// Whether `presented` is the app's secret, or its previous one within 24 hours of a rotation.
/// Every comparison always runs, in constant time. During a root key rotation's overlap the
/// hash under the previous root is accepted too, and a match that only it finds writes the hash
/// under the current root back (1 conditional write, once per app and hash), so an app in use
/// keeps working once the previous root is removed.
pub async fn secret_matches(ciam: &Ciam, app: &Item, presented: &str) -> bool {
    let hash = |keys: &crate::Keys| keys.keyed_hash(SECRET_LABEL, presented.as_bytes());
    let current = hash(&ciam.keys);
    let eq = |name: &str, h: &str| -> subtle::Choice {
        app.s(name)
            .map(|stored| stored.as_bytes().ct_eq(h.as_bytes()))
            .unwrap_or_else(|| subtle::Choice::from(0))
    };
    let previous_live = subtle::Choice::from(u8::from(
        app.n("prevSecretUntil").is_some_and(|t| t > ciam.now()),
    ));
    let now_ok = eq("secretHash", &current) | (eq("prevSecretHash", &current) & previous_live);
    let Some(old) = ciam.keys.previous().map(hash) else {
        return bool::from(now_ok);
    };
    let under_old = [
        ("secretHash", eq("secretHash", &old)),
        ("prevSecretHash", eq("prevSecretHash", &old) & previous_live),
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
        .update(&app.key, ops, Some(Cond::eq(name, old.as_str())))
        .await
    {
        tracing::warn!(cause = %cause, "apps: could not rehash a secret under the current root");
    }
    true
}

fn name_keys(n: &Names) -> Vec<Key> {
    let mut keys = vec![name_key(&n.zh_cn), name_key(&n.en_us)];
    keys.dedup();
    keys
}

fn name_taken(e: &StoreError, first_name_op: usize) -> bool {
    matches!(e, StoreError::TxCanceled(r) if r.get(first_name_op..).is_some_and(|rest| rest.contains(&ciam_store::CancelReason::ConditionFailed)))
}

/// An app and its secret, shown this once.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WithSecret {
    pub app: AppDetail,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_secret: Option<String>,
}

/// `POST /app`. Round trips: 1 transaction (the app and its name items).
pub async fn create(ciam: &Ciam, s: &Session, f: AppFields) -> Result<WithSecret> {
    require_admin(s)?;
    let f = check(f, true)?;
    let (Some(names), Some(urls)) = (f.name, f.service_urls) else {
        return Err(Error::internal("checked fields missing"));
    };
    let app_id = hex::encode(random::<8>(ciam.entropy.as_ref()));
    let (secret, hash) = new_secret(ciam);
    let item = Item::new(app_key(&app_id))
        .with("appId", app_id.as_str())
        .with("name_zh-CN", names.zh_cn.as_str())
        .with("name_en-US", names.en_us.as_str())
        .with("url", urls[0].as_str())
        .with("recommended", f.recommended.unwrap_or(false))
        .with("description", f.description.unwrap_or_default())
        .with("logo", f.logo.unwrap_or_default())
        .with("serviceUrls", Value::strings(&urls))
        .with(
            "frameOrigins",
            Value::strings(f.frame_origins.unwrap_or_default()),
        )
        .with("scopes", Value::strings(f.scopes.unwrap_or_default()))
        .with("secretHash", hash)
        .with("createdAt", ciam.now());
    let mut tx = vec![TxOp::Put {
        item: item.clone(),
        cond: Some(Cond::NotExists),
    }];
    for k in name_keys(&names) {
        tx.push(TxOp::Put {
            item: Item::new(k).with("appId", app_id.as_str()),
            cond: Some(Cond::NotExists),
        });
    }
    match ciam.store.transact(tx).await {
        Err(e) if name_taken(&e, 1) => return Err(Reason::APPNAME_EXIST.into()),
        other => other.or_reason(Reason::SERVICE_UNAVAILABLE)?,
    }
    Ok(WithSecret {
        app: AppDetail::from_item(&item),
        app_secret: Some(secret),
    })
}

/// `GET /app`. Round trips: 1.
pub async fn list_all(ciam: &Ciam, s: &Session) -> Result<Vec<AppDetail>> {
    require_admin(s)?;
    let items = ciam
        .store
        .query(Query::partition(APPS_PK).prefix("APP#"))
        .await?;
    Ok(items.iter().map(AppDetail::from_item).collect())
}

/// One app item, or APPID_NOT_FOUND. Round trips: 1.
pub async fn find(ciam: &Ciam, app_id: &str) -> Result<Item> {
    if app_id.is_empty() || app_id.len() > 64 {
        return Err(Reason::APPID_NOT_FOUND.into());
    }
    ciam.store
        .get(&app_key(app_id))
        .await?
        .ok_or_else(|| Reason::APPID_NOT_FOUND.into())
}

/// `GET /app/{appId}`. Round trips: 1.
pub async fn get(ciam: &Ciam, s: &Session, app_id: &str) -> Result<AppDetail> {
    require_admin(s)?;
    Ok(AppDetail::from_item(&find(ciam, app_id).await?))
}

/// `PATCH /app/{appId}`: changes the given fields; `rotate` issues a new secret (shown once) and
/// keeps the previous one working for 24 hours. Round trips: 1 read, 1 write or transaction,
/// 1 read of the result.
pub async fn update(
    ciam: &Ciam,
    s: &Session,
    app_id: &str,
    f: AppFields,
    rotate: bool,
) -> Result<WithSecret> {
    require_admin(s)?;
    let f = check(f, false)?;
    let current = find(ciam, app_id).await?;
    let mut ops = Vec::new();
    let mut name_ops = Vec::new();
    if let Some(n) = &f.name {
        ops.push(Update::Set("name_zh-CN".into(), n.zh_cn.as_str().into()));
        ops.push(Update::Set("name_en-US".into(), n.en_us.as_str().into()));
        let old = name_keys(&AppDetail::from_item(&current).name);
        let new = name_keys(n);
        for k in old.iter().filter(|k| !new.contains(k)) {
            name_ops.push(TxOp::Delete {
                key: k.clone(),
                cond: Some(Cond::eq("appId", app_id)),
            });
        }
        for k in new.iter().filter(|k| !old.contains(k)) {
            name_ops.push(TxOp::Put {
                item: Item::new(k.clone()).with("appId", app_id),
                cond: Some(Cond::NotExists),
            });
        }
    }
    if let Some(urls) = &f.service_urls {
        ops.push(Update::Set("serviceUrls".into(), Value::strings(urls)));
        ops.push(Update::Set("url".into(), urls[0].as_str().into()));
    }
    if let Some(v) = &f.frame_origins {
        ops.push(Update::Set("frameOrigins".into(), Value::strings(v)));
    }
    if let Some(v) = &f.scopes {
        ops.push(Update::Set("scopes".into(), Value::strings(v)));
    }
    if let Some(v) = f.description {
        ops.push(Update::Set("description".into(), v.into()));
    }
    if let Some(v) = f.logo {
        ops.push(Update::Set("logo".into(), v.into()));
    }
    if let Some(v) = f.recommended {
        ops.push(Update::Set("recommended".into(), v.into()));
    }
    let mut secret = None;
    if rotate {
        let (plain, hash) = new_secret(ciam);
        ops.push(Update::Set("secretHash".into(), hash.into()));
        if let Some(old) = current.s("secretHash") {
            ops.push(Update::Set("prevSecretHash".into(), old.into()));
            ops.push(Update::Set(
                "prevSecretUntil".into(),
                (ciam.now() + PREVIOUS_SECRET_SECS).into(),
            ));
        }
        secret = Some(plain);
    }
    if ops.is_empty() {
        return Ok(WithSecret {
            app: AppDetail::from_item(&current),
            app_secret: None,
        });
    }
    // The secret seen above must still be the current one, so two rotations cannot both win.
    let cond = match current.s("secretHash") {
        Some(h) => Cond::eq("secretHash", h),
        None => Cond::Exists,
    };
    let key = app_key(app_id);
    let result = if name_ops.is_empty() {
        ciam.store.update(&key, ops, Some(cond)).await.map(|_| ())
    } else {
        let mut tx = vec![TxOp::Update {
            key: key.clone(),
            ops,
            cond: Some(cond),
        }];
        tx.extend(name_ops);
        ciam.store.transact(tx).await
    };
    match result {
        Ok(()) => {}
        Err(e) if name_taken(&e, 1) => return Err(Reason::APPNAME_EXIST.into()),
        other => other.or_reason(Reason::SERVICE_UNAVAILABLE)?,
    }
    let item = find(ciam, app_id).await?;
    Ok(WithSecret {
        app: AppDetail::from_item(&item),
        app_secret: secret,
    })
}

/// `DELETE /app/{appId}`: the app and its name items. Round trips: 1 read, 1 transaction.
pub async fn delete(ciam: &Ciam, s: &Session, app_id: &str) -> Result<()> {
    require_admin(s)?;
    let current = find(ciam, app_id).await?;
    let mut tx = vec![TxOp::Delete {
        key: app_key(app_id),
        cond: Some(Cond::Exists),
    }];
    for k in name_keys(&AppDetail::from_item(&current).name) {
        tx.push(TxOp::Delete { key: k, cond: None });
    }
    match ciam.store.transact(tx).await {
        Ok(()) => Ok(()),
        Err(e) if e.condition_failed_at(0) => Err(Reason::APPID_NOT_FOUND.into()),
        other => other.or_reason(Reason::SERVICE_UNAVAILABLE),
    }
}

/// `ciam admin grant <mail>`: adds the admin role to the account with that mail; answers its
/// user id. Round trips: 3 (the mail's owner, the user, one conditional update).
pub async fn grant_admin(store: &dyn ciam_store::Store, mail: &str) -> Result<String> {
    let id = crate::validate::Identity::Mail(crate::validate::Email::parse(mail)?);
    let owner = store
        .get(&unique_key(id.unique_pk()))
        .await?
        .and_then(|i| i.s("userId").map(str::to_owned))
        .ok_or(Reason::MAIL_NOT_FOUND)?;
    let key = crate::user::profile_key(&owner);
    let user = store
        .get(&key)
        .await?
        .as_ref()
        .and_then(crate::user::User::from_item)
        .ok_or(Reason::MAIL_NOT_FOUND)?;
    if user.is_admin() {
        return Ok(owner);
    }
    let mut roles = user.roles.clone();
    roles.push(crate::user::ADMIN.to_owned());
    store
        .update(
            &key,
            vec![Update::Set("roles".into(), Value::strings(&roles))],
            Some(Cond::Exists),
        )
        .await?;
    Ok(owner)
}

/// The `frame-ancestors` value for the embedded sign-in of `app_id` framed for `service_url`:
/// the app's registered frame origins, space-separated, or `'none'` for an unknown app, one
/// without any, or a serviceUrl that is not exactly one of the app's registered ones (so a frame
/// that could post to an unregistered origin never renders). Read on every request (nothing
/// cached), so an admin's change applies to the next page load. Values that are not plain
/// origins (never stored by `check`) are left out, so the header cannot be widened or split.
/// Round trips: 1 (none for an id that cannot exist).
pub async fn frame_ancestors(ciam: &Ciam, app_id: &str, service_url: &str) -> Result<String> {
    let item = match find(ciam, app_id).await {
        Ok(item) => item,
        Err(e) if e.reason == Reason::APPID_NOT_FOUND => return Ok(NO_FRAMING.to_owned()),
        Err(e) => return Err(e),
    };
    if !registers(&item, service_url) {
        return Ok(NO_FRAMING.to_owned());
    }
    let plain = |o: &String| {
        !o.is_empty()
            && o.bytes().all(|b| {
                b.is_ascii_alphanumeric() || matches!(b, b':' | b'/' | b'.' | b'-' | b'[' | b']')
            })
    };
    let origins: Vec<String> = item
        .strings("frameOrigins")
        .into_iter()
        .filter(plain)
        .collect();
    Ok(if origins.is_empty() {
        NO_FRAMING.to_owned()
    } else {
        origins.join(" ")
    })
}

/// `frame-ancestors` for every page but the embedded sign-in.
pub const NO_FRAMING: &str = "'none'";

/// The `Content-Security-Policy` value for every page but the embedded sign-in.
pub const NO_FRAMING_CSP: &str = "frame-ancestors 'none'";

/// The `Content-Security-Policy` value for `ancestors` (from `frame_ancestors`), or
/// `NO_FRAMING_CSP` if it holds a byte a header value cannot carry.
pub fn frame_ancestors_csp(ancestors: &str) -> String {
    if ancestors
        .bytes()
        .all(|b| b == b'\t' || (b >= 0x20 && b != 0x7f))
    {
        format!("frame-ancestors {ancestors}")
    } else {
        NO_FRAMING_CSP.to_owned()
    }
}

/// The embedded sign-in page, the only page another site may frame:
/// `/{zh-CN|en-US}/embedded/signin` (a trailing slash allowed).
pub fn is_embedded_signin(path: &str) -> bool {
    matches!(
        path.trim_end_matches('/'),
        "/zh-CN/embedded/signin" | "/en-US/embedded/signin"
    )
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
pub fn check_service(app: &Item, service_url: &str) -> Result<()> {
    if registers(app, service_url) {
        Ok(())
    } else {
        Err(bad_service())
    }
}
