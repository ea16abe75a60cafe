//! The registry's management (`/app` routes, admins only; roles are `console::roles`).

use super::{
    app_key, find, urls, App, AppDetail, Names, APPS_PK, PREVIOUS_SECRET_SECS, SCOPES, SECRET_LABEL,
};
use crate::error::{Error, Result};
use crate::sessions::Session;
use crate::user::unique_key;
use crate::{random, Ciam, LostRace, Reason};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ciam_store::{Cond, Item, Key, Query, StoreError, TxOp, Update, Value};
use serde::Serialize;
use std::borrow::Cow;

const MAX_URLS: usize = 20;

fn name_key(name: &str) -> Key {
    unique_key(format!("APPNAME#{}", name.to_lowercase()))
}

/// What an admin sends to create an app, already parsed into domain values.
#[derive(Clone, Debug, Default)]
pub struct AppFields {
    pub name: Option<Names>,
    pub description: Option<String>,
    pub logo: Option<String>,
    /// https only: a policy page the consent screen links to.
    pub privacy_url: Option<String>,
    pub service_urls: Option<Vec<String>>,
    pub frame_origins: Option<Vec<String>>,
    pub post_logout_redirect_uris: Option<Vec<String>>,
    /// Empty: none.
    pub backchannel_logout_uri: Option<String>,
    /// Empty: none.
    pub logout_url: Option<String>,
    pub scopes: Option<Vec<String>>,
    pub recommended: Option<bool>,
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
    let post_logout_redirect_uris = f
        .post_logout_redirect_uris
        .map(|v| check_list("postLogoutRedirectUris", v, urls::service_url))
        .transpose()?;
    let backchannel_logout_uri = f
        .backchannel_logout_uri
        .map(|u| urls::notice_url("backchannelLogoutUri", u))
        .transpose()?;
    let logout_url = f
        .logout_url
        .map(|u| urls::notice_url("logoutUrl", u))
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
    let privacy_url = match f.privacy_url {
        Some(p) if !p.is_empty() => {
            let u = urls::web_url("privacyUrl".into(), &p)?;
            if u.scheme() != "https" {
                return Err(invalid(
                    "privacyUrl",
                    "隐私政策地址必须使用 https",
                    "The privacy policy URL must use https",
                ));
            }
            Some(u.to_string())
        }
        p => p,
    };
    Ok(AppFields {
        name: names,
        description,
        logo,
        privacy_url,
        service_urls,
        frame_origins,
        post_logout_redirect_uris,
        backchannel_logout_uri,
        logout_url,
        scopes,
        recommended: f.recommended,
    })
}

