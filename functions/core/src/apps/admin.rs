//! The registry's writes, for the console's partner apps (`console::apps`: the gate, the reason
//! and the audit entry, which each write here takes into its transaction).

use super::fields::{check, check_notice_scheme, AppFields};
use super::{app_key, find, App, AppDetail, Names, SECRET_LABEL};
use crate::error::{Error, Result};
use crate::user::unique_key;
use crate::{random, Ciam, LostRace, Reason};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ciam_store::{Cond, Item, Key, StoreError, TxOp, Update, Value};
use serde::Serialize;

fn name_key(name: &str) -> Key {
    unique_key(format!("APPNAME#{}", name.to_lowercase()))
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
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "openapi",
    schemars(rename = "AppWithSecret", transform = secret_required)
)]
#[serde(rename_all = "camelCase")]
pub struct WithSecret {
    pub app: AppDetail,
    /// 256 random bits, base64url; shown only here.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schemars(with = "String"))]
    pub app_secret: Option<String>,
}

/// The routes answering a [`WithSecret`] (a creation, a rotation) always have the secret; only
/// `apply`'s change without a secret leaves it out, and no route answers that one.
#[cfg(feature = "openapi")]
fn secret_required(schema: &mut schemars::Schema) {
    if let Some(serde_json::Value::Array(required)) = schema.get_mut("required") {
        required.push("appSecret".into());
    }
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
        organization: f.organization.unwrap_or_default(),
        owner_mail: f.owner_mail.unwrap_or_default(),
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
    if let Some(v) = f.owner_mail {
        differs("ownerMail", v == current.owner_mail);
        ops.push(if v.is_empty() {
            Update::Remove("ownerMail".into())
        } else {
            Update::Set("ownerMail".into(), v.into())
        });
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
    if let Some(v) = f.organization {
        differs("organization", v == current.organization);
        ops.push(Update::Set("organization".into(), v.as_str().into()));
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