/// Refuses (INVALID_PARAMETER) a server-to-server notice URL over http (`http://localhost`,
/// which `check` lets through) unless this deployment serves local http itself
/// (`urls::local_http_allowed`): in production the back-channel is https only.
fn check_notice_scheme(ciam: &Ciam, f: &AppFields) -> Result<()> {
    let fields = [
        ("backchannelLogoutUri", &f.backchannel_logout_uri),
        ("logoutUrl", &f.logout_url),
    ];
    for (field, v) in fields {
        if v.as_deref().is_some_and(|u| u.starts_with("http:")) && !urls::local_http_allowed(ciam) {
            return Err(invalid(
                field,
                "请使用 https 地址",
                "Use an https URL (http://localhost only when Ciam itself serves local http)",
            ));
        }
    }
    Ok(())
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

fn name_keys(n: &Names) -> Vec<Key> {
    let mut keys = vec![name_key(&n.zh_cn), name_key(&n.en_us)];
    keys.dedup();
    keys
}

/// Whether the transaction failed on one of the name items at `names` (a name taken).
fn name_taken(e: &StoreError, names: std::ops::Range<usize>) -> bool {
    matches!(e, StoreError::TxCanceled(r) if r.get(names).is_some_and(|rest| rest.contains(&ciam_store::CancelReason::ConditionFailed)))
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
    create_app(ciam, f, |_| None).await
}

/// Registers an app from unchecked fields; `extra(app id)` may add one write to the same
/// transaction (the console's audit entry). Round trips: 1 transaction.
pub(crate) async fn create_app(
    ciam: &Ciam,
    f: AppFields,
    extra: impl FnOnce(&str) -> Option<TxOp>,
) -> Result<WithSecret> {
    let f = check(f, true)?;
    check_notice_scheme(ciam, &f)?;
    let (Some(names), Some(urls)) = (f.name, f.service_urls) else {
        return Err(Error::internal("checked fields missing"));
    };
    let app_id = hex::encode(random::<8>(ciam.entropy.as_ref()));
    let (secret, hash) = new_secret(ciam);
    let app = App {
        app_id: app_id.clone(),
        name: names.clone(),
        url: urls[0].clone(),
        recommended: f.recommended.unwrap_or(false),
        description: f.description.unwrap_or_default(),
        logo: f.logo.unwrap_or_default(),
        privacy_url: f.privacy_url.unwrap_or_default(),
        service_urls: urls,
        frame_origins: f.frame_origins.unwrap_or_default(),
        post_logout_redirect_uris: f.post_logout_redirect_uris.unwrap_or_default(),
        backchannel_logout_uri: f.backchannel_logout_uri.unwrap_or_default(),
        logout_url: f.logout_url.unwrap_or_default(),
        scopes: f.scopes.unwrap_or_default(),
        secret_hash: Some(hash),
        prev_secret_hash: None,
        prev_secret_until: None,
        secret_rotated_at: None,
        created_at: ciam.now(),
    };
    let mut tx = vec![TxOp::Put {
        item: app.to_item(),
        cond: Some(Cond::NotExists),
    }];
    let names_at = 1..1 + name_keys(&names).len();
    for k in name_keys(&names) {
        tx.push(TxOp::Put {
            item: Item::new(k).with("appId", app_id.as_str()),
            cond: Some(Cond::NotExists),
        });
    }
    tx.extend(extra(&app_id));
    match ciam.store.transact(tx).await {
        Err(e) if name_taken(&e, names_at) => return Err(Reason::APPNAME_EXIST.into()),
        other => other.or_reason(Reason::SERVICE_UNAVAILABLE)?,
    }
    Ok(WithSecret {
        app: app.detail(ciam.now()),
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
    Ok(items
        .iter()
        .map(|i| App::from_item(i).detail(ciam.now()))
        .collect())
}

/// `GET /app/{appId}`. Round trips: 1.
pub async fn get(ciam: &Ciam, s: &Session, app_id: &str) -> Result<AppDetail> {
    require_admin(s)?;
    Ok(find(ciam, app_id).await?.detail(ciam.now()))
}

/// `PATCH /app/{appId}`: changes the given fields; `rotate` issues a new secret (shown once) and
/// keeps the previous one working for [`PREVIOUS_SECRET_SECS`]. Round trips: 1 read, 1 write or
/// transaction, 1 read of the result.
pub async fn update(
    ciam: &Ciam,
    s: &Session,
    app_id: &str,
    f: AppFields,
    rotate: bool,
) -> Result<WithSecret> {
    require_admin(s)?;
    let f = check(f, false)?;
    let until = rotate.then(|| ciam.now() + PREVIOUS_SECRET_SECS);
    let change = plan(ciam, app_id, f, until).await?;
    apply(ciam, change, None).await
}

/// A change of an app, planned from its current item: the updates, the name items' writes, the
/// fields that differ from the current values and the new secret (when rotating).
pub(crate) struct Change {
    pub current: App,
    ops: Vec<Update>,
    name_ops: Vec<TxOp>,
    /// The names of the fields whose value changes (`name`, `serviceUrls`, `secret`, ...).
    pub changed: Vec<&'static str>,
    secret: Option<String>,
}

/// Plans the change of `app_id` by checked fields `f`; `rotate_until`: a new secret, the current
/// one staying valid until then (a rotation during an overlap makes the current one the previous
/// one and ends the older one at once). Round trips: 1 read.
pub(crate) async fn plan(
    ciam: &Ciam,
    app_id: &str,
    f: AppFields,
    rotate_until: Option<i64>,
) -> Result<Change> {
    check_notice_scheme(ciam, &f)?;
    let current = find(ciam, app_id).await?;
    let mut ops = Vec::new();
    let mut name_ops = Vec::new();
    let mut changed = Vec::new();
    let mut differs = |name: &'static str, same: bool| {
        if !same {
            changed.push(name);
        }
    };
    if let Some(n) = &f.name {
        differs("name", *n == current.name);
        ops.push(Update::Set("name_zh-CN".into(), n.zh_cn.as_str().into()));
        ops.push(Update::Set("name_en-US".into(), n.en_us.as_str().into()));
        let old = name_keys(&current.name);
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
    if let Some(v) = f.description {
        differs("description", v == current.description);
        ops.push(Update::Set("description".into(), v.into()));
    }
    if let Some(v) = f.logo {
        differs("logo", v == current.logo);
        ops.push(Update::Set("logo".into(), v.into()));
    }
    if let Some(v) = f.privacy_url {
        differs("privacyUrl", v == current.privacy_url);
        ops.push(Update::Set("privacyUrl".into(), v.into()));
    }
    if let Some(urls) = &f.service_urls {
        differs("serviceUrls", *urls == current.service_urls);
        ops.push(Update::Set("serviceUrls".into(), Value::strings(urls)));
        ops.push(Update::Set("url".into(), urls[0].as_str().into()));
    }
    if let Some(v) = &f.frame_origins {
        differs("frameOrigins", *v == current.frame_origins);
        ops.push(Update::Set("frameOrigins".into(), Value::strings(v)));
    }
    if let Some(v) = &f.post_logout_redirect_uris {
        differs(
            "postLogoutRedirectUris",
            *v == current.post_logout_redirect_uris,
        );
        ops.push(Update::Set(
            "postLogoutRedirectUris".into(),
            Value::strings(v),
        ));
    }
    if let Some(v) = f.backchannel_logout_uri {
        differs("backchannelLogoutUri", v == current.backchannel_logout_uri);
        ops.push(Update::Set("backchannelLogoutUri".into(), v.into()));
    }
    if let Some(v) = f.logout_url {
        differs("logoutUrl", v == current.logout_url);
        ops.push(Update::Set("logoutUrl".into(), v.into()));
    }
    if let Some(v) = &f.scopes {
        differs("scopes", *v == current.scopes);
        ops.push(Update::Set("scopes".into(), Value::strings(v)));
    }
    if let Some(v) = f.recommended {
        differs("recommended", v == current.recommended);
        ops.push(Update::Set("recommended".into(), v.into()));
    }
    let mut secret = None;
    if let Some(until) = rotate_until {
        changed.push("secret");
        let (plain, hash) = new_secret(ciam);
        ops.push(Update::Set("secretHash".into(), hash.into()));
        ops.push(Update::Set("secretRotatedAt".into(), ciam.now().into()));
        if let Some(old) = current.secret_hash.as_deref() {
            ops.push(Update::Set("prevSecretHash".into(), old.into()));
            ops.push(Update::Set("prevSecretUntil".into(), until.into()));
        }
        secret = Some(plain);
    }
    Ok(Change {
        current,
        ops,
        name_ops,
        changed,
        secret,
    })
}

/// Writes a planned change; `extra` (the console's audit entry) goes into the same transaction.
/// Without a change nothing is written (and `extra` neither). Round trips: 1 write or
/// transaction, 1 read of the result.
pub(crate) async fn apply(ciam: &Ciam, c: Change, extra: Option<TxOp>) -> Result<WithSecret> {
    if c.ops.is_empty() {
        return Ok(WithSecret {
            app: c.current.detail(ciam.now()),
            app_secret: None,
        });
    }
    let app_id = c.current.app_id.as_str();
    // The secret seen above must still be the current one, so two rotations cannot both win.
    let cond = match c.current.secret_hash.as_deref() {
        Some(h) => Cond::eq("secretHash", h),
        None => Cond::Exists,
    };
    let key = app_key(app_id);
    let names_at = 1..1 + c.name_ops.len();
    let result = if c.name_ops.is_empty() && extra.is_none() {
        // With a token: a rotation sent again after a lost answer is recognised as its own,
        // not refused because the secret it replaced is gone (`once`).
        match crate::once::update(ciam, &key, c.ops, Some(cond)).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(_)) => Err(ciam_store::StoreError::ConditionFailed),
            Err(e) => Err(e),
        }
    } else {
        let mut tx = vec![TxOp::Update {
            key: key.clone(),
            ops: c.ops,
            cond: Some(cond),
        }];
        tx.extend(c.name_ops);
        tx.extend(extra);
        ciam.store.transact(tx).await
    };
    match result {
        Ok(()) => {}
        Err(e) if name_taken(&e, names_at) => return Err(Reason::APPNAME_EXIST.into()),
        other => other.or_reason(Reason::SERVICE_UNAVAILABLE)?,
    }
    Ok(WithSecret {
        app: find(ciam, app_id).await?.detail(ciam.now()),
        app_secret: c.secret,
    })
}

/// `DELETE /app/{appId}`: the app and its name items. Round trips: 1 read, 1 transaction.
pub async fn delete(ciam: &Ciam, s: &Session, app_id: &str) -> Result<()> {
    require_admin(s)?;
    delete_app(ciam, app_id, None).await
}

/// Deletes the app and its name items; `extra` (the console's audit entry) in the same
/// transaction. Round trips: 1 read, 1 transaction.
pub(crate) async fn delete_app(ciam: &Ciam, app_id: &str, extra: Option<TxOp>) -> Result<()> {
    let current = find(ciam, app_id).await?;
    let mut tx = vec![TxOp::Delete {
        key: app_key(app_id),
        cond: Some(Cond::Exists),
    }];
    for k in name_keys(&current.name) {
        tx.push(TxOp::Delete { key: k, cond: None });
    }
    tx.extend(extra);
    match ciam.store.transact(tx).await {
        Ok(()) => Ok(()),
        Err(e) if e.condition_failed_at(0) => Err(Reason::APPID_NOT_FOUND.into()),
        other => other.or_reason(Reason::SERVICE_UNAVAILABLE),
    }
}
